#pragma once
// InProcessCluster: N WorkerRuntimes in one process, each with its own Flight server on loopback,
// running distributed queries through a cluster session (query_loop.h) — the real protocol end
// to end, minus the processes. Queries may run from several threads at once, sharing the
// session's scheduler. C++ tests and simulations use it; the Dask backend
// (python/flotilla/dask_runner.py) runs the same loop with Dask workers instead.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "flotilla/distributed/cluster_backend.h"
#include "flotilla/distributed/query_driver.h"
#include "flotilla/distributed/query_loop.h"
#include "flotilla/distributed/worker_runtime.h"
#include "flotilla/exec/pipeline/executor.h"

namespace flotilla::distributed {

struct InProcessClusterOptions {
  int num_workers = 2;
  int tasks_per_worker = 1;  // the workers' cpus: tasks each runs at once
  std::string token;         // empty: a random one
  WorkerOptions worker;      // id, port and token are set per worker
};

class InProcessCluster final : private ClusterBackend {
 public:
  static Result<std::unique_ptr<InProcessCluster>> Start(InProcessClusterOptions options = {});
  ~InProcessCluster();

  int num_workers() const { return static_cast<int>(workers_.size()); }
  WorkerRuntime& worker(int i) { return *workers_[i]; }
  const std::string& token() const { return options_.token; }

  /// Runs `plan` across the workers: tasks run on worker threads, results are pulled over Flight
  /// as their tasks finish. Thread-safe: concurrent queries share the workers. `on_progress`
  /// (optional) is called after every task result with the number of results so far: tests use it
  /// to kill a worker mid-query. `analysis` (optional) receives what the tasks measured per
  /// pipeline node (explain analyze), also when the query failed.
  Result<exec::QueryResult> Run(const exec::PlanPtr& plan, DriverOptions options = {},
                                std::function<void(int64_t)> on_progress = nullptr,
                                std::vector<NodeAnalysis>* analysis = nullptr);

  /// Worker i dies: it stops serving, its stored partitions are gone, and the query running
  /// learns it left. Its running tasks' results are never reported.
  void KillWorker(int i);

  /// Ends the query `options.query_id` of a Run in progress with a Cancelled error.
  void Cancel(int64_t query_id) { session_->Cancel(query_id, "cancelled"); }

 private:
  InProcessCluster() = default;
  // The backend the query loop drives: tasks run on threads, one per task.
  Status Submit(const std::string& worker, int64_t task_id, std::string bytes) override;
  void Cancel(const std::string& worker, int64_t task_id) override;
  void Release(const std::string& worker, const std::vector<std::string>& keys) override;
  void RequestSample(const std::string& worker) override;
  Result<BackendEvents> Wait(double timeout_seconds) override;
  void Interrupt() override;
  /// (Under mutex_.) The runtime of a worker, the cluster's or a query's pool's; whether it is
  /// dead.
  std::shared_ptr<WorkerRuntime> RuntimeOf(const std::string& worker, bool* dead);

  InProcessClusterOptions options_;
  std::vector<std::shared_ptr<WorkerRuntime>> workers_;
  std::vector<bool> dead_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<WorkerRuntime>> pool_workers_;  // of running queries
  BackendEvents events_;  // since the loop's last Wait
  bool interrupted_ = false;
  std::map<int64_t, std::vector<std::thread>> threads_;  // per query: its tasks'
  std::unique_ptr<ClusterSession> session_;              // after the workers: closed first
};

}  // namespace flotilla::distributed
