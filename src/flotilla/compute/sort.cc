#include "flotilla/compute/sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <string_view>

namespace flotilla::compute {
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

// Uninitialised scratch from the pool (accounted): the sort writes every element before reading
// it, and zeroing tens of megabytes first would cost as much as a radix pass.
class Scratch {
 public:
  static Result<Scratch> Make(size_t n, MemoryPool* pool) {
    Scratch s;
    FLOTILLA_ASSIGN_OR_RETURN(s.buffer_, Buffer::Allocate(static_cast<int64_t>(n) * 8, pool));
    return s;
  }
  uint64_t* get() const { return reinterpret_cast<uint64_t*>(buffer_->mutable_data()); }
  uint64_t& operator[](size_t i) const { return get()[i]; }

 private:
  BufferPtr buffer_;
};

Result<bool> Normalize(const Array& a, uint64_t* k, std::vector<bool>* nulls) {
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
    case TypeId::kTime64:
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
      FLOTILLA_ASSIGN_OR_RETURN(auto ranks, internal::RankValues(a.dictionary()));
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

// LSD radix sort, one byte per pass, stable (equal keys keep their order). All histograms are
// built in one read; passes whose byte is the same for every element are skipped, so narrow
// types and small ranges cost only the passes they need. Each pass moves `data` (and `rows`,
// when given) into the scratch arrays and swaps; the sorted result is where the pointers point
// on return.
//
// `shift`: the key is data[i] >> shift. Packed elements are (key << row_bits) | row and sort
// only their key bytes (the rows are in order already), so one array moves per pass.
void RadixSort(uint64_t** data, uint64_t** data_scratch, uint64_t** rows, uint64_t** rows_scratch,
               size_t n, int shift, int key_bits) {
  const int passes = (key_bits + 7) / 8;
  std::vector<std::array<uint64_t, 256>> hist(static_cast<size_t>(passes));
  for (auto& h : hist)
    h.fill(0);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t k = (*data)[i] >> shift;
    for (int b = 0; b < passes; ++b)
      ++hist[b][(k >> (8 * b)) & 0xFF];
  }
  for (int b = 0; b < passes; ++b) {
    auto& h = hist[b];
    const int at = shift + 8 * b;
    if (n == 0 || h[((*data)[0] >> at) & 0xFF] == n) continue;
    uint64_t sum = 0;
    for (auto& c : h) {
      const uint64_t count = c;
      c = sum;
      sum += count;
    }
    const uint64_t* in = *data;
    uint64_t* out = *data_scratch;
    if (rows == nullptr) {
      for (size_t i = 0; i < n; ++i)
        out[h[(in[i] >> at) & 0xFF]++] = in[i];
    } else {
      const uint64_t* in_rows = *rows;
      uint64_t* out_rows = *rows_scratch;
      for (size_t i = 0; i < n; ++i) {
        const uint64_t dst = h[(in[i] >> at) & 0xFF]++;
        out[dst] = in[i];
        out_rows[dst] = in_rows[i];
      }
      std::swap(*rows, *rows_scratch);
    }
    std::swap(*data, *data_scratch);
  }
}

// Sorts the non-null rows by their normalised first key `norm` (n entries; overwritten):
// writes those rows in key order to `out` and returns their keys in the same order (less a
// constant: the caller only tests them for equality); the null rows go to `null_rows` in row
// order.
Result<Scratch> SortFirstKey(Scratch norm, size_t n, const std::vector<bool>& nulls,
                             bool descending, uint64_t* out, std::vector<uint64_t>* null_rows,
                             MemoryPool* pool) {
  // Compact the non-null keys to the front (in place), finding their range.
  size_t m = 0;
  uint64_t lo = ~uint64_t{0}, hi = 0;
  const bool any_null = std::find(nulls.begin(), nulls.end(), true) != nulls.end();
  for (size_t i = 0; i < n; ++i) {
    if (any_null && nulls[i]) {
      null_rows->push_back(i);
      continue;
    }
    const uint64_t k = descending ? ~norm[i] : norm[i];
    lo = std::min(lo, k);
    hi = std::max(hi, k);
    norm[m++] = k;
  }
  const int row_bits = std::bit_width(n);
  const int key_bits = m == 0 ? 0 : std::bit_width(hi - lo);
  FLOTILLA_ASSIGN_OR_RETURN(Scratch scratch, Scratch::Make(m, pool));
  uint64_t* data = norm.get();
  uint64_t* data_scratch = scratch.get();
  if (row_bits + key_bits <= 64) {
    // Pack; the row numbers of the non-null rows are recovered from the null list.
    size_t next_null = 0;
    uint64_t row = 0;
    for (size_t j = 0; j < m; ++j, ++row) {
      while (next_null < null_rows->size() && (*null_rows)[next_null] == row) {
        ++next_null;
        ++row;
      }
      data[j] = ((data[j] - lo) << row_bits) | row;
    }
    RadixSort(&data, &data_scratch, nullptr, nullptr, m, row_bits, key_bits);
    const uint64_t row_mask = (uint64_t{1} << row_bits) - 1;
    for (size_t j = 0; j < m; ++j) {
      out[j] = data[j] & row_mask;
      data[j] >>= row_bits;
    }
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(Scratch rows, Scratch::Make(m, pool));
    FLOTILLA_ASSIGN_OR_RETURN(Scratch rows_scratch, Scratch::Make(m, pool));
    uint64_t* r = rows.get();
    uint64_t* r_scratch = rows_scratch.get();
    size_t j = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!(any_null && nulls[i])) r[j++] = i;
    }
    RadixSort(&data, &data_scratch, &r, &r_scratch, m, 0, 64);
    std::copy(r, r + m, out);
  }
  return data == norm.get() ? norm : scratch;
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
  Scratch norm;
  std::vector<bool> nulls;
  bool radix = false;
  if (!keys.empty() && n >= 2) {
    FLOTILLA_ASSIGN_OR_RETURN(norm, Scratch::Make(static_cast<size_t>(n), pool));
    FLOTILLA_ASSIGN_OR_RETURN(radix, Normalize(batch.column(keys[0].column), norm.get(), &nulls));
  }
  if (!radix) {
    std::vector<uint64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    if (keys.empty() || n < 2) return WrapIndices(std::move(order), pool);
    const Array& first = batch.column(keys[0].column);
    if (first.type()->is_binary_like()) return SortByStringPrefix(first, keys[0], cmp, pool);
    // General path: one comparator call per comparison; the type was resolved per key.
    std::stable_sort(order.begin(), order.end(),
                     [&](uint64_t a, uint64_t b) { return cmp.Compare(a, b) < 0; });
    return WrapIndices(std::move(order), pool);
  }

  // First key by radix sort of its normalised form, straight into the output; nulls are set
  // aside in row order and go first or last.
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(n * 8, pool));
  auto* out = reinterpret_cast<uint64_t*>(buffer->mutable_data());
  const int64_t null_count = std::count(nulls.begin(), nulls.end(), true);
  uint64_t* rows = out + (keys[0].nulls_first ? null_count : 0);
  std::vector<uint64_t> null_rows;
  FLOTILLA_ASSIGN_OR_RETURN(
      Scratch sorted_keys,
      SortFirstKey(std::move(norm), n, nulls, !keys[0].ascending, rows, &null_rows, pool));
  const size_t m = static_cast<size_t>(n - null_count);

  // Later keys only break ties of the first: stable-sort each run of equal first keys (and
  // the null group). The runs are already in row order, so the whole sort stays stable.
  auto by_rest = [&](uint64_t a, uint64_t b) { return cmp.CompareFrom(1, a, b) < 0; };
  if (keys.size() > 1) {
    for (size_t s = 0; s < m;) {
      size_t e = s + 1;
      while (e < m && sorted_keys[e] == sorted_keys[s])
        ++e;
      if (e - s > 1) std::stable_sort(rows + s, rows + e, by_rest);
      s = e;
    }
    std::stable_sort(null_rows.begin(), null_rows.end(), by_rest);
  }
  std::copy(null_rows.begin(), null_rows.end(), keys[0].nulls_first ? out : out + m);
  auto d = std::make_shared<ArrayData>();
  d->type = uint64();
  d->length = n;
  d->buffers = {nullptr, std::move(buffer)};
  return Array(std::move(d));
}

}  // namespace flotilla::compute
