#pragma once
// Shared plumbing of the element-wise kernels (arithmetic, comparison, logic, cast): operands
// that broadcast, result validity, and typed output buffers. Internal to compute/.

#include <cstdint>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/buffer.h"

namespace flotilla::compute {

/// An operand of an element-wise kernel: an array of the kernel's length, or a one-row array
/// that stands for every row. `at(i)` maps a row to the position to read.
struct Operand {
  explicit Operand(const Array& a, int64_t length)
      : array(a), stride(a.length() == 1 && length != 1 ? 0 : 1) {}
  int64_t at(int64_t row) const { return row * stride; }
  bool IsValid(int64_t row) const { return array.IsValid(at(row)); }
  bool has_nulls() const { return array.null_count() > 0 || array.type_id() == TypeId::kNull; }

  const Array& array;
  int64_t stride;
};

/// Checks that every input has `length` rows or exactly one row.
Status CheckLengths(const std::vector<const Array*>& inputs, int64_t length);

/// A result bitmap that is the AND of the inputs' validity; `*bitmap` stays null (all valid)
/// when no input has a null. Writable so kernels can add nulls (integer division by zero).
Result<BufferPtr> IntersectValidity(const std::vector<Operand>& inputs, int64_t length,
                                    int64_t* null_count);

/// Clears bit `row` of `*validity`, allocating an all-valid bitmap first when it is null.
Status SetNull(BufferPtr* validity, int64_t row, int64_t length, int64_t* null_count);

/// An output values buffer for `length` values of `byte_width` bytes (zeroed).
Result<BufferPtr> AllocateValues(int64_t length, int64_t byte_width);
/// Like AllocateValues without zeroing the values, for kernels that write every slot (null
/// rows included, so that the output is deterministic); skips a memset the size of the output.
Result<BufferPtr> AllocateUninitializedValues(int64_t length, int64_t byte_width);
/// An output bitmap of `length` bits (zeroed).
Result<BufferPtr> AllocateBitmap(int64_t length);

/// Wraps fixed-width kernel output into an Array.
Array MakeFixedWidthArray(TypePtr type, int64_t length, BufferPtr validity, int64_t null_count,
                          BufferPtr values);

}  // namespace flotilla::compute
