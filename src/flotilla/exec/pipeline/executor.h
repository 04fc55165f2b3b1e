#pragma once
// Runs a physical plan on the local engine.
//
// The plan is cut into pipelines at its blocking operators (pipeline_builder.h). Pipelines run
// one after another in dependency order — a join's build side before its probe side — each on
// every thread of the pool at once, morsel by morsel. The last pipeline feeds a bounded result
// queue: producers wait while the caller has not taken the batches already queued
// (backpressure), and dropping the stream cancels the query, stops its threads and deletes its
// spill files.
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "flotilla/columnar/micro_partition.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/pipeline/operator.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

/// One pipeline of a running query, for observers: its operators as statistics entries (source
/// to sink; a source reading an earlier pipeline's sink is that sink's entry) and when it ran.
struct PipelineStatus {
  std::vector<const OperatorStats*> operators;
  bool has_sink = false;       // the last operator is its sink (else it feeds the result)
  std::vector<int> upstreams;  // pipelines whose sink output it reads
  /// Steady-clock nanoseconds (0: not yet), set by the thread running the query.
  std::atomic<int64_t> start_nanos{0};
  std::atomic<int64_t> end_nanos{0};
};

/// The batches of a query as they are produced.
class ResultStream {
 public:
  virtual ~ResultStream() = default;
  virtual const SchemaPtr& schema() const = 0;
  /// The next batch with its partition index, nullopt at the end, or the query's error.
  virtual Result<std::optional<Morsel>> Next() = 0;
  /// Stops the query; Next() then returns Cancelled.
  virtual void Cancel() = 0;
  /// The per-operator statistics (final once Next() has returned nullopt).
  virtual const QueryStats& stats() const = 0;
  /// The query's pipelines in run order (updated while it runs).
  virtual const std::vector<std::unique_ptr<PipelineStatus>>& pipelines() const = 0;
};

struct QueryResult {
  SchemaPtr schema;
  /// Output partitions in order; one unless the plan ends in a repartition.
  std::vector<MicroPartition> partitions;
  std::shared_ptr<const QueryStats> stats;

  int64_t num_rows() const;
  /// Every partition's rows in one batch.
  Result<RecordBatch> ToBatch() const;
};

/// Starts `plan` and returns its result stream.
Result<std::unique_ptr<ResultStream>> Execute(const PlanPtr& plan, const ExecOptions& options = {});

/// Runs `plan` to completion.
Result<QueryResult> Run(const PlanPtr& plan, const ExecOptions& options = {});

/// Drains `stream` into its partitions (one at least), in partition order; stats not set.
/// Fails, naming the limit, once the collected rows pass `max_bytes` (-1: no limit): a result
/// held in memory is the one thing the memory budget cannot spill. Run passes the memory budget,
/// or 64 MiB when that is less.
Result<QueryResult> CollectPartitions(ResultStream* stream, int64_t max_bytes = -1);

/// The pipelines `plan` runs as, in run order, one line each: "Pipeline 1: Scan -> Filter ->
/// HashJoinBuild (from pipeline 0)" (explain's physical view).
Result<std::string> ExplainPipelines(const PlanPtr& plan, const ExecOptions& options = {});

/// Runs `plan` and renders its per-operator statistics (explain analyze).
Result<std::string> ExplainAnalyze(const PlanPtr& plan, const ExecOptions& options = {});

}  // namespace flotilla::exec
