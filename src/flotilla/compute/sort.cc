#include "flotilla/compute/sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string_view>

namespace flotilla {
namespace {

// --- Normalised keys: an order-preserving map of a value to uint64 ------------------------------
// Signed integers flip the sign bit; floats become their IEEE bits with negatives inverted (so
// unsigned order is numeric order), after mapping -0.0 to 0.0 and every NaN to the maximum.
// Descending keys are inverted, which keeps equal keys equal (and so the radix sort stable).

template <typename T>
uint64_t NormalizeInt(T v) {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v)) ^ (uint64_t{1} << 63);
  } else {
    return static_cast<uint64_t>(v);
  }
}

uint64_t NormalizeDouble(double v) {
  if (std::isnan(v)) return ~uint64_t{0};
  if (v == 0) v = 0.0;
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  return (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
}

// Fills keys[i] for the non-null rows; returns false when the column type has no such form.
template <typename T>
void NormalizeColumn(const Array& a, uint64_t* keys) {
  const T* v = a.values<T>();
  for (int64_t i = 0; i < a.length(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      keys[i] = NormalizeDouble(static_cast<double>(v[i]));
    } else {
      keys[i] = NormalizeInt(v[i]);
    }
  }
}

Result<bool> Normalize(const Array& a, std::vector<uint64_t>* keys, std::vector<bool>* nulls) {
  keys->resize(a.length());
  uint64_t* k = keys->data();
  nulls->assign(a.length(), false);
  for (int64_t i = 0; a.null_count() > 0 && i < a.length(); ++i)
    (*nulls)[i] = a.IsNull(i);
  switch (a.type_id()) {
    case TypeId::kInt8:
      NormalizeColumn<int8_t>(a, k);
      break;
    case TypeId::kInt16:
      NormalizeColumn<int16_t>(a, k);
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      NormalizeColumn<int32_t>(a, k);
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      NormalizeColumn<int64_t>(a, k);
      break;
    case TypeId::kUInt8:
      NormalizeColumn<uint8_t>(a, k);
      break;
    case TypeId::kUInt16:
      NormalizeColumn<uint16_t>(a, k);
      break;
    case TypeId::kUInt32:
      NormalizeColumn<uint32_t>(a, k);
      break;
    case TypeId::kUInt64:
      NormalizeColumn<uint64_t>(a, k);
      break;
    case TypeId::kFloat32:
      NormalizeColumn<float>(a, k);
      break;
    case TypeId::kFloat64:
      NormalizeColumn<double>(a, k);
      break;
    case TypeId::kBool:
      for (int64_t i = 0; i < a.length(); ++i)
        k[i] = a.BoolValue(i);
      break;
    case TypeId::kDictionary: {
      // Dictionaries sort by the rank of their value; a null entry counts as a null row.
      FLOTILLA_ASSIGN_OR_RETURN(auto ranks, compute_internal::RankValues(a.dictionary()));
      for (int64_t i = 0; i < a.length(); ++i) {
        const int64_t r = (*nulls)[i] ? -1 : ranks[a.DictionaryIndex(i)];
        if (r < 0) (*nulls)[i] = true;
        k[i] = static_cast<uint64_t>(r);
      }
      break;
    }
    default:
      return false;
  }
  return true;
}

// LSD radix sort of (key, row) pairs, one byte per pass; stable, so equal keys keep row order.
// All eight histograms are built in one read, and passes whose byte is the same for every key
// are skipped (narrow types and small ranges cost only the passes they need).
void RadixSort(std::vector<uint64_t>* keys, std::vector<uint64_t>* rows) {
  const size_t n = keys->size();
  std::vector<std::array<uint64_t, 256>> hist(8);
  for (auto& h : hist)
    h.fill(0);
  for (uint64_t k : *keys) {
    for (int b = 0; b < 8; ++b)
      ++hist[b][(k >> (8 * b)) & 0xFF];
  }
  std::vector<uint64_t> keys2(n), rows2(n);
  for (int b = 0; b < 8; ++b) {
    auto& h = hist[b];
    if (n == 0 || h[((*keys)[0] >> (8 * b)) & 0xFF] == n) continue;
    uint64_t sum = 0;
    for (auto& c : h) {
      const uint64_t count = c;
      c = sum;
      sum += count;
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t dst = h[((*keys)[i] >> (8 * b)) & 0xFF]++;
      keys2[dst] = (*keys)[i];
      rows2[dst] = (*rows)[i];
    }
    keys->swap(keys2);
    rows->swap(rows2);
  }
}

Result<Array> WrapIndices(std::vector<uint64_t> order, MemoryPool* pool) {
  const int64_t n = static_cast<int64_t>(order.size());
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(n * 8, pool));
  if (n > 0) std::memcpy(buffer->mutable_data(), order.data(), n * 8);
  auto d = std::make_shared<ArrayData>();
  d->type = uint64();
  d->length = n;
  d->buffers = {nullptr, std::move(buffer)};
  return Array(std::move(d));
}

// Strings as the first key: most comparisons are decided by the first 8 bytes, read once per
// row into a big-endian integer (so integer order is bytewise order). Only equal prefixes, or
// a null on either side, fall back to the full comparator.
Result<Array> SortByStringPrefix(const Array& column, const SortKey& key, const RowComparator& cmp,
                                 MemoryPool* pool) {
  const int64_t n = column.length();
  std::vector<uint64_t> prefix(n), order(n);
  std::vector<uint8_t> valid(n);
  for (int64_t i = 0; i < n; ++i) {
    valid[i] = column.IsValid(i);
    std::string_view v = column.GetView(i);
    uint8_t bytes[8] = {0};
    if (!v.empty()) std::memcpy(bytes, v.data(), std::min<size_t>(8, v.size()));
    uint64_t p = 0;
    for (uint8_t b : bytes)
      p = (p << 8) | b;
    prefix[i] = p;
  }
  std::iota(order.begin(), order.end(), 0);
  const bool ascending = key.ascending;
  std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
    if (valid[a] && valid[b] && prefix[a] != prefix[b]) {
      return ascending ? prefix[a] < prefix[b] : prefix[a] > prefix[b];
    }
    return cmp.Compare(a, b) < 0;
  });
  return WrapIndices(std::move(order), pool);
}

}  // namespace

Result<Array> SortIndices(const RecordBatch& batch, const std::vector<SortKey>& keys,
                          MemoryPool* pool) {
  FLOTILLA_ASSIGN_OR_RETURN(RowComparator cmp, RowComparator::Make(batch, keys));
  const int64_t n = batch.num_rows();
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (keys.empty() || n < 2) return WrapIndices(std::move(order), pool);

  std::vector<uint64_t> norm;
  std::vector<bool> nulls;
  FLOTILLA_ASSIGN_OR_RETURN(bool radix, Normalize(batch.column(keys[0].column), &norm, &nulls));
  if (!radix) {
    const Array& first = batch.column(keys[0].column);
    if (first.type()->is_binary_like()) return SortByStringPrefix(first, keys[0], cmp, pool);
    // General path: one comparator call per comparison; the type was resolved per key.
    std::stable_sort(order.begin(), order.end(),
                     [&](uint64_t a, uint64_t b) { return cmp.Compare(a, b) < 0; });
    return WrapIndices(std::move(order), pool);
  }

  // First key by radix sort of its normalised form; nulls are set aside in row order.
  std::vector<uint64_t> sorted_keys, rows, null_rows;
  sorted_keys.reserve(n);
  rows.reserve(n);
  const bool descending = !keys[0].ascending;
  for (int64_t i = 0; i < n; ++i) {
    if (nulls[i]) {
      null_rows.push_back(i);
    } else {
      sorted_keys.push_back(descending ? ~norm[i] : norm[i]);
      rows.push_back(i);
    }
  }
  RadixSort(&sorted_keys, &rows);

  // Later keys only break ties of the first: stable-sort each run of equal first keys (and
  // the null group). The runs are already in row order, so the whole sort stays stable.
  auto by_rest = [&](uint64_t a, uint64_t b) { return cmp.CompareFrom(1, a, b) < 0; };
  if (keys.size() > 1) {
    for (size_t s = 0; s < rows.size();) {
      size_t e = s + 1;
      while (e < rows.size() && sorted_keys[e] == sorted_keys[s])
        ++e;
      if (e - s > 1) std::stable_sort(rows.begin() + s, rows.begin() + e, by_rest);
      s = e;
    }
    std::stable_sort(null_rows.begin(), null_rows.end(), by_rest);
  }
  auto out = order.begin();
  if (keys[0].nulls_first) out = std::copy(null_rows.begin(), null_rows.end(), out);
  out = std::copy(rows.begin(), rows.end(), out);
  if (!keys[0].nulls_first) std::copy(null_rows.begin(), null_rows.end(), out);
  return WrapIndices(std::move(order), pool);
}

}  // namespace flotilla
