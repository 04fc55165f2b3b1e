#pragma once
// Images as column values: struct<width: int32, height: int32, channels: int32, data: binary>,
// the pixels 8 bits per channel, row-major, channels interleaved (1 grey, 2 grey + alpha, 3 RGB,
// 4 RGBA). Every image function reads and builds this shape.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/datum.h"

namespace flotilla::expr::functions {

TypePtr ImageType();
bool IsImageType(const DataType& type);

struct ImageView {
  int32_t width = 0, height = 0, channels = 0;
  std::string_view pixels;
};

/// Row `row` of an image datum (not null). An error when the struct's fields disagree (pixels
/// that are not width x height x channels bytes): images built by hand can be wrong.
Result<ImageView> ImageAt(const Datum& images, int64_t row, std::string_view function);

/// Appends images to an image column.
class ImageBuilder {
 public:
  ImageBuilder();
  Status Append(int32_t width, int32_t height, int32_t channels, std::string_view pixels);
  Status AppendNull() { return builder_->AppendNull(); }
  ArrayBuilder* builder() { return builder_.get(); }

 private:
  std::unique_ptr<ArrayBuilder> builder_;
};

/// "L", "LA", "RGB", "RGBA" -> 1..4 channels; an error naming `function` otherwise.
Result<int32_t> ChannelsOfMode(std::string_view mode, std::string_view function);

}  // namespace flotilla::expr::functions
