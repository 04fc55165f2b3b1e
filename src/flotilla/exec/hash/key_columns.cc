#include "flotilla/exec/hash/key_columns.h"

#include <fmt/format.h>

#include <utility>

namespace flotilla::exec::key_table_internal {
namespace {

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

}  // namespace

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

void Scratch::Prepare(size_t num_columns, int64_t num_rows, int key_words) {
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

Status ResolveRows(const Array& column, const Column& info, size_t c, int64_t start, int64_t n,
                   Scratch* scratch) {
  const auto rows = static_cast<size_t>(scratch->rows);
  int64_t* positions = scratch->positions.data() + c * rows;
  uint8_t* is_null = scratch->is_null.data() + c * rows;
  ColumnRows* out = &scratch->columns[c];
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

}  // namespace flotilla::exec::key_table_internal
