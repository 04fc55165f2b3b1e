#pragma once
// Variable-width key values (string and binary columns) in KeyTable's row layout: their lengths,
// their serialized form (a 4-byte length, then the bytes) and the arrays Keys() rebuilds from it.
// Not part of the public contract.

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "flotilla/exec/hash/key_columns.h"
#include "flotilla/exec/hash/stored_keys.h"

namespace flotilla::exec::key_table_internal {

// memcpy for the short values keys usually hold, without a library call; reads and writes only
// [src, src + n) and [dst, dst + n).
inline void CopyBytes(uint8_t* dst, const uint8_t* src, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t head, tail;
    std::memcpy(&head, src, 8);
    std::memcpy(&tail, src + n - 8, 8);
    std::memcpy(dst, &head, 8);
    std::memcpy(dst + n - 8, &tail, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t head, tail;
    std::memcpy(&head, src, 4);
    std::memcpy(&tail, src + n - 4, 4);
    std::memcpy(dst, &head, 4);
    std::memcpy(dst + n - 4, &tail, 4);
  } else if (n < 4) {
    for (size_t i = 0; i < n; ++i)
      dst[i] = src[i];
  } else {
    std::memcpy(dst, src, n);
  }
}

template <typename Offset>
const Offset* BinaryOffsets(const Array& values) {
  return values.data()->buffers[1]->data_as<Offset>() + values.offset();
}

template <typename Offset>
const uint8_t* BinaryData(const Array& values) {
  const BufferPtr& data = values.data()->buffers[2];
  return data ? data->data() : nullptr;
}

// Adds the byte length of each non-null value to lengths[i]; false when one is 4 GiB or more
// (the serialized row keeps 32-bit lengths).
template <typename Offset, bool kIndirect>
bool AddBinaryLengths(const ColumnRows& rows, int64_t n, int64_t* lengths) {
  if (rows.all_null) return true;
  const Offset* offsets = BinaryOffsets<Offset>(rows.values);
  const uint8_t* is_null = rows.is_null;
  for (int64_t i = 0; i < n; ++i) {
    if (is_null != nullptr && is_null[i]) continue;
    const int64_t p = kIndirect ? rows.positions[i] : rows.start + i;
    const int64_t length = static_cast<int64_t>(offsets[p + 1]) - offsets[p];
    if constexpr (sizeof(Offset) == 8) {
      if (length > int64_t{UINT32_MAX}) return false;
    }
    lengths[i] += length;
  }
  return true;
}

// Writes each row's value as a 4-byte length and the bytes at bytes + cursors[i], advancing the
// cursor; a null value is written as length 0 (the row's null mask tells it from "").
template <typename Offset, bool kIndirect>
void WriteBinary(const ColumnRows& rows, int64_t n, uint8_t* bytes, int64_t* cursors) {
  const Offset* offsets = rows.all_null ? nullptr : BinaryOffsets<Offset>(rows.values);
  const uint8_t* data = rows.all_null ? nullptr : BinaryData<Offset>(rows.values);
  const uint8_t* is_null = rows.is_null;
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* out = bytes + cursors[i];
    uint32_t length = 0;
    if (offsets != nullptr && (is_null == nullptr || !is_null[i])) {
      const int64_t p = kIndirect ? rows.positions[i] : rows.start + i;
      length = static_cast<uint32_t>(offsets[p + 1] - offsets[p]);
      CopyBytes(out + 4, data + offsets[p], length);
    }
    std::memcpy(out, &length, 4);
    cursors[i] += 4 + int64_t{length};
  }
}

template <typename Offset>
bool AddBinaryLengths(const ColumnRows& rows, int64_t n, int64_t* lengths) {
  return rows.positions != nullptr ? AddBinaryLengths<Offset, true>(rows, n, lengths)
                                   : AddBinaryLengths<Offset, false>(rows, n, lengths);
}

template <typename Offset>
void WriteBinary(const ColumnRows& rows, int64_t n, uint8_t* bytes, int64_t* cursors) {
  if (rows.positions != nullptr) {
    WriteBinary<Offset, true>(rows, n, bytes, cursors);
  } else {
    WriteBinary<Offset, false>(rows, n, bytes, cursors);
  }
}

// A binary column from serialized values (4-byte length + bytes) at bytes + cursors[i],
// advancing the cursors past them.
template <typename Offset, typename NullAt>
Result<Array> BuildBinaryColumn(const Column& column, int64_t n, bool may_have_nulls,
                                const uint8_t* bytes, int64_t* cursors, NullAt null_at,
                                MemoryPool* pool) {
  auto data = std::make_shared<ArrayData>();
  data->type = column.type;
  data->length = n;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity,
                            BuildValidity(n, may_have_nulls, null_at, pool, &data->null_count));
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t length;
    std::memcpy(&length, bytes + cursors[i], 4);
    total += length;
  }
  if constexpr (sizeof(Offset) == 4) {
    if (total > INT32_MAX) {
      return Status::Invalid(fmt::format(
          "KeyTable::Keys: the distinct keys of a {0} column hold {1} bytes, more than a {0} "
          "array can (2^31 - 1); declare the key column as large_{0}",
          column.type->ToString(), total));
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr offsets_buffer,
                            Buffer::Allocate((n + 1) * static_cast<int64_t>(sizeof(Offset)), pool));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(total, pool));
  auto* offsets = reinterpret_cast<Offset*>(offsets_buffer->mutable_data());
  uint8_t* out = values->mutable_data();
  int64_t position = 0;
  offsets[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t length;
    std::memcpy(&length, bytes + cursors[i], 4);
    if (length > 0) std::memcpy(out + position, bytes + cursors[i] + 4, length);
    position += length;
    offsets[i + 1] = static_cast<Offset>(position);
    cursors[i] += 4 + int64_t{length};
  }
  data->buffers = {std::move(validity), std::move(offsets_buffer), std::move(values)};
  return Array(std::move(data));
}

}  // namespace flotilla::exec::key_table_internal
