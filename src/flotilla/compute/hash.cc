#include "flotilla/compute/hash.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

// Inlined so the 8-byte hash of the fixed-width fast path compiles into the loop.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace flotilla::compute {
namespace {

static_assert(std::endian::native == std::endian::little,
              "hash definitions hash little-endian bytes; a big-endian port must byte-swap");

constexpr uint64_t kListSeed = 0x4C495354;    // "LIST"
constexpr uint64_t kStructSeed = 0x53545255;  // "STRU"

inline uint64_t Combine(uint64_t h, uint64_t v) {
  return XXH3_64bits_withSeed(&v, 8, h);
}

inline uint64_t CanonicalDouble(double v) {
  if (std::isnan(v)) return 0x7FF8000000000000ull;
  if (v == 0) return 0;  // -0.0 and 0.0 hash equal
  return std::bit_cast<uint64_t>(v);
}

template <typename T>
inline uint64_t Widen(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return CanonicalDouble(static_cast<double>(v));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<uint64_t>(v);
  }
}

// Op(i, value_hash) is called for every row; the loop is instantiated per C type, with a
// separate branch-free loop for columns without nulls.
template <typename T, typename Op>
void ForEachFixed(const Array& a, Op&& op) {
  const T* v = a.values<T>();
  const int64_t n = a.length();
  if (a.null_count() == 0) {
    for (int64_t i = 0; i < n; ++i)
      op(i, Widen(v[i]));
  } else {
    for (int64_t i = 0; i < n; ++i)
      op(i, a.IsValid(i) ? Widen(v[i]) : kNullHash);
  }
}

// Dispatches the fixed-width types of at most 8 bytes; false for every other type.
template <typename Op>
bool VisitFixed(const Array& a, Op&& op) {
  switch (a.type_id()) {
    case TypeId::kInt8:
      ForEachFixed<int8_t>(a, op);
      return true;
    case TypeId::kInt16:
      ForEachFixed<int16_t>(a, op);
      return true;
    case TypeId::kInt32:
    case TypeId::kDate32:
      ForEachFixed<int32_t>(a, op);
      return true;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      ForEachFixed<int64_t>(a, op);
      return true;
    case TypeId::kUInt8:
      ForEachFixed<uint8_t>(a, op);
      return true;
    case TypeId::kUInt16:
      ForEachFixed<uint16_t>(a, op);
      return true;
    case TypeId::kUInt32:
      ForEachFixed<uint32_t>(a, op);
      return true;
    case TypeId::kUInt64:
      ForEachFixed<uint64_t>(a, op);
      return true;
    case TypeId::kFloat32:
      ForEachFixed<float>(a, op);
      return true;
    case TypeId::kFloat64:
      ForEachFixed<double>(a, op);
      return true;
    default:
      return false;
  }
}

template <typename Offset>
void BinaryHashes(const Array& a, uint64_t* out) {
  const Offset* off = a.data()->buffers[1]->data_as<Offset>() + a.offset();
  const uint8_t* data = a.data()->buffers[2] ? a.data()->buffers[2]->data() : nullptr;
  for (int64_t i = 0; i < a.length(); ++i) {
    out[i] = a.IsValid(i) ? XXH3_64bits(data + off[i], static_cast<size_t>(off[i + 1] - off[i]))
                          : kNullHash;
  }
}

// Lists hash the value hashes of their elements, which are computed once for the whole
// referenced child range.
Status ListHashes(const Array& a, uint64_t* out) {
  const int64_t n = a.length();
  if (n == 0) return Status::OK();
  const bool fixed = a.type_id() == TypeId::kFixedSizeList;
  const int64_t size = a.type()->fixed_size();
  const int64_t first = fixed ? a.offset() * size : a.ValueOffset(0);
  const int64_t last = fixed ? (a.offset() + n) * size : a.ValueOffset(n);
  std::vector<uint64_t> elements(last - first);
  FLOTILLA_RETURN_NOT_OK(ValueHashes(a.child(0).Slice(first, last - first), elements.data()));
  for (int64_t i = 0; i < n; ++i) {
    if (a.IsNull(i)) {
      out[i] = kNullHash;
      continue;
    }
    const int64_t start = (fixed ? (a.offset() + i) * size : a.ValueOffset(i)) - first;
    const int64_t len = fixed ? size : a.ValueLength(i);
    out[i] = XXH3_64bits_withSeed(elements.data() + start, static_cast<size_t>(len) * 8, kListSeed);
  }
  return Status::OK();
}

Status StructHashes(const Array& a, uint64_t* out) {
  const int64_t n = a.length();
  std::fill(out, out + n, kStructSeed);
  std::vector<uint64_t> field(n);
  for (int f = 0; f < a.num_children(); ++f) {
    FLOTILLA_RETURN_NOT_OK(ValueHashes(a.field(f), field.data()));
    for (int64_t i = 0; i < n; ++i)
      out[i] = Combine(out[i], field[i]);
  }
  for (int64_t i = 0; a.null_count() > 0 && i < n; ++i) {
    if (a.IsNull(i)) out[i] = kNullHash;
  }
  return Status::OK();
}

// Dictionaries: hash each dictionary entry once, then look the hashes up by index.
template <typename IndexT>
bool LookUpHashes(const Array& a, const std::vector<uint64_t>& entries, uint64_t* out) {
  const IndexT* idx = a.values<IndexT>();
  const uint64_t size = entries.size();
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsNull(i)) {
      out[i] = kNullHash;
      continue;
    }
    const uint64_t j = static_cast<uint64_t>(static_cast<int64_t>(idx[i]));
    if (j >= size) return false;
    out[i] = entries[j];
  }
  return true;
}

Status DictionaryHashes(const Array& a, uint64_t* out) {
  const Array dict = a.dictionary();
  std::vector<uint64_t> entries(dict.length());
  FLOTILLA_RETURN_NOT_OK(ValueHashes(dict, entries.data()));
  bool ok;
  switch (a.type()->index_type()->id()) {
    case TypeId::kInt8:
      ok = LookUpHashes<int8_t>(a, entries, out);
      break;
    case TypeId::kUInt8:
      ok = LookUpHashes<uint8_t>(a, entries, out);
      break;
    case TypeId::kInt16:
      ok = LookUpHashes<int16_t>(a, entries, out);
      break;
    case TypeId::kUInt16:
      ok = LookUpHashes<uint16_t>(a, entries, out);
      break;
    case TypeId::kInt32:
      ok = LookUpHashes<int32_t>(a, entries, out);
      break;
    case TypeId::kUInt32:
      ok = LookUpHashes<uint32_t>(a, entries, out);
      break;
    case TypeId::kInt64:
      ok = LookUpHashes<int64_t>(a, entries, out);
      break;
    default:
      ok = LookUpHashes<uint64_t>(a, entries, out);
  }
  if (!ok) {
    return Status::Invalid(
        "HashRows: a dictionary index is out of range for its dictionary; "
        "check the array with Array::Make before hashing it");
  }
  return Status::OK();
}

}  // namespace

Status ValueHashes(const Array& a, uint64_t* out) {
  if (VisitFixed(a, [&](int64_t i, uint64_t v) { out[i] = v; })) return Status::OK();
  const int64_t n = a.length();
  switch (a.type_id()) {
    case TypeId::kNull:
      std::fill(out, out + n, kNullHash);
      return Status::OK();
    case TypeId::kBool:
      for (int64_t i = 0; i < n; ++i)
        out[i] = a.IsValid(i) ? uint64_t{a.BoolValue(i)} : kNullHash;
      return Status::OK();
    case TypeId::kDecimal128:
    case TypeId::kFixedSizeBinary: {
      const size_t w = static_cast<size_t>(a.type()->byte_width());
      const uint8_t* raw = a.raw_values() + a.offset() * static_cast<int64_t>(w);
      for (int64_t i = 0; i < n; ++i) {
        out[i] = a.IsValid(i) ? XXH3_64bits(raw + i * static_cast<int64_t>(w), w) : kNullHash;
      }
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary:
      BinaryHashes<int32_t>(a, out);
      return Status::OK();
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      BinaryHashes<int64_t>(a, out);
      return Status::OK();
    case TypeId::kList:
    case TypeId::kFixedSizeList:
      return ListHashes(a, out);
    case TypeId::kStruct:
      return StructHashes(a, out);
    case TypeId::kDictionary:
      return DictionaryHashes(a, out);
    default:
      break;
  }
  return Status::NotImplemented("HashRows: hashing " + a.type()->ToString());
}

Result<Array> HashRows(const std::vector<Array>& columns, uint64_t seed, MemoryPool* pool) {
  if (columns.empty()) {
    return Status::Invalid("HashRows needs at least one column to know the number of rows");
  }
  const int64_t n = columns[0].length();
  for (size_t c = 1; c < columns.size(); ++c) {
    if (columns[c].length() != n) {
      return Status::Invalid(fmt::format(
          "HashRows: column {} has {} rows but column 0 has {}; all columns must be the same "
          "length",
          c, columns[c].length(), n));
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(n * 8, pool));
  uint64_t* out = reinterpret_cast<uint64_t*>(buffer->mutable_data());
  std::fill(out, out + n, seed);
  std::vector<uint64_t> scratch;
  for (const Array& column : columns) {
    // Fast path: fixed-width values are combined straight into the output.
    if (VisitFixed(column, [&](int64_t i, uint64_t v) { out[i] = Combine(out[i], v); })) continue;
    scratch.resize(n);
    FLOTILLA_RETURN_NOT_OK(ValueHashes(column, scratch.data()));
    for (int64_t i = 0; i < n; ++i)
      out[i] = Combine(out[i], scratch[i]);
  }
  auto d = std::make_shared<ArrayData>();
  d->type = uint64();
  d->length = n;
  d->buffers = {nullptr, std::move(buffer)};
  return Array(std::move(d));
}

}  // namespace flotilla::compute
