#include "flotilla/distributed/in_process_cluster.h"

#include <algorithm>
#include <random>

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
    FLOTILLA_ASSIGN_OR_RETURN(std::shared_ptr<WorkerRuntime> runtime, WorkerRuntime::Start(w));
    c->workers_.push_back(std::move(runtime));
    c->dead_.push_back(false);
  }
  ClusterBackend& backend = *c;
  c->session_ = std::make_unique<ClusterSession>(backend);
  const Resources capacity{static_cast<double>(options.tasks_per_worker), 0, 0};
  for (const auto& w : c->workers_)
    c->session_->AddWorker({w->id(), capacity, ""});
  return c;
}

InProcessCluster::~InProcessCluster() {
  session_->Close();
  for (auto& [query, threads] : threads_) {
    for (std::thread& t : threads)
      t.join();
  }
}

std::shared_ptr<WorkerRuntime> InProcessCluster::RuntimeOf(const std::string& worker, bool* dead) {
  *dead = false;
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i]->id() != worker) continue;
    *dead = dead_[i];
    return workers_[i];
  }
  auto it = pool_workers_.find(worker);
  return it == pool_workers_.end() ? nullptr : it->second;
}

Status InProcessCluster::Submit(const std::string& worker, int64_t task_id, std::string bytes) {
  std::lock_guard lock(mutex_);
  bool dead = false;
  std::shared_ptr<WorkerRuntime> runtime = RuntimeOf(worker, &dead);
  if (runtime == nullptr || dead) return Status::IOError("worker " + worker + " is dead");
  threads_[task_id >> 32].emplace_back([this, runtime, worker, task_id, b = std::move(bytes)] {
    std::string result = runtime->RunTask(b);
    std::lock_guard lock(mutex_);
    bool dead = false;
    (void)RuntimeOf(worker, &dead);
    if (dead) return;  // a dead worker reports nothing
    events_.finished.push_back({task_id, worker, std::move(result)});
    cv_.notify_all();
  });
  return Status::OK();
}

void InProcessCluster::Cancel(const std::string& worker, int64_t task_id) {
  std::unique_lock lock(mutex_);
  bool dead = false;
  std::shared_ptr<WorkerRuntime> runtime = RuntimeOf(worker, &dead);
  lock.unlock();
  if (runtime) runtime->CancelTask(task_id);
}

void InProcessCluster::Release(const std::string& worker, const std::vector<std::string>& keys) {
  std::unique_lock lock(mutex_);
  bool dead = false;
  std::shared_ptr<WorkerRuntime> runtime = RuntimeOf(worker, &dead);
  lock.unlock();
  if (runtime) runtime->DropTaskOutputs(keys);
}

void InProcessCluster::RequestSample(const std::string& worker) {
  std::unique_lock lock(mutex_);
  bool dead = false;
  std::shared_ptr<WorkerRuntime> runtime = RuntimeOf(worker, &dead);
  lock.unlock();
  if (runtime == nullptr) return;
  std::string sample = runtime->SampleBytes();
  lock.lock();
  (void)RuntimeOf(worker, &dead);
  if (dead) return;
  events_.samples.emplace_back(worker, std::move(sample));
}

Result<BackendEvents> InProcessCluster::Wait(double timeout_seconds) {
  std::unique_lock lock(mutex_);
  cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
               [&] { return !events_.empty() || interrupted_; });
  interrupted_ = false;
  return std::exchange(events_, {});
}

void InProcessCluster::Interrupt() {
  std::lock_guard lock(mutex_);
  interrupted_ = true;
  cv_.notify_all();
}

void InProcessCluster::KillWorker(int i) {
  {
    std::lock_guard lock(mutex_);
    if (dead_[i]) return;
    dead_[i] = true;
    workers_[i]->Stop();
    events_.lost.push_back(workers_[i]->id());
    cv_.notify_all();
  }
  // Also when no query runs: the next one does not start with it.
  session_->RemoveWorker(workers_[i]->id());
}

Result<exec::QueryResult> InProcessCluster::Run(const exec::PlanPtr& plan, DriverOptions options,
                                                std::function<void(int64_t)> on_progress,
                                                std::vector<NodeAnalysis>* analysis) {
  if (options.min_source_tasks == 0) {
    std::lock_guard lock(mutex_);
    const auto alive = std::count(dead_.begin(), dead_.end(), false);
    options.min_source_tasks = static_cast<int>(alive) * options_.tasks_per_worker;
  }
  options.scheduler = session_->scheduler();
  const int64_t query_id = options.query_id;
  FLOTILLA_ASSIGN_OR_RETURN(auto driver, QueryDriver::Make(plan, std::move(options)));
  std::map<std::string, exec::BatchFunction> udfs;
  CollectUdfs(plan, &udfs);
  for (const auto& w : workers_) {
    for (const auto& [name, fn] : udfs)
      w->RegisterUdf(name, fn);
  }
  // Each actor pool: its own workers, started with the query, running only the pool's tasks.
  std::vector<std::string> pool_ids;
  for (const auto& [pool, size] : driver->pools()) {
    for (int k = 0; k < size; ++k) {
      WorkerOptions w = options_.worker;
      w.id = "pool-q" + std::to_string(query_id) + "-" + pool + "-" + std::to_string(k);
      w.token = options_.token;
      FLOTILLA_ASSIGN_OR_RETURN(std::shared_ptr<WorkerRuntime> runtime, WorkerRuntime::Start(w));
      for (const auto& [name, fn] : udfs)
        runtime->RegisterUdf(name, fn);
      FLOTILLA_RETURN_NOT_OK(driver->AddWorker({runtime->id(), {1, 0, 0}, pool}));
      pool_ids.push_back(runtime->id());
      std::lock_guard lock(mutex_);
      pool_workers_[runtime->id()] = std::move(runtime);
    }
  }

  QueryLoopOptions loop;
  loop.token = options_.token;
  loop.stall_seconds = 0;  // no worker ever joins a running query here
  int64_t results = 0;
  if (on_progress) loop.on_result = [&](int64_t) { on_progress(++results); };
  if (Status st = session_->Start(*driver, loop); !st.ok()) {
    std::lock_guard lock(mutex_);
    for (const std::string& id : pool_ids)
      pool_workers_.erase(id);
    return st;
  }
  std::optional<QueryOutput> waited;
  while (!waited)
    waited = session_->Wait(query_id, 3600);
  QueryOutput partitions = std::move(*waited);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads = std::move(threads_[query_id]);
    threads_.erase(query_id);
  }
  for (std::thread& t : threads)
    t.join();
  for (auto& w : workers_)
    w->DropQuery(query_id);
  {
    std::lock_guard lock(mutex_);
    for (const std::string& id : pool_ids)
      pool_workers_.erase(id);
  }
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
