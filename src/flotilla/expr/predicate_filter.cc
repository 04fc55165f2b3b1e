#include "flotilla/expr/predicate_filter.h"

#include <optional>

#include "flotilla/common/bit_util.h"
#include "flotilla/compute/boolean.h"
#include "flotilla/compute/filter.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/rewrite.h"

namespace flotilla::expr {
namespace {

// Rows where the mask is true and not null.
int64_t CountTrue(const Array& mask) {
  const int64_t n = mask.length();
  const uint8_t* values = mask.raw_values();
  const uint8_t* validity = mask.null_count() > 0 ? mask.validity() : nullptr;
  if (validity == nullptr) return bit_util::CountSetBits(values, mask.offset(), n);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i)
    count += bit_util::GetBit(values, mask.offset() + i) &&
             bit_util::GetBit(validity, mask.offset() + i);
  return count;
}

}  // namespace

Result<PredicateFilter> PredicateFilter::Make(const ExprPtr& predicate, const Schema& schema) {
  PredicateFilter filter;
  for (const ExprPtr& conjunct : SplitConjuncts(predicate)) {
    FLOTILLA_ASSIGN_OR_RETURN(BoundExpression bound, Bind(conjunct, schema));
    filter.conjuncts_.push_back(std::move(bound));
  }
  return filter;
}

Result<RecordBatch> PredicateFilter::Apply(const RecordBatch& batch) const {
  RecordBatch rows = batch;
  // The AND of the conjuncts so far, over `rows`, while it keeps most of them: copying the
  // rows out pays only once it drops at least half.
  std::optional<Array> pending;
  for (const BoundExpression& conjunct : conjuncts_) {
    FLOTILLA_ASSIGN_OR_RETURN(Datum value, Evaluate(conjunct, rows));
    if (value.is_scalar()) {
      const Array& v = value.array();
      if (v.IsValid(0) && v.type_id() == TypeId::kBool && v.BoolValue(0)) continue;
      return rows.Slice(0, 0);
    }
    Array mask = value.array();
    if (mask.type_id() != TypeId::kBool) return Filter(rows, mask);  // its error names the type
    if (pending) {
      FLOTILLA_ASSIGN_OR_RETURN(mask, compute::KleeneAnd(*pending, mask, rows.num_rows()));
    }
    const int64_t kept = CountTrue(mask);
    if (kept == 0) return rows.Slice(0, 0);
    if (kept == rows.num_rows()) {
      pending.reset();
    } else if (2 * kept <= rows.num_rows()) {
      FLOTILLA_ASSIGN_OR_RETURN(rows, Filter(rows, mask));
      pending.reset();
    } else {
      pending = std::move(mask);
    }
  }
  if (pending) return Filter(rows, *pending);
  return rows;
}

}  // namespace flotilla::expr
