#include "flotilla/distributed/scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <unordered_map>
#include <utility>

namespace flotilla::distributed {

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

// `seq` is the join order, not the index: indices are reused after a worker leaves, and a worker
// that rejoins must not jump ahead of the ones that stayed.
struct LoadKey {
  double load;
  uint64_t seq;
  uint32_t worker;

  bool operator<(const LoadKey& o) const { return load != o.load ? load < o.load : seq < o.seq; }
};

// Queued tasks with the same request fit exactly the same workers of their pool: once the
// first of them fits nowhere, a pass skips the rest without looking at them, so a pass costs
// what it starts, not the length of the queue.
struct Group {
  std::set<QueueKey> queue;
  // Where this pass's last walk for the group found room in the load order. Workers before it
  // had no room for the request then, and have less now, so the next walk starts there rather
  // than stepping again over workers that are less loaded but out of memory or gpus.
  LoadKey cursor{};
  bool walked = false;
  // The group fit nowhere at the end of the last pass: only a worker in Pool::grown can have
  // room for it now.
  bool stuck = false;
};

struct GroupKey {
  Resources request;

  bool operator==(const GroupKey& o) const {
    return request.cpus == o.request.cpus && request.gpus == o.request.gpus &&
           request.memory_bytes == o.request.memory_bytes;
  }
};

struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    size_t h = std::hash<double>()(k.request.cpus);
    h = h * 31 + std::hash<double>()(k.request.gpus);
    return h * 31 + std::hash<int64_t>()(k.request.memory_bytes);
  }
};

struct Task {
  TaskSpec spec;
  TaskState state = TaskState::kQueued;
  int attempt = 1;
  int free_attempts = 0;  // attempts that failed through no fault of the task's
  uint32_t pool = 0;
  Group* group = nullptr;  // while queued
  uint32_t worker = kNone;
  uint32_t running_index = 0;  // position in the worker's `running`, for O(1) removal
  uint32_t host = kNone;       // the worker's host, charged for it while it runs

  QueueKey key(uint32_t index) const {
    return {spec.query_id, -static_cast<int64_t>(spec.node_rank), spec.task_id, index};
  }
  GroupKey group_key() const { return {spec.request}; }
};

struct Worker {
  WorkerSpec spec;
  bool alive = false;
  uint32_t pool = 0;
  uint64_t seq = 0;
  Resources used;
  LoadKey key{};
  std::vector<uint32_t> running;
  uint32_t host = kNone;         // a pool worker's general worker
  std::vector<uint32_t> guests;  // the pool workers it hosts
  int guest_tasks = 0;           // their running tasks, counted in `used`

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
  std::unordered_map<GroupKey, Group, GroupKeyHash> groups;  // only groups with queued tasks
  std::set<LoadKey> by_load;
  // GPU tasks walk only GPU workers: they are usually few and, busy with GPU work, often the
  // most loaded, so walking every worker would cost O(workers) per GPU task.
  std::set<LoadKey> gpu_by_load;
  // The largest free amounts reject a request that fits nowhere without walking the workers.
  std::multiset<double> free_cpus;
  std::multiset<double> free_gpus;
  std::multiset<int64_t> free_memory;
  // Workers that gained room (a task left, or they joined) since the last pass, unless more than
  // kMaxGrown did. A backend that calls Schedule() after every event then pays for the one
  // worker that changed, not for walking every worker once per request shape in the queue.
  std::vector<uint32_t> grown;
  bool many_grown = false;
};

constexpr size_t kMaxGrown = 64;

// Moves one entry to a new value reusing its node: workers are re-sorted on every start and
// finish, and this keeps that free of allocation.
template <typename Set, typename T>
void Replace(Set* set, const T& from, const T& to) {
  if (!(from < to) && !(to < from)) return;
  auto node = set->extract(set->find(from));
  node.value() = to;
  set->insert(std::move(node));
}

template <typename T>
void EraseOne(std::multiset<T>* set, const T& value) {
  set->erase(set->find(value));
}

// Negative, infinite or NaN amounts would break the ordered indexes (and the arithmetic of room).
Status CheckAmounts(const Resources& r, const std::string& what) {
  if (std::isfinite(r.cpus) && r.cpus >= 0 && std::isfinite(r.gpus) && r.gpus >= 0 &&
      r.memory_bytes >= 0) {
    return Status::OK();
  }
  return Status::Invalid(what + " has a negative or non-finite amount: " + std::to_string(r.cpus) +
                         " cpus, " + std::to_string(r.gpus) + " gpus, " +
                         std::to_string(r.memory_bytes) + " memory bytes");
}

std::string TaskName(int64_t task_id) {
  return "task " + std::to_string(task_id);
}

std::string StateName(TaskState state) {
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
  std::vector<uint32_t> free_task_indices;  // of forgotten queries' tasks, for reuse
  std::vector<Worker> workers;
  std::vector<uint32_t> free_worker_indices;
  std::unordered_map<std::string, uint32_t> worker_index;
  std::deque<Pool> pools;  // a deque: tasks point into their pool's groups
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

  Status NotRunning(const Task& task, const std::string& what) const {
    return Status::Invalid(TaskName(task.spec.task_id) + " is " + StateName(task.state) +
                           ", not running: cannot " + what);
  }

  void Enqueue(uint32_t t) {
    Task& task = tasks[t];
    task.state = TaskState::kQueued;
    task.group = &pools[task.pool].groups[task.group_key()];
    task.group->queue.insert(task.key(t));
    ++num_queued;
  }

  void Dequeue(uint32_t t) {
    Task& task = tasks[t];
    task.group->queue.erase(task.key(t));
    if (task.group->queue.empty()) pools[task.pool].groups.erase(task.group_key());
    task.group = nullptr;
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

  void SetUsed(uint32_t w, const Resources& used) {
    Worker& worker = workers[w];
    Pool& pool = pools[worker.pool];
    LoadKey old_key = worker.key;
    Resources old_free = worker.Free();
    worker.used = used;
    worker.key.load = worker.Load();
    Resources free = worker.Free();
    Replace(&pool.by_load, old_key, worker.key);
    if (worker.spec.capacity.gpus > 0) Replace(&pool.gpu_by_load, old_key, worker.key);
    Replace(&pool.free_cpus, old_free.cpus, free.cpus);
    Replace(&pool.free_gpus, old_free.gpus, free.gpus);
    Replace(&pool.free_memory, old_free.memory_bytes, free.memory_bytes);
  }

  void Start(uint32_t t, uint32_t w) {
    Task& task = tasks[t];
    Worker& worker = workers[w];
    task.state = TaskState::kRunning;
    task.worker = w;
    task.running_index = static_cast<uint32_t>(worker.running.size());
    worker.running.push_back(t);
    Resources used = worker.used;
    used += task.spec.request;
    SetUsed(w, used);
    task.host = worker.host;
    if (task.host != kNone) {
      Worker& host = workers[task.host];
      Resources host_used = host.used;
      host_used += task.spec.request;
      ++host.guest_tasks;
      SetUsed(task.host, host_used);
    }
    ++num_running;
  }

  void Release(uint32_t t) {
    Task& task = tasks[t];
    Worker& worker = workers[task.worker];
    uint32_t moved = worker.running.back();
    worker.running[task.running_index] = moved;
    tasks[moved].running_index = task.running_index;
    worker.running.pop_back();
    Free(task.worker, task.spec.request);
    if (task.host != kNone) {
      Worker& host = workers[task.host];
      --host.guest_tasks;
      Free(task.host, task.spec.request);
      task.host = kNone;
    }
    task.worker = kNone;
    --num_running;
  }

  // `request` no longer used on `w`, by a task of its own or of a guest's.
  void Free(uint32_t w, const Resources& request) {
    Worker& worker = workers[w];
    Resources used = worker.used;
    used -= request;
    // Fractional cpus do not add and subtract back to exactly zero; an idle worker starts clean
    // so that rounding cannot build up over a long-lived cluster.
    if (worker.running.empty() && worker.guest_tasks == 0) used = Resources{0, 0, 0};
    SetUsed(w, used);
    Grew(w);
  }

  // Room for `request` on the worker, and on its host if it has one.
  bool HasRoom(uint32_t w, const Resources& request) const {
    const Worker& worker = workers[w];
    if (!worker.Free().Fits(request)) return false;
    return worker.host == kNone || workers[worker.host].Free().Fits(request);
  }

  void Grew(uint32_t w) {
    // A host with more room may have room for its guests' tasks too.
    for (uint32_t g : workers[w].guests)
      MarkGrown(g);
    MarkGrown(w);
  }

  void MarkGrown(uint32_t w) {
    Pool& pool = pools[workers[w].pool];
    if (pool.many_grown) return;
    if (pool.grown.size() < kMaxGrown) {
      pool.grown.push_back(w);
    } else {
      pool.many_grown = true;
      pool.grown.clear();
    }
  }

  bool MayRevive(const Pool& pool, const GroupKey& key) const {
    if (pool.many_grown) return true;
    for (uint32_t w : pool.grown) {
      const Worker& worker = workers[w];
      if (worker.alive && &pools[worker.pool] == &pool && HasRoom(w, key.request)) {
        return true;
      }
    }
    return false;
  }

  bool RetryOrFail(uint32_t t, bool charged = true) {
    Task& task = tasks[t];
    if (!charged) {
      ++task.free_attempts;
    } else if (task.attempt - task.free_attempts >= task.spec.max_attempts) {
      task.state = TaskState::kFailed;
      return false;
    }
    ++task.attempt;
    Enqueue(t);
    return true;
  }

  // A stuck group looks only at the workers that grew; `failed` holds the smallest requests
  // that fit no worker of the pool in this pass. Free resources only shrink during a pass, so a
  // request at least as large fails too, and skips the walk over the workers.
  uint32_t Place(const Task& task, const Pool& pool, Group* group,
                 std::vector<Resources>* failed) const {
    const Resources& request = task.spec.request;
    if (request.cpus > *pool.free_cpus.rbegin() || request.gpus > *pool.free_gpus.rbegin() ||
        request.memory_bytes > *pool.free_memory.rbegin()) {
      return kNone;
    }
    for (const Resources& smaller : *failed) {
      if (request.Fits(smaller)) return kNone;
    }

    uint32_t best = kNone;
    int64_t best_bytes = 0;
    for (const auto& [worker_id, bytes] : task.spec.input_bytes) {
      if (bytes <= 0 || bytes < best_bytes) continue;
      auto it = worker_index.find(worker_id);
      if (it == worker_index.end()) continue;
      const Worker& worker = workers[it->second];
      if (worker.pool != task.pool || !HasRoom(it->second, request)) continue;
      if (best == kNone || bytes > best_bytes || worker.seq < workers[best].seq) {
        best = it->second;
        best_bytes = bytes;
      }
    }
    if (best != kNone) return best;

    if (group->stuck && !pool.many_grown) {
      for (uint32_t w : pool.grown) {
        const Worker& worker = workers[w];
        if (!worker.alive || worker.pool != task.pool || !HasRoom(w, request)) continue;
        if (best == kNone || worker.key < workers[best].key) best = w;
      }
      if (best != kNone) return best;
    } else {
      const std::set<LoadKey>& by_load = request.gpus > 0 ? pool.gpu_by_load : pool.by_load;
      auto it = group->walked ? by_load.lower_bound(group->cursor) : by_load.begin();
      for (; it != by_load.end(); ++it) {
        if (HasRoom(it->worker, request)) {
          group->cursor = *it;
          group->walked = true;
          return it->worker;
        }
      }
    }
    std::erase_if(*failed, [&](const Resources& larger) { return larger.Fits(request); });
    failed->push_back(request);
    return kNone;
  }
};

Scheduler::Scheduler() : impl_(std::make_unique<Impl>()) {}
Scheduler::~Scheduler() = default;

Status Scheduler::AddWorker(const WorkerSpec& spec) {
  Impl& s = *impl_;
  FLOTILLA_RETURN_NOT_OK(CheckAmounts(spec.capacity, "worker '" + spec.id + "' capacity"));
  uint32_t w = s.free_worker_indices.empty() ? static_cast<uint32_t>(s.workers.size())
                                             : s.free_worker_indices.back();
  if (!s.worker_index.try_emplace(spec.id, w).second) {
    return Status::Invalid("worker '" + spec.id + "' already joined the cluster");
  }
  if (s.free_worker_indices.empty()) {
    s.workers.emplace_back();
  } else {
    s.free_worker_indices.pop_back();
  }
  Worker& worker = s.workers[w];
  worker.spec = spec;
  worker.alive = true;
  worker.pool = s.PoolOf(spec.pool);
  worker.seq = s.next_seq++;
  worker.used = Resources{0, 0, 0};
  auto host = spec.host.empty() ? s.worker_index.end() : s.worker_index.find(spec.host);
  if (host != s.worker_index.end() && s.workers[host->second].spec.pool.empty()) {
    worker.host = host->second;
    s.workers[host->second].guests.push_back(w);
  }
  s.IndexWorker(w);
  s.Grew(w);
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
  // Guests outlive their host only as workers of their own: nothing is charged to it any more.
  for (uint32_t g : s.workers[w].guests) {
    s.workers[g].host = kNone;
    for (uint32_t t : s.workers[g].running)
      s.tasks[t].host = kNone;
  }
  if (uint32_t h = s.workers[w].host; h != kNone) std::erase(s.workers[h].guests, w);
  s.UnindexWorker(w);
  s.worker_index.erase(it);
  s.workers[w] = Worker{};
  s.free_worker_indices.push_back(w);
  std::sort(task_ids.begin(), task_ids.end());
  return task_ids;
}

Status Scheduler::Submit(TaskSpec spec) {
  Impl& s = *impl_;
  FLOTILLA_RETURN_NOT_OK(CheckAmounts(spec.request, TaskName(spec.task_id) + " request"));
  const bool reuse = !s.free_task_indices.empty();
  const auto t = reuse ? s.free_task_indices.back() : static_cast<uint32_t>(s.tasks.size());
  if (!s.task_index.try_emplace(spec.task_id, t).second) {
    return Status::Invalid(TaskName(spec.task_id) + " was already submitted");
  }
  if (reuse) {
    s.free_task_indices.pop_back();
    s.tasks[t] = Task{};
  } else {
    s.tasks.emplace_back();
  }
  Task& task = s.tasks[t];
  task.pool = s.PoolOf(spec.pool);
  task.spec = std::move(spec);
  s.Enqueue(t);
  return Status::OK();
}

std::vector<Assignment> Scheduler::Schedule() {
  Impl& s = *impl_;
  std::vector<std::pair<QueueKey, uint32_t>> started;
  std::vector<std::pair<QueueKey, Group*>> heads;
  std::vector<Resources> failed;
  auto later = [](const auto& a, const auto& b) { return b.first < a.first; };
  int pools_started = 0;
  // Actor pools first: their tasks are downstream of the general tasks feeding them, and may
  // share a host's room with them.
  for (size_t p = 1; p <= s.pools.size(); ++p) {
    Pool& pool = s.pools[p % s.pools.size()];
    if (pool.by_load.empty() || pool.groups.empty()) continue;
    // The groups' queues merged in priority order: the same order as walking one queue.
    heads.clear();
    for (auto& [key, group] : pool.groups) {
      if (group.stuck && !s.MayRevive(pool, key)) continue;
      group.walked = false;
      heads.emplace_back(*group.queue.begin(), &group);
    }
    std::make_heap(heads.begin(), heads.end(), later);
    failed.clear();
    size_t before = started.size();
    while (!heads.empty()) {
      std::pop_heap(heads.begin(), heads.end(), later);
      auto [key, group] = heads.back();
      heads.pop_back();
      uint32_t w = s.Place(s.tasks[key.task], pool, group, &failed);
      if (w == kNone) {
        group->stuck = true;
        continue;
      }
      bool last = group->queue.size() == 1;  // then Dequeue drops the group
      s.Dequeue(key.task);
      s.Start(key.task, w);
      started.emplace_back(key, w);
      if (!last) {
        heads.emplace_back(*group->queue.begin(), group);
        std::push_heap(heads.begin(), heads.end(), later);
      }
    }
    if (started.size() > before) ++pools_started;
    // Every group left is stuck now, whatever grew before.
    pool.grown.clear();
    pool.many_grown = false;
  }
  // Each pool's starts are in priority order already; only interleaving pools needs a sort.
  if (pools_started > 1) {
    std::sort(started.begin(), started.end(),
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

Result<bool> Scheduler::TaskFailed(int64_t task_id, bool retryable, bool charged) {
  Impl& s = *impl_;
  FLOTILLA_ASSIGN_OR_RETURN(uint32_t t, s.TaskIndex(task_id));
  if (s.tasks[t].state != TaskState::kRunning) return s.NotRunning(s.tasks[t], "fail it");
  s.Release(t);
  if (!retryable) {
    s.tasks[t].state = TaskState::kFailed;
    return false;
  }
  return s.RetryOrFail(t, charged);
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

void Scheduler::ForgetQuery(int64_t query_id) {
  Impl& s = *impl_;
  std::vector<int64_t> ids;
  for (const auto& [id, t] : s.task_index) {
    if (s.tasks[t].spec.query_id == query_id) ids.push_back(id);
  }
  for (int64_t id : ids) {
    (void)Cancel(id);
    auto it = s.task_index.find(id);
    s.free_task_indices.push_back(it->second);
    s.task_index.erase(it);
  }
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

}  // namespace flotilla::distributed
