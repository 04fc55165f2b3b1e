#pragma once
// Rebuilding plan nodes during optimization.
#include <map>
#include <string>
#include <vector>

#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::optimizer {

/// Applies `rule` to every child of `node` and rebuilds it when one changed.
template <typename Rule>
Result<exec::PlanPtr> MapChildren(const exec::PlanPtr& node, Rule&& rule) {
  std::vector<exec::PlanPtr> children;
  bool changed = false;
  for (const exec::PlanPtr& c : node->children()) {
    FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr r, rule(c));
    changed |= r != c;
    children.push_back(std::move(r));
  }
  if (!changed) return node;
  return exec::WithNewChildren(*node, std::move(children));
}

/// For each output column of `project` that passes an input column on (renamed or not): its
/// name -> the input column's name.
std::map<std::string, std::string> PassedOnColumns(const exec::ProjectNode& project);

/// Estimated output rows (from scan metadata and fixed selectivities), -1 when unknown.
double EstimateRows(const exec::PlanNode& node);

/// Estimated distinct values of `column` in `node`'s output: bounded by the rows and, for integer
/// and date columns that come straight from a file, by the range of values its metadata gives.
/// Columns of unknown origin are taken to be unique.
double EstimateDistinct(const exec::PlanNode& node, const std::string& column);

/// The names of the right input's fields in a join's output (a name the left side has is
/// prefixed "right.").
std::vector<std::string> RightOutputNames(const Schema& left, const Schema& right);

}  // namespace flotilla::optimizer

namespace flotilla::optimizer {

/// Casts each pair of join keys of different types to their common comparison type (int32 with
/// int64 -> int64, integer with decimal -> decimal, ...), as an equality between them would.
Status CoerceJoinKeys(const Schema& left, const Schema& right,
                      std::vector<expr::ExprPtr>* left_keys,
                      std::vector<expr::ExprPtr>* right_keys);

}  // namespace flotilla::optimizer
