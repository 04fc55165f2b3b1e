#pragma once
// A WHERE predicate applied to batches conjunct by conjunct: once the first conjuncts have
// dropped most rows, the later ones are evaluated only on the rows left, as engines with
// selection vectors do (Q6's five comparisons mostly run on the 15% of rows in its date range).
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
  std::vector<BoundExpression> conjuncts_;
};

}  // namespace flotilla::expr
