#pragma once
// What a cluster offers the query loop (query_loop.h): a way to run task bytes on a worker, to
// stop them, and to learn what happened since. The in-process cluster implements it with
// threads; the Dask backend (python/flotilla/dask_runner.py) with actor calls. Everything else a
// distributed query does — scheduling, recovery, fetching results, deciding that it stalled —
// is the loop's and the driver's, written once.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/distributed/scheduler.h"

namespace flotilla::distributed {

/// What happened on the cluster since the backend's last report.
struct BackendEvents {
  struct Finished {
    int64_t task_id;
    std::string worker;
    std::string result;  // what WorkerRuntime::RunTask returned
  };
  std::vector<Finished> finished;
  /// Workers gone (left the cluster, or their calls failed): their running tasks never report.
  std::vector<std::string> lost;
  /// Workers that joined; they take new tasks at once.
  std::vector<WorkerSpec> joined;
  /// Resource samples asked for with RequestSample: (worker, flotilla.proto.WorkerSample bytes).
  std::vector<std::pair<std::string, std::string>> samples;

  /// Nothing that changes the query happened (samples aside).
  bool empty() const { return finished.empty() && lost.empty() && joined.empty(); }
};

class ClusterBackend {
 public:
  virtual ~ClusterBackend() = default;
  /// Starts the task on `worker`; its result comes back through Wait. An error means the worker
  /// cannot take it (it is gone).
  virtual Status Submit(const std::string& worker, int64_t task_id, std::string bytes) = 0;
  /// Asks `worker` to stop the task early; what it still reports is ignored.
  virtual void Cancel(const std::string& worker, int64_t task_id) = 0;
  /// Asks `worker` to drop the stored outputs of task attempts (TaskOutputKeys) no task will
  /// read any more. Best effort: a worker that is gone has nothing to drop.
  virtual void Release(const std::string& worker, const std::vector<std::string>& keys) = 0;
  /// Asks `worker` for a sample of its resources (WorkerRuntime::SampleBytes), reported by a
  /// later Wait. Best effort, not waited for: a worker busy or gone reports none.
  virtual void RequestSample(const std::string& worker) = 0;
  /// What happened since the last call, waiting up to `timeout_seconds` while nothing has.
  virtual Result<BackendEvents> Wait(double timeout_seconds) = 0;
  /// Makes a Wait in progress (or the next one) return at once: a session's loop has a new
  /// query or a cancel to act on. Called from other threads.
  virtual void Interrupt() {}
  /// The loop wrote `worker` off (however it learnt of the loss): it gets no more tasks. A
  /// backend whose worker in fact lives may bring it back later as a new worker.
  virtual void Forget(const std::string& worker) {}
};

}  // namespace flotilla::distributed
