#include "flotilla/sql/planner.h"

#include <algorithm>
#include <map>
#include <set>

#include "flotilla/common/stack_depth.h"
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

namespace flotilla::sql {
namespace internal {

Relation FromPlan(PlanPtr plan, const std::string& table) {
  Relation r;
  for (const Field& f : plan->schema()->fields())
    r.columns.push_back({table, f.name, f.name});
  r.plan = std::move(plan);
  return r;
}

const char* ListBackedAggregate(const std::string& name) {
  if (name == "median" || name == "quantile_cont") return "list_quantile_cont";
  if (name == "quantile_disc" || name == "quantile") return "list_quantile_disc";
  return nullptr;
}

bool IsAggregateName(const std::string& name) {
  return name == "count" || ListBackedAggregate(name) != nullptr ||
         expr::DefaultAggregateRegistry().Find(name).ok();
}

bool HasAggregate(const Node& n) {
  if (n.kind == NodeKind::kFunction && !n.over && IsAggregateName(n.names[0])) return true;
  if (n.kind == NodeKind::kFunction && n.over) return false;
  for (const NodePtr& a : n.args)
    if (a && HasAggregate(*a)) return true;
  for (const NodePtr& a : {n.operand, n.otherwise})
    if (a && HasAggregate(*a)) return true;
  return false;
}

Result<Array> EvaluateConstant(const ExprPtr& e) {
  static const auto kEmpty = std::make_shared<Schema>(std::vector<Field>{});
  FLOTILLA_ASSIGN_OR_RETURN(expr::BoundExpression bound, expr::Bind(e, *kEmpty));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch one, RecordBatch::Make(kEmpty, {}, 1));
  FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(bound, one));
  return d.array().Slice(d.index(0), 1);
}

Result<Relation> Planner::PlanQuery(const Query& q) {
  FLOTILLA_RETURN_NOT_OK(CheckStackDepth("the query"));
  for (const CommonTable& cte : q.with) {
    if (cte.recursive && MentionsTable(*cte.query, cte.name)) {
      FLOTILLA_ASSIGN_OR_RETURN(ctes_[cte.name], PlanRecursiveCte(cte));
      continue;
    }
    Planner sub(ctx_, ctes_, nullptr, CorrelationMode::kNone);
    ctx_.defining_ctes.push_back(cte.name);
    Result<Relation> planned = sub.PlanQuery(*cte.query);
    ctx_.defining_ctes.pop_back();
    FLOTILLA_ASSIGN_OR_RETURN(Relation r, std::move(planned));
    FLOTILLA_ASSIGN_OR_RETURN(r, Renamed(std::move(r), cte.column_aliases, cte.name, cte.offset));
    FLOTILLA_ASSIGN_OR_RETURN(ctes_[cte.name], MaterializedIfReused(cte, q, std::move(r)));
  }
  switch (q.kind) {
    case Query::kSelect:
      return PlanSelect(*q.select, q);
    case Query::kValues: {
      FLOTILLA_ASSIGN_OR_RETURN(Relation r, PlanValues(q));
      return OrderAndLimit(std::move(r), q);
    }
    case Query::kSetOp: {
      FLOTILLA_ASSIGN_OR_RETURN(Relation r, PlanSetOperation(q));
      return OrderAndLimit(std::move(r), q);
    }
    case Query::kSummarize:
      return PlanSummarize(q);
    case Query::kPivot:
      return PlanPivot(q);
    case Query::kUnpivot:
      return PlanUnpivot(q);
  }
  return Status::Internal("unknown query kind");
}

Status Planner::ErrorNear(int64_t offset, const std::string& message, StatusCode code) const {
  return ErrorAt(ctx_.sql, offset, message, code);
}

Status Planner::Located(const Status& s, int64_t offset) const {
  if (s.ok()) return s;
  return ErrorAt(ctx_.sql, offset, s.message(), s.code());
}

}  // namespace internal

Result<exec::PlanPtr> PlanQuery(const Query& query, const PlannerContext& context) {
  internal::Planner planner(context, {}, nullptr, internal::CorrelationMode::kNone);
  FLOTILLA_ASSIGN_OR_RETURN(internal::Relation r, planner.PlanQuery(query));
  return r.plan;
}

}  // namespace flotilla::sql
