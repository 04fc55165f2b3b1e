// Projection simplification: a projection that only renames or reorders nothing is dropped,
// one that renames an aggregation's outputs is folded into the aggregation's names, and a
// projection over a projection becomes one where the inner expressions are cheap to repeat.
// Together they make the plans of SQL (which names everything through a final projection) and
// of the DataFrame API (which names aggregates directly) the same.
#include <map>

#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT
using expr::ExprKind;
using expr::ExprPtr;

// The input column an expression passes through unchanged, or "".
std::string PassedColumn(const ExprPtr& e) {
  const ExprPtr& bare = expr::Unaliased(e);
  return bare->kind() == ExprKind::kColumn ? bare->name() : "";
}

bool IsIdentity(const ProjectNode& p) {
  const Schema& in = *p.children()[0]->schema();
  if (static_cast<int>(p.expressions.size()) != in.num_fields()) return false;
  for (size_t i = 0; i < p.expressions.size(); ++i) {
    if (PassedColumn(p.expressions[i]) != in.field(static_cast<int>(i)).name) return false;
    if (p.schema()->field(static_cast<int>(i)).name != in.field(static_cast<int>(i)).name)
      return false;
  }
  return true;
}

// Project(every aggregate output once, in order, possibly renamed) over Aggregate: rename the
// aggregate's outputs instead.
Result<PlanPtr> FoldIntoAggregate(const ProjectNode& p) {
  const auto& agg = static_cast<const AggregateNode&>(*p.children()[0]);
  const Schema& in = *agg.schema();
  if (agg.mode != AggregateMode::kSingle ||
      static_cast<int>(p.expressions.size()) != in.num_fields()) {
    return PlanPtr();
  }
  for (size_t i = 0; i < p.expressions.size(); ++i)
    if (PassedColumn(p.expressions[i]) != in.field(static_cast<int>(i)).name) return PlanPtr();
  std::vector<ExprPtr> keys;
  for (size_t i = 0; i < agg.group_by.size(); ++i) {
    const std::string& name = p.schema()->field(static_cast<int>(i)).name;
    const ExprPtr& bare = expr::Unaliased(agg.group_by[i]);
    keys.push_back(
        bare->kind() == ExprKind::kColumn && bare->name() == name ? bare : expr::Alias(bare, name));
  }
  std::vector<AggregateSpec> specs = agg.aggregates;
  for (size_t i = 0; i < specs.size(); ++i)
    specs[i].name = p.schema()->field(static_cast<int>(agg.group_by.size() + i)).name;
  return MakeAggregate(agg.children()[0], keys, specs);
}

// Project over Project: substitute when every inner expression used more than once is a column
// or a literal (repeating those costs nothing).
Result<PlanPtr> MergeProjects(const ProjectNode& outer) {
  const auto& inner = static_cast<const ProjectNode&>(*outer.children()[0]);
  std::map<std::string, ExprPtr> definitions;
  std::map<std::string, int> uses;
  for (size_t i = 0; i < inner.expressions.size(); ++i)
    definitions[inner.schema()->field(static_cast<int>(i)).name] = inner.expressions[i];
  for (const ExprPtr& e : outer.expressions) {
    std::vector<ExprPtr> stack = {e};
    while (!stack.empty()) {
      ExprPtr n = stack.back();
      stack.pop_back();
      if (n->kind() == ExprKind::kColumn && !expr::IsLambdaParameter(n->name())) {
        ++uses[n->name()];
      }
      for (const ExprPtr& c : n->children())
        stack.push_back(c);
    }
  }
  for (const auto& [name, count] : uses) {
    const ExprPtr& d = expr::Unaliased(definitions.at(name));
    const bool cheap = d->kind() == ExprKind::kColumn || d->kind() == ExprKind::kLiteral;
    if (count > 1 && !cheap) return PlanPtr();
    if (expr::Contains(d, ExprKind::kAggregate) || expr::Contains(d, ExprKind::kWindow))
      return PlanPtr();
  }
  std::vector<ExprPtr> merged;
  for (size_t i = 0; i < outer.expressions.size(); ++i) {
    const std::string& name = outer.schema()->field(static_cast<int>(i)).name;
    ExprPtr e = expr::SubstituteColumns(expr::Unaliased(outer.expressions[i]), definitions);
    merged.push_back(e->kind() == ExprKind::kColumn && e->name() == name ? e
                                                                         : expr::Alias(e, name));
  }
  return MakeProject(inner.children()[0], merged);
}

Result<PlanPtr> Simplify(const PlanPtr& node) {
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, MapChildren(node, Simplify));
  while (out->kind() == PlanKind::kProject) {
    const auto& p = static_cast<const ProjectNode&>(*out);
    if (IsIdentity(p)) return out->children()[0];
    PlanPtr next;
    const PlanKind child = out->children()[0]->kind();
    if (child == PlanKind::kAggregate) {
      FLOTILLA_ASSIGN_OR_RETURN(next, FoldIntoAggregate(p));
    } else if (child == PlanKind::kProject) {
      FLOTILLA_ASSIGN_OR_RETURN(next, MergeProjects(p));
    }
    if (!next) return out;
    out = next;
  }
  return out;
}

}  // namespace

Result<PlanPtr> SimplifyProjections(const PlanPtr& plan) {
  return Simplify(plan);
}

}  // namespace flotilla::optimizer
