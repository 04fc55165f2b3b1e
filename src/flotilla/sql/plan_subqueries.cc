#include <algorithm>
#include <map>
#include <set>

#include "flotilla/common/suggest.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/plan_rewrite.h"
#include "flotilla/sql/planner_internal.h"
#include "flotilla/sql/source_error.h"
#include "flotilla/sql/table_functions.h"
#include "flotilla/types/coercion.h"

namespace flotilla::sql::internal {

Result<ExprPtr> Planner::ScalarSubquery(const Node& n, ExprScope& es) {
  Planner sub(ctx_, ctes_, es.scope, CorrelationMode::kGroup);
  sub.parent_ = this;
  FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*n.subquery));
  const size_t outputs = r.columns.size() - sub.exposed().size();
  if (outputs != 1) {
    return ErrorNear(n.offset, "a scalar subquery must return one column, this one returns " +
                                   std::to_string(outputs));
  }
  if (sub.correlations().empty()) {
    if (!ctx_.run) {
      return ErrorNear(n.offset, "scalar subqueries cannot run here", StatusCode::kNotImplemented);
    }
    // Uncorrelated: run once, use the value as a constant.
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr limited, exec::MakeLimit(r.plan, 2));
    auto batch = ctx_.run(limited);
    if (!batch.ok()) return Located(batch.status(), n.offset);
    if (batch->num_rows() > 1) {
      return ErrorNear(n.offset, "a scalar subquery returned more than one row");
    }
    if (batch->num_rows() == 0) return expr::NullLiteral(r.plan->schema()->field(0).type);
    return expr::Literal(batch->column(0).Slice(0, 1));
  }
  if (es.relation == nullptr) {
    return ErrorNear(n.offset,
                     std::string("correlated subqueries are not supported in ") + es.clause,
                     StatusCode::kNotImplemented);
  }
  // Correlated: grouped by the correlation keys (the subquery did that), left-joined on them.
  FLOTILLA_ASSIGN_OR_RETURN(
      Relation joined, JoinSubquery(*es.relation, r, sub, exec::JoinType::kLeft, {}, n.offset));
  const std::string value = joined.columns[es.relation->columns.size()].field;
  HideAfter(&joined, es.relation->columns.size());
  *es.relation = std::move(joined);
  ExprPtr out = expr::Column(value);
  // count over no rows is 0, not the NULL an unmatched left join gives.
  const Query* q = n.subquery.get();
  if (q->kind == Query::kSelect && q->select->items.size() == 1) {
    const Node& item = *q->select->items[0].expr;
    if (item.kind == NodeKind::kFunction && item.names[0] == "count" && !item.over) {
      out = expr::Coalesce({out, expr::Literal(int64_t{0})});
    }
  }
  return out;
}

Result<Relation> Planner::JoinSubquery(const Relation& left, const Relation& right,
                                       const Planner& sub, exec::JoinType type,
                                       std::vector<std::pair<ExprPtr, ExprPtr>> extra,
                                       int64_t offset, bool allow_residual) {
  std::map<std::string, std::string> right_names =
      RightNames(*left.plan->schema(), *right.plan->schema());
  std::vector<ExprPtr> conjuncts;
  for (const Correlation& c : sub.correlations()) {
    // Outer marks -> left fields; the subquery's exposed names -> joined names.
    ExprPtr p = expr::Rewrite(c.predicate, [&](const ExprPtr& e) -> Result<ExprPtr> {
                  if (e->kind() != ExprKind::kColumn) return ExprPtr();
                  if (IsOuter(e->name())) return expr::Column(e->name().substr(1));
                  return expr::Column(right_names.at(e->name()));
                }).ValueOrDie();
    conjuncts.push_back(p);
  }
  for (auto& [l, r] : extra)
    conjuncts.push_back(expr::Equal(l, expr::RenameColumns(r, right_names)));
  JoinKeys keys = ExtractKeys(conjuncts, *left.plan->schema(), *right.plan->schema());
  if (keys.left.empty()) {
    return ErrorNear(offset,
                     "a correlated subquery needs an equality between an inner and an outer "
                     "column (inner.x = outer.y) among its WHERE conditions",
                     StatusCode::kNotImplemented);
  }
  if (!allow_residual && !keys.residual.empty()) {
    return ErrorNear(offset,
                     "a correlated EXISTS inside an expression supports only equality conditions "
                     "with the outer query yet",
                     StatusCode::kNotImplemented);
  }
  FLOTILLA_RETURN_NOT_OK(optimizer::CoerceJoinKeys(*left.plan->schema(), *right.plan->schema(),
                                                   &keys.left, &keys.right));
  auto plan = exec::MakeHashJoin(left.plan, right.plan, keys.left, keys.right, type,
                                 expr::JoinConjuncts(keys.residual));
  FLOTILLA_RETURN_NOT_OK(Located(plan.status(), offset));
  if (type == exec::JoinType::kSemi || type == exec::JoinType::kAnti) {
    Relation r = left;
    r.plan = *plan;
    return r;
  }
  return Joined(left, right, *plan);
}

std::optional<Planner::SubqueryTest> Planner::AsSubqueryTest(const Node& n) {
  SubqueryTest t;
  const Node* node = &n;
  while (node->kind == NodeKind::kUnary && node->text == "NOT") {
    t.negated = !t.negated;
    node = node->args[0].get();
  }
  t.node = node;
  if (node->kind == NodeKind::kExists) {
    t.exists = true;
    t.negated ^= node->flag;
    return t;
  }
  if (node->kind == NodeKind::kInSubquery) {
    t.negated ^= node->flag;
    return t;
  }
  if (node->kind == NodeKind::kQuantified && node->text == "=" && !node->flag) return t;
  if (node->kind == NodeKind::kQuantified && node->text == "<>" && node->flag) {
    t.negated = !t.negated;
    return t;
  }
  return std::nullopt;
}

Result<std::vector<std::pair<ExprPtr, ExprPtr>>> Planner::InKeys(const Node& node,
                                                                 const Relation& sub,
                                                                 size_t exposed, Relation* outer) {
  const Node& subject = *node.args[0];
  std::vector<const Node*> elements;
  if (subject.kind == NodeKind::kRow) {
    for (const NodePtr& e : subject.args)
      elements.push_back(e.get());
  } else {
    elements.push_back(&subject);
  }
  if (sub.columns.size() - exposed != elements.size()) {
    return ErrorNear(node.offset, "the subquery of IN must return " +
                                      std::to_string(elements.size()) + " column(s), it returns " +
                                      std::to_string(sub.columns.size() - exposed));
  }
  std::vector<std::pair<ExprPtr, ExprPtr>> keys;
  for (size_t i = 0; i < elements.size(); ++i) {
    ExprScope es{outer, false, false, nullptr, "IN"};
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*elements[i], es));
    keys.push_back({x, expr::Column(sub.plan->schema()->field(static_cast<int>(i)).name)});
  }
  return keys;
}

Result<std::pair<int64_t, int64_t>> Planner::CountRowsAndValues(const Relation& r, int64_t offset) {
  if (!ctx_.run) return ErrorNear(offset, "this subquery cannot run here");
  const std::string y = r.plan->schema()->field(0).name;
  FLOTILLA_ASSIGN_OR_RETURN(
      PlanPtr counts,
      exec::MakeAggregate(r.plan, {},
                          {{"count_star", {}, "rows"}, {"count", {expr::Column(y)}, "values"}}));
  auto batch = ctx_.run(counts);
  if (!batch.ok()) return Located(batch.status(), offset);
  return std::make_pair(batch->column(0).values<int64_t>()[0],
                        batch->column(1).values<int64_t>()[0]);
}

Result<bool> Planner::RunExists(const Relation& r, int64_t offset) {
  if (!ctx_.run) return ErrorNear(offset, "EXISTS cannot run here");
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr one, exec::MakeLimit(r.plan, 1));
  auto batch = ctx_.run(one);
  if (!batch.ok()) return Located(batch.status(), offset);
  return batch->num_rows() > 0;
}

Status Planner::FilterAll(Relation* relation) {
  FLOTILLA_ASSIGN_OR_RETURN(relation->plan, exec::MakeFilter(relation->plan, expr::Literal(false)));
  return Status::OK();
}

Result<bool> Planner::ApplySubqueryFilter(const Node& n, Relation* relation) {
  std::optional<SubqueryTest> test = AsSubqueryTest(n);
  if (!test) return false;
  const Node* node = test->node;
  const bool negated = test->negated;
  Planner sub(ctx_, ctes_, relation, CorrelationMode::kExpose);
  sub.parent_ = this;
  FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*node->subquery));
  std::vector<std::pair<ExprPtr, ExprPtr>> extra;
  if (!test->exists) {
    FLOTILLA_ASSIGN_OR_RETURN(extra, InKeys(*node, r, sub.exposed().size(), relation));
  }
  if (sub.correlations().empty() && test->exists) {
    // Uncorrelated EXISTS: one row or none, decided once.
    FLOTILLA_ASSIGN_OR_RETURN(bool any, RunExists(r, node->offset));
    if (any == negated) FLOTILLA_RETURN_NOT_OK(FilterAll(relation));
    return true;
  }
  if (negated && !test->exists) {
    // x NOT IN (s): false/unknown for every row when s holds a NULL; unknown when x is NULL
    // and s is not empty; true when s is empty.
    if (!sub.correlations().empty() || extra.size() != 1) {
      return ErrorNear(node->offset,
                       "NOT IN with a correlated or multi-column subquery is not supported yet; "
                       "use NOT EXISTS",
                       StatusCode::kNotImplemented);
    }
    FLOTILLA_ASSIGN_OR_RETURN(auto counts, CountRowsAndValues(r, node->offset));
    if (counts.first == 0) return true;
    if (counts.second < counts.first) {
      FLOTILLA_RETURN_NOT_OK(FilterAll(relation));
      return true;
    }
    const ExprPtr x = extra[0].first;
    FLOTILLA_ASSIGN_OR_RETURN(
        *relation, JoinSubquery(*relation, r, sub, exec::JoinType::kAnti, extra, node->offset));
    FLOTILLA_ASSIGN_OR_RETURN(relation->plan, exec::MakeFilter(relation->plan, expr::IsNotNull(x)));
    return true;
  }
  FLOTILLA_ASSIGN_OR_RETURN(
      *relation,
      JoinSubquery(*relation, r, sub, negated ? exec::JoinType::kAnti : exec::JoinType::kSemi,
                   extra, node->offset));
  return true;
}

Result<ExprPtr> Planner::MarkSubquery(const SubqueryTest& test, ExprScope& es) {
  const Node& node = *test.node;
  if (es.relation == nullptr) {
    return ErrorNear(node.offset, std::string("subqueries are not supported in ") + es.clause,
                     StatusCode::kNotImplemented);
  }
  Planner sub(ctx_, ctes_, es.scope, CorrelationMode::kExpose);
  sub.parent_ = this;
  FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*node.subquery));
  const std::string mark = NewName("__mark");
  auto result = [&](ExprPtr e) { return test.negated ? expr::Not(e) : e; };
  if (test.exists) {
    if (sub.correlations().empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(bool any, RunExists(r, node.offset));
      return expr::Literal(any != test.negated);
    }
    std::vector<ExprPtr> keep;
    for (const std::string& name : sub.exposed())
      keep.push_back(expr::Column(name));
    keep.push_back(expr::Alias(expr::Literal(true), mark));
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr marked, exec::MakeProject(r.plan, keep));
    FLOTILLA_ASSIGN_OR_RETURN(marked, exec::MakeDistinct(marked));
    Relation right = FromPlan(marked, "");
    FLOTILLA_ASSIGN_OR_RETURN(Relation joined, JoinSubquery(*es.relation, right, sub,
                                                            exec::JoinType::kLeft, {}, node.offset,
                                                            /*allow_residual=*/false));
    const std::string field = joined.columns.back().field;
    HideAfter(&joined, es.relation->columns.size());
    *es.relation = std::move(joined);
    return result(expr::IsNotNull(expr::Column(field)));
  }
  if (!sub.correlations().empty()) {
    return ErrorNear(node.offset,
                     "a correlated IN (subquery) is supported only as a WHERE condition yet",
                     StatusCode::kNotImplemented);
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto keys, InKeys(node, r, 0, es.relation));
  if (keys.size() != 1) {
    return ErrorNear(node.offset,
                     "row values IN (subquery) are supported only as a WHERE condition",
                     StatusCode::kNotImplemented);
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto counts, CountRowsAndValues(r, node.offset));
  if (counts.first == 0) return expr::Literal(test.negated);
  const ExprPtr x = keys[0].first;
  const std::string value = NewName("__in");
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr right,
                            exec::MakeFilter(r.plan, expr::IsNotNull(keys[0].second)));
  FLOTILLA_ASSIGN_OR_RETURN(right,
                            exec::MakeProject(right, {expr::Alias(keys[0].second, value),
                                                      expr::Alias(expr::Literal(true), mark)}));
  FLOTILLA_ASSIGN_OR_RETURN(right, exec::MakeDistinct(right));
  std::vector<ExprPtr> lk = {x}, rk = {expr::Column(value)};
  FLOTILLA_RETURN_NOT_OK(
      optimizer::CoerceJoinKeys(*es.relation->plan->schema(), *right->schema(), &lk, &rk));
  auto joined_plan = exec::MakeHashJoin(es.relation->plan, right, lk, rk, exec::JoinType::kLeft);
  FLOTILLA_RETURN_NOT_OK(Located(joined_plan.status(), node.offset));
  Relation joined = Joined(*es.relation, FromPlan(right, ""), *joined_plan);
  const std::string field = joined.columns.back().field;
  HideAfter(&joined, es.relation->columns.size());
  *es.relation = std::move(joined);
  // Found: true. Not found: NULL when x is NULL or the subquery held a NULL, else false.
  const ExprPtr unknown = expr::NullLiteral(boolean());
  ExprPtr not_found = counts.second < counts.first
                          ? unknown
                          : expr::IfElse(expr::IsNull(x), unknown, expr::Literal(false));
  return result(expr::IfElse(expr::IsNotNull(expr::Column(field)), expr::Literal(true), not_found));
}

void Planner::HideAfter(Relation* r, size_t first) {
  for (size_t i = first; i < r->columns.size(); ++i) {
    r->columns[i].hidden = true;
    r->columns[i].table.clear();
  }
}

Result<ExprPtr> Planner::QuantifiedComparison(const Node& node, ExprScope& es) {
  Planner sub(ctx_, ctes_, nullptr, CorrelationMode::kNone);
  FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*node.subquery));
  if (r.columns.size() != 1)
    return ErrorNear(node.offset, "the subquery of ANY/ALL must return one column");
  if (!ctx_.run) return ErrorNear(node.offset, "ANY/ALL cannot run here");
  FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*node.args[0], es));
  const ExprPtr y = expr::Column(r.plan->schema()->field(0).name);
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr stats, exec::MakeAggregate(r.plan, {},
                                                               {{"min", {y}, "lo"},
                                                                {"max", {y}, "hi"},
                                                                {"count_star", {}, "rows"},
                                                                {"count", {y}, "values"}}));
  auto batch = ctx_.run(stats);
  if (!batch.ok()) return Located(batch.status(), node.offset);
  const int64_t rows = batch->column(2).values<int64_t>()[0];
  const int64_t values = batch->column(3).values<int64_t>()[0];
  const bool all = node.flag;
  if (rows == 0) return expr::Literal(all);
  const ExprPtr lo = expr::Literal(batch->column(0).Slice(0, 1));
  const ExprPtr hi = expr::Literal(batch->column(1).Slice(0, 1));
  const std::string& op = node.text;
  ExprPtr cmp;
  if (op == ">")
    cmp = expr::Greater(x, all ? hi : lo);
  else if (op == ">=")
    cmp = expr::GreaterEqual(x, all ? hi : lo);
  else if (op == "<")
    cmp = expr::Less(x, all ? lo : hi);
  else if (op == "<=")
    cmp = expr::LessEqual(x, all ? lo : hi);
  // = ALL and <> ANY look at both ends; a NULL x is unknown whatever they are (x = x and
  // x <> x are NULL for it, TRUE / FALSE otherwise).
  else if (op == "=")
    cmp = expr::And(expr::Or(expr::Equal(lo, hi), expr::NotEqual(x, x)), expr::Equal(x, lo));
  else if (op == "<>")
    cmp = expr::Or(expr::And(expr::NotEqual(lo, hi), expr::Equal(x, x)), expr::NotEqual(x, lo));
  else
    return ErrorNear(node.offset, "ANY/ALL takes =, <>, <, <=, > or >=");
  if (values == rows) return cmp;
  // With NULLs in the subquery: ALL is never true (false when some value fails, unknown
  // otherwise), ANY never false (true when some value passes, unknown otherwise).
  const ExprPtr unknown = expr::NullLiteral(boolean());
  return all ? expr::IfElse(expr::Not(cmp), expr::Literal(false), unknown)
             : expr::IfElse(cmp, expr::Literal(true), unknown);
}

}  // namespace flotilla::sql::internal
