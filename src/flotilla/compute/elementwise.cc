#include "flotilla/compute/elementwise.h"

#include <string>

namespace flotilla::compute {

Status CheckLengths(const std::vector<const Array*>& inputs, int64_t length) {
  for (const Array* a : inputs) {
    if (a->length() != length && a->length() != 1) {
      return Status::Invalid("element-wise kernel: input has " + std::to_string(a->length()) +
                             " rows, expected " + std::to_string(length) + " or 1");
    }
  }
  return Status::OK();
}

Result<BufferPtr> AllocateValues(int64_t length, int64_t byte_width) {
  return Buffer::AllocateZeroed(length * byte_width);
}

Result<BufferPtr> AllocateUninitializedValues(int64_t length, int64_t byte_width) {
  return Buffer::Allocate(length * byte_width);
}

Result<BufferPtr> AllocateBitmap(int64_t length) {
  return Buffer::AllocateZeroed(bit_util::BytesForBits(length));
}

Result<BufferPtr> IntersectValidity(const std::vector<Operand>& inputs, int64_t length,
                                    int64_t* null_count) {
  *null_count = 0;
  bool any_nulls = false;
  for (const Operand& op : inputs)
    any_nulls |= op.has_nulls();
  if (!any_nulls) return BufferPtr();
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bitmap, AllocateBitmap(length));
  uint8_t* bits = bitmap->mutable_data();
  for (int64_t i = 0; i < length; ++i) {
    bool valid = true;
    for (const Operand& op : inputs)
      valid = valid && op.IsValid(i);
    if (valid) {
      bit_util::SetBit(bits, i);
    } else {
      ++*null_count;
    }
  }
  return bitmap;
}

Status SetNull(BufferPtr* validity, int64_t row, int64_t length, int64_t* null_count) {
  if (*validity == nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(*validity, AllocateBitmap(length));
    bit_util::SetBitsTo((*validity)->mutable_data(), 0, length, true);
  }
  if (bit_util::GetBit((*validity)->data(), row)) {
    bit_util::ClearBit((*validity)->mutable_data(), row);
    ++*null_count;
  }
  return Status::OK();
}

Array MakeFixedWidthArray(TypePtr type, int64_t length, BufferPtr validity, int64_t null_count,
                          BufferPtr values) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = length;
  data->null_count = null_count;
  data->buffers = {null_count > 0 ? std::move(validity) : nullptr, std::move(values)};
  return Array(std::move(data));
}

}  // namespace flotilla::compute
