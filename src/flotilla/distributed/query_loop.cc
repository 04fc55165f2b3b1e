#include "flotilla/distributed/query_loop.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "flotilla/common/logging.h"
#include "flotilla/distributed/flight/flight.h"

namespace flotilla::distributed {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class QueryLoop {
 public:
  QueryLoop(QueryDriver& driver, ClusterBackend& backend, const QueryLoopOptions& options)
      : driver_(driver), backend_(backend), options_(options) {}

  Result<std::vector<StoredPartition>> Run() {
    Status st = Loop();
    if (!st.ok()) driver_.Fail(st);
    // The query is over: stop what still runs, each at the worker running it.
    for (int64_t task : driver_.TakeCancelled())
      CancelTask(task);
    if (!driver_.status().ok()) {
      Drain();
      if (!driver_.StagingDirectory().empty()) {
        // Nothing of a failed write stays behind.
        std::error_code ec;
        std::filesystem::remove_all(driver_.StagingDirectory(), ec);
      }
      return driver_.status();
    }
    std::vector<StoredPartition> out;
    if (!options_.fetch_results) return out;
    for (const PartitionRef& ref : driver_.ResultOrder()) {
      auto it = fetched_.find(ref.id);
      if (it == fetched_.end()) {
        return Status::Internal("result partition '" + ref.id + "' was not fetched");
      }
      out.push_back(std::move(it->second));
    }
    return out;
  }

 private:
  Status Loop() {
    Clock::time_point idle_since{};
    bool idle = false;
    while (!driver_.finished()) {
      FLOTILLA_RETURN_NOT_OK(FetchReady());
      if (driver_.finished()) break;
      FLOTILLA_ASSIGN_OR_RETURN(const int placed, Dispatch());
      for (int64_t task : driver_.TakeCancelled())
        CancelTask(task);
      for (const auto& [worker, keys] : driver_.TakeReleased())
        backend_.Release(worker, keys);
      RequestSamples();
      // Every placement failed (its worker went): the driver has placed them again elsewhere.
      if (placed > 0 && running_.empty()) continue;
      // Nothing runs and nothing can be placed: only a worker joining can help now.
      const bool stuck = running_.empty() && driver_.num_running() == 0;
      if (stuck && !idle) idle_since = Clock::now();
      idle = stuck;
      if (stuck && Since(idle_since) >= options_.stall_seconds) {
        driver_.Fail(Status::Invalid("distributed query stalled: no task can run on the " +
                                     std::to_string(driver_.num_workers()) + " live worker(s)"));
        break;
      }
      const double timeout =
          stuck ? std::min(0.5, options_.stall_seconds - Since(idle_since)) : 0.5;
      FLOTILLA_ASSIGN_OR_RETURN(BackendEvents events, backend_.Wait(std::max(0.0, timeout)));
      if (!events.empty()) idle = false;
      FLOTILLA_RETURN_NOT_OK(Apply(std::move(events)));
    }
    return Status::OK();
  }

  // Starts what the driver places; returns how many it placed.
  Result<int> Dispatch() {
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<distributed::Dispatch> dispatches, driver_.Schedule());
    for (distributed::Dispatch& d : dispatches) {
      Status st = backend_.Submit(d.worker, d.task_id, std::move(d.bytes));
      if (st.ok()) {
        running_[d.task_id] = d.worker;
      } else {
        log::Warn("distributed query {}: worker {} cannot take task {}: {}", driver_.query_id(),
                  d.worker, d.task_id, st.ToString());
        FLOTILLA_RETURN_NOT_OK(LoseWorker(d.worker));
        FLOTILLA_RETURN_NOT_OK(driver_.OnTaskLost(d.task_id, d.worker, st.ToString()));
      }
    }
    return static_cast<int>(dispatches.size());
  }

  void CancelTask(int64_t task) {
    auto it = running_.find(task);
    if (it != running_.end()) backend_.Cancel(it->second, task);
  }

  // Result partitions are pulled as their tasks finish, so a worker lost later costs nothing.
  Status FetchReady() {
    for (const PartitionRef& ref : driver_.TakeReadyResults()) {
      if (!options_.fetch_results) {
        FLOTILLA_RETURN_NOT_OK(driver_.MarkFetched(ref.id));
        continue;
      }
      Result<StoredPartition> p = FlightGet(ref.address, options_.token, ref.id);
      if (p.ok()) {
        fetched_[ref.id] = p.MoveValueUnsafe();
        FLOTILLA_RETURN_NOT_OK(driver_.MarkFetched(ref.id));
        continue;
      }
      if (p.status().code() != StatusCode::kIOError) return p.status();
      // Its worker cannot serve it: as good as gone. Its task runs again elsewhere.
      log::Warn("distributed query {}: result {} cannot be read from {}: {}", driver_.query_id(),
                ref.id, ref.worker, p.status().ToString());
      FLOTILLA_RETURN_NOT_OK(LoseWorker(ref.worker));
    }
    return Status::OK();
  }

  // A worker whose last report (a sample, or a task result, which carries one) is a second old
  // is asked for a sample: resources are seen while tasks run long or nothing runs.
  void RequestSamples() {
    const Clock::time_point now = Clock::now();
    for (const std::string& worker : driver_.workers()) {
      auto [it, first] = last_report_.try_emplace(worker, Clock::time_point{});
      if (!first && now - it->second < std::chrono::seconds(1)) continue;
      it->second = now;  // asked: not again for a second, answered or not
      backend_.RequestSample(worker);
    }
  }

  Status Apply(BackendEvents events) {
    for (auto& [worker, sample] : events.samples)
      FLOTILLA_RETURN_NOT_OK(driver_.OnWorkerSample(worker, sample));
    for (const WorkerSpec& w : events.joined)
      FLOTILLA_RETURN_NOT_OK(driver_.AddWorker(w));  // (not one this query lost)
    for (const std::string& w : events.lost)
      FLOTILLA_RETURN_NOT_OK(LoseWorker(w));
    for (BackendEvents::Finished& f : events.finished) {
      running_.erase(f.task_id);
      last_report_[f.worker] = Clock::now();
      FLOTILLA_RETURN_NOT_OK(driver_.OnTaskResult(f.task_id, f.result));
      if (options_.on_result) options_.on_result(f.task_id);
    }
    return Status::OK();
  }

  // However the loss was learnt (the backend, a failed submit, a failed fetch), it counts once.
  Status LoseWorker(const std::string& worker) {
    if (!lost_.insert(worker).second) return Status::OK();
    for (auto it = running_.begin(); it != running_.end();) {
      if (it->second == worker) {
        // A worker only unreadable, not dead, should not go on with them.
        backend_.Cancel(worker, it->first);
        it = running_.erase(it);
      } else {
        ++it;
      }
    }
    return driver_.RemoveWorker(worker);
  }

  // A failed query's tasks may still run: wait (bounded) until each reported or its worker went.
  void Drain() {
    const Clock::time_point start = Clock::now();
    while (!running_.empty() && Since(start) < options_.drain_seconds) {
      Result<BackendEvents> events = backend_.Wait(0.5);
      if (!events.ok()) return;
      for (const std::string& w : events->lost) {
        std::erase_if(running_, [&](const auto& r) { return r.second == w; });
      }
      for (const BackendEvents::Finished& f : events->finished)
        running_.erase(f.task_id);
    }
  }

  QueryDriver& driver_;
  ClusterBackend& backend_;
  const QueryLoopOptions& options_;
  std::unordered_map<int64_t, std::string> running_;  // task -> the worker running it
  std::map<std::string, StoredPartition> fetched_;
  std::set<std::string> lost_;
  std::map<std::string, Clock::time_point> last_report_;  // per worker: a sample or a result
};

}  // namespace

Result<std::vector<StoredPartition>> RunQuery(QueryDriver& driver, ClusterBackend& backend,
                                              const QueryLoopOptions& options) {
  QueryLoop loop(driver, backend, options);
  return loop.Run();
}

}  // namespace flotilla::distributed
