#include "flotilla/tpch/columns.h"

namespace flotilla::tpch {

namespace {

Result<BufferPtr> CopyToBuffer(const void* bytes, int64_t size) {
  return Buffer::CopyOf(
      std::string_view(static_cast<const char*>(bytes), static_cast<size_t>(size)));
}

}  // namespace

Result<Array> FixedWidthArray(const TypePtr& type, const void* values, int64_t length,
                              int64_t width) {
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = length;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, CopyToBuffer(values, length * width));
  data->buffers = {nullptr, std::move(buffer)};
  return Array(std::move(data));
}

Result<Array> StringColumn::Finish() const {
  auto data = std::make_shared<ArrayData>();
  data->type = utf8();
  data->length = static_cast<int64_t>(offsets_.size()) - 1;
  FLOTILLA_ASSIGN_OR_RETURN(
      BufferPtr offsets,
      CopyToBuffer(offsets_.data(), static_cast<int64_t>(offsets_.size() * sizeof(int32_t))));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr chars, Buffer::CopyOf(chars_));
  data->buffers = {nullptr, std::move(offsets), std::move(chars)};
  return Array(std::move(data));
}

}  // namespace flotilla::tpch
