#pragma once
// The distributed plan: the optimized local plan translated bottom-up into a DAG of pipeline
// nodes, each of which produces a stream of tasks. Map-like operators (project, filter, UDF,
// explode, unpivot, sample by fraction, a local limit, the write of a shuffle) are fused into the
// task of the node below them, so one task runs scan -> filter -> project -> shuffle write.
// Coordination points — a shuffle's reduce side, into_partitions, a global limit, a gather (sample
// by size), an actor pool, the write commit — start a new node whose tasks read the partitions
// the node below produced.
//
// Operators this runner cannot distribute yet fail at planning time with "not supported by the
// distributed runner yet: <operator>", so a query never runs with a wrong answer.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::dist {

enum class NodeKind {
  kSource,          // tasks over groups of scan tasks (or in-memory partitions)
  kShuffleReduce,   // task i reads output partition i of every upstream task
  kIntoPartitions,  // N tasks over consecutive row ranges of the upstream output
  kGather,          // one task over all upstream output, in order
  kLimit,           // one task over the upstream prefix that holds enough rows
  kActorPool,       // one task per upstream output, run on the pool's actors
  kConcat,          // the outputs of its inputs, one after the other (no tasks of its own)
};
const char* NodeKindName(NodeKind kind);

struct PipelineNode {
  int id = 0;
  NodeKind kind = NodeKind::kSource;
  std::vector<int> inputs;  // upstream node ids
  int rank = 0;             // 1 + the largest input rank: downstream nodes rank higher
  /// Single-input plan nodes each task applies above its input, bottom-up; each is rebuilt over
  /// the task's input (optimizer::WithNewChildren).
  std::vector<exec::PlanPtr> chain;
  /// The task's rows end in a local repartition into this many partitions (the map side of a
  /// shuffle): the node's tasks each output that many partitions.
  int output_partitions = 1;
  exec::PlanPtr source;  // kSource: a Scan or InMemorySource node
  int num_partitions = 0;  // kShuffleReduce, kIntoPartitions
  int64_t limit = -1, offset = 0;  // kLimit
  std::string pool;  // kActorPool: the pool's name (its UDF's function name)
  int pool_size = 0;
  SchemaPtr schema;  // of the rows the node outputs

  /// "Scan -> Filter -> Project", for progress and events.
  std::string Name() const;
};

struct DistributedPlan {
  std::vector<PipelineNode> nodes;  // topological: inputs before the nodes reading them
  int root = 0;
  SchemaPtr schema;
};

/// Translates an optimized plan. NotImplemented naming the operator for one not distributed yet.
Result<DistributedPlan> PlanDistributed(const exec::PlanPtr& plan);

/// The pipeline nodes one per line, inputs first, each with its kind and what feeds it:
/// "[1] ShuffleRead (4 partitions) <- [0]  Scan -> Filter -> Repartition". For explain.
std::string DistributedPlanToString(const DistributedPlan& plan);

/// Groups of consecutive scan tasks of about equal size: as many as `min_bytes` per group allows
/// (at least one, more when `max_bytes` asks for them). Tasks of unknown size stand alone.
std::vector<std::vector<std::shared_ptr<const exec::ScanTask>>> GroupScanTasks(
    const std::vector<std::shared_ptr<const exec::ScanTask>>& tasks, int64_t min_bytes,
    int64_t max_bytes);

/// The plan task number `task_index` of `node` runs over `leaf` (its input: a scan, or the
/// partitions it reads). A sample by fraction gets a seed of its own in each task.
Result<exec::PlanPtr> BuildFragment(const PipelineNode& node, exec::PlanPtr leaf,
                                    int64_t task_index);

}  // namespace flotilla::dist
