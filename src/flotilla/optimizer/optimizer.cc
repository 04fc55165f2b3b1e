#include "flotilla/optimizer/optimizer.h"

namespace flotilla::optimizer {

Result<exec::PlanPtr> Optimize(const exec::PlanPtr& plan) {
  FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr p, FoldConstants(plan));
  FLOTILLA_ASSIGN_OR_RETURN(p, PushDownFilters(p));
  FLOTILLA_ASSIGN_OR_RETURN(p, ReduceAggregateInputs(p));
  FLOTILLA_ASSIGN_OR_RETURN(p, PushDownSemiJoins(p));
  FLOTILLA_ASSIGN_OR_RETURN(p, ReorderJoins(p));
  FLOTILLA_ASSIGN_OR_RETURN(p, PushDownFilters(p));
  FLOTILLA_ASSIGN_OR_RETURN(p, PushDownLimits(p));
  FLOTILLA_ASSIGN_OR_RETURN(p, ChooseJoinSides(p));
  // Last, so it sees the final shape (top-N, swapped joins) and every filter's columns.
  FLOTILLA_ASSIGN_OR_RETURN(p, PushDownProjections(p));
  FLOTILLA_ASSIGN_OR_RETURN(p, ShareSubexpressions(p));
  FLOTILLA_ASSIGN_OR_RETURN(p, SimplifyProjections(p));
  return p;
}

}  // namespace flotilla::optimizer
