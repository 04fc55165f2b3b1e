#include "flotilla/expr/predicate_filter.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "flotilla/compute/boolean.h"
#include "flotilla/compute/filter.h"
#include "flotilla/compute/take.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/rewrite.h"

namespace flotilla::expr {
namespace {

// The positions of `indices` (into a batch) at `positions` (into those rows).
Result<Array> Compose(const std::optional<Array>& indices, const Array& positions) {
  if (!indices) return positions;
  return compute::Take(*indices, positions);
}

// Conjuncts reading only fixed-width columns (comparisons of numbers and dates) cost a fraction
// of those reading strings or nested values; run first, they leave the costly ones fewer rows.
bool ReadsVariableWidth(const ExprPtr& conjunct, const Schema& schema) {
  std::set<std::string> names;
  CollectColumns(conjunct, &names);
  for (const std::string& name : names) {
    const int c = schema.GetFieldIndex(name);
    if (c < 0 || !schema.field(c).type->is_fixed_width()) return true;
  }
  return false;
}

}  // namespace

Result<PredicateFilter> PredicateFilter::Make(const ExprPtr& predicate, const Schema& schema) {
  std::vector<ExprPtr> conjuncts = SplitConjuncts(predicate);
  // AND is commutative (Kleene logic included): only the cost depends on the order.
  std::stable_partition(conjuncts.begin(), conjuncts.end(), [&](const ExprPtr& conjunct) {
    return !ReadsVariableWidth(conjunct, schema);
  });
  // reads[i]: the input's columns conjuncts i, i + 1, ... read, in the input's order. A name
  // the schema lacks (left for Bind to report) makes every step keep every column.
  std::vector<std::vector<int>> reads(conjuncts.size() + 1);
  std::set<std::string> names;
  bool all = false;
  for (size_t i = conjuncts.size(); i-- > 0;) {
    CollectColumns(conjuncts[i], &names);
    std::vector<int>& read = reads[i];
    for (int c = 0; c < schema.num_fields(); ++c)
      if (names.count(schema.field(c).name)) read.push_back(c);
    all |= static_cast<int>(read.size()) < static_cast<int>(names.size());
  }
  if (all) {
    for (size_t i = 0; i < conjuncts.size(); ++i) {
      reads[i].clear();
      for (int c = 0; c < schema.num_fields(); ++c)
        reads[i].push_back(c);
    }
  }
  PredicateFilter filter;
  filter.read_ = reads.empty() ? std::vector<int>{} : reads[0];
  for (size_t i = 0; i < conjuncts.size(); ++i) {
    std::vector<Field> fields;
    for (int c : reads[i])
      fields.push_back(schema.field(c));
    FLOTILLA_ASSIGN_OR_RETURN(BoundExpression bound, Bind(conjuncts[i], Schema(std::move(fields))));
    // The later steps' columns, as positions among this step's.
    std::vector<int> next;
    const std::vector<int>& later = all ? reads[i] : reads[i + 1];
    for (size_t k = 0; k < reads[i].size(); ++k)
      if (std::find(later.begin(), later.end(), reads[i][k]) != later.end())
        next.push_back(static_cast<int>(k));
    filter.steps_.push_back({std::move(bound), std::move(next)});
  }
  return filter;
}

Result<RecordBatch> PredicateFilter::Apply(const RecordBatch& batch) const {
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch rows, batch.SelectColumns(read_));
  std::optional<Array> selected;  // positions in `batch` of `rows`' rows, once some are dropped
  std::optional<Array> pending;   // the AND of the masks since, over `rows`
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    const bool last = i + 1 == steps_.size();
    FLOTILLA_ASSIGN_OR_RETURN(Datum value, Evaluate(step.conjunct, rows));
    bool gathered = false;
    if (value.is_scalar()) {
      const Array& v = value.array();
      if (!v.IsValid(0) || v.type_id() != TypeId::kBool || !v.BoolValue(0))
        return batch.Slice(0, 0);
    } else {
      Array mask = value.array();
      if (mask.type_id() != TypeId::kBool)
        return compute::Filter(rows, mask);  // its error names the type
      if (pending) {
        FLOTILLA_ASSIGN_OR_RETURN(mask, compute::KleeneAnd(*pending, mask, rows.num_rows()));
      }
      const int64_t kept = compute::CountSelected(mask);
      if (kept == 0) return batch.Slice(0, 0);
      if (kept == rows.num_rows()) {
        pending.reset();
      } else if (2 * kept <= rows.num_rows() && !last) {
        // Copy out the rows left, of the columns the later conjuncts read only.
        FLOTILLA_ASSIGN_OR_RETURN(Array positions, compute::SelectedPositions(mask));
        FLOTILLA_ASSIGN_OR_RETURN(selected, Compose(selected, positions));
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch narrowed, rows.SelectColumns(step.next));
        FLOTILLA_ASSIGN_OR_RETURN(rows, compute::Take(narrowed, positions));
        pending.reset();
        gathered = true;
      } else {
        pending = std::move(mask);
      }
    }
    if (!last && !gathered) {
      FLOTILLA_ASSIGN_OR_RETURN(rows, rows.SelectColumns(step.next));
    }
  }
  if (pending) {
    FLOTILLA_ASSIGN_OR_RETURN(Array positions, compute::SelectedPositions(*pending));
    FLOTILLA_ASSIGN_OR_RETURN(selected, Compose(selected, positions));
  }
  if (!selected) return batch;
  return compute::Take(batch, *selected);
}

}  // namespace flotilla::expr
