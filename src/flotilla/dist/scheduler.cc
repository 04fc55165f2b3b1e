#include "flotilla/dist/scheduler.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <set>
#include <unordered_map>
#include <utility>

namespace flotilla::dist {

bool Resources::Fits(const Resources& request) const {
  return request.cpus <= cpus && request.gpus <= gpus && request.memory_bytes <= memory_bytes;
}

Resources& Resources::operator+=(const Resources& other) {
  cpus += other.cpus;
  gpus += other.gpus;
  memory_bytes += other.memory_bytes;
  return *this;
}

Resources& Resources::operator-=(const Resources& other) {
  cpus -= other.cpus;
  gpus -= other.gpus;
  memory_bytes -= other.memory_bytes;
  return *this;
}

namespace {

constexpr uint32_t kNone = UINT32_MAX;

struct QueueKey {
  int64_t query_id;
  int64_t minus_rank;  // 64 bits so that negating INT_MIN cannot overflow
  int64_t task_id;
  uint32_t task;

  bool operator<(const QueueKey& o) const {
    if (query_id != o.query_id) return query_id < o.query_id;
    if (minus_rank != o.minus_rank) return minus_rank < o.minus_rank;
    return task_id < o.task_id;
  }
};

// `seq` is the join order, not the slot: slots are reused after a worker leaves, and a worker
// that rejoins must not jump ahead of the ones that stayed.
struct LoadKey {
  double load;
  uint64_t seq;
  uint32_t worker;

  bool operator<(const LoadKey& o) const { return load != o.load ? load < o.load : seq < o.seq; }
};

struct Task {
  TaskSpec spec;
  TaskState state = TaskState::kQueued;
  int attempt = 1;
  uint32_t pool = 0;
  uint32_t worker = kNone;
  uint32_t slot = 0;  // position in the worker's `running`, for O(1) removal

  QueueKey key(uint32_t index) const {
    return {spec.query_id, -static_cast<int64_t>(spec.node_rank), spec.task_id, index};
  }
};

struct Worker {
  WorkerSpec spec;
  uint32_t pool = 0;
  uint64_t seq = 0;
  Resources used;
  LoadKey key{};
  std::vector<uint32_t> running;

  Resources Free() const {
    return {spec.capacity.cpus - used.cpus, spec.capacity.gpus - used.gpus,
            spec.capacity.memory_bytes - used.memory_bytes};
  }
  double Load() const {
    // A worker without cpus can only take cpu-less tasks; it goes last rather than dividing by 0.
    return spec.capacity.cpus > 0 ? used.cpus / spec.capacity.cpus : 1.0;
  }
};

// Workers of different pools never share a task, so each pool is scheduled on its own.
struct Pool {
  std::set<QueueKey> queue;
  std::multiset<double> queued_cpus;
  std::set<LoadKey> by_load;
  // GPU tasks walk only GPU workers: they are usually few and, busy with GPU work, often the
  // most loaded, so walking every worker would cost O(workers) per GPU task.
  std::set<LoadKey> gpu_by_load;
  // The largest free amounts reject a task that fits nowhere, and end a pass once the largest
  // free cpus are below the smallest queued request, without walking the workers.
  std::multiset<double> free_cpus;
  std::multiset<double> free_gpus;
  std::multiset<int64_t> free_memory;
};

struct ResourcesHash {
  size_t operator()(const Resources& r) const {
    size_t h = std::hash<double>()(r.cpus);
    h = h * 31 + std::hash<double>()(r.gpus);
    return h * 31 + std::hash<int64_t>()(r.memory_bytes);
  }
};

struct ResourcesEqual {
  bool operator()(const Resources& a, const Resources& b) const {
    return a.cpus == b.cpus && a.gpus == b.gpus && a.memory_bytes == b.memory_bytes;
  }
};

// What one Schedule() pass over a pool has learned. It holds only because during a pass workers
// only take on work: free resources shrink and loads grow.
struct Pass {
  // The smallest requests that fit no worker: a request at least as large fails too.
  std::vector<Resources> failed;
  // Per request, the worker it last went to in the load order. Every worker before it did not
  // fit the request then, and cannot now, so the next walk for the same request starts there
  // instead of stepping again over the workers that are less loaded but out of memory or gpus.
  std::unordered_map<Resources, LoadKey, ResourcesHash, ResourcesEqual> cursors;

  void Clear() {
    failed.clear();
    cursors.clear();
  }
};

template <typename T>
void EraseOne(std::multiset<T>* set, const T& value) {
  set->erase(set->find(value));
}

std::string TaskName(int64_t task_id) {
  return "task " + std::to_string(task_id);
}

std::string_view StateName(TaskState state) {
  switch (state) {
    case TaskState::kQueued:
      return "queued";
    case TaskState::kRunning:
      return "running";
    case TaskState::kCompleted:
      return "completed";
    case TaskState::kFailed:
      return "failed";
    case TaskState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

}  // namespace

struct Scheduler::Impl {
  std::vector<Task> tasks;
  std::unordered_map<int64_t, uint32_t> task_index;
  std::vector<Worker> workers;
  std::vector<uint32_t> free_slots;
  std::unordered_map<std::string, uint32_t> worker_index;
  std::vector<Pool> pools;
  std::unordered_map<std::string, uint32_t> pool_index;
  uint64_t next_seq = 0;
  int64_t num_queued = 0;
  int64_t num_running = 0;

  Impl() { PoolOf(""); }

  uint32_t PoolOf(const std::string& name) {
    auto [it, inserted] = pool_index.try_emplace(name, static_cast<uint32_t>(pools.size()));
    if (inserted) pools.emplace_back();
    return it->second;
  }

  const Task* FindTask(int64_t task_id) const {
    auto it = task_index.find(task_id);
    return it == task_index.end() ? nullptr : &tasks[it->second];
  }

  Result<uint32_t> TaskIndex(int64_t task_id) const {
    auto it = task_index.find(task_id);
    if (it == task_index.end()) return Status::KeyError(TaskName(task_id) + " was never submitted");
    return it->second;
  }

  Status NotRunning(const Task& task, std::string_view what) const {
    return Status::Invalid(TaskName(task.spec.task_id) + " is " +
                           std::string(StateName(task.state)) + ", not running: cannot " +
                           std::string(what));
  }

  void Enqueue(uint32_t t) {
    Task& task = tasks[t];
    task.state = TaskState::kQueued;
    Pool& pool = pools[task.pool];
    pool.queue.insert(task.key(t));
    pool.queued_cpus.insert(task.spec.request.cpus);
    ++num_queued;
  }

  void Dequeue(uint32_t t) {
    Task& task = tasks[t];
    Pool& pool = pools[task.pool];
    pool.queue.erase(task.key(t));
    EraseOne(&pool.queued_cpus, task.spec.request.cpus);
    --num_queued;
  }

  void IndexWorker(uint32_t w) {
    Worker& worker = workers[w];
    Pool& pool = pools[worker.pool];
    worker.key = {worker.Load(), worker.seq, w};
    pool.by_load.insert(worker.key);
    if (worker.spec.capacity.gpus > 0) pool.gpu_by_load.insert(worker.key);
    Resources free = worker.Free();
    pool.free_cpus.insert(free.cpus);
    pool.free_gpus.insert(free.gpus);
    pool.free_memory.insert(free.memory_bytes);
  }

  void UnindexWorker(uint32_t w) {
    Worker& worker = workers[w];
    Pool& pool = pools[worker.pool];
    pool.by_load.erase(worker.key);
    if (worker.spec.capacity.gpus > 0) pool.gpu_by_load.erase(worker.key);
    Resources free = worker.Free();
    EraseOne(&pool.free_cpus, free.cpus);
    EraseOne(&pool.free_gpus, free.gpus);
    EraseOne(&pool.free_memory, free.memory_bytes);
  }

  void Start(uint32_t t, uint32_t w) {
    Task& task = tasks[t];
    Worker& worker = workers[w];
    task.state = TaskState::kRunning;
    task.worker = w;
    task.slot = static_cast<uint32_t>(worker.running.size());
    worker.running.push_back(t);
    UnindexWorker(w);
    worker.used += task.spec.request;
    IndexWorker(w);
    ++num_running;
  }

  void Release(uint32_t t) {
    Task& task = tasks[t];
    Worker& worker = workers[task.worker];
    uint32_t moved = worker.running.back();
    worker.running[task.slot] = moved;
    tasks[moved].slot = task.slot;
    worker.running.pop_back();
    UnindexWorker(task.worker);
    worker.used -= task.spec.request;
    // Fractional cpus do not add and subtract back to exactly zero; an idle worker starts clean
    // so that rounding cannot build up over a long-lived cluster.
    if (worker.running.empty()) worker.used = Resources{0, 0, 0};
    IndexWorker(task.worker);
    task.worker = kNone;
    --num_running;
  }

  bool RetryOrFail(uint32_t t) {
    Task& task = tasks[t];
    if (task.attempt >= task.spec.max_attempts) {
      task.state = TaskState::kFailed;
      return false;
    }
    ++task.attempt;
    Enqueue(t);
    return true;
  }

  uint32_t Place(const Task& task, const Pool& pool, Pass* pass) const {
    const Resources& request = task.spec.request;
    if (!task.spec.required_worker.empty()) {
      auto it = worker_index.find(task.spec.required_worker);
      if (it == worker_index.end()) return kNone;
      const Worker& worker = workers[it->second];
      return worker.pool == task.pool && worker.Free().Fits(request) ? it->second : kNone;
    }
    if (request.cpus > *pool.free_cpus.rbegin() || request.gpus > *pool.free_gpus.rbegin() ||
        request.memory_bytes > *pool.free_memory.rbegin()) {
      return kNone;
    }
    for (const Resources& smaller : pass->failed) {
      if (request.Fits(smaller)) return kNone;
    }

    uint32_t best = kNone;
    int64_t best_bytes = 0;
    for (const auto& [worker_id, bytes] : task.spec.input_bytes) {
      if (bytes <= 0 || bytes < best_bytes) continue;
      auto it = worker_index.find(worker_id);
      if (it == worker_index.end()) continue;
      const Worker& worker = workers[it->second];
      if (worker.pool != task.pool || !worker.Free().Fits(request)) continue;
      if (best == kNone || bytes > best_bytes || worker.seq < workers[best].seq) {
        best = it->second;
        best_bytes = bytes;
      }
    }
    if (best != kNone) return best;

    const std::set<LoadKey>& by_load = request.gpus > 0 ? pool.gpu_by_load : pool.by_load;
    auto [cursor, first_walk] = pass->cursors.try_emplace(request);
    auto it = first_walk ? by_load.begin() : by_load.lower_bound(cursor->second);
    for (; it != by_load.end(); ++it) {
      if (workers[it->worker].Free().Fits(request)) {
        cursor->second = *it;
        return it->worker;
      }
    }
    std::erase_if(pass->failed, [&](const Resources& larger) { return larger.Fits(request); });
    pass->failed.push_back(request);
    return kNone;
  }
};

Scheduler::Scheduler() : impl_(std::make_unique<Impl>()) {}
Scheduler::~Scheduler() = default;

Status Scheduler::AddWorker(const WorkerSpec& spec) {
  Impl& s = *impl_;
  uint32_t w;
  if (s.free_slots.empty()) {
    w = static_cast<uint32_t>(s.workers.size());
  } else {
    w = s.free_slots.back();
  }
  if (!s.worker_index.try_emplace(spec.id, w).second) {
    return Status::Invalid("worker '" + spec.id + "' already joined the cluster");
  }
  if (s.free_slots.empty()) {
    s.workers.emplace_back();
  } else {
    s.free_slots.pop_back();
  }
  Worker& worker = s.workers[w];
  worker.spec = spec;
  worker.pool = s.PoolOf(spec.pool);
  worker.seq = s.next_seq++;
  worker.used = Resources{0, 0, 0};
  s.IndexWorker(w);
  return Status::OK();
}

Result<std::vector<int64_t>> Scheduler::RemoveWorker(const std::string& worker_id) {
  Impl& s = *impl_;
  auto it = s.worker_index.find(worker_id);
  if (it == s.worker_index.end()) {
    return Status::KeyError("worker '" + worker_id + "' is not in the cluster");
  }
  uint32_t w = it->second;
  std::vector<uint32_t> running = s.workers[w].running;
  std::vector<int64_t> task_ids;
  task_ids.reserve(running.size());
  for (uint32_t t : running) {
    s.Release(t);
    s.RetryOrFail(t);
    task_ids.push_back(s.tasks[t].spec.task_id);
  }
  s.UnindexWorker(w);
  s.worker_index.erase(it);
  s.workers[w] = Worker{};
  s.free_slots.push_back(w);
  std::sort(task_ids.begin(), task_ids.end());
  return task_ids;
}

Status Scheduler::Submit(TaskSpec spec) {
  Impl& s = *impl_;
  auto t = static_cast<uint32_t>(s.tasks.size());
  if (!s.task_index.try_emplace(spec.task_id, t).second) {
    return Status::Invalid(TaskName(spec.task_id) + " was already submitted");
  }
  Task& task = s.tasks.emplace_back();
  task.pool = s.PoolOf(spec.pool);
  task.spec = std::move(spec);
  s.Enqueue(t);
  return Status::OK();
}

std::vector<Assignment> Scheduler::Schedule() {
  Impl& s = *impl_;
  std::vector<std::pair<QueueKey, uint32_t>> started;
  Pass pass;
  int pools_started = 0;
  for (Pool& pool : s.pools) {
    if (pool.by_load.empty()) continue;
    pass.Clear();
    size_t before = started.size();
    for (auto it = pool.queue.begin(); it != pool.queue.end();) {
      if (*pool.free_cpus.rbegin() < *pool.queued_cpus.begin()) break;
      QueueKey key = *it;
      uint32_t w = s.Place(s.tasks[key.task], pool, &pass);
      ++it;
      if (w == kNone) continue;
      s.Dequeue(key.task);
      s.Start(key.task, w);
      started.emplace_back(key, w);
    }
    if (started.size() > before) ++pools_started;
  }
  // Each pool's starts are in priority order already; only interleaving pools needs a sort.
  if (pools_started > 1) {
    std::stable_sort(started.begin(), started.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  std::vector<Assignment> assignments;
  assignments.reserve(started.size());
  for (const auto& [key, w] : started) {
    assignments.push_back({key.task_id, s.workers[w].spec.id, s.tasks[key.task].attempt});
  }
  return assignments;
}

Status Scheduler::TaskCompleted(int64_t task_id) {
  Impl& s = *impl_;
  FLOTILLA_ASSIGN_OR_RETURN(uint32_t t, s.TaskIndex(task_id));
  if (s.tasks[t].state != TaskState::kRunning) return s.NotRunning(s.tasks[t], "complete it");
  s.Release(t);
  s.tasks[t].state = TaskState::kCompleted;
  return Status::OK();
}

Result<bool> Scheduler::TaskFailed(int64_t task_id, bool retryable) {
  Impl& s = *impl_;
  FLOTILLA_ASSIGN_OR_RETURN(uint32_t t, s.TaskIndex(task_id));
  if (s.tasks[t].state != TaskState::kRunning) return s.NotRunning(s.tasks[t], "fail it");
  s.Release(t);
  if (!retryable) {
    s.tasks[t].state = TaskState::kFailed;
    return false;
  }
  return s.RetryOrFail(t);
}

Status Scheduler::Cancel(int64_t task_id) {
  Impl& s = *impl_;
  FLOTILLA_ASSIGN_OR_RETURN(uint32_t t, s.TaskIndex(task_id));
  Task& task = s.tasks[t];
  if (task.state == TaskState::kQueued) {
    s.Dequeue(t);
  } else if (task.state == TaskState::kRunning) {
    s.Release(t);
  } else {
    return Status::OK();
  }
  task.state = TaskState::kCancelled;
  return Status::OK();
}

Status Scheduler::Resubmit(int64_t task_id) {
  Impl& s = *impl_;
  FLOTILLA_ASSIGN_OR_RETURN(uint32_t t, s.TaskIndex(task_id));
  Task& task = s.tasks[t];
  if (task.state != TaskState::kCompleted) {
    return Status::Invalid(TaskName(task_id) + " is " + std::string(StateName(task.state)) +
                           ": only a completed task can be resubmitted");
  }
  // A new run gets a new attempt number so a late report from the lost run can be told apart;
  // the output was lost with a worker, not by the task, so the attempt limit does not apply.
  ++task.attempt;
  s.Enqueue(t);
  return Status::OK();
}

TaskState Scheduler::state(int64_t task_id) const {
  const Task* task = impl_->FindTask(task_id);
  // An id never submitted will never produce output; callers waiting on it must not hang.
  return task ? task->state : TaskState::kFailed;
}

std::string Scheduler::worker_of(int64_t task_id) const {
  const Task* task = impl_->FindTask(task_id);
  if (task == nullptr || task->state != TaskState::kRunning) return "";
  return impl_->workers[task->worker].spec.id;
}

int Scheduler::attempt(int64_t task_id) const {
  const Task* task = impl_->FindTask(task_id);
  return task ? task->attempt : 0;
}

int64_t Scheduler::num_queued() const {
  return impl_->num_queued;
}
int64_t Scheduler::num_running() const {
  return impl_->num_running;
}
int Scheduler::num_workers() const {
  return static_cast<int>(impl_->worker_index.size());
}

Result<Resources> Scheduler::used(const std::string& worker_id) const {
  auto it = impl_->worker_index.find(worker_id);
  if (it == impl_->worker_index.end()) {
    return Status::KeyError("worker '" + worker_id + "' is not in the cluster");
  }
  return impl_->workers[it->second].used;
}

}  // namespace flotilla::dist
