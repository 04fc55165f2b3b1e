// The image functions: image_decode, image_encode, image_resize, image_to_tensor (images are
// struct columns, image_type.h).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/image_codec.h"
#include "flotilla/expr/functions/image_type.h"

namespace flotilla::expr {
namespace functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

Status ExpectImage(std::string_view function, const Types& t) {
  if (!IsImageType(*t[0]) && t[0]->id() != TypeId::kNull)
    return ArgumentTypeError(function, 0, "an image (from image_decode)", t[0]);
  return Status::OK();
}

// --- image_decode(bytes [, mode [, on_error]]) ---------------------------------------------

Result<TypePtr> ResolveDecode(const Types& t) {
  if (!IsBinaryOrNull(*t[0])) return ArgumentTypeError("image_decode", 0, "a blob", t[0]);
  for (size_t i = 1; i < t.size(); ++i)
    FLOTILLA_RETURN_NOT_OK(ExpectString("image_decode", t, i));
  return ImageType();
}

Result<Datum> DecodeExec(const Args& args, int64_t num_rows) {
  ImageBuilder out;
  const int64_t n = OutputRows(args, num_rows);
  for (int64_t row = 0; row < n; ++row) {
    if (args[0].IsNull(row)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    int32_t channels = 0;
    if (args.size() > 1 && !args[1].IsNull(row) && !ViewAt(args[1], row).empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(channels, ChannelsOfMode(ViewAt(args[1], row), "image_decode"));
    }
    bool null_on_error = false;
    if (args.size() > 2 && !args[2].IsNull(row)) {
      const std::string_view on_error = ViewAt(args[2], row);
      if (on_error != "raise" && on_error != "null") {
        return Status::Invalid("image_decode(): on_error must be 'raise' or 'null', got '" +
                               std::string(on_error) + "'");
      }
      null_on_error = on_error == "null";
    }
    Result<DecodedImage> image = DecodeImage(ViewAt(args[0], row), channels);
    if (!image.ok()) {
      if (null_on_error) {
        FLOTILLA_RETURN_NOT_OK(out.AppendNull());
        continue;
      }
      return image.status().WithContext("image_decode(): row " + std::to_string(row));
    }
    FLOTILLA_RETURN_NOT_OK(out.Append(image->width, image->height, image->channels, image->pixels));
  }
  return FinishDatum(out.builder(), args);
}

// --- image_encode(image, format [, quality]) --------------------------------------------------

Result<TypePtr> ResolveEncode(const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectImage("image_encode", t));
  FLOTILLA_RETURN_NOT_OK(ExpectString("image_encode", t, 1));
  if (t.size() > 2) FLOTILLA_RETURN_NOT_OK(ExpectInteger("image_encode", t, 2));
  return binary();
}

Result<Datum> EncodeExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(binary());
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(ImageView image, ImageAt(args[0], row, "image_encode"));
    int64_t quality = 90;
    if (args.size() > 2) {
      FLOTILLA_ASSIGN_OR_RETURN(quality, IntegerAt(args[2], row, "image_encode"));
    }
    auto bytes = EncodeImage(image, ViewAt(args[1], row), static_cast<int>(quality));
    if (!bytes.ok())
      return bytes.status().WithContext("image_encode(): row " + std::to_string(row));
    return builder.Append(*bytes);
  });
}

// --- image_resize(image, width, height) -------------------------------------------------------

// Weights of a triangle (bilinear) filter for each output position of one axis, widened by the
// scale when shrinking so every input pixel contributes (antialiasing, as PIL's BILINEAR).
struct AxisWeights {
  std::vector<int32_t> first;  // first input index per output index
  std::vector<std::vector<double>> weights;
};

AxisWeights Weights(int32_t in, int32_t out) {
  AxisWeights w;
  const double scale = static_cast<double>(in) / out;
  const double support = std::max(1.0, scale);
  for (int32_t o = 0; o < out; ++o) {
    const double center = (o + 0.5) * scale;
    const int32_t lo = std::max(0, static_cast<int32_t>(std::floor(center - support + 0.5)));
    const int32_t hi = std::min(in, static_cast<int32_t>(std::floor(center + support + 0.5)));
    std::vector<double> ws;
    double total = 0;
    for (int32_t i = lo; i < hi; ++i) {
      const double x = std::abs((i + 0.5 - center) / support);
      const double v = x < 1 ? 1 - x : 0;
      ws.push_back(v);
      total += v;
    }
    for (double& v : ws)
      v = total > 0 ? v / total : 0;
    w.first.push_back(lo);
    w.weights.push_back(std::move(ws));
  }
  return w;
}

std::string Resize(const ImageView& image, int32_t width, int32_t height) {
  const int32_t c = image.channels;
  const auto* in = reinterpret_cast<const uint8_t*>(image.pixels.data());
  const AxisWeights wx = Weights(image.width, width), wy = Weights(image.height, height);
  // Horizontal pass into floats, then vertical, rounding once at the end.
  std::vector<float> rows(static_cast<size_t>(image.height) * width * c);
  for (int32_t y = 0; y < image.height; ++y) {
    for (int32_t x = 0; x < width; ++x) {
      for (int32_t k = 0; k < c; ++k) {
        double sum = 0;
        const auto& ws = wx.weights[x];
        for (size_t i = 0; i < ws.size(); ++i)
          sum += ws[i] * in[(static_cast<size_t>(y) * image.width + wx.first[x] + i) * c + k];
        rows[(static_cast<size_t>(y) * width + x) * c + k] = static_cast<float>(sum);
      }
    }
  }
  std::string out(static_cast<size_t>(width) * height * c, '\0');
  auto* o = reinterpret_cast<uint8_t*>(out.data());
  for (int32_t y = 0; y < height; ++y) {
    const auto& ws = wy.weights[y];
    for (int32_t x = 0; x < width; ++x) {
      for (int32_t k = 0; k < c; ++k) {
        double sum = 0;
        for (size_t i = 0; i < ws.size(); ++i)
          sum += ws[i] * rows[((wy.first[y] + i) * width + x) * c + k];
        o[(static_cast<size_t>(y) * width + x) * c + k] =
            static_cast<uint8_t>(std::clamp(std::lround(sum), 0L, 255L));
      }
    }
  }
  return out;
}

Result<TypePtr> ResolveResize(const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectImage("image_resize", t));
  FLOTILLA_RETURN_NOT_OK(ExpectInteger("image_resize", t, 1));
  FLOTILLA_RETURN_NOT_OK(ExpectInteger("image_resize", t, 2));
  return ImageType();
}

Result<Datum> ResizeExec(const Args& args, int64_t num_rows) {
  ImageBuilder out;
  return MapRows(args, num_rows, out.builder(), [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(ImageView image, ImageAt(args[0], row, "image_resize"));
    FLOTILLA_ASSIGN_OR_RETURN(int64_t width, IntegerAt(args[1], row, "image_resize"));
    FLOTILLA_ASSIGN_OR_RETURN(int64_t height, IntegerAt(args[2], row, "image_resize"));
    if (width < 1 || height < 1 || width * height > kMaxImagePixels) {
      return Status::Invalid("image_resize(): " + std::to_string(width) + " x " +
                             std::to_string(height) + " is not a size an image can have");
    }
    if (image.width == 0 || image.height == 0)
      return Status::Invalid("image_resize(): the image in row " + std::to_string(row) +
                             " has no pixels");
    return out.Append(static_cast<int32_t>(width), static_cast<int32_t>(height), image.channels,
                      Resize(image, static_cast<int32_t>(width), static_cast<int32_t>(height)));
  });
}

// --- image_to_tensor(image, height, width, channels) ------------------------------------------

Result<std::vector<int64_t>> TensorShape(const std::vector<Array>& literals) {
  static const char* kNames[] = {"image", "height", "width", "channels"};
  std::vector<int64_t> shape;
  for (size_t i = 1; i < 4; ++i) {
    if (i >= literals.size() || !literals[i].valid() || literals[i].IsNull(0)) {
      return Status::TypeError(std::string("image_to_tensor() needs ") + kNames[i] +
                               " as a non-null constant");
    }
    shape.push_back(IntegerBitsAt(literals[i], 0));
  }
  if (shape[0] < 1 || shape[1] < 1 || shape[2] < 1 || shape[2] > 4 ||
      shape[0] * shape[1] > kMaxImagePixels) {
    return Status::Invalid("image_to_tensor(): " + std::to_string(shape[0]) + " x " +
                           std::to_string(shape[1]) + " x " + std::to_string(shape[2]) +
                           " is not an image shape (channels 1 to 4)");
  }
  return shape;
}

Result<TypePtr> ResolveToTensor(const Types& t, const std::vector<Array>& literals) {
  FLOTILLA_RETURN_NOT_OK(ExpectImage("image_to_tensor", t));
  for (size_t i = 1; i < t.size(); ++i)
    FLOTILLA_RETURN_NOT_OK(ExpectInteger("image_to_tensor", t, i));
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<int64_t> shape, TensorShape(literals));
  return fixed_size_list(uint8(), static_cast<int32_t>(shape[0] * shape[1] * shape[2]));
}

Result<Datum> ToTensorExec(const Args& args, int64_t num_rows) {
  std::vector<Array> literals;
  for (const Datum& d : args)
    literals.push_back(d.array());
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<int64_t> shape, TensorShape(literals));
  const auto height = static_cast<int32_t>(shape[0]), width = static_cast<int32_t>(shape[1]),
             channels = static_cast<int32_t>(shape[2]);
  const int32_t size = height * width * channels;
  FixedSizeListBuilder builder(fixed_size_list(uint8(), size),
                               std::make_unique<UInt8Builder>(uint8()));
  auto* values = static_cast<UInt8Builder*>(builder.value_builder());
  const int64_t n = OutputRows(args, num_rows);
  for (int64_t row = 0; row < n; ++row) {
    if (args[0].IsNull(row)) {
      FLOTILLA_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(ImageView image, ImageAt(args[0], row, "image_to_tensor"));
    if (image.width != width || image.height != height) {
      return Status::Invalid("image_to_tensor(): the image in row " + std::to_string(row) + " is " +
                             std::to_string(image.width) + " x " + std::to_string(image.height) +
                             ", not the " + std::to_string(width) + " x " + std::to_string(height) +
                             " asked for (image_resize first)");
    }
    const std::string converted =
        image.channels == channels ? std::string() : ConvertChannels(image, channels);
    const std::string_view pixels = converted.empty() ? image.pixels : converted;
    FLOTILLA_RETURN_NOT_OK(builder.Append());
    FLOTILLA_RETURN_NOT_OK(
        values->AppendValues(reinterpret_cast<const uint8_t*>(pixels.data()), size));
  }
  return FinishDatum(&builder, args);
}

}  // namespace
}  // namespace functions

Status RegisterImageFunctions(FunctionRegistry* r) {
  using namespace functions;  // NOLINT
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"image_decode",
       "A JPEG, PNG or WebP file's pixels as an image struct (width, height, channels, data). "
       "mode 'L', 'LA', 'RGB' or 'RGBA' converts (default: as stored); on_error 'null' gives "
       "null for bytes that are not an image instead of an error naming the row.",
       1, 3, ResolveDecode, DecodeExec}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"image_encode",
              "An image as a 'png', 'jpeg' or 'webp' file (blob); quality 1-100 for the lossy "
              "formats (default 90).",
              2, 3, ResolveEncode, EncodeExec}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"image_resize",
              "The image resampled to width x height with a bilinear filter, antialiased when "
              "shrinking.",
              3, 3, ResolveResize, ResizeExec}));
  ScalarFunction to_tensor{"image_to_tensor",
                           "The image's pixels as fixed_size_list<uint8>[height * width * "
                           "channels] (row-major, channels interleaved); height, width and "
                           "channels are constants and every image must have that size (its "
                           "channels are converted).",
                           4, 4};
  to_tensor.resolve_with_literals = ResolveToTensor;
  to_tensor.exec = ToTensorExec;
  return r->Add(std::move(to_tensor));
}

}  // namespace flotilla::expr
