#pragma once
// A WHERE predicate applied to batches conjunct by conjunct, as engines with selection vectors
// do: once the first conjuncts have dropped most rows, the later ones run only on the rows
// left, and on only the columns they read (Q6's five comparisons mostly run on the 15% of rows
// in its date range); every column is gathered once, at the end, for the rows kept.
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/expr/binder.h"

namespace flotilla::expr {

class PredicateFilter {
 public:
  /// `predicate` bound against `schema`, split at its top-level ANDs.
  static Result<PredicateFilter> Make(const ExprPtr& predicate, const Schema& schema);

  /// The rows of `batch` for which the predicate is true (not false, not null), in order.
  Result<RecordBatch> Apply(const RecordBatch& batch) const;

 private:
  struct Step {
    BoundExpression conjunct;  // bound to the columns this step and the later ones read
    std::vector<int> next;     // of those, the ones the later steps read
  };
  std::vector<int> read_;  // the input's columns the conjuncts read
  std::vector<Step> steps_;
};

}  // namespace flotilla::expr
