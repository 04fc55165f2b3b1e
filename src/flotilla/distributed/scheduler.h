#pragma once
// The distributed scheduler: a state machine with no I/O. It is told what happens — tasks
// submitted, workers joining and leaving, tasks finishing or failing — and answers one question:
// which queued tasks should start now, and where. Because it never talks to a network or a clock
// it can be driven by a real cluster backend and by simulated clusters of thousands of workers
// alike (scheduler_test.cc).
//
// Priority: the older query first (smaller query id), then the more downstream pipeline node
// (larger node rank: finishing what is nearest the output frees memory soonest), then the
// smaller task id.
//
// Placement: among the workers with room for the task's resource request, the one holding the
// most of the task's input bytes when it has room, otherwise the least loaded (lowest share of
// its cpus in use, ties to the smaller worker index). A task naming a worker pool (an actor
// pool) runs only on workers of that pool, and workers of a pool run only its tasks.
//
// Hosts: an actor-pool worker may live on a general worker (a UDF actor in a Dask worker's
// process) and share its threads. Its running tasks then count against both, so the host is
// never oversubscribed by its guests. Actor pools are placed before the general pool in a pass:
// their tasks are downstream of the tasks that feed them.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/common/result.h"

namespace flotilla::distributed {

struct Resources {
  double cpus = 0;
  double gpus = 0;
  int64_t memory_bytes = 0;

  /// Every amount of `request` is at most this one's.
  bool Fits(const Resources& request) const;
  Resources& operator+=(const Resources& other);
  Resources& operator-=(const Resources& other);
};

struct WorkerSpec {
  std::string id;      // unique; e.g. the worker's address
  Resources capacity;  // what it can run at once
  std::string pool;    // empty: a general worker; otherwise the actor pool it belongs to
  /// A pool worker's general worker, whose resources its tasks also use (empty: none; an
  /// unknown id is ignored).
  std::string host;
};

struct TaskSpec {
  int64_t task_id = 0;   // unique across every query the scheduler sees
  int64_t query_id = 0;  // smaller is older
  int node_rank = 0;     // larger is further downstream
  Resources request{1, 0, 0};
  /// Bytes of the task's inputs held by each worker (locality preference).
  std::vector<std::pair<std::string, int64_t>> input_bytes;
  std::string pool;      // hard affinity to an actor pool
  int max_attempts = 3;  // runs before a retryable failure becomes final
};

struct Assignment {
  int64_t task_id;
  std::string worker;
  int attempt;  // 1 for the first run
};

enum class TaskState { kQueued, kRunning, kCompleted, kFailed, kCancelled };

class Scheduler {
 public:
  Scheduler();
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Invalid for a known id.
  Status AddWorker(const WorkerSpec& worker);
  /// The worker leaves: its running tasks go back to the queue (attempt + 1; a task out of
  /// attempts fails) and are returned. KeyError for an unknown id.
  Result<std::vector<int64_t>> RemoveWorker(const std::string& worker_id);

  /// Queues a task. Invalid for a known id. A request no worker shape could ever satisfy is not
  /// checked here (the task waits for such a worker to join).
  Status Submit(TaskSpec task);

  /// Starts as many queued tasks as fit, in priority order, and says where. A task that fits
  /// nowhere now does not stop tasks behind it that fit.
  std::vector<Assignment> Schedule();

  /// The running task finished: its resources are freed.
  Status TaskCompleted(int64_t task_id);
  /// The running task failed. Retryable and attempts left: back to the queue, returns true.
  /// Otherwise the task is failed for good, returns false. A failure that is not the task's
  /// doing (`charged` false: an input lost with another worker) runs it again without using up
  /// an attempt.
  Result<bool> TaskFailed(int64_t task_id, bool retryable, bool charged = true);
  /// A queued or running task is dropped (a satisfied limit, a failed query). Its resources
  /// are freed; the caller stops the running attempt. No-op for a finished task.
  Status Cancel(int64_t task_id);

  /// Drops every task of the query (cancelling what is queued or running): a long-lived
  /// scheduler shared by queries keeps nothing of those that ended, and their ids may be used
  /// again.
  void ForgetQuery(int64_t query_id);

  TaskState state(int64_t task_id) const;
  /// The worker running the task (empty when it is not running).
  std::string worker_of(int64_t task_id) const;
  int attempt(int64_t task_id) const;

  int64_t num_queued() const;
  int64_t num_running() const;
  int num_workers() const;
  /// What the worker has in use now. KeyError for an unknown id.
  Result<Resources> used(const std::string& worker_id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flotilla::distributed
