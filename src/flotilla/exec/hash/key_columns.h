#pragma once
// Reading the key columns of a KeyTable mini-batch: each column's rows resolved (dictionaries
// through their indices, nulls found once), and its values written in the normalized form that
// makes equal keys equal bytes. Shared by the table layouts; not part of the public contract.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/common/result.h"

namespace flotilla::exec::key_table_internal {

// Rows normalized and probed together; their scratch (keys, hashes, positions) stays in L1/L2.
inline constexpr int64_t kMiniBatchRows = 4096;

// How a key column's values are normalized.
enum class Kind : uint8_t { kNull, kBool, kFixed, kFloat32, kFloat64, kBinary, kLargeBinary };

struct Column {
  TypePtr type;  // the logical type (a dictionary's value type): what Keys() returns
  Kind kind;
  int width;  // bytes of the normalized fixed-width value; 0 for null and binary kinds
};

inline bool IsBinary(const Column& c) {
  return c.kind == Kind::kBinary || c.kind == Kind::kLargeBinary;
}

// Per-row state of a mini-batch.
inline constexpr uint8_t kRowKey = 0;
inline constexpr uint8_t kRowSkip = 1;     // a null key while nulls are not equal: kNotFound
inline constexpr uint8_t kRowNullKey = 2;  // the null key of a one-column fixed-width table

/// A dictionary's value type, or the type itself.
const TypePtr& LogicalType(const TypePtr& type);

/// How column `index` of declared type `declared` is normalized; NotImplemented for nested types.
Result<Column> DescribeColumn(const TypePtr& declared, size_t index);

// The rows [start, start + n) of one key column, resolved for reading.
struct ColumnRows {
  Array values;                        // the array read: the key column, or its dictionary
  int64_t start = 0;                   // row i reads values at start + i (no dictionary)
  const int64_t* positions = nullptr;  // dictionary: row i reads values at positions[i]
  const uint8_t* is_null = nullptr;    // is_null[i] != 0 for null rows; nullptr when none
  bool all_null = false;               // no value may be read (null type, empty dictionary)
};

// Space for one mini-batch, reused across batches.
struct Scratch {
  int64_t rows = 0;  // capacity in rows
  std::vector<ColumnRows> columns;
  std::vector<int64_t> positions;  // `rows` per column
  std::vector<uint8_t> is_null;    // `rows` per column
  std::vector<uint8_t> states;
  std::vector<uint64_t> keys;        // fixed layout: the normalized keys
  std::vector<int64_t> row_offsets;  // row layout: rows + 1 offsets into row_bytes
  std::vector<int64_t> cursors;      // row layout: write position per row
  std::vector<uint8_t> row_bytes;    // row layout: the serialized keys

  void Prepare(size_t num_columns, int64_t num_rows, int key_words);
  // Drops the references to the last batch's arrays, so the table does not keep them alive.
  void ReleaseInputs() {
    for (ColumnRows& c : columns)
      c.values = Array();
  }
  int64_t memory_bytes() const {
    return static_cast<int64_t>(positions.capacity() * 8 + is_null.capacity() + states.capacity() +
                                keys.capacity() * 8 + row_offsets.capacity() * 8 +
                                cursors.capacity() * 8 + row_bytes.capacity());
  }
};

/// Resolves rows [start, start + n) of key column `c` into scratch->columns[c], using the
/// column's share of the scratch's positions and null flags.
Status ResolveRows(const Array& column, const Column& info, size_t c, int64_t start, int64_t n,
                   Scratch* scratch);

/// Sets states[i] = `state` for the rows whose is_null[i] is set; the first call of a
/// mini-batch (`*has_states` false) first sets every row to kRowKey.
inline void MarkNullRows(const uint8_t* is_null, int64_t n, uint8_t state, uint8_t* states,
                         bool* has_states) {
  if (!*has_states) {
    std::fill(states, states + n, kRowKey);
    *has_states = true;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (is_null[i]) states[i] = state;
  }
}

inline uint32_t CanonicalFloat(float v) {
  if (v != v) return 0x7FC00000u;  // every NaN
  if (v == 0) return 0;            // -0.0 == 0.0
  return std::bit_cast<uint32_t>(v);
}

inline uint64_t CanonicalDouble(double v) {
  if (v != v) return 0x7FF8000000000000ull;
  if (v == 0) return 0;
  return std::bit_cast<uint64_t>(v);
}

struct Bytes16 {
  uint64_t words[2];
};

template <bool kIndirect, typename T, typename Canon, typename Dest>
void CopyFixed(const ColumnRows& rows, int64_t n, Canon canon, Dest dest) {
  const T* values = rows.values.values<T>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = kIndirect ? rows.positions[i] : rows.start + i;
    const auto v = canon(values[p]);
    std::memcpy(dest(i), &v, sizeof(v));
  }
}

template <bool kIndirect, typename Dest>
void WriteFixedValues(const Column& column, const ColumnRows& rows, int64_t n, Dest dest) {
  auto same = [](auto v) { return v; };
  switch (column.kind) {
    case Kind::kBool: {
      const uint8_t* bits = rows.values.raw_values();
      const int64_t bit0 = rows.values.offset();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t p = kIndirect ? rows.positions[i] : rows.start + i;
        *dest(i) = bit_util::GetBit(bits, bit0 + p) ? 1 : 0;
      }
      return;
    }
    case Kind::kFloat32:
      CopyFixed<kIndirect, float>(rows, n, CanonicalFloat, dest);
      return;
    case Kind::kFloat64:
      CopyFixed<kIndirect, double>(rows, n, CanonicalDouble, dest);
      return;
    case Kind::kFixed:
      switch (column.width) {
        case 1:
          CopyFixed<kIndirect, uint8_t>(rows, n, same, dest);
          return;
        case 2:
          CopyFixed<kIndirect, uint16_t>(rows, n, same, dest);
          return;
        case 4:
          CopyFixed<kIndirect, uint32_t>(rows, n, same, dest);
          return;
        case 8:
          CopyFixed<kIndirect, uint64_t>(rows, n, same, dest);
          return;
        case 16:
          CopyFixed<kIndirect, Bytes16>(rows, n, same, dest);
          return;
        default: {
          const auto w = static_cast<int64_t>(column.width);
          const uint8_t* raw = rows.values.raw_values() + rows.values.offset() * w;
          for (int64_t i = 0; i < n; ++i) {
            const int64_t p = kIndirect ? rows.positions[i] : rows.start + i;
            std::memcpy(dest(i), raw + p * w, static_cast<size_t>(w));
          }
          return;
        }
      }
    default:
      return;  // null and binary kinds have no fixed-width bytes
  }
}

// Writes the normalized fixed-width bytes of each row to dest(i): zeros for null rows, so that
// equal keys have equal bytes.
template <typename Dest>
void WriteFixed(const Column& column, const ColumnRows& rows, int64_t n, Dest dest) {
  if (column.width == 0) return;
  if (!rows.all_null) {
    if (rows.positions != nullptr) {
      WriteFixedValues<true>(column, rows, n, dest);
    } else {
      WriteFixedValues<false>(column, rows, n, dest);
    }
  }
  if (rows.is_null != nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      if (rows.is_null[i]) std::memset(dest(i), 0, static_cast<size_t>(column.width));
    }
  }
}

}  // namespace flotilla::exec::key_table_internal
