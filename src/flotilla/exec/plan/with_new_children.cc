#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::exec {

Result<PlanPtr> WithNewChildren(const PlanNode& node, std::vector<PlanPtr> children) {
  auto child = [&](size_t i) { return children[i]; };
  switch (node.kind()) {
    case PlanKind::kInMemorySource:
    case PlanKind::kScan:
      return Status::Internal("a source has no children to replace");
    case PlanKind::kProject:
      return MakeProject(child(0), static_cast<const ProjectNode&>(node).expressions);
    case PlanKind::kFilter:
      return MakeFilter(child(0), static_cast<const FilterNode&>(node).predicate);
    case PlanKind::kLimit: {
      const auto& n = static_cast<const LimitNode&>(node);
      return MakeLimit(child(0), n.limit, n.offset);
    }
    case PlanKind::kSample: {
      const auto& n = static_cast<const SampleNode&>(node);
      if (n.fraction) return MakeSampleFraction(child(0), *n.fraction, n.with_replacement, n.seed);
      return MakeSampleSize(child(0), *n.size, n.with_replacement, n.seed);
    }
    case PlanKind::kExplode:
      return MakeExplode(child(0), static_cast<const ExplodeNode&>(node).columns);
    case PlanKind::kUnpivot: {
      const auto& n = static_cast<const UnpivotNode&>(node);
      return MakeUnpivot(child(0), n.ids, n.values, n.variable_name, n.value_name);
    }
    case PlanKind::kConcat:
      return MakeConcat(std::move(children));
    case PlanKind::kMonotonicId: {
      const auto& n = static_cast<const MonotonicIdNode&>(node);
      return MakeMonotonicId(child(0), n.column_name, n.first_partition);
    }
    case PlanKind::kAggregate: {
      const auto& n = static_cast<const AggregateNode&>(node);
      if (n.mode == AggregateMode::kFinal) {
        return Status::NotImplemented("rewriting below a final aggregation");
      }
      return MakeAggregate(child(0), n.group_by, n.aggregates, n.mode);
    }
    case PlanKind::kDistinct:
      return MakeDistinct(child(0), static_cast<const DistinctNode&>(node).columns);
    case PlanKind::kHashJoin: {
      const auto& n = static_cast<const JoinNode&>(node);
      return MakeHashJoin(child(0), child(1), n.left_keys, n.right_keys, n.type, n.residual,
                          n.null_equal, n.strategy);
    }
    case PlanKind::kSortMergeJoin: {
      const auto& n = static_cast<const JoinNode&>(node);
      return MakeSortMergeJoin(child(0), child(1), n.left_keys, n.right_keys, n.type, n.null_equal);
    }
    case PlanKind::kCrossJoin:
      return MakeCrossJoin(child(0), child(1));
    case PlanKind::kSort:
      return MakeSort(child(0), static_cast<const SortNode&>(node).keys);
    case PlanKind::kTopN: {
      const auto& n = static_cast<const TopNNode&>(node);
      return MakeTopN(child(0), n.keys, n.limit, n.offset);
    }
    case PlanKind::kWindow: {
      const auto& n = static_cast<const WindowNode&>(node);
      return MakeWindow(child(0), n.partition_by, n.order_by, n.functions);
    }
    case PlanKind::kPivot: {
      const auto& n = static_cast<const PivotNode&>(node);
      return MakePivot(child(0), n.group_by, n.pivot_column, n.value_column, n.function, n.names);
    }
    case PlanKind::kRepartition: {
      const auto& n = static_cast<const RepartitionNode&>(node);
      switch (n.scheme) {
        case PartitionScheme::kHash:
          return MakeRepartitionByHash(child(0), n.num_partitions, n.keys);
        case PartitionScheme::kRandom:
          return MakeRepartitionRandom(child(0), n.num_partitions, n.seed);
        case PartitionScheme::kRange:
          return MakeRepartitionByRange(child(0), n.num_partitions, n.sort_keys, n.boundaries);
        case PartitionScheme::kInto:
          return MakeIntoPartitions(child(0), n.num_partitions);
      }
      break;
    }
    case PlanKind::kUdfProject: {
      const auto& n = static_cast<const UdfProjectNode&>(node);
      return MakeUdfProject(child(0), n.function_name, n.function, n.arguments, n.passthrough,
                            n.output_name, n.return_type, n.concurrency);
    }
  }
  return Status::Internal(std::string("cannot rebuild ") + PlanKindName(node.kind()));
}

}  // namespace flotilla::exec
