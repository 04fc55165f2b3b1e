#pragma once
// The driver of one distributed query: the distributed plan's pipeline nodes turned into tasks,
// handed to the Scheduler, their results followed until the query's output exists. It does no
// I/O either: the query loop (query_loop.h) asks it what to run where, has a cluster backend
// run it, and reports back:
//
//   while (!driver.finished()) {
//     for (Dispatch& d : driver.Schedule()) backend.Submit(d.worker, d.task_id, d.bytes);
//     driver.OnTaskResult(task_id, result_bytes);                             // as they arrive
//     for (PartitionRef& r : driver.TakeReadyResults()) fetch r over Flight;
//     driver.MarkFetched(r.id);
//   }
//
// Fault tolerance is by lineage: when a worker is removed its running tasks are re-queued, and
// finished tasks whose outputs were on it and are still needed are run again, which re-runs
// their own lost inputs first; tasks that were reading those outputs are stopped and restarted
// once the outputs exist again.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "flotilla/common/logging.h"
#include "flotilla/distributed/distributed_plan.h"
#include "flotilla/distributed/events.h"
#include "flotilla/distributed/nodes/node_tasks.h"
#include "flotilla/distributed/partition_ref.h"
#include "flotilla/distributed/scheduler.h"
#include "flotilla/distributed/task_stats.h"

namespace flotilla::proto {
class WorkerSample;
}

namespace flotilla::distributed {

/// A distributed write: the root's tasks write files into a staging directory under `root`, one
/// final task moves them into place (so a failed or retried query leaves no partial output).
struct WriteSpec {
  std::string root;
  std::string format = "parquet";
  std::vector<std::string> partition_by;
  std::string compression;  // Parquet codec; empty: the default
};

struct DriverOptions {
  int64_t query_id = 1;
  int64_t scan_task_min_bytes = ScanGrouping{}.min_bytes;
  int64_t scan_task_max_bytes = ScanGrouping{}.max_bytes;
  /// A file source is split into at least this many tasks when its files have as many row
  /// groups, however small they are, so every worker has work at once. 0: the tasks the
  /// backend runs at once (the in-process cluster's workers x tasks each; the Dask backend's
  /// workers).
  int min_source_tasks = 0;
  std::optional<WriteSpec> write;
  Resources task_request{1, 0, 0};
  /// The most partitions a shuffle whose count the runner picks gets (it picks one per
  /// upstream task, up to this).
  int max_shuffle_partitions = 200;
  /// The fewest partitions such a shuffle gets, however few its upstream tasks: spreads a small
  /// but heavy aggregation or join over the workers (and makes tests shuffle small inputs).
  int min_shuffle_partitions = 1;
  /// A shuffle whose partition count the runner picks has adjacent partitions read by one
  /// reduce task up to about this many bytes together, in no fewer tasks than
  /// min_shuffle_partitions and twice the tasks the backend runs at once (0: one task per
  /// partition).
  int64_t reduce_task_bytes = int64_t{16} << 20;
  int max_attempts = 3;
  /// How a shuffle's map outputs are kept: "flight" (one entry per map task, spilled as one file
  /// and served from it as stored) or "memory" (each partition an entry of its own).
  std::string shuffle_algorithm = "flight";
  /// The Arrow IPC codec of "flight" shuffle outputs: "none", "lz4" or "zstd". Compressing
  /// costs more CPU than it saves where workers share a machine (loopback moves bytes at memory
  /// speed); the Dask runner picks lz4 when its workers are on several hosts.
  std::string shuffle_compression = "none";
  /// How joins are planned (DistributedPlanOptions: when a side is broadcast).
  DistributedPlanOptions plan;
  std::vector<std::shared_ptr<EventSubscriber>> subscribers;
  /// The scheduler of a cluster session shared by every query running there (cluster_session.h);
  /// null: the driver has one of its own. A driver sharing one submits nothing until the
  /// session starts it (Start), on the session's thread, which alone calls it from then on.
  std::shared_ptr<Scheduler> scheduler;
  /// Progress display on stderr: -1 auto (a terminal, FLOTILLA_PROGRESS not 0), 0 off, 1 on.
  int progress = -1;
};

struct Dispatch {
  int64_t task_id;
  std::string worker;
  std::string bytes;  // a flotilla.proto.Task for WorkerRuntime::RunTask
};

class QueryDriver final : private TaskGraph {
 public:
  /// Plans `plan` (NotImplemented for an operator not distributed yet).
  static Result<std::unique_ptr<QueryDriver>> Make(const exec::PlanPtr& plan,
                                                   DriverOptions options);
  ~QueryDriver();

  int64_t query_id() const { return options_.query_id; }
  /// The schema of the result (a write's: the files table).
  const SchemaPtr& schema() const { return schema_; }
  const DistributedPlan& plan() const { return plan_; }
  /// Where a write's tasks put their files until the commit ("" when not writing). A backend
  /// removes it when the query fails, so nothing of a failed write stays behind.
  std::string StagingDirectory() const;
  /// The actor pools the query needs: (name, number of actors).
  std::vector<std::pair<std::string, int>> pools() const;

  /// Before Start (a shared scheduler), the worker is only noted; Start offers it.
  Status AddWorker(const WorkerSpec& worker);
  /// Submits the first tasks (Make does for a driver with a scheduler of its own).
  Status Start();
  bool started() const { return started_; }
  /// The scheduler its tasks go to (its own, or the session's).
  Scheduler& scheduler() { return *scheduler_; }
  /// The actor-pool workers it added: they leave the scheduler with the query.
  std::vector<std::string> pool_workers() const;
  /// The worker left: lineage recovery of what it held. Idempotent (a worker already removed is
  /// ignored).
  Status RemoveWorker(const std::string& worker_id);

  /// The live workers, as the driver knows them.
  std::vector<std::string> workers() const;
  /// A worker's resources (the bytes of a flotilla.proto.WorkerSample): a worker_sample event.
  /// Task results carry one too.
  Status OnWorkerSample(const std::string& worker, std::string_view sample_bytes);

  /// The tasks to start now and where (a driver with a scheduler of its own).
  Result<std::vector<Dispatch>> Schedule();
  /// One of this query's tasks the scheduler placed: what to send where. None when the query
  /// ended building it.
  std::optional<Dispatch> Place(const Assignment& assignment);
  /// A task's result (the bytes WorkerRuntime::RunTask returned). A result for a task that was
  /// cancelled meanwhile is ignored. A failure that is not retryable (or out of attempts) ends
  /// the query with its error; one naming a worker its inputs could not be read from removes
  /// that worker (see RemoveWorker).
  Status OnTaskResult(int64_t task_id, std::string_view result_bytes);
  /// The backend could not run the task on `worker` (it went away): a retryable failure.
  /// Ignored when the task is no longer running there.
  Status OnTaskLost(int64_t task_id, const std::string& worker, const std::string& message);
  /// Tasks the backend should stop (a satisfied limit, lost inputs, a failed query).
  std::vector<int64_t> TakeCancelled();
  /// Stored outputs no task will read any more (every node reading them has finished), to be
  /// dropped on each of the workers: (worker, TaskOutputKey) pairs. Should one be needed again
  /// (a reader re-run after its own outputs were lost), its task runs again first.
  std::vector<std::pair<std::string, std::vector<std::string>>> TakeReleased();

  /// Result partitions that became available since the last call.
  std::vector<PartitionRef> TakeReadyResults();
  /// The driver holds the result partition now (its worker may go away).
  Status MarkFetched(const std::string& ref_id);
  /// The result partitions in result order (complete once finished() with OK status).
  std::vector<PartitionRef> ResultOrder() const;

  bool finished() const { return finished_; }
  const Status& status() const { return status_; }
  /// Ends the query with `status` (e.g. the backend lost every worker).
  void Fail(Status status);
  std::vector<NodeProgress> Progress() const;
  /// Per pipeline node (topological order; concats left out): its finished tasks' operator
  /// statistics summed (explain analyze; RenderClusterAnalysis).
  std::vector<NodeAnalysis> Analysis() const;
  /// A line of the query's own (not of one of its tasks): logged as any line is, and, when
  /// logged at `level`, a log event of the query (its log file has it beside its tasks' lines).
  void Log(log::Level level, const std::string& message);
  template <typename... Args>
  void Log(log::Level level, fmt::format_string<Args...> f, Args&&... args) {
    if (log::Enabled(level)) Log(level, fmt::format(f, std::forward<Args>(args)...));
  }
  /// This query's tasks running now.
  int64_t num_running() const { return static_cast<int64_t>(running_on_.size()); }
  int num_workers() const { return static_cast<int>(workers_.size()); }

 private:
  // A slot is the one word for a task as the driver plans it: a place in a node's output that
  // one task fills, whatever attempts it takes (each attempt is a scheduler task).
  enum class SlotState { kWaiting, kSubmitted, kDone, kCancelled };
  /// What a finished task offers, as integers: its partitions, all on one worker, are named by
  /// PartitionKey(query, task, attempt, i) — the driver keeps no string per partition, and no
  /// size per partition either: a shuffle's map task keeps its totals, and its node the sizes
  /// of each partition over all its tasks (NodeState::partition_rows), which estimate one task's
  /// part of one partition (PartRows). So what the driver holds grows with M + N, not M x N.
  struct TaskOutputs {
    std::string worker;
    std::string address;
    int64_t task_id = -1;
    int attempt = 0;
    int partitions = 0;
    int64_t rows = 0;  // over all its partitions
    int64_t bytes = 0;
    int64_t count() const { return partitions; }
  };
  struct Slot {
    int64_t id = 0;
    int node = 0;       // its pipeline node
    int64_t index = 0;  // among its node's tasks
    std::vector<std::shared_ptr<const io::ScanTask>> scan;
    exec::PlanPtr leaf;  // an in-memory source's partition
    std::vector<InputPart> inputs;
    SlotState state = SlotState::kWaiting;
    int64_t task_id = -1;  // the scheduler's id of the current submission
    TaskOutputs outputs;
    bool final = false;  // its outputs are the query's result (a write's: its commit's)
    int64_t fetched = 0;
    int64_t missing = 0;                   // input parts whose producing task is not done
    bool released = false;                 // its outputs were dropped (TakeReleased)
    std::vector<RecordBatch> inline_rows;  // a kSample task's result, kept by the driver
    /// Runs that ended with their worker's loss, over all its submissions (a run restarted
    /// because an input was lost with the same worker is a new submission).
    int lost_runs = 0;
    int runs = 0;  // attempts scheduled, over all its submissions
    /// Its finished attempt's operators, indexed like its node's NodeOperators.
    std::vector<OperatorFigures> figures;
    int64_t read_local_bytes = 0;  // its finished attempt's inputs
    int64_t read_remote_bytes = 0;
    bool counted = false;  // in its node's partition sizes
  };
  struct NodeState {
    bool created = false;
    std::vector<int64_t> slots;
    int64_t rows = 0;
    int64_t done = 0;
    int64_t finished = 0;  // done or cancelled
    int64_t running = 0;
    int partitions = 0;                     // kExchange: its partition count, once decided
    int64_t input_rows = 0;                 // kSample: the rows all its tasks read
    std::optional<RecordBatch> boundaries;  // a range kExchange's, computed once
    bool released = false;                  // every finished task's outputs were released
    double started_at = -1;                 // its first task's submission (node_started)
    double finished_at = -1;                // its last task's result (node_finished)
    NodeOperators operators;                // what its tasks' plans are made of
    int64_t spilled_bytes = 0;              // of its tasks' outputs, by any attempt
    bool reported_finished = false;         // node_finished sent since it last completed
    /// Per output partition of its tasks (more than one: a shuffle's map side), the rows and
    /// bytes over every task's first finished attempt (a task run again writes what its first
    /// attempt did), and those totals.
    std::vector<int64_t> partition_rows;
    std::vector<int64_t> partition_bytes;
    int64_t counted_rows = 0;
    int64_t counted_bytes = 0;
  };

  explicit QueryDriver(DriverOptions options);
  Status Advance();
  /// Drops the outputs no recovery can need: of nodes whose every reader finished and is
  /// beyond loss (fetched results, or released itself).
  void ReleaseRead();
  /// node_finished for each node that completed since the last look.
  void ReportFinishedNodes();
  /// Runs again the finished tasks `reader` reads whose outputs are gone (released, or on a
  /// worker since removed); whether any was (the reader then waits for them). Applied to every
  /// task before it starts, it recomputes through any number of stages, on demand.
  bool RecomputeGoneInputs(const Slot& reader);
  bool OutputsGone(const Slot& slot) const;
  /// A finished task whose outputs are gone runs again (`why`, on `worker`, goes to the events).
  void RunAgain(Slot* slot, const std::string& worker, const std::string& why);
  Status CreateSlots(int node);
  /// Before `node`'s tasks exist: a broadcast side larger than the cap is joined by shuffle
  /// instead (ShuffleInsteadOfBroadcast), and the driver's view of the plan follows.
  Status CheckBroadcastSizes(int node);
  /// The per-node tables derived from the plan (again after it changed).
  void IndexNodes();
  int OutputPartitions(int node) const;
  TaskContext ContextOf(const Slot& slot) const;
  // The TaskGraph the node kinds create their tasks through (nodes/node_tasks.h).
  bool SlotsKnown(int node) const override;
  bool NodeComplete(int node) const override;
  std::vector<int64_t> OutputSlots(int node) const override;
  std::vector<int64_t> DoneOutputs(int node) const override;
  bool Done(int64_t slot) const override { return slots_[slot].state == SlotState::kDone; }
  bool Cancelled(int64_t slot) const override {
    return slots_[slot].state == SlotState::kCancelled;
  }
  int64_t OutputRows(int64_t slot) const override { return slots_[slot].outputs.rows; }
  int64_t OutputBytes(int64_t slot, int index) const override {
    return PartBytes(slots_[slot], index);
  }
  int64_t NewSlot(int node, std::vector<InputPart> inputs) override;
  void SetScan(int64_t slot, std::vector<std::shared_ptr<const io::ScanTask>> scan) override {
    slots_[slot].scan = std::move(scan);
  }
  void SetLeaf(int64_t slot, exec::PlanPtr leaf) override { slots_[slot].leaf = std::move(leaf); }
  void Cancel(int64_t slot, const std::string& why) override { CancelSlot(&slots_[slot], why); }
  int Partitions(int exchange) override;
  Status ComputeBoundaries(int exchange) override;
  void SetInputRows(int node, int64_t rows) override { nodes_[node].input_rows = rows; }
  int64_t scan_task_min_bytes() const override { return options_.scan_task_min_bytes; }
  int64_t scan_task_max_bytes() const override { return options_.scan_task_max_bytes; }
  int min_source_tasks() const override { return std::max(1, options_.min_source_tasks); }
  int64_t reduce_task_bytes() const override { return options_.reduce_task_bytes; }
  /// Two per task slot: room to even out partitions of unequal cost.
  int min_reduce_tasks() const override {
    return std::max({1, 2 * options_.min_source_tasks, options_.min_shuffle_partitions});
  }

  /// Every change of a slot's state goes through here: it keeps the per-node counts, the
  /// readers' missing-input counts and the runnable set, so an event costs what it touches,
  /// not a scan of every task.
  void SetState(Slot* slot, SlotState to);
  Status Submit(Slot* slot);
  void CancelSlot(Slot* slot, const std::string& why);
  Result<std::string> TaskBytes(const Slot& slot, int attempt) const;
  /// A scan of the slot's input parts of `side` (0: its own input; k: its node's side k - 1).
  /// `keep`: the reading worker keeps what it pulls (a broadcast side).
  Result<exec::PlanPtr> ReadOf(const Slot& slot, int side, const SchemaPtr& schema, ReadOrder order,
                               bool keep = false) const;
  /// Calls `fn(reader)` for each part of a slot that reads `slot`'s outputs.
  template <typename Fn>
  void ForEachReader(const Slot& slot, Fn fn) const;
  /// Calls `fn(part)` for each single part `parts` name (a run as its slots).
  template <typename Fn>
  static void ForEachPart(const std::vector<InputPart>& parts, Fn fn);
  /// The rows and bytes of output `index` of a done slot: exact for a task with one output, an
  /// estimate from its totals and its node's partition sizes for a shuffle's map task.
  int64_t PartRows(const Slot& slot, int index) const;
  int64_t PartBytes(const Slot& slot, int index) const;
  /// The partition an input part reads (its id built on demand).
  PartitionRef RefOf(const InputPart& part) const;
  PartitionRef RefOf(const Slot& slot, int index) const;
  bool Needed(const Slot& slot) const;
  /// The nodes `node` reads, inputs and sides, through concats (which run no tasks).
  std::vector<int> ReadNodes(int node) const;
  void Emit(TaskEvent event);
  void EmitSample(const std::string& worker, const proto::WorkerSample& sample);
  void Finish(Status status);
  std::string NodeName(int node) const;
  /// `node`, and when it is a concat its inputs (recursively), as flags per pipeline node.
  std::vector<bool> ThroughConcats(int node) const;
  double Now() const;

  DriverOptions options_;
  DistributedPlan plan_;
  SchemaPtr schema_;
  std::shared_ptr<Scheduler> scheduler_;
  bool started_ = false;
  std::vector<WorkerSpec> pending_workers_;  // added before Start
  std::vector<std::string> pool_workers_;
  /// What a pool's task asks for: what one of its actors offers (one instance, one task).
  std::unordered_map<std::string, Resources> pool_requests_;
  /// This query's running tasks and where: a shared scheduler forgets a worker's tasks when any
  /// query removes it, before the others hear of it.
  std::unordered_map<int64_t, std::string> running_on_;
  std::vector<Slot> slots_;
  std::vector<NodeState> nodes_;   // per pipeline node
  std::vector<int> order_;         // the pipeline nodes in topological order
  std::vector<bool> output_node_;  // per pipeline node: its tasks' outputs are the result
  std::vector<bool> writer_node_;  // per pipeline node: its tasks write the files a commit moves
  std::set<int64_t> runnable_;     // waiting slots whose inputs are all done
  std::vector<std::vector<int64_t>> readers_;  // per slot: the slots reading it, per part
  /// A reader of a run of slots (InputPart::count > 1), kept per the run's node.
  struct RunReader {
    int64_t reader;
    int64_t first;
    int64_t count;
  };
  std::vector<std::vector<RunReader>> run_readers_;  // per node
  std::vector<std::vector<int>> readers_of_node_;    // per node: the nodes reading its tasks
  std::unordered_map<int64_t, int64_t> slot_of_task_;
  std::unordered_map<int64_t, double> started_at_;
  /// Per worker, its last sample's (Unix time, CPU seconds): CPU use between two samples.
  std::unordered_map<std::string, std::pair<double, double>> last_sample_;
  int64_t next_task_ = 0;
  std::vector<int64_t> cancelled_;
  std::set<std::string> workers_;          // live, as the driver knows them
  std::set<std::string> removed_workers_;  // outputs held there are gone
  std::vector<std::string> released_;      // TaskOutputKeys to drop, not yet taken
  int64_t released_count_ = 0;             // slots released so far
  std::vector<PartitionRef> ready_;
  std::unordered_map<std::string, int64_t> result_slot_;  // handed-out result ref -> its slot
  bool finished_ = false;
  bool execution_started_ = false;  // its first task was placed (execution_started)
  Status status_;
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<ProgressDisplay> progress_;
};

}  // namespace flotilla::distributed
