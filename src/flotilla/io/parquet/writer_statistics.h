#pragma once
// The statistics the writer states for readers to prune with: each column chunk's min, max and
// null count, and per page the bounds of the column index and whether they are ordered. Values
// are compared in the column's type-defined order, as plain-encoded bytes; NaN is never a bound.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/io/parquet/column_shredder.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/io/parquet/schema.h"

namespace flotilla::io::parquet {

/// How a column's values compare; kNone for columns without an order (no statistics).
enum class ValueOrder {
  kNone,
  kSigned32,
  kUnsigned32,
  kSigned64,
  kUnsigned64,
  kFloat,
  kDouble,
  kBytes,
  kSignedBytes,
  kBool
};

ValueOrder ValueOrderOf(const ColumnDescriptor& c);

/// a < b in `order` (neither is NaN).
bool ValueLess(ValueOrder order, std::string_view a, std::string_view b);

/// The least and greatest of some values.
struct ValueBounds {
  bool known = false;  // false when there is no value other than NaN
  std::string min, max;
};

/// The bounds of the leaf's values [begin, end), or with `positions` of the values at
/// positions[begin .. end).
ValueBounds BoundsOfValues(const LeafBuffer& leaf, int width, ValueOrder order, int64_t begin,
                           int64_t end, const std::vector<int64_t>* positions = nullptr);

/// A dictionary's entries (`dict`: each entry's position among the leaf's values) ranked in the
/// column's order, so that a page's bounds are integer comparisons of its indices' ranks.
class DictionaryRanks {
 public:
  DictionaryRanks(const LeafBuffer& leaf, const std::vector<int64_t>& dict, int width,
                  ValueOrder order);

  /// The bounds of the values whose dictionary indices are indices[begin .. end).
  ValueBounds Bounds(const LeafBuffer& leaf, int width, const uint32_t* indices, int64_t begin,
                     int64_t end) const;

 private:
  static constexpr uint32_t kNoRank = UINT32_MAX;
  std::vector<uint32_t> rank_;    // per dictionary entry; kNoRank for NaN
  std::vector<int64_t> by_rank_;  // the value (leaf position) of each rank
};

/// A chunk's statistics from its pages' bounds (every value is in some page).
Statistics StatisticsOfPages(int64_t null_count, const ColumnIndex& pages, ValueOrder order);

/// A chunk's statistics from its values, or from only the distinct ones when a dictionary
/// (`dict`) holds them.
Statistics StatisticsOfValues(const LeafBuffer& leaf, int width, ValueOrder order,
                              const std::vector<int64_t>* dict);

/// Whether the pages' bounds ascend, descend, or neither.
BoundaryOrder BoundaryOrderOf(const ColumnIndex& pages, ValueOrder order);

}  // namespace flotilla::io::parquet
