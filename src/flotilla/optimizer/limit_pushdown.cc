// Limit pushdown: sort + limit is a top-N; a limit moves below projections (which keep every
// row) and reaches a scan as a hint to stop reading early.
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT

Result<PlanPtr> Limit(const PlanPtr& node) {
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, MapChildren(node, Limit));
  if (out->kind() != PlanKind::kLimit) return out;
  const auto& limit = static_cast<const LimitNode&>(*out);
  const PlanPtr& child = out->children()[0];
  if (limit.limit < 0) return out;
  switch (child->kind()) {
    case PlanKind::kSort: {
      const auto& sort = static_cast<const SortNode&>(*child);
      return MakeTopN(child->children()[0], sort.keys, limit.limit, limit.offset);
    }
    case PlanKind::kProject: {
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr below,
                                MakeLimit(child->children()[0], limit.limit, limit.offset));
      FLOTILLA_ASSIGN_OR_RETURN(below, Limit(below));
      return WithNewChildren(*child, {below});
    }
    case PlanKind::kScan: {
      const auto& scan = static_cast<const ScanNode&>(*child);
      if (scan.pushdowns.filter) return out;
      ScanPushdowns pushdowns = scan.pushdowns;
      const int64_t rows = limit.limit + limit.offset;
      if (pushdowns.limit && *pushdowns.limit <= rows) return out;
      pushdowns.limit = rows;
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr hinted, MakeScan(scan.file_schema, scan.tasks, pushdowns));
      return MakeLimit(hinted, limit.limit, limit.offset);
    }
    default:
      return out;
  }
}

}  // namespace

Result<PlanPtr> PushDownLimits(const PlanPtr& plan) {
  return Limit(plan);
}

}  // namespace flotilla::optimizer
