#pragma once
// Tasks sent straight to the workers' Flight servers (DoAction "run_task", "cancel_task"), around
// a backend that deploys the workers and knows which are there (Dask). An actor call through
// Dask costs milliseconds of its protocol per task; a DoAction on an open channel a fraction of
// one. A worker whose address is not known goes through the inner backend.
#include <memory>
#include <string>
#include <vector>

#include "flotilla/distributed/cluster_backend.h"

namespace flotilla::distributed {

class FlightTaskBackend final : public ClusterBackend {
 public:
  /// `inner` must outlive this backend; `token` is the cluster's.
  FlightTaskBackend(ClusterBackend& inner, std::string token);
  /// Close().
  ~FlightTaskBackend() override;

  /// Where `worker`'s Flight server listens: its tasks go there from now on. Thread-safe.
  void SetAddress(const std::string& worker, const std::string& address);
  /// Cancels the tasks in flight and waits until every call returned (a call's end wakes the
  /// inner backend, so its caller must not hold what that needs, e.g. Python's GIL).
  void Close();

  Status Submit(const std::string& worker, int64_t task_id, std::string bytes) override;
  void Cancel(const std::string& worker, int64_t task_id) override;
  void Release(const std::string& worker, const std::vector<std::string>& keys) override {
    inner_.Release(worker, keys);
  }
  void RequestSample(const std::string& worker) override { inner_.RequestSample(worker); }
  /// The tasks that returned since the last call (a call that could not reach its worker
  /// reports the worker lost) with the inner backend's events; while tasks keep returning, the
  /// inner backend is asked every 10 ms only.
  Result<BackendEvents> Wait(double timeout_seconds) override;
  void Interrupt() override;
  void Forget(const std::string& worker) override;

 private:
  struct State;  // shared with the calls in flight
  ClusterBackend& inner_;
  std::shared_ptr<State> state_;
};

}  // namespace flotilla::distributed
