#include "flotilla/exec/pipeline/pipeline_builder.h"

#include "flotilla/exec/operators/operators.h"

namespace flotilla::exec {

namespace {

class Builder {
 public:
  explicit Builder(bool maintain_order)
      : stats_(std::make_shared<QueryStats>()), maintain_order_(maintain_order) {}

  Result<PipelinePlan> Build(const PlanPtr& plan) {
    FLOTILLA_ASSIGN_OR_RETURN(Pipeline last, Lower(*plan, 0));
    pipelines_.push_back(std::move(last));
    return PipelinePlan{std::move(pipelines_), stats_, plan->schema(),
                        maintain_order_ || HasDefinedOrder(*plan)};
  }

 private:
  OperatorStats* Stats(const PlanNode& node, std::string name, int id, int depth) {
    return stats_->Add(std::move(name), node.Describe(), id, depth);
  }

  int Close(Pipeline pipeline) {
    pipelines_.push_back(std::move(pipeline));
    return static_cast<int>(pipelines_.size()) - 1;
  }

  /// Ends `input` with `sink` and returns a new pipeline reading the sink's output.
  Pipeline EndWith(Pipeline input, std::unique_ptr<SinkOperator> sink, OperatorStats* stats) {
    input.sink = std::move(sink);
    input.sink_stats = stats;
    Pipeline next;
    next.upstreams = {Close(std::move(input))};
    next.source_stats = stats;  // the rows it emits are the sink's output
    return next;
  }

  Result<Pipeline> Streaming(const PlanNode& node, int depth, std::string name,
                             Result<std::unique_ptr<IntermediateOperator>> op) {
    const int id = next_id_++;
    FLOTILLA_ASSIGN_OR_RETURN(auto made, std::move(op));
    FLOTILLA_ASSIGN_OR_RETURN(Pipeline input, Lower(*node.children()[0], depth + 1));
    input.operators.push_back({std::move(made), Stats(node, std::move(name), id, depth)});
    return input;
  }

  Result<Pipeline> Blocking(const PlanNode& node, int depth, std::string name,
                            Result<std::unique_ptr<SinkOperator>> sink) {
    const int id = next_id_++;
    FLOTILLA_ASSIGN_OR_RETURN(auto made, std::move(sink));
    OperatorStats* stats = Stats(node, std::move(name), id, depth);
    FLOTILLA_ASSIGN_OR_RETURN(Pipeline input, Lower(*node.children()[0], depth + 1));
    return EndWith(std::move(input), std::move(made), stats);
  }

  Result<Pipeline> Lower(const PlanNode& node, int depth) {
    switch (node.kind()) {
      case PlanKind::kInMemorySource: {
        const auto& source = static_cast<const InMemorySourceNode&>(node);
        Pipeline p;
        p.source_stats = Stats(node, "InMemorySource", next_id_++, depth);
        p.make_source = [&source](ExecContext* context) -> Result<std::unique_ptr<Source>> {
          std::vector<std::vector<RecordBatch>> partitions;
          for (const MicroPartition& partition : source.partitions)
            partitions.push_back(partition.batches());
          return MakeBatchSource(source.schema(), std::move(partitions), context->morsel_size());
        };
        return p;
      }
      case PlanKind::kScan: {
        const auto& scan = static_cast<const ScanNode&>(node);
        Pipeline p;
        p.source_stats = Stats(node, "Scan", next_id_++, depth);
        p.make_source = [&scan](ExecContext* context) -> Result<std::unique_ptr<Source>> {
          return MakeScanSource(scan, context->morsel_size());
        };
        return p;
      }
      case PlanKind::kProject:
        return Streaming(node, depth, "Project",
                         MakeProjectOperator(static_cast<const ProjectNode&>(node)));
      case PlanKind::kFilter:
        return Streaming(node, depth, "Filter",
                         MakeFilterOperator(static_cast<const FilterNode&>(node)));
      case PlanKind::kExplode:
        return Streaming(node, depth, "Explode",
                         MakeExplodeOperator(static_cast<const ExplodeNode&>(node)));
      case PlanKind::kUnpivot:
        return Streaming(node, depth, "Unpivot",
                         MakeUnpivotOperator(static_cast<const UnpivotNode&>(node)));
      case PlanKind::kUdfProject:
        return Streaming(node, depth, "UdfProject",
                         MakeUdfProjectOperator(static_cast<const UdfProjectNode&>(node)));
      case PlanKind::kSample: {
        const auto& sample = static_cast<const SampleNode&>(node);
        if (sample.fraction) {
          return Streaming(node, depth, "Sample", MakeSampleFractionOperator(sample));
        }
        return Blocking(node, depth, "Sample", MakeSampleSizeSink(sample));
      }
      case PlanKind::kLimit:
        return Blocking(node, depth, "Limit",
                        MakeLimitSink(static_cast<const LimitNode&>(node),
                                      maintain_order_ || HasDefinedOrder(*node.children()[0])));
      case PlanKind::kAggregate:
        return Blocking(node, depth, "Aggregate",
                        MakeAggregateSink(static_cast<const AggregateNode&>(node)));
      case PlanKind::kDistinct:
        return Blocking(node, depth, "Distinct",
                        MakeDistinctSink(static_cast<const DistinctNode&>(node)));
      case PlanKind::kPivot:
        return Blocking(node, depth, "Pivot", MakePivotSink(static_cast<const PivotNode&>(node)));
      case PlanKind::kSort:
        return Blocking(node, depth, "Sort",
                        MakeSortSink(node.schema(), static_cast<const SortNode&>(node).keys));
      case PlanKind::kTopN:
        return Blocking(node, depth, "TopN", MakeTopNSink(static_cast<const TopNNode&>(node)));
      case PlanKind::kWindow:
        return Blocking(node, depth, "Window",
                        MakeWindowSink(static_cast<const WindowNode&>(node)));
      case PlanKind::kRepartition:
        return Blocking(node, depth, "Repartition",
                        MakeRepartitionSink(static_cast<const RepartitionNode&>(node)));
      case PlanKind::kMonotonicId:
        return Blocking(node, depth, "MonotonicId",
                        MakeMonotonicIdSink(static_cast<const MonotonicIdNode&>(node)));
      case PlanKind::kConcat: {
        const int id = next_id_++;
        Pipeline next;
        for (const PlanPtr& child : node.children()) {
          FLOTILLA_ASSIGN_OR_RETURN(Pipeline input, Lower(*child, depth + 1));
          input.sink = MakeCollectSink(child->schema());
          input.sink_stats = Stats(node, "ConcatInput", id, depth);
          next.upstreams.push_back(Close(std::move(input)));
        }
        next.combine = MakeChainCombine(node.schema());
        return next;
      }
      case PlanKind::kHashJoin:
      case PlanKind::kCrossJoin: {
        const int id = next_id_++;
        const bool hash = node.kind() == PlanKind::kHashJoin;
        Result<JoinOperators> made = hash
                                         ? MakeHashJoinOperators(static_cast<const JoinNode&>(node))
                                         : MakeCrossJoinOperators(node);
        FLOTILLA_ASSIGN_OR_RETURN(JoinOperators join, std::move(made));
        FLOTILLA_ASSIGN_OR_RETURN(Pipeline build, Lower(*node.children()[1], depth + 1));
        build.sink = std::move(join.build);
        build.sink_stats = Stats(node, hash ? "HashJoinBuild" : "CrossJoinBuild", id, depth);
        Close(std::move(build));
        FLOTILLA_ASSIGN_OR_RETURN(Pipeline probe, Lower(*node.children()[0], depth + 1));
        probe.operators.push_back(
            {std::move(join.probe),
             Stats(node, hash ? "HashJoinProbe" : "CrossJoinProbe", id, depth)});
        return probe;
      }
      case PlanKind::kSortMergeJoin: {
        const auto& join = static_cast<const JoinNode&>(node);
        const int id = next_id_++;
        Pipeline next;
        for (int side = 0; side < 2; ++side) {
          const PlanPtr& child = node.children()[side];
          std::vector<SortSpec> keys;
          for (const auto& key : side == 0 ? join.left_keys : join.right_keys)
            keys.push_back({key, true, false});
          FLOTILLA_ASSIGN_OR_RETURN(auto sink, MakeSortSink(child->schema(), keys));
          FLOTILLA_ASSIGN_OR_RETURN(Pipeline input, Lower(*child, depth + 1));
          input.sink = std::move(sink);
          input.sink_stats =
              Stats(node, side == 0 ? "MergeJoinSortLeft" : "MergeJoinSortRight", id, depth);
          next.upstreams.push_back(Close(std::move(input)));
        }
        next.combine = MakeMergeJoinCombine(join);
        next.source_stats = Stats(node, "MergeJoin", id, depth);
        return next;
      }
    }
    return Status::Internal("unknown plan node kind");
  }

  std::vector<Pipeline> pipelines_;
  std::shared_ptr<QueryStats> stats_;
  const bool maintain_order_;
  int next_id_ = 0;
};

}  // namespace

bool HasDefinedOrder(const PlanNode& node) {
  switch (node.kind()) {
    case PlanKind::kSort:
    case PlanKind::kTopN:
      return true;
    case PlanKind::kProject:
    case PlanKind::kFilter:
    case PlanKind::kLimit:
    case PlanKind::kExplode:
    case PlanKind::kUdfProject:
    case PlanKind::kMonotonicId:
      return HasDefinedOrder(*node.children()[0]);
    case PlanKind::kSample:
      return static_cast<const SampleNode&>(node).fraction.has_value() &&
             HasDefinedOrder(*node.children()[0]);
    default:
      return false;
  }
}

Result<PipelinePlan> BuildPipelines(const PlanPtr& plan, bool maintain_order) {
  return Builder(maintain_order).Build(plan);
}

}  // namespace flotilla::exec
