#include "flotilla/distributed/in_process_cluster.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include "flotilla/distributed/flight/flight.h"

namespace flotilla::distributed {
namespace {

std::string RandomToken() {
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 4; ++i) token += std::to_string(rd());
  return token;
}

// The UDFs of a plan by name: in one process the workers can call the very functions.
void CollectUdfs(const exec::PlanPtr& plan, std::map<std::string, exec::BatchFunction>* out) {
  if (plan->kind() == exec::PlanKind::kUdfProject) {
    const auto& u = static_cast<const exec::UdfProjectNode&>(*plan);
    (*out)[u.function_name] = u.function;
  }
  for (const exec::PlanPtr& c : plan->children()) CollectUdfs(c, out);
}

}  // namespace

Result<std::unique_ptr<InProcessCluster>> InProcessCluster::Start(InProcessClusterOptions options) {
  if (options.num_workers < 1) return Status::Invalid("in-process cluster: no workers");
  if (options.token.empty()) options.token = RandomToken();
  std::unique_ptr<InProcessCluster> c(new InProcessCluster());
  c->options_ = options;
  for (int i = 0; i < options.num_workers; ++i) {
    WorkerOptions w = options.worker;
    w.id = "worker-" + std::to_string(i);
    w.token = options.token;
    w.port = 0;
    FLOTILLA_ASSIGN_OR_RETURN(auto runtime, WorkerRuntime::Start(w));
    c->workers_.push_back(std::move(runtime));
    c->dead_.push_back(false);
  }
  return c;
}

InProcessCluster::~InProcessCluster() {
  for (std::thread& t : threads_) t.join();
}

void InProcessCluster::RunTaskAsync(int worker, Dispatch dispatch) {
  WorkerRuntime* runtime =
      worker < num_workers() ? workers_[worker].get()
                             : pool_workers_[worker - num_workers()].get();
  threads_.emplace_back([this, runtime, worker, d = std::move(dispatch)] {
    std::string result = runtime->RunTask(d.bytes);
    std::lock_guard lock(mutex_);
    if (worker < num_workers() && dead_[worker]) return;  // a dead worker reports nothing
    completions_.push_back({d.task_id, d.worker, std::move(result)});
    cv_.notify_all();
  });
}

void InProcessCluster::KillWorker(int i) {
  std::lock_guard lock(mutex_);
  if (dead_[i]) return;
  dead_[i] = true;
  workers_[i]->Stop();
  newly_dead_.push_back(i);
  cv_.notify_all();
}

Result<exec::QueryResult> InProcessCluster::Run(const exec::PlanPtr& plan, DriverOptions options,
                                                std::function<void(int64_t)> on_progress) {
  FLOTILLA_ASSIGN_OR_RETURN(auto driver, QueryDriver::Make(plan, std::move(options)));
  std::map<std::string, exec::BatchFunction> udfs;
  CollectUdfs(plan, &udfs);
  std::map<std::string, int> index_of;
  const Resources capacity{static_cast<double>(options_.tasks_per_worker), 0, 0};
  for (int i = 0; i < num_workers(); ++i) {
    for (const auto& [name, fn] : udfs) workers_[i]->RegisterUdf(name, fn);
    if (dead_[i]) continue;
    FLOTILLA_RETURN_NOT_OK(driver->AddWorker({workers_[i]->id(), capacity, ""}));
    index_of[workers_[i]->id()] = i;
  }
  // Each actor pool: its own workers, started with the query, running only the pool's tasks.
  for (const auto& [pool, size] : driver->pools()) {
    for (int k = 0; k < size; ++k) {
      WorkerOptions w = options_.worker;
      w.id = "pool-" + pool + "-" + std::to_string(k);
      w.token = options_.token;
      FLOTILLA_ASSIGN_OR_RETURN(auto runtime, WorkerRuntime::Start(w));
      for (const auto& [name, fn] : udfs) runtime->RegisterUdf(name, fn);
      FLOTILLA_RETURN_NOT_OK(driver->AddWorker({runtime->id(), {1, 0, 0}, pool}));
      index_of[runtime->id()] = num_workers() + static_cast<int>(pool_workers_.size());
      pool_workers_.push_back(std::move(runtime));
    }
  }

  std::map<std::string, StoredPartition> fetched;
  int64_t results = 0;
  int64_t in_flight = 0;
  // Starts what the driver places; false when it placed nothing.
  auto dispatch = [&]() -> Result<bool> {
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<Dispatch> dispatches, driver->Schedule());
    for (Dispatch& d : dispatches) {
      ++in_flight;
      const int worker = index_of.at(d.worker);
      RunTaskAsync(worker, std::move(d));
    }
    return !dispatches.empty();
  };
  while (!driver->finished()) {
    FLOTILLA_RETURN_NOT_OK(ToStatus(dispatch()));
    for (int64_t task : driver->TakeCancelled()) {
      // Whichever worker runs it stops it; the driver ignores what it still reports.
      for (int i = 0; i < num_workers(); ++i) {
        if (!dead_[i]) workers_[i]->CancelTask(task);
      }
      for (auto& w : pool_workers_) w->CancelTask(task);
    }
    for (const PartitionRef& ref : driver->TakeReadyResults()) {
      Result<StoredPartition> p = FlightGet(ref.address, options_.token, ref.id);
      if (!p.ok()) continue;  // its worker died: the driver re-runs the task
      fetched[ref.id] = p.MoveValueUnsafe();
      driver->MarkFetched(ref.id);
    }
    if (driver->finished()) break;
    std::unique_lock lock(mutex_);
    if (completions_.empty() && newly_dead_.empty()) {
      if (in_flight == 0 && driver->num_running() == 0) {
        lock.unlock();
        FLOTILLA_ASSIGN_OR_RETURN(bool started, dispatch());
        if (!started) {
          const auto alive = std::count(dead_.begin(), dead_.end(), false);
          driver->Fail(Status::Invalid("distributed query stalled: no task can run on the " +
                                       std::to_string(alive) + " live worker(s)"));
          break;
        }
        continue;
      }
      cv_.wait(lock, [&] { return !completions_.empty() || !newly_dead_.empty(); });
    }
    std::vector<int> dead = std::exchange(newly_dead_, {});
    std::deque<Completion> done = std::exchange(completions_, {});
    lock.unlock();
    for (int i : dead) {
      FLOTILLA_RETURN_NOT_OK(driver->RemoveWorker(workers_[i]->id()));
      // Its running tasks will never report: count them out.
      in_flight = driver->num_running();
    }
    for (Completion& c : done) {
      in_flight = std::max<int64_t>(0, in_flight - 1);
      FLOTILLA_RETURN_NOT_OK(driver->OnTaskResult(c.task_id, c.result));
      ++results;
      if (on_progress) on_progress(results);
    }
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  for (auto& w : workers_) w->DropQuery(driver->query_id());
  pool_workers_.clear();
  if (!driver->status().ok() && !driver->StagingDirectory().empty()) {
    std::error_code ec;
    std::filesystem::remove_all(driver->StagingDirectory(), ec);
  }
  FLOTILLA_RETURN_NOT_OK(driver->status());

  exec::QueryResult out;
  out.schema = driver->schema();
  for (const PartitionRef& ref : driver->ResultOrder()) {
    auto it = fetched.find(ref.id);
    if (it == fetched.end()) return Status::Internal("result partition '" + ref.id + "' not fetched");
    FLOTILLA_ASSIGN_OR_RETURN(MicroPartition p,
                              MicroPartition::FromBatches(out.schema, it->second.batches));
    out.partitions.push_back(std::move(p));
  }
  return out;
}

}  // namespace flotilla::distributed
