#pragma once
// Internal to the executor: cuts a physical plan into pipelines.
//
// Streaming operators join the pipeline of their input; a blocking operator becomes the sink of
// its input's pipeline and the source of a new one (fed by the sink's Finalize). Joins close
// their build side first, so running the pipelines in the order they were closed respects
// every dependency. Operators with several inputs (concat, sort-merge join) start a pipeline
// whose source combines the outputs of several upstream pipelines.
#include <functional>
#include <memory>
#include <vector>

#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/pipeline/operator.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

using SourceFactory = std::function<Result<std::unique_ptr<Source>>(ExecContext* context)>;
using CombineFactory = std::function<Result<std::unique_ptr<Source>>(
    std::vector<std::unique_ptr<Source>> upstream, ExecContext* context)>;

struct Pipeline {
  /// A leaf pipeline's source (in-memory or scan); empty when `upstreams` feed it.
  SourceFactory make_source;
  /// Pipelines whose sink output feeds this one, combined by `combine` when there are several.
  std::vector<int> upstreams;
  CombineFactory combine;
  OperatorStats* source_stats = nullptr;

  struct Step {
    std::unique_ptr<IntermediateOperator> op;
    OperatorStats* stats = nullptr;
  };
  std::vector<Step> operators;

  /// Null for the last pipeline, which the executor ends with its result queue.
  std::unique_ptr<SinkOperator> sink;
  OperatorStats* sink_stats = nullptr;
};

struct PipelinePlan {
  std::vector<Pipeline> pipelines;  // in run order; the last produces the result
  std::shared_ptr<QueryStats> stats;
  SchemaPtr schema;
  /// The result must come out in sequence: the caller asked for input order, or the plan
  /// sorts.
  bool ordered_output = true;
};

/// `maintain_order`: keep input order (ExecOptions::maintain_order). Sorted data keeps its
/// order through the operators after the sort either way.
Result<PipelinePlan> BuildPipelines(const PlanPtr& plan, bool maintain_order);

/// True when `node`'s output is in an order the plan defines (a sort, top-N, or streaming
/// operators over one).
bool HasDefinedOrder(const PlanNode& node);

}  // namespace flotilla::exec
