#include "flotilla/exec/hash/key_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "flotilla/common/bit_util.h"
#include "flotilla/compute/hash.h"

namespace flotilla::exec {
namespace {

constexpr uint32_t kEmpty = UINT32_MAX;
// Rows normalized and probed together; their scratch (keys, hashes, positions) stays in L1/L2.
constexpr int64_t kMiniBatchRows = 4096;
// How many rows ahead of the probe the slot of a row is prefetched.
constexpr int64_t kPrefetchRows = 16;
constexpr int64_t kInitialSlots = 256;
// A slot keeps 32 bits of its key's hash and its position is taken from them, so a table never
// needs the keys to grow; this caps it at 2^32 slots (2^31 keys).
constexpr int64_t kMaxSlots = int64_t{1} << 32;
// Fixed-width keys of up to this many 8-byte words are stored in the slots themselves.
constexpr int kMaxFixedWords = 4;

// How a key column's values are normalized.
enum class Kind : uint8_t { kNull, kBool, kFixed, kFloat32, kFloat64, kBinary, kLargeBinary };

struct Column {
  TypePtr type;  // the logical type (a dictionary's value type): what Keys() returns
  Kind kind;
  int width;  // bytes of the normalized fixed-width value; 0 for null and binary kinds
};

// Per-row state of a mini-batch.
constexpr uint8_t kRowKey = 0;
constexpr uint8_t kRowSkip = 1;     // a null key while nulls are not equal: kNotFound
constexpr uint8_t kRowNullKey = 2;  // the null key of a one-column fixed-width table

const TypePtr& LogicalType(const TypePtr& type) {
  return type->id() == TypeId::kDictionary ? type->value_type() : type;
}

Result<Column> DescribeColumn(const TypePtr& declared, size_t index) {
  if (declared == nullptr) {
    return Status::Invalid(fmt::format("KeyTable: key type {} is null", index));
  }
  const TypePtr& type = LogicalType(declared);
  switch (type->id()) {
    case TypeId::kNull:
      return Column{type, Kind::kNull, 0};
    case TypeId::kBool:
      return Column{type, Kind::kBool, 1};
    case TypeId::kFloat32:
      return Column{type, Kind::kFloat32, 4};
    case TypeId::kFloat64:
      return Column{type, Kind::kFloat64, 8};
    case TypeId::kString:
    case TypeId::kBinary:
      return Column{type, Kind::kBinary, 0};
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      return Column{type, Kind::kLargeBinary, 0};
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kDecimal128:
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
    case TypeId::kFixedSizeBinary:
      return Column{type, Kind::kFixed, type->byte_width()};
    default:
      break;
  }
  return Status::NotImplemented(fmt::format(
      "KeyTable: key column {} has type {}; keys of nested types (list, fixed_size_list, struct) "
      "are not supported, use scalar key columns",
      index, declared->ToString()));
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

  void Prepare(size_t num_columns, int64_t num_rows, int key_words) {
    if (rows >= num_rows && columns.size() == num_columns) return;
    rows = num_rows;
    const auto n = static_cast<size_t>(num_rows);
    columns.resize(num_columns);
    positions.resize(num_columns * n);
    is_null.resize(num_columns * n);
    states.resize(n);
    keys.resize(n * static_cast<size_t>(key_words));
    if (key_words == 0) {
      row_offsets.resize(n + 1);
      cursors.resize(n);
    }
  }
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

template <typename IndexT>
bool ReadIndices(const Array& column, int64_t start, int64_t n, uint64_t dictionary_length,
                 int64_t* positions, uint8_t* is_null, bool* any_null) {
  const IndexT* indices = column.values<IndexT>() + start;
  const uint8_t* validity = column.null_count() > 0 ? column.validity() : nullptr;
  const int64_t bit0 = column.offset() + start;
  for (int64_t i = 0; i < n; ++i) {
    if (validity != nullptr && !bit_util::GetBit(validity, bit0 + i)) {
      positions[i] = 0;
      is_null[i] = 1;
      *any_null = true;
      continue;
    }
    // Negative indices wrap to huge values and fail the range check.
    const auto j = static_cast<uint64_t>(static_cast<int64_t>(indices[i]));
    if (j >= dictionary_length) return false;
    positions[i] = static_cast<int64_t>(j);
    is_null[i] = 0;
  }
  return true;
}

Status ResolveDictionaryRows(const Array& column, int64_t start, int64_t n, int64_t* positions,
                             uint8_t* is_null, ColumnRows* out) {
  Array dictionary = column.dictionary();
  const auto length = static_cast<uint64_t>(dictionary.length());
  bool any_null = false;
  bool ok;
  switch (column.type()->index_type()->id()) {
    case TypeId::kInt8:
      ok = ReadIndices<int8_t>(column, start, n, length, positions, is_null, &any_null);
      break;
    case TypeId::kUInt8:
      ok = ReadIndices<uint8_t>(column, start, n, length, positions, is_null, &any_null);
      break;
    case TypeId::kInt16:
      ok = ReadIndices<int16_t>(column, start, n, length, positions, is_null, &any_null);
      break;
    case TypeId::kUInt16:
      ok = ReadIndices<uint16_t>(column, start, n, length, positions, is_null, &any_null);
      break;
    case TypeId::kInt32:
      ok = ReadIndices<int32_t>(column, start, n, length, positions, is_null, &any_null);
      break;
    case TypeId::kUInt32:
      ok = ReadIndices<uint32_t>(column, start, n, length, positions, is_null, &any_null);
      break;
    case TypeId::kInt64:
      ok = ReadIndices<int64_t>(column, start, n, length, positions, is_null, &any_null);
      break;
    default:
      ok = ReadIndices<uint64_t>(column, start, n, length, positions, is_null, &any_null);
  }
  if (!ok) {
    return Status::Invalid(fmt::format(
        "KeyTable: a dictionary index is out of range for its dictionary of {} values; check "
        "the array with Array::Make",
        length));
  }
  if (dictionary.null_count() > 0) {
    for (int64_t i = 0; i < n; ++i) {
      if (!is_null[i] && dictionary.IsNull(positions[i])) {
        is_null[i] = 1;
        any_null = true;
      }
    }
  }
  // An empty dictionary passed the range check only if every row is null.
  out->all_null = length == 0;
  out->values = std::move(dictionary);
  out->positions = positions;
  out->is_null = any_null ? is_null : nullptr;
  return Status::OK();
}

// Resolves rows [start, start + n) of `column` into `out`; `positions` and `is_null` are the
// column's scratch of at least n entries.
Status ResolveRows(const Array& column, const Column& info, int64_t start, int64_t n,
                   int64_t* positions, uint8_t* is_null, ColumnRows* out) {
  out->start = start;
  out->positions = nullptr;
  out->is_null = nullptr;
  out->all_null = false;
  if (info.kind == Kind::kNull) {
    std::memset(is_null, 1, static_cast<size_t>(n));
    out->values = column;
    out->is_null = is_null;
    out->all_null = true;
    return Status::OK();
  }
  if (column.type_id() == TypeId::kDictionary) {
    return ResolveDictionaryRows(column, start, n, positions, is_null, out);
  }
  out->values = column;
  const uint8_t* validity = column.validity();
  if (column.null_count() > 0 && validity != nullptr) {
    const int64_t bit0 = column.offset() + start;
    uint8_t any = 0;
    for (int64_t i = 0; i < n; ++i) {
      is_null[i] = !bit_util::GetBit(validity, bit0 + i);
      any |= is_null[i];
    }
    if (any) out->is_null = is_null;
  }
  return Status::OK();
}

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

// Calls f(start, rows, hashes) for each mini-batch of `keys`, hashing it with HashRows when the
// caller gave no hashes.
template <typename F>
Status ForEachMiniBatch(const std::vector<Array>& keys, const uint64_t* hashes, MemoryPool* pool,
                        F&& f) {
  const int64_t n = keys[0].length();
  std::vector<Array> slices(keys.size());
  for (int64_t start = 0; start < n; start += kMiniBatchRows) {
    const int64_t rows = std::min(kMiniBatchRows, n - start);
    Array computed;
    const uint64_t* batch_hashes;
    if (hashes != nullptr) {
      batch_hashes = hashes + start;
    } else {
      if (rows == n) {
        FLOTILLA_ASSIGN_OR_RETURN(computed, HashRows(keys, 0, pool));
      } else {
        for (size_t c = 0; c < keys.size(); ++c)
          slices[c] = keys[c].Slice(start, rows);
        FLOTILLA_ASSIGN_OR_RETURN(computed, HashRows(slices, 0, pool));
      }
      batch_hashes = computed.values<uint64_t>();
    }
    FLOTILLA_RETURN_NOT_OK(f(start, rows, batch_hashes));
  }
  return Status::OK();
}

// Output columns for Keys().

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

Status TooManyKeys() {
  return Status::Invalid(
      "KeyTable: more than 2^31 distinct keys; partition the input by hash into several tables");
}

// Slot arrays: `capacity` slots (a power of two) from the pool, every id kEmpty.
template <typename Slot>
Result<BufferPtr> AllocateSlots(int64_t capacity, MemoryPool* pool) {
  if (capacity > kMaxSlots) return TooManyKeys();
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer,
                            Buffer::Allocate(capacity * static_cast<int64_t>(sizeof(Slot)), pool));
  // All ones: every id is kEmpty (and every other field is defined).
  std::memset(buffer->mutable_data(), 0xFF, static_cast<size_t>(buffer->size()));
  return buffer;
}

// The smallest power-of-two slot count that keeps `keys` keys at or under 50% load.
int64_t SlotsFor(int64_t keys) {
  int64_t capacity = kInitialSlots;
  while (capacity < 2 * keys)
    capacity *= 2;
  return capacity;
}

// What the first Insert allocates for the scratch space kept between calls: per row of a mini
// batch, normalized keys, hashes, states and ids (64 bytes is above every layout's), and the
// mini batch's share of the key bytes. Later calls reuse it (at most a mini batch's worth).
template <typename Scratch>
int64_t ScratchGrowth(const Scratch& scratch, int64_t more_keys, int64_t more_key_bytes) {
  if (scratch.memory_bytes() > 0) return 0;
  const int64_t rows = std::min(more_keys, kMiniBatchRows);
  return rows * 64 + (more_keys > 0 ? more_key_bytes / more_keys * rows : 0);
}

// ---------------------------------------------------------------------------------------------
// Fixed layout: every key column is fixed-width and the normalized key (values in column order,
// then a null bit per column when nulls are equal and there are several columns) fits in kWords
// 8-byte words, stored in the slot beside the id. The null key of a one-column table has no
// slot: it is null_id_.

template <int kWords>
class FixedKeyTable final : public KeyTable {
 public:
  struct Slot {
    uint64_t key[kWords];
    uint32_t id;
    uint32_t tag;  // the low 32 bits of the hash, which also place the slot
  };

  FixedKeyTable(std::vector<TypePtr> key_types, bool nulls_equal, MemoryPool* pool,
                std::vector<Column> columns)
      : KeyTable(std::move(key_types), nulls_equal, pool), columns_(std::move(columns)) {
    int offset = 0;
    for (const Column& c : columns_) {
      offsets_.push_back(offset);
      offset += c.width;
    }
    has_mask_ = nulls_equal && columns_.size() > 1;
    mask_offset_ = offset;
    const int key_bytes = offset + (has_mask_ ? static_cast<int>(columns_.size() + 7) / 8 : 0);
    fills_key_ = key_bytes == 8 * kWords;
  }

  Status Init() { return Resize(kInitialSlots); }

 protected:
  Status InsertImpl(const std::vector<Array>& keys, const uint64_t* hashes,
                    uint32_t* ids) override {
    scratch_.Prepare(columns_.size(), std::min(keys[0].length(), kMiniBatchRows), kWords);
    Status status =
        ForEachMiniBatch(keys, hashes, pool_, [&](int64_t start, int64_t n, const uint64_t* h) {
          bool has_states;
          FLOTILLA_RETURN_NOT_OK(Normalize(keys, start, n, &scratch_, &has_states));
          const uint8_t* states = scratch_.states.data();
          return has_states ? InsertRows<true>(scratch_.keys.data(), states, h, n, ids + start)
                            : InsertRows<false>(scratch_.keys.data(), states, h, n, ids + start);
        });
    scratch_.ReleaseInputs();
    return status;
  }

  Status FindImpl(const std::vector<Array>& keys, const uint64_t* hashes,
                  uint32_t* ids) const override {
    Scratch scratch;
    scratch.Prepare(columns_.size(), std::min(keys[0].length(), kMiniBatchRows), kWords);
    return ForEachMiniBatch(keys, hashes, pool_, [&](int64_t start, int64_t n, const uint64_t* h) {
      bool has_states;
      FLOTILLA_RETURN_NOT_OK(Normalize(keys, start, n, &scratch, &has_states));
      if (has_states) {
        FindRows<true>(scratch.keys.data(), scratch.states.data(), h, n, ids + start);
      } else {
        FindRows<false>(scratch.keys.data(), scratch.states.data(), h, n, ids + start);
      }
      return Status::OK();
    });
  }

  Status ReserveImpl(int64_t expected_keys) override {
    const int64_t capacity = SlotsFor(expected_keys);
    return capacity > capacity_ ? Resize(capacity) : Status::OK();
  }

  Result<std::vector<Array>> KeysImpl() const override {
    const int64_t n = size_;
    std::vector<uint64_t> dense(static_cast<size_t>(n) * kWords, 0);
    for (int64_t s = 0; s < capacity_; ++s) {
      const Slot& slot = slots_[s];
      if (slot.id != kEmpty) std::copy_n(slot.key, kWords, dense.data() + slot.id * kWords);
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(dense.data());
    constexpr int64_t kStride = 8 * kWords;
    std::vector<Array> out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const uint8_t* base = bytes + offsets_[c];
      auto value_at = [&](int64_t i) { return base + i * kStride; };
      Array column;
      if (has_mask_) {
        const uint8_t* mask = bytes + mask_offset_ + c / 8;
        const int bit = static_cast<int>(c % 8);
        FLOTILLA_ASSIGN_OR_RETURN(
            column, BuildFixedColumn(
                        columns_[c], n, true, value_at,
                        [&](int64_t i) { return (mask[i * kStride] >> bit) & 1; }, pool_));
      } else {
        const int64_t null_id = null_id_ == kNotFound ? -1 : int64_t{null_id_};
        FLOTILLA_ASSIGN_OR_RETURN(column, BuildFixedColumn(
                                              columns_[c], n, null_id >= 0, value_at,
                                              [&](int64_t i) { return i == null_id; }, pool_));
      }
      out.push_back(std::move(column));
    }
    return out;
  }

  int64_t MemoryBytesImpl() const override {
    return capacity_ * static_cast<int64_t>(sizeof(Slot)) + scratch_.memory_bytes();
  }

  int64_t GrowthBytesImpl(int64_t more_keys, int64_t more_key_bytes) const override {
    const int64_t slots = SlotsFor(size_ + more_keys);
    return (slots > capacity_ ? slots * static_cast<int64_t>(sizeof(Slot)) : 0) +
           ScratchGrowth(scratch_, more_keys, more_key_bytes);
  }

 private:
  // Writes the normalized keys of rows [start, start + n) to scratch->keys and, when some row is
  // null, the row states to scratch->states (has_states).
  Status Normalize(const std::vector<Array>& keys, int64_t start, int64_t n, Scratch* scratch,
                   bool* has_states) const {
    auto* key_bytes = reinterpret_cast<uint8_t*>(scratch->keys.data());
    constexpr int64_t kStride = 8 * kWords;
    if (!fills_key_) std::memset(key_bytes, 0, static_cast<size_t>(n * kStride));
    uint8_t* states = scratch->states.data();
    *has_states = false;
    const auto rows = static_cast<size_t>(scratch->rows);
    for (size_t c = 0; c < columns_.size(); ++c) {
      ColumnRows& column_rows = scratch->columns[c];
      FLOTILLA_RETURN_NOT_OK(ResolveRows(keys[c], columns_[c], start, n,
                                         scratch->positions.data() + c * rows,
                                         scratch->is_null.data() + c * rows, &column_rows));
      uint8_t* base = key_bytes + offsets_[c];
      WriteFixed(columns_[c], column_rows, n, [base](int64_t i) { return base + i * kStride; });
      const uint8_t* is_null = column_rows.is_null;
      if (is_null == nullptr) continue;
      if (!*has_states) {
        std::fill(states, states + n, kRowKey);
        *has_states = true;
      }
      if (!nulls_equal_) {
        for (int64_t i = 0; i < n; ++i) {
          if (is_null[i]) states[i] = kRowSkip;
        }
      } else if (has_mask_) {
        uint8_t* mask = key_bytes + mask_offset_ + c / 8;
        const auto bit = static_cast<uint8_t>(1u << (c % 8));
        for (int64_t i = 0; i < n; ++i) {
          if (is_null[i]) mask[i * kStride] |= bit;
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          if (is_null[i]) states[i] = kRowNullKey;
        }
      }
    }
    return Status::OK();
  }

  static bool SameKey(const uint64_t* a, const uint64_t* b) {
    bool same = true;
    for (int w = 0; w < kWords; ++w)
      same &= a[w] == b[w];
    return same;
  }

  template <bool kStates>
  Status InsertRows(const uint64_t* keys, const uint8_t* states, const uint64_t* hashes, int64_t n,
                    uint32_t* ids) {
    Slot* slots = slots_;
    uint64_t mask = mask_;
    for (int64_t i = 0; i < n; ++i) {
      if (i + kPrefetchRows < n) __builtin_prefetch(slots + (hashes[i + kPrefetchRows] & mask), 1);
      if constexpr (kStates) {
        if (states[i] == kRowSkip) {
          ids[i] = kNotFound;
          continue;
        }
        if (states[i] == kRowNullKey) {
          if (null_id_ == kNotFound) null_id_ = static_cast<uint32_t>(size_++);
          ids[i] = null_id_;
          continue;
        }
      }
      const uint64_t* key = keys + i * kWords;
      uint64_t pos = hashes[i] & mask;
      while (true) {
        Slot& slot = slots[pos];
        if (slot.id == kEmpty) {
          std::copy_n(key, kWords, slot.key);
          slot.tag = static_cast<uint32_t>(hashes[i]);
          slot.id = static_cast<uint32_t>(size_++);
          ids[i] = slot.id;
          if (2 * ++entries_ > capacity_) {
            FLOTILLA_RETURN_NOT_OK(Resize(2 * capacity_));
            slots = slots_;
            mask = mask_;
          }
          break;
        }
        if (SameKey(slot.key, key)) {
          ids[i] = slot.id;
          break;
        }
        pos = (pos + 1) & mask;
      }
    }
    return Status::OK();
  }

  template <bool kStates>
  void FindRows(const uint64_t* keys, const uint8_t* states, const uint64_t* hashes, int64_t n,
                uint32_t* ids) const {
    const Slot* slots = slots_;
    const uint64_t mask = mask_;
    for (int64_t i = 0; i < n; ++i) {
      if (i + kPrefetchRows < n) __builtin_prefetch(slots + (hashes[i + kPrefetchRows] & mask));
      if constexpr (kStates) {
        if (states[i] != kRowKey) {
          ids[i] = states[i] == kRowNullKey ? null_id_ : kNotFound;
          continue;
        }
      }
      const uint64_t* key = keys + i * kWords;
      uint64_t pos = hashes[i] & mask;
      while (true) {
        const Slot& slot = slots[pos];
        if (slot.id == kEmpty) {
          ids[i] = kNotFound;
          break;
        }
        if (SameKey(slot.key, key)) {
          ids[i] = slot.id;
          break;
        }
        pos = (pos + 1) & mask;
      }
    }
  }

  Status Resize(int64_t capacity) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, AllocateSlots<Slot>(capacity, pool_));
    auto* slots = reinterpret_cast<Slot*>(buffer->mutable_data());
    const auto mask = static_cast<uint64_t>(capacity - 1);
    for (int64_t s = 0; s < capacity_; ++s) {
      const Slot& old = slots_[s];
      if (old.id == kEmpty) continue;
      uint64_t pos = old.tag & mask;
      while (slots[pos].id != kEmpty)
        pos = (pos + 1) & mask;
      slots[pos] = old;
    }
    slots_buffer_ = std::move(buffer);
    slots_ = slots;
    capacity_ = capacity;
    mask_ = mask;
    return Status::OK();
  }

  std::vector<Column> columns_;
  std::vector<int> offsets_;  // byte offset of each column's value in the key
  bool has_mask_;             // null bits after the values
  int mask_offset_;
  bool fills_key_;  // the values fill all kWords words (nothing to zero first)

  BufferPtr slots_buffer_;
  Slot* slots_ = nullptr;
  int64_t capacity_ = 0;
  uint64_t mask_ = 0;
  int64_t entries_ = 0;  // keys in slots (size_ minus the null key)
  uint32_t null_id_ = kNotFound;
  Scratch scratch_;
};

// ---------------------------------------------------------------------------------------------
// Row layout: each key is serialized into a byte row — a 4-byte length of the rest, a null bit
// per column (when nulls are equal), then per column its fixed-width normalized value, or a
// 4-byte length and the bytes — appended to an arena in id order. Equal keys have equal rows.
// The slots hold {32 hash bits, id, the row's arena offset}, so a probe reads the slot, then the
// row; both are prefetched ahead of the probe (the row from the home slot, when it is taken).

class RowKeyTable final : public KeyTable {
 public:
  struct Slot {
    uint32_t tag;  // the low 32 bits of the hash, which also place the slot
    uint32_t id;
    int64_t offset;  // of the row in the arena
  };

  RowKeyTable(std::vector<TypePtr> key_types, bool nulls_equal, MemoryPool* pool,
              std::vector<Column> columns)
      : KeyTable(std::move(key_types), nulls_equal, pool), columns_(std::move(columns)) {
    mask_bytes_ = nulls_equal ? static_cast<int>(columns_.size() + 7) / 8 : 0;
    fixed_row_bytes_ = kLengthBytes + mask_bytes_;
    for (const Column& c : columns_) {
      fixed_row_bytes_ += c.kind == Kind::kBinary || c.kind == Kind::kLargeBinary ? 4 : c.width;
    }
  }

  Status Init() {
    FLOTILLA_ASSIGN_OR_RETURN(arena_, Buffer::Allocate(0, pool_));
    return Resize(kInitialSlots);
  }

 protected:
  Status InsertImpl(const std::vector<Array>& keys, const uint64_t* hashes,
                    uint32_t* ids) override {
    scratch_.Prepare(columns_.size(), std::min(keys[0].length(), kMiniBatchRows), 0);
    Status status =
        ForEachMiniBatch(keys, hashes, pool_, [&](int64_t start, int64_t n, const uint64_t* h) {
          bool has_states;
          FLOTILLA_RETURN_NOT_OK(Normalize(keys, start, n, &scratch_, &has_states));
          return has_states ? InsertRows<true>(scratch_, h, n, ids + start)
                            : InsertRows<false>(scratch_, h, n, ids + start);
        });
    scratch_.ReleaseInputs();
    return status;
  }

  Status FindImpl(const std::vector<Array>& keys, const uint64_t* hashes,
                  uint32_t* ids) const override {
    Scratch scratch;
    scratch.Prepare(columns_.size(), std::min(keys[0].length(), kMiniBatchRows), 0);
    return ForEachMiniBatch(keys, hashes, pool_, [&](int64_t start, int64_t n, const uint64_t* h) {
      bool has_states;
      FLOTILLA_RETURN_NOT_OK(Normalize(keys, start, n, &scratch, &has_states));
      if (has_states) {
        FindRows<true>(scratch, h, n, ids + start);
      } else {
        FindRows<false>(scratch, h, n, ids + start);
      }
      return Status::OK();
    });
  }

  Status ReserveImpl(int64_t expected_keys) override {
    const int64_t capacity = SlotsFor(expected_keys);
    return capacity > capacity_ ? Resize(capacity) : Status::OK();
  }

  Result<std::vector<Array>> KeysImpl() const override {
    const int64_t n = size_;
    const uint8_t* bytes = arena_->data();
    // Where each id's row starts (after its length), from the slots.
    std::vector<int64_t> row_starts(static_cast<size_t>(n));
    for (int64_t s = 0; s < capacity_; ++s) {
      if (slots_[s].id != kEmpty) row_starts[slots_[s].id] = slots_[s].offset + kLengthBytes;
    }
    std::vector<int64_t> cursors(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      cursors[i] = row_starts[i] + mask_bytes_;
    std::vector<Array> out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const Column& column = columns_[c];
      const int64_t mask_byte = static_cast<int64_t>(c / 8);
      const int bit = static_cast<int>(c % 8);
      auto null_at = [&](int64_t i) { return (bytes[row_starts[i] + mask_byte] >> bit) & 1; };
      Array built;
      if (column.kind == Kind::kBinary) {
        FLOTILLA_ASSIGN_OR_RETURN(
            built, BuildBinaryColumn<int32_t>(column, n, nulls_equal_, bytes, cursors.data(),
                                              null_at, pool_));
      } else if (column.kind == Kind::kLargeBinary) {
        FLOTILLA_ASSIGN_OR_RETURN(
            built, BuildBinaryColumn<int64_t>(column, n, nulls_equal_, bytes, cursors.data(),
                                              null_at, pool_));
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(
            built, BuildFixedColumn(
                       column, n, nulls_equal_, [&](int64_t i) { return bytes + cursors[i]; },
                       null_at, pool_));
        for (int64_t i = 0; i < n; ++i)
          cursors[i] += column.width;
      }
      out.push_back(std::move(built));
    }
    return out;
  }

  int64_t MemoryBytesImpl() const override {
    return capacity_ * static_cast<int64_t>(sizeof(Slot)) + arena_->capacity() +
           scratch_.memory_bytes();
  }

  int64_t GrowthBytesImpl(int64_t more_keys, int64_t more_key_bytes) const override {
    const int64_t slots = SlotsFor(size_ + more_keys);
    int64_t bytes = (slots > capacity_ ? slots * static_cast<int64_t>(sizeof(Slot)) : 0) +
                    ScratchGrowth(scratch_, more_keys, more_key_bytes);
    // A row holds its values, a length per key and at most a cache line of padding.
    const int64_t rows = more_key_bytes + more_keys * (kLengthBytes * static_cast<int64_t>(key_types_.size()) + kCacheLine);
    if (arena_size_ + rows > arena_->capacity()) {
      bytes += std::max(2 * arena_->capacity(), arena_size_ + rows);  // Buffer::Reserve doubles
    }
    return bytes;
  }

 private:
  static constexpr int64_t kLengthBytes = 4;
  static constexpr int64_t kCacheLine = 64;  // the arena's buffer is aligned to it

  static uint32_t RowLength(const uint8_t* row) {
    uint32_t length;
    std::memcpy(&length, row, kLengthBytes);
    return length;
  }

  // Serializes rows [start, start + n) into scratch->row_bytes at scratch->row_offsets and, when
  // some row has a null and nulls are not equal, marks it in scratch->states (has_states).
  Status Normalize(const std::vector<Array>& keys, int64_t start, int64_t n, Scratch* scratch,
                   bool* has_states) const {
    const auto rows = static_cast<size_t>(scratch->rows);
    int64_t* offsets = scratch->row_offsets.data();
    int64_t* lengths = offsets + 1;
    std::fill(lengths, lengths + n, fixed_row_bytes_);
    for (size_t c = 0; c < columns_.size(); ++c) {
      ColumnRows& column_rows = scratch->columns[c];
      FLOTILLA_RETURN_NOT_OK(ResolveRows(keys[c], columns_[c], start, n,
                                         scratch->positions.data() + c * rows,
                                         scratch->is_null.data() + c * rows, &column_rows));
      bool ok = true;
      if (columns_[c].kind == Kind::kBinary) {
        ok = AddBinaryLengths<int32_t>(column_rows, n, lengths);
      } else if (columns_[c].kind == Kind::kLargeBinary) {
        ok = AddBinaryLengths<int64_t>(column_rows, n, lengths);
      }
      if (!ok) {
        return Status::NotImplemented(fmt::format(
            "KeyTable: key column {} holds a value of 4 GiB or more, which cannot be a key", c));
      }
    }
    offsets[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (lengths[i] - kLengthBytes > int64_t{UINT32_MAX}) {
        return Status::NotImplemented(
            "KeyTable: a key of 4 GiB or more (all columns together) cannot be stored");
      }
      offsets[i + 1] += offsets[i];
    }
    scratch->row_bytes.resize(static_cast<size_t>(offsets[n]));
    uint8_t* bytes = scratch->row_bytes.data();
    int64_t* cursors = scratch->cursors.data();
    for (int64_t i = 0; i < n; ++i) {
      const auto length = static_cast<uint32_t>(offsets[i + 1] - offsets[i] - kLengthBytes);
      std::memcpy(bytes + offsets[i], &length, kLengthBytes);
      if (mask_bytes_ > 0) {
        std::memset(bytes + offsets[i] + kLengthBytes, 0, static_cast<size_t>(mask_bytes_));
      }
      cursors[i] = offsets[i] + kLengthBytes + mask_bytes_;
    }
    uint8_t* states = scratch->states.data();
    *has_states = false;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const Column& column = columns_[c];
      const ColumnRows& column_rows = scratch->columns[c];
      if (column.kind == Kind::kBinary) {
        WriteBinary<int32_t>(column_rows, n, bytes, cursors);
      } else if (column.kind == Kind::kLargeBinary) {
        WriteBinary<int64_t>(column_rows, n, bytes, cursors);
      } else {
        WriteFixed(column, column_rows, n, [&](int64_t i) { return bytes + cursors[i]; });
        for (int64_t i = 0; i < n; ++i)
          cursors[i] += column.width;
      }
      const uint8_t* is_null = column_rows.is_null;
      if (is_null == nullptr) continue;
      if (nulls_equal_) {
        const auto bit = static_cast<uint8_t>(1u << (c % 8));
        const int64_t mask_byte = kLengthBytes + static_cast<int64_t>(c / 8);
        for (int64_t i = 0; i < n; ++i) {
          if (is_null[i]) bytes[offsets[i] + mask_byte] |= bit;
        }
      } else {
        if (!*has_states) {
          std::fill(states, states + n, kRowKey);
          *has_states = true;
        }
        for (int64_t i = 0; i < n; ++i) {
          if (is_null[i]) states[i] = kRowSkip;
        }
      }
    }
    return Status::OK();
  }

  // `row` (with its length prefix, `size` bytes in all) equals the stored row at `offset`.
  bool SameRow(int64_t offset, const uint8_t* row, int64_t size) const {
    const uint8_t* stored = arena_->data() + offset;
    return RowLength(stored) == RowLength(row) &&
           std::memcmp(stored + kLengthBytes, row + kLengthBytes,
                       static_cast<size_t>(size - kLengthBytes)) == 0;
  }

  // Prefetches the slot of row i + kPrefetchRows and, half as far ahead (when that slot is in
  // cache), the stored row the probe will most likely compare with. Always inlined: GCC takes a
  // function that only prefetches for one without effects and drops the calls.
  [[gnu::always_inline]] void Prefetch(const uint64_t* hashes, int64_t i, int64_t n) const {
    if (i + kPrefetchRows < n) {
      __builtin_prefetch(slots_ + (hashes[i + kPrefetchRows] & mask_));
    }
    if (i + kPrefetchRows / 2 < n) {
      // The row of the home slot, or of the next one when the home slot's tag differs: without
      // branches, which would wait for the slot to arrive and stall the probe when mispredicted.
      const uint64_t hash = hashes[i + kPrefetchRows / 2];
      const Slot& home = slots_[hash & mask_];
      const Slot& next = slots_[(hash + 1) & mask_];
      const int64_t offset = home.tag == static_cast<uint32_t>(hash) ? home.offset : next.offset;
      // An empty slot's offset is -1: clamp it into the arena.
      __builtin_prefetch(arena_->data() + std::min(static_cast<uint64_t>(offset),
                                                   static_cast<uint64_t>(arena_size_)));
    }
  }

  Status AppendRow(const uint8_t* row, int64_t size, int64_t* offset) {
    // A row that would cross a cache line boundary starts on the next line instead, so that
    // comparing a row of up to 64 bytes touches (and prefetches) one line.
    const int64_t in_line = arena_size_ & (kCacheLine - 1);
    if (in_line != 0 && in_line + size > kCacheLine) arena_size_ += kCacheLine - in_line;
    if (arena_size_ + size > arena_->capacity()) {
      FLOTILLA_RETURN_NOT_OK(arena_->Reserve(arena_size_ + size));
    }
    std::memcpy(arena_->mutable_data() + arena_size_, row, static_cast<size_t>(size));
    *offset = arena_size_;
    arena_size_ += size;
    return Status::OK();
  }

  template <bool kStates>
  Status InsertRows(const Scratch& scratch, const uint64_t* hashes, int64_t n, uint32_t* ids) {
    const uint8_t* bytes = scratch.row_bytes.data();
    const int64_t* offsets = scratch.row_offsets.data();
    const uint8_t* states = scratch.states.data();
    for (int64_t i = 0; i < n; ++i) {
      Prefetch(hashes, i, n);
      if constexpr (kStates) {
        if (states[i] == kRowSkip) {
          ids[i] = kNotFound;
          continue;
        }
      }
      const uint8_t* row = bytes + offsets[i];
      const int64_t size = offsets[i + 1] - offsets[i];
      const auto tag = static_cast<uint32_t>(hashes[i]);
      uint64_t pos = hashes[i] & mask_;
      while (true) {
        Slot& slot = slots_[pos];
        if (slot.id == kEmpty) {
          FLOTILLA_RETURN_NOT_OK(AppendRow(row, size, &slot.offset));
          slot.tag = tag;
          slot.id = static_cast<uint32_t>(size_++);
          ids[i] = slot.id;
          if (2 * size_ > capacity_) FLOTILLA_RETURN_NOT_OK(Resize(2 * capacity_));
          break;
        }
        if (slot.tag == tag && SameRow(slot.offset, row, size)) {
          ids[i] = slot.id;
          break;
        }
        pos = (pos + 1) & mask_;
      }
    }
    return Status::OK();
  }

  template <bool kStates>
  void FindRows(const Scratch& scratch, const uint64_t* hashes, int64_t n, uint32_t* ids) const {
    const uint8_t* bytes = scratch.row_bytes.data();
    const int64_t* offsets = scratch.row_offsets.data();
    const uint8_t* states = scratch.states.data();
    for (int64_t i = 0; i < n; ++i) {
      Prefetch(hashes, i, n);
      if constexpr (kStates) {
        if (states[i] == kRowSkip) {
          ids[i] = kNotFound;
          continue;
        }
      }
      const uint8_t* row = bytes + offsets[i];
      const int64_t size = offsets[i + 1] - offsets[i];
      const auto tag = static_cast<uint32_t>(hashes[i]);
      uint64_t pos = hashes[i] & mask_;
      while (true) {
        const Slot& slot = slots_[pos];
        if (slot.id == kEmpty) {
          ids[i] = kNotFound;
          break;
        }
        if (slot.tag == tag && SameRow(slot.offset, row, size)) {
          ids[i] = slot.id;
          break;
        }
        pos = (pos + 1) & mask_;
      }
    }
  }

  Status Resize(int64_t capacity) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, AllocateSlots<Slot>(capacity, pool_));
    auto* slots = reinterpret_cast<Slot*>(buffer->mutable_data());
    const auto mask = static_cast<uint64_t>(capacity - 1);
    for (int64_t s = 0; s < capacity_; ++s) {
      const Slot& old = slots_[s];
      if (old.id == kEmpty) continue;
      uint64_t pos = old.tag & mask;
      while (slots[pos].id != kEmpty)
        pos = (pos + 1) & mask;
      slots[pos] = old;
    }
    slots_buffer_ = std::move(buffer);
    slots_ = slots;
    capacity_ = capacity;
    mask_ = mask;
    return Status::OK();
  }

  std::vector<Column> columns_;
  int mask_bytes_;
  int64_t fixed_row_bytes_;  // bytes of a row before the binary values' bytes

  BufferPtr slots_buffer_;
  Slot* slots_ = nullptr;
  int64_t capacity_ = 0;
  uint64_t mask_ = 0;
  BufferPtr arena_;  // the rows in id order, each within one cache line when it fits in one
  int64_t arena_size_ = 0;
  Scratch scratch_;
};

template <int kWords>
Result<std::unique_ptr<KeyTable>> MakeFixed(std::vector<TypePtr> key_types, bool nulls_equal,
                                            MemoryPool* pool, std::vector<Column> columns) {
  auto table = std::make_unique<FixedKeyTable<kWords>>(std::move(key_types), nulls_equal, pool,
                                                       std::move(columns));
  FLOTILLA_RETURN_NOT_OK(table->Init());
  return std::unique_ptr<KeyTable>(std::move(table));
}

}  // namespace

Result<std::unique_ptr<KeyTable>> KeyTable::Make(std::vector<TypePtr> key_types, bool nulls_equal,
                                                 MemoryPool* pool) {
  if (key_types.empty()) return Status::Invalid("KeyTable needs at least one key column");
  std::vector<Column> columns;
  bool all_fixed = true;
  int fixed_bytes = 0;
  for (size_t c = 0; c < key_types.size(); ++c) {
    FLOTILLA_ASSIGN_OR_RETURN(Column column, DescribeColumn(key_types[c], c));
    all_fixed &= column.kind != Kind::kBinary && column.kind != Kind::kLargeBinary;
    fixed_bytes += column.width;
    columns.push_back(std::move(column));
  }
  if (nulls_equal && columns.size() > 1) fixed_bytes += static_cast<int>(columns.size() + 7) / 8;
  if (all_fixed && fixed_bytes <= 8 * kMaxFixedWords) {
    switch (std::max(1, (fixed_bytes + 7) / 8)) {
      case 1:
        return MakeFixed<1>(std::move(key_types), nulls_equal, pool, std::move(columns));
      case 2:
        return MakeFixed<2>(std::move(key_types), nulls_equal, pool, std::move(columns));
      case 3:
        return MakeFixed<3>(std::move(key_types), nulls_equal, pool, std::move(columns));
      default:
        return MakeFixed<4>(std::move(key_types), nulls_equal, pool, std::move(columns));
    }
  }
  auto table =
      std::make_unique<RowKeyTable>(std::move(key_types), nulls_equal, pool, std::move(columns));
  FLOTILLA_RETURN_NOT_OK(table->Init());
  return std::unique_ptr<KeyTable>(std::move(table));
}

Status KeyTable::CheckKeys(const std::vector<Array>& keys) const {
  if (keys.size() != key_types_.size()) {
    return Status::Invalid(fmt::format("KeyTable: got {} key columns, the table has {}",
                                       keys.size(), key_types_.size()));
  }
  for (size_t c = 0; c < keys.size(); ++c) {
    if (!keys[c].valid()) {
      return Status::Invalid(fmt::format("KeyTable: key column {} is an empty Array handle", c));
    }
    if (keys[c].length() != keys[0].length()) {
      return Status::Invalid(fmt::format(
          "KeyTable: key column {} has {} rows but key column 0 has {}; all key columns must "
          "have the same length",
          c, keys[c].length(), keys[0].length()));
    }
    if (!LogicalType(keys[c].type())->Equals(*LogicalType(key_types_[c]))) {
      return Status::TypeError(
          fmt::format("KeyTable: key column {} is {} but the table's key type is {}", c,
                      keys[c].type()->ToString(), key_types_[c]->ToString()));
    }
  }
  return Status::OK();
}

Status KeyTable::Insert(const std::vector<Array>& keys, uint32_t* ids) {
  return Insert(keys, nullptr, ids);
}

Status KeyTable::Insert(const std::vector<Array>& keys, const uint64_t* hashes, uint32_t* ids) {
  FLOTILLA_RETURN_NOT_OK(CheckKeys(keys));
  if (keys[0].length() == 0) return Status::OK();
  return InsertImpl(keys, hashes, ids);
}

Status KeyTable::Find(const std::vector<Array>& keys, uint32_t* ids) const {
  return Find(keys, nullptr, ids);
}

Status KeyTable::Find(const std::vector<Array>& keys, const uint64_t* hashes, uint32_t* ids) const {
  FLOTILLA_RETURN_NOT_OK(CheckKeys(keys));
  if (keys[0].length() == 0) return Status::OK();
  return FindImpl(keys, hashes, ids);
}

Status KeyTable::Reserve(int64_t expected_keys) {
  if (expected_keys < 0) {
    return Status::Invalid(
        fmt::format("KeyTable::Reserve: expected_keys must be >= 0, got {}", expected_keys));
  }
  if (expected_keys >= kMaxSlots / 2) return TooManyKeys();
  return ReserveImpl(expected_keys);
}

Result<std::vector<Array>> KeyTable::Keys() const {
  return KeysImpl();
}

int64_t KeyTable::memory_bytes() const {
  return MemoryBytesImpl();
}

}  // namespace flotilla::exec
