#include "flotilla/io/parquet/writer_statistics.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace flotilla::io::parquet {
namespace {

bool IsNaN(ValueOrder order, std::string_view v) {
  if (order == ValueOrder::kFloat) {
    float f;
    std::memcpy(&f, v.data(), 4);
    return f != f;
  }
  if (order == ValueOrder::kDouble) {
    double d;
    std::memcpy(&d, v.data(), 8);
    return d != d;
  }
  return false;
}

}  // namespace

ValueOrder ValueOrderOf(const ColumnDescriptor& c) {
  const TypeId id = c.type->id();
  switch (*c.element.type) {
    case PhysicalType::kBoolean:
      return ValueOrder::kBool;
    case PhysicalType::kInt32:
      if (c.type->id() == TypeId::kNull) return ValueOrder::kNone;
      return id == TypeId::kUInt8 || id == TypeId::kUInt16 || id == TypeId::kUInt32
                 ? ValueOrder::kUnsigned32
                 : ValueOrder::kSigned32;
    case PhysicalType::kInt64:
      return id == TypeId::kUInt64 ? ValueOrder::kUnsigned64 : ValueOrder::kSigned64;
    case PhysicalType::kFloat:
      return ValueOrder::kFloat;
    case PhysicalType::kDouble:
      return ValueOrder::kDouble;
    case PhysicalType::kByteArray:
      return ValueOrder::kBytes;
    case PhysicalType::kFixedLenByteArray:
      return id == TypeId::kDecimal128 ? ValueOrder::kSignedBytes : ValueOrder::kBytes;
    default:
      return ValueOrder::kNone;
  }
}

bool ValueLess(ValueOrder order, std::string_view a, std::string_view b) {
  auto load = [](std::string_view s, auto v) {
    std::memcpy(&v, s.data(), sizeof(v));
    return v;
  };
  switch (order) {
    case ValueOrder::kBool:
      return a[0] < b[0];
    case ValueOrder::kSigned32:
      return load(a, int32_t{}) < load(b, int32_t{});
    case ValueOrder::kUnsigned32:
      return load(a, uint32_t{}) < load(b, uint32_t{});
    case ValueOrder::kSigned64:
      return load(a, int64_t{}) < load(b, int64_t{});
    case ValueOrder::kUnsigned64:
      return load(a, uint64_t{}) < load(b, uint64_t{});
    case ValueOrder::kFloat:
      return load(a, float{}) < load(b, float{});
    case ValueOrder::kDouble:
      return load(a, double{}) < load(b, double{});
    case ValueOrder::kBytes:
      return a < b;  // std::string_view compares bytes as unsigned char
    case ValueOrder::kSignedBytes: {
      // Big-endian two's complement (decimals): the sign bit first, then the bytes.
      const bool na = static_cast<unsigned char>(a[0]) & 0x80;
      const bool nb = static_cast<unsigned char>(b[0]) & 0x80;
      if (na != nb) return na;
      return a < b;
    }
    case ValueOrder::kNone:
      return false;
  }
  return false;
}

ValueBounds BoundsOfValues(const LeafBuffer& leaf, int width, ValueOrder order, int64_t begin,
                           int64_t end, const std::vector<int64_t>* positions) {
  ValueBounds b;
  std::string_view min, max;
  for (int64_t k = begin; k < end; ++k) {
    const std::string_view v =
        leaf.Value(positions ? (*positions)[static_cast<size_t>(k)] : k, width);
    if (IsNaN(order, v)) continue;
    if (!b.known || ValueLess(order, v, min)) min = v;
    if (!b.known || ValueLess(order, max, v)) max = v;
    b.known = true;
  }
  b.min = std::string(min);
  b.max = std::string(max);
  return b;
}

DictionaryRanks::DictionaryRanks(const LeafBuffer& leaf, const std::vector<int64_t>& dict,
                                 int width, ValueOrder order) {
  std::vector<uint32_t> sorted;
  for (size_t d = 0; d < dict.size(); ++d)
    if (!IsNaN(order, leaf.Value(dict[d], width))) sorted.push_back(static_cast<uint32_t>(d));
  std::sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) {
    return ValueLess(order, leaf.Value(dict[a], width), leaf.Value(dict[b], width));
  });
  rank_.assign(dict.size(), kNoRank);
  by_rank_.assign(sorted.size(), 0);
  for (size_t r = 0; r < sorted.size(); ++r) {
    rank_[sorted[r]] = static_cast<uint32_t>(r);
    by_rank_[r] = dict[sorted[r]];
  }
}

ValueBounds DictionaryRanks::Bounds(const LeafBuffer& leaf, int width, const uint32_t* indices,
                                    int64_t begin, int64_t end) const {
  ValueBounds b;
  uint32_t lo = kNoRank, hi = 0;
  for (int64_t i = begin; i < end; ++i) {
    const uint32_t r = rank_[indices[i]];
    if (r == kNoRank) continue;
    lo = std::min(lo, r);
    hi = std::max(hi, r);
  }
  if (lo == kNoRank) return b;
  b.known = true;
  b.min = std::string(leaf.Value(by_rank_[lo], width));
  b.max = std::string(leaf.Value(by_rank_[hi], width));
  return b;
}

Statistics StatisticsOfPages(int64_t null_count, const ColumnIndex& pages, ValueOrder order) {
  Statistics s;
  s.null_count = null_count;
  const std::string* min = nullptr;
  const std::string* max = nullptr;
  for (size_t p = 0; p < pages.null_pages.size(); ++p) {
    if (pages.null_pages[p]) continue;
    if (!min || ValueLess(order, pages.min_values[p], *min)) min = &pages.min_values[p];
    if (!max || ValueLess(order, *max, pages.max_values[p])) max = &pages.max_values[p];
  }
  if (min) {
    s.min_value = *min;
    s.max_value = *max;
  }
  return s;
}

Statistics StatisticsOfValues(const LeafBuffer& leaf, int width, ValueOrder order,
                              const std::vector<int64_t>* dict) {
  Statistics s;
  s.null_count = leaf.nulls;
  if (order == ValueOrder::kNone) return s;
  const int64_t n = dict ? static_cast<int64_t>(dict->size()) : leaf.values;
  ValueBounds b = BoundsOfValues(leaf, width, order, 0, n, dict);
  if (b.known) {
    s.min_value = std::move(b.min);
    s.max_value = std::move(b.max);
  }
  return s;
}

BoundaryOrder BoundaryOrderOf(const ColumnIndex& pages, ValueOrder order) {
  bool ascending = true, descending = true;
  const std::string* last_min = nullptr;
  const std::string* last_max = nullptr;
  for (size_t p = 0; p < pages.null_pages.size(); ++p) {
    if (pages.null_pages[p]) continue;
    if (last_min) {
      if (ValueLess(order, pages.min_values[p], *last_min) ||
          ValueLess(order, pages.max_values[p], *last_max))
        ascending = false;
      if (ValueLess(order, *last_min, pages.min_values[p]) ||
          ValueLess(order, *last_max, pages.max_values[p]))
        descending = false;
    }
    last_min = &pages.min_values[p];
    last_max = &pages.max_values[p];
  }
  if (ascending) return BoundaryOrder::kAscending;
  if (descending) return BoundaryOrder::kDescending;
  return BoundaryOrder::kUnordered;
}

}  // namespace flotilla::io::parquet
