#pragma once
// InProcessCluster: N WorkerRuntimes in one process, each with its own Flight server on loopback,
// and a driver loop that runs distributed queries on them — the real protocol end to end, minus
// the processes. C++ tests and simulations use it; the Dask backend (python/flotilla/dask.py)
// runs the same QueryDriver with Dask workers instead.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "flotilla/distributed/query_driver.h"
#include "flotilla/distributed/worker_runtime.h"
#include "flotilla/exec/pipeline/executor.h"

namespace flotilla::distributed {

struct InProcessClusterOptions {
  int num_workers = 2;
  int tasks_per_worker = 1;  // the workers' cpus: tasks each runs at once
  std::string token;         // empty: a random one
  WorkerOptions worker;      // id, port and token are set per worker
};

class InProcessCluster {
 public:
  static Result<std::unique_ptr<InProcessCluster>> Start(InProcessClusterOptions options = {});
  ~InProcessCluster();

  int num_workers() const { return static_cast<int>(workers_.size()); }
  WorkerRuntime& worker(int i) { return *workers_[i]; }
  const std::string& token() const { return options_.token; }

  /// Runs `plan` across the workers: tasks run on worker threads, results are pulled over Flight
  /// as their tasks finish. `on_progress` (optional) is called after every task result with the
  /// number of results so far: tests use it to kill a worker mid-query.
  Result<exec::QueryResult> Run(const exec::PlanPtr& plan, DriverOptions options = {},
                                std::function<void(int64_t)> on_progress = nullptr);

  /// Worker i dies: it stops serving, its stored partitions are gone, and the query running
  /// learns it left. Its running tasks' results are never reported.
  void KillWorker(int i);

 private:
  struct Completion {
    int64_t task_id;
    std::string worker;
    std::string result;
  };
  InProcessCluster() = default;
  void RunTaskAsync(int worker, Dispatch dispatch);

  InProcessClusterOptions options_;
  std::vector<std::unique_ptr<WorkerRuntime>> workers_;
  std::vector<bool> dead_;
  std::vector<std::unique_ptr<WorkerRuntime>> pool_workers_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Completion> completions_;
  std::vector<int> newly_dead_;
  std::vector<std::thread> threads_;
};

}  // namespace flotilla::distributed
