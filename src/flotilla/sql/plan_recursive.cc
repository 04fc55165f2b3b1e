// WITH RECURSIVE t AS (anchor UNION [ALL] step): the anchor's rows, then the step's rows over
// the previous iteration's rows (the step reads t as just those), until an iteration adds no
// rows. With UNION (not ALL) an iteration keeps only rows not seen before, so a recursion over
// a graph with cycles ends. Each iteration runs to completion (PlannerContext::run) and the
// CTE is the concatenation of all iterations, held in memory.

#include <fmt/format.h>

#include "flotilla/sql/planner_internal.h"
#include "flotilla/types/coercion.h"

namespace flotilla::sql::internal {
namespace {

// Iterations before a recursion is taken to be endless.
constexpr int kMaxIterations = 100'000;

}  // namespace

Result<Relation> Planner::PlanRecursiveCte(const CommonTable& cte) {
  const Query& q = *cte.query;
  if (q.kind != Query::kSetOp || q.set_op != SetOpKind::kUnion || q.by_name ||
      !q.order_by.empty() || q.limit || q.offset_rows) {
    return ErrorNear(cte.offset, "the recursive common table expression '" + cte.name +
                                     "' must be: anchor UNION [ALL] step");
  }
  if (MentionsTable(*q.left, cte.name)) {
    return ErrorNear(q.left->offset, "the anchor of the recursive common table expression '" +
                                         cte.name + "' (before UNION) may not refer to it");
  }
  if (!ctx_.run) {
    return ErrorNear(cte.offset, "WITH RECURSIVE needs queries to run while planning",
                     StatusCode::kNotImplemented);
  }
  Planner anchor_planner(ctx_, ctes_, nullptr, CorrelationMode::kNone);
  FLOTILLA_ASSIGN_OR_RETURN(Relation anchor, anchor_planner.PlanQuery(*q.left));
  FLOTILLA_ASSIGN_OR_RETURN(anchor,
                            Renamed(std::move(anchor), cte.column_aliases, cte.name, cte.offset));
  if (!q.all) {
    FLOTILLA_ASSIGN_OR_RETURN(anchor.plan, exec::MakeDistinct(anchor.plan));
  }
  const SchemaPtr schema = anchor.plan->schema();
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch working, ctx_.run(anchor.plan));
  std::vector<RecordBatch> all = {working};
  auto rows_of = [&](std::vector<RecordBatch> batches) -> Result<Relation> {
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, exec::MakeInMemorySource(schema, std::move(batches)));
    Relation r = anchor;
    r.plan = std::move(plan);
    return r;
  };
  for (int iteration = 0; working.num_rows() > 0; ++iteration) {
    if (iteration == kMaxIterations) {
      return ErrorNear(cte.offset, fmt::format("the recursive common table expression '{}' did "
                                               "not end after {} iterations",
                                               cte.name, kMaxIterations));
    }
    std::map<std::string, Relation> ctes = ctes_;
    FLOTILLA_ASSIGN_OR_RETURN(ctes[cte.name], rows_of({working}));
    Planner step_planner(ctx_, std::move(ctes), nullptr, CorrelationMode::kNone);
    FLOTILLA_ASSIGN_OR_RETURN(Relation step, step_planner.PlanQuery(*q.right));
    const Schema& got = *step.plan->schema();
    if (got.num_fields() != schema->num_fields()) {
      return ErrorNear(q.right->offset,
                       fmt::format("the recursive step of '{}' has {} columns, its anchor {}",
                                   cte.name, got.num_fields(), schema->num_fields()));
    }
    // The step's rows in the anchor's types and names.
    std::vector<ExprPtr> cast;
    std::vector<ExprPtr> keys;
    for (int i = 0; i < schema->num_fields(); ++i) {
      const Field& want = schema->field(i);
      ExprPtr c = expr::Column(got.field(i).name);
      if (!got.field(i).type->Equals(*want.type)) c = expr::Cast(c, want.type);
      cast.push_back(expr::Alias(c, want.name));
      keys.push_back(expr::Column(want.name));
    }
    auto projected = exec::MakeProject(step.plan, cast);
    FLOTILLA_RETURN_NOT_OK(Located(projected.status(), q.right->offset));
    PlanPtr plan = *projected;
    if (!q.all) {
      // Only rows not seen before (NULL equal to NULL), once each.
      FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeDistinct(plan));
      FLOTILLA_ASSIGN_OR_RETURN(Relation seen, rows_of(all));
      FLOTILLA_ASSIGN_OR_RETURN(
          plan, exec::MakeHashJoin(plan, seen.plan, keys, keys, exec::JoinType::kAnti, nullptr,
                                   std::vector<bool>(keys.size(), true)));
    }
    auto ran = ctx_.run(plan);
    FLOTILLA_RETURN_NOT_OK(Located(ran.status(), q.right->offset));
    working = std::move(*ran);
    if (working.num_rows() > 0) all.push_back(working);
  }
  return rows_of(std::move(all));
}

}  // namespace flotilla::sql::internal
