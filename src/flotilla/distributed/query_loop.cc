#include "flotilla/distributed/query_loop.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "flotilla/common/logging.h"
#include "flotilla/distributed/flight/flight.h"

namespace flotilla::distributed {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int64_t QueryOfTask(int64_t task_id) {
  return task_id >> 32;  // (QueryDriver's task ids)
}

// One query in the loop: what the loop itself keeps of it.
struct QueryRun {
  QueryDriver* driver = nullptr;
  QueryLoopOptions options;
  std::unordered_map<int64_t, std::string> running;  // task -> the worker running it
  std::map<std::string, StoredPartition> fetched;
  int fetching = 0;  // result partitions being pulled
  bool idle = false;
  Clock::time_point idle_since{};
  bool draining = false;  // failed; waiting for its running tasks to stop
  Clock::time_point drain_since{};
  std::optional<QueryOutput> output;  // set by the loop once it ended
  bool ended = false;                 // a session's: `output` is set (under its mutex)

  int64_t id() const { return driver->query_id(); }
};

// Result partitions pulled over Flight off the loop's thread, a few at once: a large result
// does not hold up the other queries' tasks, nor this query's. Each pull that ends wakes the
// loop (the backend's Interrupt).
class ResultFetcher {
 public:
  struct Fetched {
    int64_t query_id;
    PartitionRef ref;
    Result<StoredPartition> partition;
  };

  explicit ResultFetcher(ClusterBackend& backend) : backend_(backend) {}
  ~ResultFetcher() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_)
      t.join();
  }

  void Fetch(int64_t query_id, PartitionRef ref, std::string token) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back({query_id, std::move(ref), std::move(token)});
      if (threads_.size() < kThreads && idle_ == 0) threads_.emplace_back([this] { Work(); });
    }
    wake_.notify_one();
  }

  std::vector<Fetched> Take() {
    std::lock_guard lock(mutex_);
    return std::exchange(done_, {});
  }

 private:
  static constexpr size_t kThreads = 4;
  struct Job {
    int64_t query_id;
    PartitionRef ref;
    std::string token;
  };

  void Work() {
    std::unique_lock lock(mutex_);
    while (true) {
      idle_ += 1;
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      idle_ -= 1;
      if (stopping_) return;
      Job job = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      Result<StoredPartition> p = FlightGet(job.ref.address, job.token, job.ref.id);
      lock.lock();
      done_.push_back({job.query_id, std::move(job.ref), std::move(p)});
      lock.unlock();
      backend_.Interrupt();
      lock.lock();
    }
  }

  ClusterBackend& backend_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::vector<Fetched> done_;
  std::vector<std::thread> threads_;
  int idle_ = 0;
  bool stopping_ = false;
};

// The loop's work, for any number of queries sharing one scheduler and one backend. It is only
// ever called from one thread.
class Loop {
 public:
  Loop(ClusterBackend& backend, Scheduler& scheduler)
      : backend_(backend), scheduler_(scheduler), fetcher_(backend) {}

  bool empty() const { return runs_.empty(); }
  const std::map<std::string, WorkerSpec>& workers() const { return workers_; }

  void AddWorker(const WorkerSpec& w) {
    workers_[w.id] = w;
    if (!scheduler_.used(w.id).ok()) Check(scheduler_.AddWorker(w));
    for (auto& [id, run] : runs_) {
      if (!run->driver->finished()) Check(*run, run->driver->AddWorker(w));
    }
  }

  // However the loss was learnt (the backend, a failed submit, a failed fetch, a driver that
  // could not read from it), it counts once, for every query.
  void LoseWorker(const std::string& worker) {
    if (workers_.erase(worker) > 0) backend_.Forget(worker);
    last_report_.erase(worker);
    for (auto& [id, run] : runs_) {
      for (auto it = run->running.begin(); it != run->running.end();) {
        if (it->second == worker) {
          // A worker only unreadable, not dead, should not go on with them.
          backend_.Cancel(worker, it->first);
          it = run->running.erase(it);
        } else {
          ++it;
        }
      }
      if (!run->driver->finished()) Check(*run, run->driver->RemoveWorker(worker));
    }
    if (scheduler_.used(worker).ok()) (void)scheduler_.RemoveWorker(worker);
  }

  void Admit(QueryRun* run) {
    runs_[run->id()] = run;
    for (const auto& [id, w] : workers_)
      Check(*run, run->driver->AddWorker(w));
    Check(*run, run->driver->Start());
  }

  void Cancel(int64_t query_id, const std::string& why) {
    auto it = runs_.find(query_id);
    if (it != runs_.end()) it->second->driver->Fail(Status::Cancelled(why));
  }

  // One pass over every query, then a wait on the backend for what happens next.
  void Step() {
    TakeFetched();
    for (auto& [id, run] : runs_)
      FetchReady(*run);
    const int placed = Dispatch();
    for (auto& [id, run] : runs_) {
      for (int64_t task : run->driver->TakeCancelled())
        CancelTask(*run, task);
      for (const auto& [worker, keys] : run->driver->TakeReleased())
        backend_.Release(worker, keys);
    }
    RequestSamples();
    // A driver that found a worker unreadable removed it from the scheduler: the others lose it
    // too.
    for (const auto& [id, w] : std::map<std::string, WorkerSpec>(workers_)) {
      if (!scheduler_.used(id).ok()) LoseWorker(id);
    }
    if (Settle()) return;  // the callers of the queries that ended come first
    // Every placement failed (its worker went): the drivers placed them again elsewhere.
    if (placed > 0 && scheduler_.num_running() == 0) return;
    double timeout = 0.5;
    for (auto& [id, run] : runs_)
      timeout = std::min(timeout, StallCheck(*run));
    Result<BackendEvents> events = backend_.Wait(std::max(0.0, timeout));
    if (!events.ok()) {
      for (auto& [id, run] : runs_)
        run->driver->Fail(events.status());
      return;
    }
    Apply(std::move(*events));
    Settle();
  }

  // The queries that ended since the last call (their output set), out of the loop.
  std::vector<QueryRun*> TakeEnded() { return std::exchange(ended_, {}); }

 private:
  static void Check(QueryRun& run, const Status& st) {
    if (!st.ok()) run.driver->Fail(st);
  }
  void Check(const Status& st) {
    for (auto& [id, run] : runs_)
      Check(*run, st);
  }

  QueryRun* RunOf(int64_t task_id) {
    auto it = runs_.find(QueryOfTask(task_id));
    return it == runs_.end() ? nullptr : it->second;
  }

  // Starts what the scheduler places, for whichever query; returns how many it placed.
  int Dispatch() {
    int placed = 0;
    for (const Assignment& a : scheduler_.Schedule()) {
      QueryRun* run = RunOf(a.task_id);
      if (run == nullptr) {
        (void)scheduler_.Cancel(a.task_id);  // a query already gone
        continue;
      }
      std::optional<distributed::Dispatch> d = run->driver->Place(a);
      if (!d) continue;
      placed += 1;
      Status st = backend_.Submit(d->worker, d->task_id, std::move(d->bytes));
      if (st.ok()) {
        run->running[d->task_id] = d->worker;
      } else {
        run->driver->Log(log::Level::kWarn,
                         "distributed query {}: worker {} cannot take task {}: {}", run->id(),
                         d->worker, d->task_id, st.ToString());
        LoseWorker(d->worker);
        Check(*run, run->driver->OnTaskLost(d->task_id, d->worker, st.ToString()));
      }
    }
    return placed;
  }

  void CancelTask(QueryRun& run, int64_t task) {
    auto it = run.running.find(task);
    if (it != run.running.end()) backend_.Cancel(it->second, task);
  }

  // Result partitions are pulled as their tasks finish, so a worker lost later costs nothing.
  void FetchReady(QueryRun& run) {
    QueryDriver& driver = *run.driver;
    for (PartitionRef& ref : driver.TakeReadyResults()) {
      if (driver.finished()) return;
      if (!run.options.fetch_results) {
        Check(run, driver.MarkFetched(ref.id));
        continue;
      }
      run.fetching += 1;
      fetcher_.Fetch(run.id(), std::move(ref), run.options.token);
    }
  }

  void TakeFetched() {
    for (ResultFetcher::Fetched& f : fetcher_.Take()) {
      auto it = runs_.find(f.query_id);
      if (it == runs_.end()) continue;
      QueryRun& run = *it->second;
      run.fetching -= 1;
      run.idle = false;
      if (run.driver->finished()) continue;
      if (f.partition.ok()) {
        run.fetched[f.ref.id] = f.partition.MoveValueUnsafe();
        Check(run, run.driver->MarkFetched(f.ref.id));
      } else if (f.partition.status().code() != StatusCode::kIOError) {
        run.driver->Fail(f.partition.status());
      } else {
        // Its worker cannot serve it: as good as gone. Its task runs again elsewhere.
        run.driver->Log(log::Level::kWarn,
                        "distributed query {}: result {} cannot be read from {}: {}", run.id(),
                        f.ref.id, f.ref.worker, f.partition.status().ToString());
        LoseWorker(f.ref.worker);
      }
    }
  }

  // A worker whose last report (a sample, or a task result, which carries one) is a second old
  // is asked for a sample: resources are seen while tasks run long or nothing runs.
  void RequestSamples() {
    const Clock::time_point now = Clock::now();
    std::set<std::string> known;
    for (auto& [id, run] : runs_) {
      if (run->driver->finished()) continue;
      for (const std::string& w : run->driver->workers())
        known.insert(w);
    }
    for (const std::string& worker : known) {
      auto [it, first] = last_report_.try_emplace(worker, Clock::time_point{});
      if (!first && now - it->second < std::chrono::seconds(1)) continue;
      it->second = now;  // asked: not again for a second, answered or not
      backend_.RequestSample(worker);
    }
  }

  // Fails a query that can do nothing while the cluster does nothing either, after its
  // stall_seconds; returns how long the loop may wait before looking again.
  double StallCheck(QueryRun& run) {
    if (run.driver->finished()) return 0.5;
    // Waiting for room another query holds is not a stall.
    const bool stuck = run.running.empty() && run.fetching == 0 && run.driver->num_running() == 0 &&
                       scheduler_.num_running() == 0;
    if (stuck && !run.idle) run.idle_since = Clock::now();
    run.idle = stuck;
    if (!stuck) return 0.5;
    const double left = run.options.stall_seconds - Since(run.idle_since);
    if (left <= 0) {
      run.driver->Fail(Status::Invalid("distributed query stalled: no task can run on the " +
                                       std::to_string(run.driver->num_workers()) +
                                       " live worker(s)"));
      return 0;
    }
    return std::min(0.5, left);
  }

  void Apply(BackendEvents events) {
    for (auto& [worker, sample] : events.samples) {
      for (auto& [id, run] : runs_) {
        if (!run->driver->finished()) Check(*run, run->driver->OnWorkerSample(worker, sample));
      }
    }
    for (const WorkerSpec& w : events.joined)
      AddWorker(w);
    for (const std::string& w : events.lost)
      LoseWorker(w);
    for (BackendEvents::Finished& f : events.finished) {
      last_report_[f.worker] = Clock::now();
      QueryRun* run = RunOf(f.task_id);
      if (run == nullptr) continue;
      run->running.erase(f.task_id);
      if (run->driver->finished()) continue;
      run->idle = false;
      Check(*run, run->driver->OnTaskResult(f.task_id, f.result));
      if (run->options.on_result) run->options.on_result(f.task_id);
    }
  }

  // Moves the queries that ended to ended_; whether any did.
  bool Settle() {
    bool any = false;
    for (auto it = runs_.begin(); it != runs_.end();) {
      QueryRun& run = *it->second;
      if (!run.driver->finished() || !Ended(run)) {
        ++it;
        continue;
      }
      // A query's actor pools leave with it, and the scheduler forgets its tasks.
      for (const std::string& w : run.driver->pool_workers()) {
        if (scheduler_.used(w).ok()) (void)scheduler_.RemoveWorker(w);
      }
      scheduler_.ForgetQuery(run.id());
      ended_.push_back(&run);
      it = runs_.erase(it);
      any = true;
    }
    return any;
  }

  // The query finished: stop what still runs, each at the worker running it. A failed one
  // waits (bounded) until each of its tasks reported or its worker went.
  bool Ended(QueryRun& run) {
    QueryDriver& driver = *run.driver;
    for (int64_t task : driver.TakeCancelled())
      CancelTask(run, task);
    if (!driver.status().ok()) {
      if (!run.draining) {
        run.draining = true;
        run.drain_since = Clock::now();
      }
      if (!run.running.empty() && Since(run.drain_since) < run.options.drain_seconds) {
        return false;
      }
      if (!driver.StagingDirectory().empty()) {
        // Nothing of a failed write stays behind.
        std::error_code ec;
        std::filesystem::remove_all(driver.StagingDirectory(), ec);
      }
      run.output = driver.status();
      return true;
    }
    std::vector<StoredPartition> out;
    if (run.options.fetch_results) {
      for (const PartitionRef& ref : driver.ResultOrder()) {
        auto it = run.fetched.find(ref.id);
        if (it == run.fetched.end()) {
          run.output = Status::Internal("result partition '" + ref.id + "' was not fetched");
          return true;
        }
        out.push_back(std::move(it->second));
      }
    }
    run.output = std::move(out);
    return true;
  }

  ClusterBackend& backend_;
  Scheduler& scheduler_;
  std::map<int64_t, QueryRun*> runs_;  // by query id: the older first
  std::vector<QueryRun*> ended_;
  std::map<std::string, WorkerSpec> workers_;             // the cluster's live workers
  std::map<std::string, Clock::time_point> last_report_;  // per worker: a sample or a result
  ResultFetcher fetcher_;  // last: its threads stop before the rest goes
};

}  // namespace

QueryOutput RunQuery(QueryDriver& driver, ClusterBackend& backend,
                     const QueryLoopOptions& options) {
  Loop loop(backend, driver.scheduler());
  QueryRun run;
  run.driver = &driver;
  run.options = options;
  loop.Admit(&run);  // (its workers were added to it already)
  while (!run.output) {
    loop.Step();
    (void)loop.TakeEnded();
  }
  return std::move(*run.output);
}

// --- ClusterSession -----------------------------------------------------------------------------

struct ClusterSession::Impl {
  explicit Impl(ClusterBackend& b)
      : backend(b), scheduler(std::make_shared<Scheduler>()), loop(b, *scheduler) {}

  ClusterBackend& backend;
  std::shared_ptr<Scheduler> scheduler;
  Loop loop;  // the session thread's alone

  // What other threads hand the session thread, under `mutex`.
  mutable std::mutex mutex;
  std::condition_variable cv;
  std::vector<QueryRun*> admit;
  std::vector<std::pair<int64_t, std::string>> cancels;
  std::vector<WorkerSpec> add_workers;
  std::vector<std::string> remove_workers;
  std::map<int64_t, std::unique_ptr<QueryRun>> runs;  // started, not waited for
  std::vector<std::string> workers;                   // a copy of the loop's, for workers()
  bool closing = false;
  std::thread thread;

  bool Pending() const {
    return !admit.empty() || !cancels.empty() || !add_workers.empty() || !remove_workers.empty();
  }

  void Main() {
    while (true) {
      std::vector<QueryRun*> admitting;
      std::vector<std::pair<int64_t, std::string>> cancelling;
      std::vector<WorkerSpec> adding;
      std::vector<std::string> removing;
      {
        std::unique_lock lock(mutex);
        if (loop.empty()) {
          cv.wait(lock, [&] { return Pending() || closing; });
          if (closing && !Pending()) return;
        }
        if (closing) {
          for (auto& [id, run] : runs)
            cancelling.emplace_back(id, "the cluster session closed");
        }
        std::swap(admitting, admit);
        cancelling.insert(cancelling.end(), cancels.begin(), cancels.end());
        cancels.clear();
        std::swap(adding, add_workers);
        std::swap(removing, remove_workers);
      }
      for (const WorkerSpec& w : adding)
        loop.AddWorker(w);
      for (const std::string& w : removing)
        loop.LoseWorker(w);
      for (QueryRun* run : admitting)
        loop.Admit(run);
      for (const auto& [id, why] : cancelling)
        loop.Cancel(id, why);
      if (!loop.empty()) loop.Step();
      std::vector<QueryRun*> ended = loop.TakeEnded();
      std::lock_guard lock(mutex);
      workers.clear();
      for (const auto& [id, w] : loop.workers())
        workers.push_back(id);
      for (QueryRun* run : ended)
        run->ended = true;
      if (!ended.empty()) cv.notify_all();
    }
  }
};

ClusterSession::ClusterSession(ClusterBackend& backend) : impl_(std::make_unique<Impl>(backend)) {
  impl_->thread = std::thread([this] { impl_->Main(); });
}

ClusterSession::~ClusterSession() {
  Close();
}

const std::shared_ptr<Scheduler>& ClusterSession::scheduler() const {
  return impl_->scheduler;
}

void ClusterSession::AddWorker(const WorkerSpec& worker) {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->add_workers.push_back(worker);
    impl_->workers.push_back(worker.id);
  }
  impl_->cv.notify_all();
  impl_->backend.Interrupt();
}

void ClusterSession::RemoveWorker(const std::string& worker) {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->remove_workers.push_back(worker);
    std::erase(impl_->workers, worker);
  }
  impl_->cv.notify_all();
  impl_->backend.Interrupt();
}

std::vector<std::string> ClusterSession::workers() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->workers;
}

Status ClusterSession::Start(QueryDriver& driver, QueryLoopOptions options) {
  auto run = std::make_unique<QueryRun>();
  run->driver = &driver;
  run->options = std::move(options);
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->runs.count(driver.query_id()) > 0) {
      return Status::Invalid("query " + std::to_string(driver.query_id()) +
                             " runs on this cluster already");
    }
    if (impl_->closing) {
      run->output = Status::Cancelled("the cluster session closed");
      run->ended = true;
    } else {
      impl_->admit.push_back(run.get());
    }
    impl_->runs[driver.query_id()] = std::move(run);
  }
  impl_->cv.notify_all();
  impl_->backend.Interrupt();
  return Status::OK();
}

std::optional<QueryOutput> ClusterSession::Wait(int64_t query_id, double timeout_seconds) {
  std::unique_lock lock(impl_->mutex);
  auto it = impl_->runs.find(query_id);
  if (it == impl_->runs.end()) {
    return QueryOutput(Status::KeyError("no query " + std::to_string(query_id) + " running"));
  }
  QueryRun& run = *it->second;
  if (!impl_->cv.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
                          [&] { return run.ended; })) {
    return std::nullopt;
  }
  QueryOutput out = std::move(*run.output);
  impl_->runs.erase(it);
  return out;
}

QueryOutput ClusterSession::Run(QueryDriver& driver, QueryLoopOptions options) {
  const int64_t id = driver.query_id();
  FLOTILLA_RETURN_NOT_OK(Start(driver, std::move(options)));
  while (true) {
    if (std::optional<QueryOutput> out = Wait(id, 3600)) return std::move(*out);
  }
}

void ClusterSession::Cancel(int64_t query_id, const std::string& why) {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->cancels.emplace_back(query_id, why);
  }
  impl_->cv.notify_all();
  impl_->backend.Interrupt();
}

void ClusterSession::Close() {
  if (!impl_->thread.joinable()) return;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->closing = true;
  }
  impl_->cv.notify_all();
  impl_->backend.Interrupt();
  impl_->thread.join();
}

}  // namespace flotilla::distributed
