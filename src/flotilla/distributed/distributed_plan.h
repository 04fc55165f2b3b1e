#pragma once
// The distributed plan: the optimized local plan translated bottom-up into a DAG of pipeline
// nodes, each of which produces a stream of tasks. Map-like operators (project, filter, UDF,
// explode, unpivot, sample by fraction, a local limit, a partial aggregate, a local distinct or
// top-N, the partitioning of a shuffle) are fused into the task of the node below them, so one
// task runs scan -> filter -> partial aggregate -> shuffle write. Coordination points — a
// shuffle's reduce side, into_partitions, a global limit, a gather, an actor pool, the sampling
// of a sort — start a new node whose tasks read the partitions the nodes below produced.
//
// A node reads its input in one of these modes:
//   partition-wise  task i reads the output of upstream task i (actor pools, a sort's passes)
//   exchange        task i reads output partition i of every upstream task (a shuffle)
//   gather          one task reads every upstream output, in order
// and an exchange whose consumer is order-sensitive (first/last/list aggregates, distinct's
// first row, stable sort ties, window ties) reads its pieces in map-task order, so the cluster
// gives the local runner's answer.
//
// Operators this runner cannot distribute yet fail at planning time with "not supported by the
// distributed runner yet: <operator>", so a query never runs with a wrong answer.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::distributed {

enum class NodeKind {
  kSource,          // tasks over groups of scan tasks (or in-memory partitions)
  kExchange,        // task i reads output partition i of every upstream task
  kIntoPartitions,  // N tasks over consecutive row ranges of the upstream output
  kGather,          // one task over all upstream output, in order
  kLimit,           // one task over the upstream prefix that holds enough rows
  kActorPool,       // one task per upstream output, run on the pool's actors
  kMap,             // one task per upstream output (partition-wise)
  kSample,          // one task per upstream output: a sample of a sort's keys, kept by the driver
  kConcat,          // the outputs of its inputs, one after the other (no tasks of its own)
  kCommit,          // one task moving the files a write's tasks staged into place
  kPairs,           // one task per pair of an input task and a side task (a large cross join)
};
const char* NodeKindName(NodeKind kind);

/// What a task's fragment may depend on besides its input: known only when its node's tasks
/// are created or the driver has computed a small result.
struct TaskContext {
  int64_t task_index = 0;        // among its node's tasks
  int output_partitions = 1;     // a shuffle's map side: the partitions each task writes
  int64_t input_rows = 0;        // rows the task reads
  int64_t total_input_rows = 0;  // rows all tasks of the node read
  int target_partitions = 1;     // kSample: the partitions of the range exchange it samples for
  const RecordBatch* boundaries = nullptr;  // a range exchange's, computed once by the driver
  /// The task's reads of its node's side inputs (PipelineNode::sides), by node id.
  std::vector<std::pair<int, exec::PlanPtr>> sides;

  /// The read of side input `node`.
  const exec::PlanPtr& Side(int node) const;
};

/// One operator of a task's chain.
struct ChainStep {
  using Build = std::function<Result<exec::PlanPtr>(exec::PlanPtr input, const TaskContext& task)>;
  exec::PlanPtr op;  // as planned: names and describes the step
  /// Builds the step over a task's input; empty: `op` rebuilt over it.
  Build build;
  /// A broadcast join's step: the node whose every output it also reads (TaskContext::Side),
  /// and whether that node is the join's left side (the task's own rows are then its right).
  int broadcast = -1;
  bool broadcast_is_left = false;
};

/// An input a node's tasks read besides their own part of inputs[0]: the other side of a join.
struct SideInput {
  int node = -1;
  /// Every task reads all of the side's outputs, once the side finished (a broadcast join);
  /// otherwise the node is an exchange both of whose inputs are its map sides, and task i reads
  /// partition i of the side too (a hash join), or kPairs, whose tasks each read one side task.
  bool broadcast = false;
  /// A broadcast side read in task order (by worker otherwise): set where the order of the
  /// rows the node reads matters (see `PipelineNode::ordered`).
  bool ordered = false;
};

struct PipelineNode {
  int id = 0;
  NodeKind kind = NodeKind::kSource;
  std::vector<int> inputs;  // upstream node ids
  std::vector<SideInput> sides;
  int rank = 0;  // 1 + the largest input rank: downstream nodes rank higher
  /// Single-input operators each task applies above its input, bottom-up.
  std::vector<ChainStep> chain;
  exec::PlanPtr source;  // kSource: a Scan or InMemorySource node
  /// The map side of a shuffle: the node's tasks end in a partitioning for the exchange node
  /// `exchange`, and each outputs that node's number of partitions.
  int exchange = -1;
  /// kExchange, kIntoPartitions: the partition count; 0 (kExchange): decided when the number of
  /// tasks of the `count_from` nodes is known, as min(the largest, the configured maximum).
  int num_partitions = 0;
  std::vector<int> count_from;
  /// kExchange: pieces read in map-task order — where the reduce is order sensitive (first
  /// row of a key, stable ties), or where a step above depends on the order of its rows (a
  /// random split, a sample, a limit, numbering): a task run again after a loss then outputs
  /// the rows its first attempt did.
  bool ordered = false;
  /// A range exchange (kExchange) and its map side (kMap): the kSample node whose results give
  /// the boundaries, and the keys.
  int sample = -1;
  std::vector<exec::SortSpec> range_keys;
  int range_exchange = -1;         // kSample: the range exchange whose boundaries it samples for
  int64_t limit = -1, offset = 0;  // kLimit
  std::string pool;                // kActorPool: the pool's name (its UDF's function name)
  int pool_size = 0;
  std::string note;    // for explain, a warning: "runs on one worker"
  std::string reason;  // for explain: why the runner added the node
  /// Columns the node's output is hash partitioned on: all rows of one value of them are in
  /// one task's output (an exchange's keys, carried through the steps that keep them). An
  /// aggregate, distinct or window over a superset of them needs no exchange of its own.
  std::vector<std::string> clustered_on;
  int elided_exchanges = 0;  // for explain
  SchemaPtr schema;          // of the rows the node outputs

  /// "Scan -> Filter -> Project", for progress and events.
  std::string Name() const;
};

struct DistributedPlan {
  std::vector<PipelineNode> nodes;  // topological: inputs before the nodes reading them
  int root = 0;
  SchemaPtr schema;
};

struct DistributedPlanOptions {
  /// A join side estimated under this many bytes (its files' bytes, or its in-memory
  /// partitions') is broadcast to the other side's tasks instead of both being shuffled, where
  /// the join type allows; 0: never.
  int64_t broadcast_join_bytes = int64_t{10} << 20;
  /// The most bytes a broadcast side may hold once computed (estimates can be far off, and a
  /// user's broadcast hint may be wrong): above it the join is shuffled instead
  /// (ShuffleInsteadOfBroadcast).
  int64_t broadcast_max_bytes = int64_t{128} << 20;
  /// A sort whose input is estimated at no more rows than this (the optimizer's EstimateRows)
  /// runs in one task over all of it: sampling, splitting and exchanging a few rows cost three
  /// stages' latency and save nothing. 0: every sort is range partitioned.
  int64_t gather_sort_rows = int64_t{1} << 20;
  /// The tasks the cluster runs at once (the driver sets it: DriverOptions::min_source_tasks).
  /// A UDF over a source of fewer tasks gets its rows split into this many partitions first
  /// (an actor pool's: at least one per actor), so no worker idles beside the heavy part.
  int concurrent_tasks = 1;
};

/// Translates an optimized plan. NotImplemented naming the operator for one not distributed yet.
Result<DistributedPlan> PlanDistributed(const exec::PlanPtr& plan,
                                        const DistributedPlanOptions& options = {});

/// A write of the plan's result: the root's tasks write files into a staging directory, and a
/// commit node, the new root, moves them into place once they all finished. Its result is the
/// files table (as io::DatasetWriter::Finish returns it).
void AddCommit(DistributedPlan* plan, const std::vector<std::string>& partition_by);

/// A broadcast join whose broadcast side, node `side`, turned out larger than the cap, planned
/// again before any task of `holder` (the node whose chain has the join's step) exists. A keyed
/// join is shuffled: `holder`'s tasks stop before the join and split their rows on its keys, a
/// new partition-wise node splits `side`'s outputs alike, and a new exchange node runs the join
/// and the rest of `holder`'s chain. A cross join gets a kPairs node instead. Whatever read
/// `holder` reads the last new node. Returns the new nodes' ids, inputs first; they are added
/// after the others, so `plan.nodes` is no longer in topological order by id.
Result<std::vector<int>> JoinWithoutBroadcast(DistributedPlan* plan, int holder, int side);

/// How a file source's scan tasks become tasks (GroupScanTasks): the driver's settings
/// (DriverOptions), for explain to say what a run will do.
struct ScanGrouping {
  int64_t min_bytes = int64_t{96} << 20;
  int64_t max_bytes = int64_t{384} << 20;
  int min_tasks = 1;
};

/// The pipeline nodes one per line, inputs first, each with its kind, input mode, partition
/// count and what feeds it: "[1] Exchange -> Aggregate (hash, auto partitions, ordered) <- [0]".
/// With `grouping`, a file source says how many tasks its scan tasks run as. For explain.
std::string DistributedPlanToString(const DistributedPlan& plan,
                                    const ScanGrouping* grouping = nullptr);

/// Groups of consecutive scan tasks of about equal size: as many as `min_bytes` per group allows
/// (at least `min_groups`, more when `max_bytes` asks for them; never more than the tasks).
/// Tasks of unknown size stand alone.
std::vector<std::vector<std::shared_ptr<const io::ScanTask>>> GroupScanTasks(
    const std::vector<std::shared_ptr<const io::ScanTask>>& tasks, int64_t min_bytes,
    int64_t max_bytes, int min_groups = 1);

/// The plan a task of `node` runs over `leaf` (its input: a scan, or the partitions it reads).
Result<exec::PlanPtr> BuildFragment(const PipelineNode& node, exec::PlanPtr leaf,
                                    const TaskContext& task);

}  // namespace flotilla::distributed
