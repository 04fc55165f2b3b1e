#pragma once
// Factories of the run-time operators, one per plan node kind (each defined in its own file in
// this folder). The pipeline builder calls them; nothing else should need to.
#include <memory>

#include "flotilla/exec/pipeline/operator.h"
#include "flotilla/exec/pipeline/pipeline_builder.h"
#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::exec {

// Sources.
std::unique_ptr<Source> MakeScanSource(const ScanNode& node, int64_t morsel_size);

// Streaming operators.
Result<std::unique_ptr<IntermediateOperator>> MakeProjectOperator(const ProjectNode& node);
Result<std::unique_ptr<IntermediateOperator>> MakeFilterOperator(const FilterNode& node);
Result<std::unique_ptr<IntermediateOperator>> MakeExplodeOperator(const ExplodeNode& node);
Result<std::unique_ptr<IntermediateOperator>> MakeUnpivotOperator(const UnpivotNode& node);
Result<std::unique_ptr<IntermediateOperator>> MakeUdfProjectOperator(const UdfProjectNode& node);
Result<std::unique_ptr<IntermediateOperator>> MakeSampleFractionOperator(const SampleNode& node);

// Blocking operators (sinks).
/// `ordered`: the first rows in input order (else any rows, which is faster).
Result<std::unique_ptr<SinkOperator>> MakeLimitSink(const LimitNode& node, bool ordered);
Result<std::unique_ptr<SinkOperator>> MakeSampleSizeSink(const SampleNode& node);
Result<std::unique_ptr<SinkOperator>> MakeAggregateSink(const AggregateNode& node);
/// Pivot's aggregation: `node` (single mode) has one aggregate per name of `names`, and
/// aggregate i reads only the rows whose `pivot` value, cast to utf8, is names[i].
Result<std::unique_ptr<SinkOperator>> MakeRoutedAggregateSink(
    const AggregateNode& node, const expr::ExprPtr& pivot, const std::vector<std::string>& names);
Result<std::unique_ptr<SinkOperator>> MakeDistinctSink(const DistinctNode& node);
Result<std::unique_ptr<SinkOperator>> MakePivotSink(const PivotNode& node);
Result<std::unique_ptr<SinkOperator>> MakeSortSink(const SchemaPtr& schema,
                                                   const std::vector<SortSpec>& keys);
Result<std::unique_ptr<SinkOperator>> MakeTopNSink(const TopNNode& node);
Result<std::unique_ptr<SinkOperator>> MakeWindowSink(const WindowNode& node);
Result<std::unique_ptr<SinkOperator>> MakeRepartitionSink(const RepartitionNode& node);
Result<std::unique_ptr<SinkOperator>> MakeMonotonicIdSink(const MonotonicIdNode& node);
/// Materializes its input in order (the inputs of concat).
std::unique_ptr<SinkOperator> MakeCollectSink(SchemaPtr schema);

// Joins: a sink for the build side and a streaming operator probing it, sharing the build's
// result through a bridge both hold.
struct JoinOperators {
  std::unique_ptr<SinkOperator> build;
  std::unique_ptr<IntermediateOperator> probe;
};
Result<JoinOperators> MakeHashJoinOperators(const JoinNode& node);
Result<JoinOperators> MakeCrossJoinOperators(const PlanNode& node);
/// Sort-merge join: the two sorted inputs merged by a source.
CombineFactory MakeMergeJoinCombine(const JoinNode& node);

/// Concat: the upstream sources one after another.
CombineFactory MakeChainCombine(SchemaPtr schema);

}  // namespace flotilla::exec
