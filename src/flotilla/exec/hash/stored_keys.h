#pragma once
// KeyTable::Keys() of the table layouts: arrays of the distinct keys rebuilt from the normalized
// values a table stores. Not part of the public contract.

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "flotilla/columnar/array.h"
#include "flotilla/common/memory_pool.h"
#include "flotilla/exec/hash/key_columns.h"

namespace flotilla::exec::key_table_internal {

// The validity bitmap of `n` rows where null_at(i) tells the nulls, and their count; none when
// no row can be null or none is.
template <typename NullAt>
Result<BufferPtr> BuildValidity(int64_t n, bool may_have_nulls, NullAt null_at, MemoryPool* pool,
                                int64_t* null_count) {
  *null_count = 0;
  if (!may_have_nulls) return BufferPtr();
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits,
                            Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (null_at(i)) {
      ++nulls;
    } else {
      bit_util::SetBit(bits->mutable_data(), i);
    }
  }
  *null_count = nulls;
  if (nulls == 0) return BufferPtr();
  return bits;
}

// A column of `n` rows of a fixed-width kind from normalized values: value_at(i) points to the
// row's `width` bytes, null_at(i) tells whether it is null.
template <typename ValueAt, typename NullAt>
Result<Array> BuildFixedColumn(const Column& column, int64_t n, bool may_have_nulls,
                               ValueAt value_at, NullAt null_at, MemoryPool* pool) {
  if (column.kind == Kind::kNull) return Array::MakeNull(column.type, n);
  auto data = std::make_shared<ArrayData>();
  data->type = column.type;
  data->length = n;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity,
                            BuildValidity(n, may_have_nulls, null_at, pool, &data->null_count));
  BufferPtr values;
  if (column.kind == Kind::kBool) {
    FLOTILLA_ASSIGN_OR_RETURN(values, Buffer::AllocateZeroed(bit_util::BytesForBits(n), pool));
    for (int64_t i = 0; i < n; ++i) {
      if (*value_at(i)) bit_util::SetBit(values->mutable_data(), i);
    }
  } else {
    const auto w = static_cast<int64_t>(column.width);
    FLOTILLA_ASSIGN_OR_RETURN(values, Buffer::Allocate(n * w, pool));
    uint8_t* out = values->mutable_data();
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(out + i * w, value_at(i), static_cast<size_t>(w));
  }
  data->buffers = {std::move(validity), std::move(values)};
  return Array(std::move(data));
}

}  // namespace flotilla::exec::key_table_internal
