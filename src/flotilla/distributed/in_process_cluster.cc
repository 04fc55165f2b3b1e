#include "flotilla/distributed/in_process_cluster.h"

#include <algorithm>
#include <random>

#include "flotilla/distributed/query_loop.h"

namespace flotilla::distributed {
namespace {

std::string RandomToken() {
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 4; ++i)
    token += std::to_string(rd());
  return token;
}

// The UDFs of a plan by name: in one process the workers can call the very functions.
void CollectUdfs(const exec::PlanPtr& plan, std::map<std::string, exec::BatchFunction>* out) {
  if (plan->kind() == exec::PlanKind::kUdfProject) {
    const auto& u = static_cast<const exec::UdfProjectNode&>(*plan);
    (*out)[u.function_name] = u.function;
  }
  for (const exec::PlanPtr& c : plan->children())
    CollectUdfs(c, out);
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
  for (std::thread& t : threads_)
    t.join();
}

WorkerRuntime* InProcessCluster::RuntimeOf(const std::string& worker) {
  auto it = index_of_.find(worker);
  if (it == index_of_.end()) return nullptr;
  return it->second < num_workers() ? workers_[it->second].get()
                                    : pool_workers_[it->second - num_workers()].get();
}

Status InProcessCluster::Submit(const std::string& worker, int64_t task_id, std::string bytes) {
  WorkerRuntime* runtime = RuntimeOf(worker);
  const int index = index_of_.at(worker);
  {
    std::lock_guard lock(mutex_);
    if (index < num_workers() && dead_[index])
      return Status::IOError("worker " + worker + " is dead");
  }
  threads_.emplace_back([this, runtime, index, worker, task_id, b = std::move(bytes)] {
    std::string result = runtime->RunTask(b);
    std::lock_guard lock(mutex_);
    if (index < num_workers() && dead_[index]) return;  // a dead worker reports nothing
    events_.finished.push_back({task_id, worker, std::move(result)});
    cv_.notify_all();
  });
  return Status::OK();
}

void InProcessCluster::Cancel(const std::string& worker, int64_t task_id) {
  if (WorkerRuntime* runtime = RuntimeOf(worker)) runtime->CancelTask(task_id);
}

void InProcessCluster::Release(const std::string& worker, const std::vector<std::string>& keys) {
  if (WorkerRuntime* runtime = RuntimeOf(worker)) runtime->DropTaskOutputs(keys);
}

void InProcessCluster::RequestSample(const std::string& worker) {
  WorkerRuntime* runtime = RuntimeOf(worker);
  if (runtime == nullptr) return;
  std::string sample = runtime->SampleBytes();
  std::lock_guard lock(mutex_);
  const int index = index_of_.at(worker);
  if (index < num_workers() && dead_[index]) return;
  events_.samples.emplace_back(worker, std::move(sample));
}

Result<BackendEvents> InProcessCluster::Wait(double timeout_seconds) {
  std::unique_lock lock(mutex_);
  cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
               [&] { return !events_.empty(); });
  return std::exchange(events_, {});
}

void InProcessCluster::KillWorker(int i) {
  std::lock_guard lock(mutex_);
  if (dead_[i]) return;
  dead_[i] = true;
  workers_[i]->Stop();
  events_.lost.push_back(workers_[i]->id());
  cv_.notify_all();
}

Result<exec::QueryResult> InProcessCluster::Run(const exec::PlanPtr& plan, DriverOptions options,
                                                std::function<void(int64_t)> on_progress,
                                                std::vector<NodeAnalysis>* analysis) {
  if (options.min_source_tasks == 0) {
    const auto alive = std::count(dead_.begin(), dead_.end(), false);
    options.min_source_tasks = static_cast<int>(alive) * options_.tasks_per_worker;
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto driver, QueryDriver::Make(plan, std::move(options)));
  std::map<std::string, exec::BatchFunction> udfs;
  CollectUdfs(plan, &udfs);
  index_of_.clear();
  {
    std::lock_guard lock(mutex_);
    events_ = {};  // a worker killed before this query is simply not in it
  }
  const Resources capacity{static_cast<double>(options_.tasks_per_worker), 0, 0};
  for (int i = 0; i < num_workers(); ++i) {
    for (const auto& [name, fn] : udfs)
      workers_[i]->RegisterUdf(name, fn);
    if (dead_[i]) continue;
    FLOTILLA_RETURN_NOT_OK(driver->AddWorker({workers_[i]->id(), capacity, ""}));
    index_of_[workers_[i]->id()] = i;
  }
  // Each actor pool: its own workers, started with the query, running only the pool's tasks.
  for (const auto& [pool, size] : driver->pools()) {
    for (int k = 0; k < size; ++k) {
      WorkerOptions w = options_.worker;
      w.id = "pool-" + pool + "-" + std::to_string(k);
      w.token = options_.token;
      FLOTILLA_ASSIGN_OR_RETURN(auto runtime, WorkerRuntime::Start(w));
      for (const auto& [name, fn] : udfs)
        runtime->RegisterUdf(name, fn);
      FLOTILLA_RETURN_NOT_OK(driver->AddWorker({runtime->id(), {1, 0, 0}, pool}));
      index_of_[runtime->id()] = num_workers() + static_cast<int>(pool_workers_.size());
      pool_workers_.push_back(std::move(runtime));
    }
  }

  QueryLoopOptions loop;
  loop.token = options_.token;
  loop.stall_seconds = 0;  // no worker ever joins a running query here
  int64_t results = 0;
  if (on_progress) loop.on_result = [&](int64_t) { on_progress(++results); };
  Result<std::vector<StoredPartition>> partitions = RunQuery(*driver, *this, loop);
  for (std::thread& t : threads_)
    t.join();
  threads_.clear();
  for (auto& w : workers_)
    w->DropQuery(driver->query_id());
  pool_workers_.clear();
  index_of_.clear();
  if (analysis != nullptr) *analysis = driver->Analysis();
  FLOTILLA_RETURN_NOT_OK(partitions.status());

  exec::QueryResult out;
  out.schema = driver->schema();
  for (StoredPartition& p : *partitions) {
    FLOTILLA_ASSIGN_OR_RETURN(MicroPartition m, MicroPartition::FromBatches(out.schema, p.batches));
    out.partitions.push_back(std::move(m));
  }
  return out;
}

}  // namespace flotilla::distributed
