// Shared subexpressions of aggregate arguments. An expression written in the arguments of
// several aggregates (TPC-H Q1's `l_extendedprice * (1 - l_discount)`, summed alone and inside
// the charge) is computed once per row by a projection below the aggregate, which then reads
// it as a column. Volatile calls (random()) and what reads a lambda's parameters are never
// shared.
#include <algorithm>
#include <map>
#include <set>

#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT
using expr::ExprKind;
using expr::ExprPtr;

bool Shareable(const ExprPtr& e) {
  if (e->kind() == ExprKind::kColumn || e->kind() == ExprKind::kLiteral ||
      e->kind() == ExprKind::kAlias) {
    return false;
  }
  if (expr::CallsVolatileFunction(e)) return false;
  for (const std::string& c : expr::Columns(e))
    if (expr::IsLambdaParameter(c)) return false;
  return true;
}

// Every shareable subexpression of `e`, by its text, counted.
void Count(const ExprPtr& e, std::map<std::string, std::pair<ExprPtr, int>>* counts) {
  if (Shareable(e)) {
    auto& entry = (*counts)[e->ToString()];
    entry.first = e;
    ++entry.second;
  }
  for (const ExprPtr& c : e->children())
    Count(c, counts);
}

int Occurrences(const std::vector<AggregateSpec>& aggregates, const std::string& text) {
  std::map<std::string, std::pair<ExprPtr, int>> counts;
  for (const AggregateSpec& a : aggregates)
    for (const ExprPtr& arg : a.arguments)
      Count(arg, &counts);
  auto it = counts.find(text);
  return it == counts.end() ? 0 : it->second.second;
}

Result<PlanPtr> Share(const PlanPtr& node) {
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, MapChildren(node, Share));
  if (out->kind() != PlanKind::kAggregate) return out;
  const auto& aggregate = static_cast<const AggregateNode&>(*out);
  if (aggregate.mode == AggregateMode::kFinal) return out;
  std::map<std::string, std::pair<ExprPtr, int>> counts;
  for (const AggregateSpec& a : aggregate.aggregates)
    for (const ExprPtr& arg : a.arguments)
      Count(arg, &counts);
  std::vector<std::string> repeated;
  for (const auto& [text, entry] : counts)
    if (entry.second > 1) repeated.push_back(text);
  if (repeated.empty()) return out;
  // Largest first: sharing it may leave its parts written once.
  std::sort(repeated.begin(), repeated.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  const PlanPtr& input = out->children()[0];
  std::vector<AggregateSpec> aggregates = aggregate.aggregates;
  std::vector<ExprPtr> shared;  // aliased to their column names
  for (const std::string& text : repeated) {
    if (Occurrences(aggregates, text) < 2) continue;
    std::string name = "__shared" + std::to_string(shared.size());
    while (input->schema()->GetFieldIndex(name) >= 0)
      name += "_";
    const ExprPtr column = expr::Column(name);
    for (AggregateSpec& a : aggregates) {
      for (ExprPtr& arg : a.arguments) {
        FLOTILLA_ASSIGN_OR_RETURN(arg, expr::Rewrite(arg, [&](const ExprPtr& e) -> Result<ExprPtr> {
                                    return e->ToString() == text ? column : nullptr;
                                  }));
      }
    }
    shared.push_back(expr::Alias(counts.at(text).first, name));
  }
  if (shared.empty()) return out;
  // The projection passes on the input columns still read, then adds the shared values.
  std::set<std::string> read;
  for (const ExprPtr& g : aggregate.group_by)
    expr::CollectColumns(g, &read);
  for (const AggregateSpec& a : aggregates)
    for (const ExprPtr& arg : a.arguments)
      expr::CollectColumns(arg, &read);
  std::vector<ExprPtr> project;
  for (const Field& f : input->schema()->fields())
    if (read.count(f.name)) project.push_back(expr::Column(f.name));
  project.insert(project.end(), shared.begin(), shared.end());
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr projected, MakeProject(input, project));
  return MakeAggregate(projected, aggregate.group_by, aggregates, aggregate.mode);
}

}  // namespace

Result<PlanPtr> ShareSubexpressions(const PlanPtr& plan) {
  return Share(plan);
}

}  // namespace flotilla::optimizer
