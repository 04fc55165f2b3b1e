#pragma once
// WorkerRuntime: what runs on every worker of the distributed runner — the local engine for the
// plan fragments of tasks, a PartitionStore for their outputs, and an Arrow Flight server that
// serves those outputs to other workers and to the driver. A cluster backend (Dask, or the
// in-process cluster of tests) hosts one per worker and hands it tasks as bytes.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "flotilla/distributed/flight/flight.h"
#include "flotilla/distributed/partition_ref.h"
#include "flotilla/distributed/partition_store.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/exec/plan/plan_serde.h"

namespace flotilla::proto {
class TaskResult;
class WorkerSample;
}  // namespace flotilla::proto

namespace flotilla::distributed {

struct WorkerOptions {
  std::string id;  // empty: the Flight address
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
  std::string token;
  /// Bytes of task output kept in memory before the oldest is spilled (0: no limit).
  int64_t store_memory_bytes = int64_t{2} << 30;
  /// Where spilled partitions go; empty: a fresh directory under the system's temp directory.
  std::string spill_dir;
  /// What a shuffle's map task holds past a spent store budget before it writes it to its file
  /// (kShuffleFlushBytes when 0).
  int64_t shuffle_flush_bytes = 0;
  exec::ExecOptions exec;
};

/// Registers the scan tasks of every file format (and generated ranges) a plan may read: what a
/// worker, or a driver given a plan as bytes, needs to rebuild it.
void RegisterFileScanTasks(exec::PlanResolver* resolver);

class WorkerRuntime {
 public:
  static Result<std::unique_ptr<WorkerRuntime>> Start(WorkerOptions options);
  ~WorkerRuntime();

  const std::string& id() const { return id_; }
  const std::string& address() const { return address_; }
  PartitionStore& store() { return *store_; }
  int64_t flight_calls_served() const;
  int64_t flight_bytes_served() const;

  /// This worker's resources now: the bytes of a flotilla.proto.WorkerSample (process CPU time
  /// and resident memory, the store's memory and spill, free disk where it spills, Flight bytes
  /// served, tasks running). Every task result carries one too.
  std::string SampleBytes();

  /// Stops serving and forgets every stored partition, as if the worker had died (tests of
  /// recovery). Tasks still running finish, but their outputs are unreachable.
  void Stop();

  /// Makes the UDF `name` available to the plan fragments this worker runs.
  void RegisterUdf(const std::string& name, exec::BatchFunction function);

  /// Runs one task (the bytes of a flotilla.proto.Task) and returns the bytes of its
  /// flotilla.proto.TaskResult: the output partitions it stored, or the error (marked retryable
  /// when an input could not be fetched — the cluster's fault, not the query's). Thread-safe.
  std::string RunTask(std::string_view task_bytes);

  /// Stops the task if it is running here (a satisfied limit, a failed query): its RunTask
  /// returns a Cancelled error soon after. A task not started yet is refused when it arrives.
  void CancelTask(int64_t task_id);

  /// Forgets a query's stored outputs.
  void DropQuery(int64_t query_id);
  /// Forgets the outputs of task attempts (TaskOutputKeys) no task will read any more.
  void DropTaskOutputs(const std::vector<std::string>& keys);

  /// Reads partitions held by one worker from wherever they are: this store, or that worker
  /// over Flight (one request for all of them). `keep`: what is pulled stays in this store
  /// until the query ends (a broadcast side, read again by the query's later tasks here).
  /// `local_bytes`/`remote_bytes` (optional) add what was read here and pulled from elsewhere.
  Result<std::vector<StoredPartition>> Fetch(const std::vector<PartitionRef>& refs, bool keep,
                                             std::atomic<int64_t>* local_bytes = nullptr,
                                             std::atomic<int64_t>* remote_bytes = nullptr) const;
  /// Fetch's rows handed to `each(i, batch)` (a batch of refs[i]) as they arrive: a pull from
  /// another worker that is not kept streams, so the reading task starts on its first batch.
  /// `each_run` (optional) takes whole the batches such a pull gets with several small
  /// partitions' rows (FlightGetEach).
  Status FetchEach(const std::vector<PartitionRef>& refs, bool keep,
                   std::atomic<int64_t>* local_bytes, std::atomic<int64_t>* remote_bytes,
                   const std::function<Status(int, RecordBatch)>& each,
                   const PartitionRunFn& each_run = nullptr) const;

 private:
  WorkerRuntime() = default;
  /// Fills `result`'s operator statistics (times from `start_nanos`, steady clock) as it ran.
  /// A set `writer` takes the partitions of the plan's hash repartition.
  Result<exec::QueryResult> Execute(int64_t task_id, const exec::PlanPtr& plan, int64_t start_nanos,
                                    proto::TaskResult* result, exec::PartitionWriter* writer);

  void Sample(proto::WorkerSample* out);

  std::string id_;
  std::string address_;
  WorkerOptions options_;
  std::unique_ptr<PartitionStore> store_;
  std::unique_ptr<FlightServer> flight_;
  mutable std::mutex udfs_mutex_;
  std::map<std::string, exec::BatchFunction, std::less<>> udfs_;
  std::mutex running_mutex_;  // guards running_ and cancelled_
  std::map<int64_t, exec::ResultStream*> running_;
  std::set<int64_t> cancelled_;  // cancelled before (or while) they ran
  std::string spill_dir_;
  bool owns_spill_dir_ = false;
};

}  // namespace flotilla::distributed
