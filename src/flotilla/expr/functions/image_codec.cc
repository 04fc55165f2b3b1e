#include "flotilla/expr/functions/image_codec.h"

#include <png.h>
#include <turbojpeg.h>
#include <webp/decode.h>
#include <webp/encode.h>

#include <memory>

namespace flotilla::expr::functions {
namespace {

enum class Format { kJpeg, kPng, kWebp, kUnknown };

Format Sniff(std::string_view b) {
  if (b.size() >= 3 && b.substr(0, 3) == "\xFF\xD8\xFF") return Format::kJpeg;
  if (b.size() >= 8 && b.substr(0, 8) == "\x89PNG\r\n\x1A\n") return Format::kPng;
  if (b.size() >= 12 && b.substr(0, 4) == "RIFF" && b.substr(8, 4) == "WEBP") return Format::kWebp;
  return Format::kUnknown;
}

Status CheckSize(int64_t width, int64_t height) {
  if (width <= 0 || height <= 0) return Status::Invalid("the image has no pixels");
  if (width * height > kMaxImagePixels) {
    return Status::Invalid("the image is " + std::to_string(width) + " x " +
                           std::to_string(height) + " pixels, more than the limit of " +
                           std::to_string(kMaxImagePixels));
  }
  return Status::OK();
}

struct TjDeleter {
  void operator()(void* handle) const { tjDestroy(handle); }
};
using TjHandle = std::unique_ptr<void, TjDeleter>;

Result<DecodedImage> DecodeJpeg(std::string_view bytes, int32_t channels) {
  TjHandle handle(tjInitDecompress());
  if (!handle) return Status::OutOfMemory("cannot start JPEG decompression");
  auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle.get(), data, bytes.size(), &width, &height, &subsampling,
                          &colorspace) != 0) {
    return Status::Invalid(std::string("corrupt JPEG: ") + tjGetErrorStr2(handle.get()));
  }
  FLOTILLA_RETURN_NOT_OK(CheckSize(width, height));
  const bool grey = channels == 1 || channels == 2 || (channels == 0 && colorspace == TJCS_GRAY);
  DecodedImage out{width, height, grey ? 1 : 3, {}};
  out.pixels.resize(static_cast<size_t>(width) * height * out.channels);
  if (tjDecompress2(handle.get(), data, bytes.size(),
                    reinterpret_cast<unsigned char*>(out.pixels.data()), width, 0, height,
                    grey ? TJPF_GRAY : TJPF_RGB, 0) != 0 &&
      tjGetErrorCode(handle.get()) == TJERR_FATAL) {
    return Status::Invalid(std::string("corrupt JPEG: ") + tjGetErrorStr2(handle.get()));
  }
  return out;
}

Result<DecodedImage> DecodePng(std::string_view bytes, int32_t channels) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()) == 0) {
    return Status::Invalid(std::string("corrupt PNG: ") + image.message);
  }
  const Status size = CheckSize(image.width, image.height);
  if (!size.ok()) {
    png_image_free(&image);
    return size;
  }
  const int32_t stored = static_cast<int32_t>(PNG_IMAGE_SAMPLE_CHANNELS(image.format));
  const int32_t want = channels == 0 ? stored : channels;
  static const png_uint_32 kFormats[] = {0, PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB,
                                         PNG_FORMAT_RGBA};
  image.format = kFormats[want];
  DecodedImage out{static_cast<int32_t>(image.width), static_cast<int32_t>(image.height), want, {}};
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr) == 0) {
    return Status::Invalid(std::string("corrupt PNG: ") + image.message);
  }
  return out;
}

Result<DecodedImage> DecodeWebp(std::string_view bytes, int32_t channels) {
  auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(data, bytes.size(), &features) != VP8_STATUS_OK) {
    return Status::Invalid("corrupt WebP: the header cannot be read");
  }
  FLOTILLA_RETURN_NOT_OK(CheckSize(features.width, features.height));
  const bool alpha = channels == 0 ? features.has_alpha != 0 : channels == 2 || channels == 4;
  DecodedImage out{features.width, features.height, alpha ? 4 : 3, {}};
  out.pixels.resize(static_cast<size_t>(out.width) * out.height * out.channels);
  auto* pixels = reinterpret_cast<uint8_t*>(out.pixels.data());
  const int stride = out.width * out.channels;
  const uint8_t* done =
      alpha ? WebPDecodeRGBAInto(data, bytes.size(), pixels, out.pixels.size(), stride)
            : WebPDecodeRGBInto(data, bytes.size(), pixels, out.pixels.size(), stride);
  if (done == nullptr) return Status::Invalid("corrupt WebP: the image data cannot be decoded");
  return out;
}

}  // namespace

std::string ConvertChannels(const ImageView& image, int32_t channels) {
  const int32_t from = image.channels;
  if (from == channels) return std::string(image.pixels);
  const size_t n = static_cast<size_t>(image.width) * image.height;
  std::string out(n * channels, '\0');
  const auto* in = reinterpret_cast<const uint8_t*>(image.pixels.data());
  auto* o = reinterpret_cast<uint8_t*>(out.data());
  for (size_t p = 0; p < n; ++p) {
    const uint8_t* px = in + p * from;
    uint8_t r, g, b, a = 255;
    if (from <= 2) {
      r = g = b = px[0];
      if (from == 2) a = px[1];
    } else {
      r = px[0];
      g = px[1];
      b = px[2];
      if (from == 4) a = px[3];
    }
    uint8_t* q = o + p * channels;
    if (channels <= 2) {
      // ITU-R 601-2 luma in 16-bit fixed point, rounded.
      q[0] =
          from <= 2 ? r : static_cast<uint8_t>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
      if (channels == 2) q[1] = a;
    } else {
      q[0] = r;
      q[1] = g;
      q[2] = b;
      if (channels == 4) q[3] = a;
    }
  }
  return out;
}

Result<DecodedImage> DecodeImage(std::string_view bytes, int32_t channels) {
  Result<DecodedImage> decoded = Status::Invalid("");
  switch (Sniff(bytes)) {
    case Format::kJpeg:
      decoded = DecodeJpeg(bytes, channels);
      break;
    case Format::kPng:
      decoded = DecodePng(bytes, channels);
      break;
    case Format::kWebp:
      decoded = DecodeWebp(bytes, channels);
      break;
    case Format::kUnknown:
      return Status::Invalid("not a JPEG, PNG or WebP image (the first bytes are not one's)");
  }
  if (!decoded.ok() || channels == 0 || decoded->channels == channels) return decoded;
  const ImageView view{decoded->width, decoded->height, decoded->channels, decoded->pixels};
  decoded->pixels = ConvertChannels(view, channels);
  decoded->channels = channels;
  return decoded;
}

Result<std::string> EncodeImage(const ImageView& image, std::string_view format, int quality) {
  FLOTILLA_RETURN_NOT_OK(CheckSize(image.width, image.height));
  if (format == "png") {
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    png.width = static_cast<png_uint_32>(image.width);
    png.height = static_cast<png_uint_32>(image.height);
    static const png_uint_32 kFormats[] = {0, PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB,
                                           PNG_FORMAT_RGBA};
    png.format = kFormats[image.channels];
    png_alloc_size_t size = 0;
    if (png_image_write_to_memory(&png, nullptr, &size, 0, image.pixels.data(), 0, nullptr) == 0)
      return Status::Invalid(std::string("PNG encoding failed: ") + png.message);
    std::string out(size, '\0');
    if (png_image_write_to_memory(&png, out.data(), &size, 0, image.pixels.data(), 0, nullptr) ==
        0) {
      return Status::Invalid(std::string("PNG encoding failed: ") + png.message);
    }
    out.resize(size);
    return out;
  }
  if (quality < 1 || quality > 100)
    return Status::Invalid("image quality must be 1 to 100, got " + std::to_string(quality));
  if (format == "jpeg" || format == "jpg") {
    const bool grey = image.channels <= 2;
    const std::string pixels = image.channels == 1 || image.channels == 3
                                   ? std::string()
                                   : ConvertChannels(image, grey ? 1 : 3);
    const auto* src = reinterpret_cast<const unsigned char*>(pixels.empty() ? image.pixels.data()
                                                                            : pixels.data());
    TjHandle handle(tjInitCompress());
    if (!handle) return Status::OutOfMemory("cannot start JPEG compression");
    unsigned char* jpeg = nullptr;
    unsigned long size = 0;  // NOLINT: the library's type
    if (tjCompress2(handle.get(), src, image.width, 0, image.height, grey ? TJPF_GRAY : TJPF_RGB,
                    &jpeg, &size, grey ? TJSAMP_GRAY : TJSAMP_420, quality, 0) != 0) {
      tjFree(jpeg);
      return Status::Invalid(std::string("JPEG encoding failed: ") + tjGetErrorStr2(handle.get()));
    }
    std::string out(reinterpret_cast<const char*>(jpeg), size);
    tjFree(jpeg);
    return out;
  }
  if (format == "webp") {
    const bool alpha = image.channels == 2 || image.channels == 4;
    const std::string pixels = image.channels == 3 || image.channels == 4
                                   ? std::string(image.pixels)
                                   : ConvertChannels(image, alpha ? 4 : 3);
    const auto* src = reinterpret_cast<const uint8_t*>(pixels.data());
    uint8_t* webp = nullptr;
    const size_t size =
        alpha ? WebPEncodeRGBA(src, image.width, image.height, image.width * 4, quality, &webp)
              : WebPEncodeRGB(src, image.width, image.height, image.width * 3, quality, &webp);
    if (size == 0) return Status::Invalid("WebP encoding failed");
    std::string out(reinterpret_cast<const char*>(webp), size);
    WebPFree(webp);
    return out;
  }
  return Status::Invalid("unknown image format '" + std::string(format) +
                         "'; expected 'png', 'jpeg' or 'webp'");
}

}  // namespace flotilla::expr::functions
