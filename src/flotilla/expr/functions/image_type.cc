#include "flotilla/expr/functions/image_type.h"

namespace flotilla::expr::functions {

TypePtr ImageType() {
  static const TypePtr type =
      struct_({{"width", int32()}, {"height", int32()}, {"channels", int32()}, {"data", binary()}});
  return type;
}

bool IsImageType(const DataType& type) {
  return type.Equals(*ImageType());
}

Result<ImageView> ImageAt(const Datum& images, int64_t row, std::string_view function) {
  const Array& a = images.array();
  const int64_t i = images.index(row);
  ImageView v;
  const Array width = a.field(0), height = a.field(1), channels = a.field(2), data = a.field(3);
  if (width.IsNull(i) || height.IsNull(i) || channels.IsNull(i) || data.IsNull(i)) {
    return Status::Invalid(std::string(function) + "(): the image in row " + std::to_string(row) +
                           " has a null field");
  }
  v.width = width.values<int32_t>()[i];
  v.height = height.values<int32_t>()[i];
  v.channels = channels.values<int32_t>()[i];
  v.pixels = data.GetView(i);
  if (v.width < 0 || v.height < 0 || v.channels < 1 || v.channels > 4 ||
      static_cast<uint64_t>(v.pixels.size()) != static_cast<uint64_t>(v.width) *
                                                    static_cast<uint64_t>(v.height) *
                                                    static_cast<uint64_t>(v.channels)) {
    return Status::Invalid(std::string(function) + "(): the image in row " + std::to_string(row) +
                           " is not width x height x channels bytes of pixels (" +
                           std::to_string(v.width) + " x " + std::to_string(v.height) + " x " +
                           std::to_string(v.channels) + ", " + std::to_string(v.pixels.size()) +
                           " bytes)");
  }
  return v;
}

ImageBuilder::ImageBuilder() : builder_(MakeBuilder(ImageType()).ValueOrDie()) {}

Status ImageBuilder::Append(int32_t width, int32_t height, int32_t channels,
                            std::string_view pixels) {
  auto* s = static_cast<StructBuilder*>(builder_.get());
  FLOTILLA_RETURN_NOT_OK(s->Append());
  FLOTILLA_RETURN_NOT_OK(static_cast<Int32Builder*>(s->field_builder(0))->Append(width));
  FLOTILLA_RETURN_NOT_OK(static_cast<Int32Builder*>(s->field_builder(1))->Append(height));
  FLOTILLA_RETURN_NOT_OK(static_cast<Int32Builder*>(s->field_builder(2))->Append(channels));
  return static_cast<StringBuilder*>(s->field_builder(3))->Append(pixels);
}

Result<int32_t> ChannelsOfMode(std::string_view mode, std::string_view function) {
  if (mode == "L") return 1;
  if (mode == "LA") return 2;
  if (mode == "RGB") return 3;
  if (mode == "RGBA") return 4;
  return Status::Invalid(std::string(function) + "(): unknown image mode '" + std::string(mode) +
                         "'; expected 'L', 'LA', 'RGB' or 'RGBA'");
}

}  // namespace flotilla::expr::functions
