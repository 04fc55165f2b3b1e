#pragma once
// RowComparator: compares rows by a list of sort keys, for sorting and for merging sorted runs.

#include <memory>
#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::compute {

/// One sort key: a column, its direction, and where its nulls go. `nulls_first` places nulls
/// before every value whatever the direction (SQL's NULLS FIRST / NULLS LAST).
struct SortKey {
  int column;
  bool ascending = true;
  bool nulls_first = false;
};

namespace internal {
/// Compares row `left` of one column with row `right` of another (or the same) column, with
/// the direction and null placement of its key applied. One subclass per physical type, so the
/// type is resolved once per key, not once per comparison.
class KeyComparator {
 public:
  virtual ~KeyComparator() = default;
  virtual int Compare(int64_t left, int64_t right) const = 0;
};

/// Ranks of the values of `values` (a sortable, non-dictionary array): equal values share a
/// rank, smaller values get smaller ranks, nulls get -1. Used to order dictionary columns by
/// value through their indices.
Result<std::vector<int64_t>> RankValues(const Array& values);

/// OK when a column of `type` can be a sort key; NotImplemented naming `column` otherwise.
Status CheckSortable(const DataType& type, const std::string& column);
}  // namespace internal

/// \brief Three-way comparison of rows by several keys.
///
/// Value order per type: integers, dates, timestamps, durations and decimals numerically; floats
/// numerically with -0.0 == 0.0 and NaN greater than every number (all NaNs equal); bool
/// false < true; string/binary bytewise (unsigned); fixed_size_binary bytewise; dictionary by
/// its values. Nested key types are NotImplemented.
class RowComparator {
 public:
  /// Compares rows of `batch` with each other.
  static Result<RowComparator> Make(const RecordBatch& batch, const std::vector<SortKey>& keys);
  /// Compares rows of `left` with rows of `right` (same schema), e.g. to merge sorted runs.
  static Result<RowComparator> Make(const RecordBatch& left, const RecordBatch& right,
                                    const std::vector<SortKey>& keys);

  RowComparator(RowComparator&&) noexcept = default;
  RowComparator& operator=(RowComparator&&) noexcept = default;
  ~RowComparator() = default;

  /// Negative, zero or positive as left row `left` sorts before, with, or after right row
  /// `right`.
  int Compare(int64_t left, int64_t right) const {
    for (const auto& key : keys_) {
      if (int c = key->Compare(left, right); c != 0) return c;
    }
    return 0;
  }
  /// Compare restricted to keys [first_key, end): used when earlier keys are known equal.
  int CompareFrom(size_t first_key, int64_t left, int64_t right) const {
    for (size_t k = first_key; k < keys_.size(); ++k) {
      if (int c = keys_[k]->Compare(left, right); c != 0) return c;
    }
    return 0;
  }

 private:
  RowComparator() = default;
  std::vector<std::unique_ptr<internal::KeyComparator>> keys_;
};

}  // namespace flotilla::compute
