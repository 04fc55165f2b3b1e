#include "flotilla/dist/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace flotilla::dist {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

WorkerSpec MakeWorker(std::string id, double cpus, double gpus = 0, int64_t memory = 64 * kGiB,
                      std::string pool = "") {
  return {std::move(id), {cpus, gpus, memory}, std::move(pool)};
}

TaskSpec MakeTask(int64_t task_id, int64_t query_id = 1, int node_rank = 0,
                  Resources request = {1, 0, 0}) {
  TaskSpec t;
  t.task_id = task_id;
  t.query_id = query_id;
  t.node_rank = node_rank;
  t.request = request;
  return t;
}

// (task id, worker) of each assignment, in the order Schedule() returned them.
std::vector<std::pair<int64_t, std::string>> Placed(const std::vector<Assignment>& assignments) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (const Assignment& a : assignments) out.emplace_back(a.task_id, a.worker);
  return out;
}

using Placements = std::vector<std::pair<int64_t, std::string>>;

void ExpectUsed(const Scheduler& s, const std::string& worker, Resources expected) {
  Result<Resources> used = s.used(worker);
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(used->cpus, expected.cpus) << worker;
  EXPECT_EQ(used->gpus, expected.gpus) << worker;
  EXPECT_EQ(used->memory_bytes, expected.memory_bytes) << worker;
}

TEST(SchedulerTest, OlderQueryThenDownstreamNodeThenSmallerTaskIdGoFirst) {
  // (task, query, rank) submitted out of order.
  const std::vector<std::tuple<int64_t, int64_t, int>> tasks = {
      {10, 2, 9}, {4, 1, 0}, {7, 1, 2}, {3, 1, 2}, {1, 3, 5}};
  const std::vector<int64_t> expected = {3, 7, 4, 10, 1};

  Scheduler one_at_a_time;
  one_at_a_time.AddWorker(MakeWorker("w", 1)).Check();
  for (auto [id, query, rank] : tasks) one_at_a_time.Submit(MakeTask(id, query, rank)).Check();
  std::vector<int64_t> order;
  for (int i = 0; i < 5; ++i) {
    std::vector<Assignment> a = one_at_a_time.Schedule();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].attempt, 1);
    order.push_back(a[0].task_id);
    one_at_a_time.TaskCompleted(a[0].task_id).Check();
  }
  EXPECT_EQ(order, expected);
  EXPECT_TRUE(one_at_a_time.Schedule().empty());

  Scheduler all_at_once;
  all_at_once.AddWorker(MakeWorker("w", 8)).Check();
  for (auto [id, query, rank] : tasks) all_at_once.Submit(MakeTask(id, query, rank)).Check();
  order.clear();
  for (const Assignment& a : all_at_once.Schedule()) order.push_back(a.task_id);
  EXPECT_EQ(order, expected);
}

TEST(SchedulerTest, TaskThatFitsNowhereDoesNotBlockTasksBehindIt) {
  Scheduler s;
  s.AddWorker(MakeWorker("small", 2)).Check();
  s.Submit(MakeTask(1, 1, 0, {4, 0, 0})).Check();
  for (int64_t id : {2, 3, 4}) s.Submit(MakeTask(id, 2)).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{2, "small"}, {3, "small"}}));
  EXPECT_EQ(s.state(1), TaskState::kQueued);
  EXPECT_EQ(s.num_queued(), 2);
  EXPECT_EQ(s.num_running(), 2);

  s.AddWorker(MakeWorker("big", 8)).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "big"}, {4, "big"}}));
  ExpectUsed(s, "big", {5, 0, 0});
}

TEST(SchedulerTest, PrefersTheWorkerWithRoomHoldingMostInputBytes) {
  Scheduler s;
  for (const char* id : {"a", "b", "c"}) s.AddWorker(MakeWorker(id, 4)).Check();
  s.AddWorker(MakeWorker("pool", 4, 0, 64 * kGiB, "actors")).Check();

  TaskSpec t1 = MakeTask(1);
  t1.input_bytes = {{"a", 10}, {"c", 500}, {"b", 100}, {"gone", 9000}, {"pool", 9000}};
  s.Submit(t1).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "c"}}));

  // c full: the next best holder with room, not the least loaded (a).
  TaskSpec fill = MakeTask(2, 1, 0, {3, 0, 0});
  fill.required_worker = "c";
  s.Submit(fill).Check();
  TaskSpec t3 = MakeTask(3);
  t3.input_bytes = {{"c", 500}, {"b", 100}};
  s.Submit(t3).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{2, "c"}, {3, "b"}}));

  // No holder with room: the least loaded.
  TaskSpec t4 = MakeTask(4);
  t4.input_bytes = {{"c", 1000}};
  s.Submit(t4).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{4, "a"}}));

  // Equal bytes: the earlier worker.
  TaskSpec t5 = MakeTask(5);
  t5.input_bytes = {{"b", 7}, {"a", 7}};
  s.Submit(t5).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{5, "a"}}));
}

TEST(SchedulerTest, PlacesOnTheLeastLoadedWorkerTiesToTheEarlierOne) {
  Scheduler even;
  for (const char* id : {"a", "b", "c"}) even.AddWorker(MakeWorker(id, 4)).Check();
  for (int64_t id = 1; id <= 6; ++id) even.Submit(MakeTask(id)).Check();
  EXPECT_EQ(Placed(even.Schedule()),
            (Placements{{1, "a"}, {2, "b"}, {3, "c"}, {4, "a"}, {5, "b"}, {6, "c"}}));

  // Load is the share of cpus in use, not the count: 2 of 8 is less loaded than 1 of 2.
  Scheduler mixed;
  mixed.AddWorker(MakeWorker("big", 8)).Check();
  mixed.AddWorker(MakeWorker("small", 2)).Check();
  TaskSpec preload = MakeTask(1, 1, 0, {2, 0, 0});
  preload.required_worker = "big";
  mixed.Submit(preload).Check();
  for (int64_t id = 2; id <= 6; ++id) mixed.Submit(MakeTask(id)).Check();
  EXPECT_EQ(Placed(mixed.Schedule()), (Placements{{1, "big"},
                                                   {2, "small"},
                                                   {3, "big"},
                                                   {4, "big"},
                                                   {5, "big"},
                                                   {6, "small"}}));

  // A worker that leaves and rejoins is the latest to join: ties go to the others first.
  Scheduler rejoin;
  for (const char* id : {"a", "b"}) rejoin.AddWorker(MakeWorker(id, 4)).Check();
  ASSERT_TRUE(rejoin.RemoveWorker("a").ok());
  rejoin.AddWorker(MakeWorker("a", 4)).Check();
  rejoin.Submit(MakeTask(1)).Check();
  EXPECT_EQ(Placed(rejoin.Schedule()), (Placements{{1, "b"}}));
}

TEST(SchedulerTest, NeverExceedsCpusGpusOrMemory) {
  Scheduler s;
  s.AddWorker(MakeWorker("cpu", 4, 0, 16 * kGiB)).Check();
  s.AddWorker(MakeWorker("gpu", 4, 1, 16 * kGiB)).Check();
  s.Submit(MakeTask(1, 1, 0, {1, 1, 1 * kGiB})).Check();
  s.Submit(MakeTask(2, 1, 0, {1, 1, 1 * kGiB})).Check();
  s.Submit(MakeTask(3, 1, 0, {1, 0, 10 * kGiB})).Check();
  s.Submit(MakeTask(4, 1, 0, {1, 0, 10 * kGiB})).Check();
  s.Submit(MakeTask(5, 1, 0, {1, 0, 10 * kGiB})).Check();
  // 1 needs the only gpu, 2 waits for it; 4 ties on load, prefers "cpu", but has no memory
  // there; 5 has memory nowhere.
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "gpu"}, {3, "cpu"}, {4, "gpu"}}));
  ExpectUsed(s, "cpu", {1, 0, 10 * kGiB});
  ExpectUsed(s, "gpu", {2, 1, 11 * kGiB});

  s.TaskCompleted(1).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{2, "gpu"}}));
  s.TaskCompleted(3).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{5, "cpu"}}));

  Scheduler cpus;
  cpus.AddWorker(MakeWorker("w", 2)).Check();
  for (int64_t id = 1; id <= 3; ++id) cpus.Submit(MakeTask(id, 1, 0, {1.5, 0, 0})).Check();
  EXPECT_EQ(cpus.Schedule().size(), 1u);
  EXPECT_TRUE(cpus.Schedule().empty());
  ExpectUsed(cpus, "w", {1.5, 0, 0});
  // Exactly the capacity fits.
  cpus.Submit(MakeTask(4, 0, 0, {0.5, 0, 0})).Check();
  EXPECT_EQ(Placed(cpus.Schedule()), (Placements{{4, "w"}}));
  ExpectUsed(cpus, "w", {2, 0, 0});
}

TEST(SchedulerTest, PoolTasksRunOnlyOnPoolWorkersAndPoolWorkersOnlyRunThem) {
  Scheduler s;
  s.AddWorker(MakeWorker("g", 2)).Check();
  s.AddWorker(MakeWorker("p", 8, 0, 64 * kGiB, "embed")).Check();
  for (int64_t id = 1; id <= 4; ++id) s.Submit(MakeTask(id)).Check();
  for (int64_t id = 5; id <= 6; ++id) {
    TaskSpec t = MakeTask(id);
    t.pool = "embed";
    t.input_bytes = {{"g", 1000}};  // locality never overrides the pool
    s.Submit(t).Check();
  }
  TaskSpec other = MakeTask(7);
  other.pool = "other";
  s.Submit(other).Check();

  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "g"}, {2, "g"}, {5, "p"}, {6, "p"}}));
  EXPECT_EQ(s.state(3), TaskState::kQueued);
  EXPECT_EQ(s.state(7), TaskState::kQueued);

  s.AddWorker(MakeWorker("o", 1, 0, 64 * kGiB, "other")).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{7, "o"}}));
  s.TaskCompleted(1).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{3, "g"}}));
}

TEST(SchedulerTest, RequiredWorkerIsHonoured) {
  Scheduler s;
  s.AddWorker(MakeWorker("a", 4)).Check();
  s.AddWorker(MakeWorker("b", 4)).Check();
  s.AddWorker(MakeWorker("p", 4, 0, 64 * kGiB, "embed")).Check();
  TaskSpec on_b = MakeTask(1);
  on_b.required_worker = "b";
  s.Submit(on_b).Check();
  TaskSpec on_z = MakeTask(2);
  on_z.required_worker = "z";
  s.Submit(on_z).Check();
  TaskSpec big_on_b = MakeTask(3, 1, 0, {4, 0, 0});
  big_on_b.required_worker = "b";
  s.Submit(big_on_b).Check();
  // A pool worker is required, but the task is not of its pool.
  TaskSpec on_p = MakeTask(4);
  on_p.required_worker = "p";
  s.Submit(on_p).Check();
  TaskSpec on_p_in_pool = on_p;
  on_p_in_pool.task_id = 5;
  on_p_in_pool.pool = "embed";
  s.Submit(on_p_in_pool).Check();

  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "b"}, {5, "p"}}));
  s.AddWorker(MakeWorker("z", 1)).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{2, "z"}}));
  s.TaskCompleted(1).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{3, "b"}}));
  EXPECT_EQ(s.state(4), TaskState::kQueued);
  ExpectUsed(s, "a", {0, 0, 0});
}

TEST(SchedulerTest, RetryableFailuresRequeueUntilMaxAttempts) {
  Scheduler s;
  s.AddWorker(MakeWorker("w", 4)).Check();
  TaskSpec t = MakeTask(1);
  t.max_attempts = 3;
  s.Submit(t).Check();
  for (int attempt = 1; attempt <= 3; ++attempt) {
    std::vector<Assignment> a = s.Schedule();
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].attempt, attempt);
    EXPECT_EQ(s.attempt(1), attempt);
    EXPECT_EQ(s.worker_of(1), "w");
    Result<bool> retried = s.TaskFailed(1, /*retryable=*/true);
    ASSERT_TRUE(retried.ok());
    EXPECT_EQ(*retried, attempt < 3);
    EXPECT_EQ(s.state(1), attempt < 3 ? TaskState::kQueued : TaskState::kFailed);
  }
  EXPECT_TRUE(s.Schedule().empty());
  EXPECT_EQ(s.worker_of(1), "");
  ExpectUsed(s, "w", {0, 0, 0});

  s.Submit(MakeTask(2)).Check();
  ASSERT_EQ(s.Schedule().size(), 1u);
  Result<bool> retried = s.TaskFailed(2, /*retryable=*/false);
  ASSERT_TRUE(retried.ok());
  EXPECT_FALSE(*retried);
  EXPECT_EQ(s.state(2), TaskState::kFailed);
  EXPECT_EQ(s.attempt(2), 1);
  EXPECT_EQ(s.num_queued() + s.num_running(), 0);
}

TEST(SchedulerTest, RemoveWorkerRequeuesItsRunningTasks) {
  Scheduler s;
  s.AddWorker(MakeWorker("a", 4)).Check();
  s.AddWorker(MakeWorker("b", 4)).Check();
  for (int64_t id = 1; id <= 3; ++id) {
    TaskSpec t = MakeTask(id);
    t.input_bytes = {{"a", 100}};
    t.max_attempts = id == 3 ? 1 : 3;
    s.Submit(t).Check();
  }
  TaskSpec pinned = MakeTask(4, 9);
  pinned.required_worker = "a";
  pinned.request = {4, 0, 0};
  s.Submit(pinned).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "a"}, {2, "a"}, {3, "a"}}));

  Result<std::vector<int64_t>> requeued = s.RemoveWorker("a");
  ASSERT_TRUE(requeued.ok());
  EXPECT_EQ(*requeued, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(s.state(1), TaskState::kQueued);
  EXPECT_EQ(s.attempt(1), 2);
  EXPECT_EQ(s.state(3), TaskState::kFailed);  // out of attempts
  EXPECT_EQ(s.num_workers(), 1);
  EXPECT_EQ(s.num_running(), 0);
  EXPECT_EQ(s.used("a").status().code(), StatusCode::kKeyError);

  std::vector<Assignment> a = s.Schedule();
  EXPECT_EQ(Placed(a), (Placements{{1, "b"}, {2, "b"}}));
  EXPECT_EQ(a[0].attempt, 2);
  EXPECT_EQ(s.state(4), TaskState::kQueued);

  s.AddWorker(MakeWorker("a", 4)).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{4, "a"}}));
  EXPECT_EQ(s.num_workers(), 2);
}

TEST(SchedulerTest, CancelDropsQueuedAndRunningTasks) {
  Scheduler s;
  s.AddWorker(MakeWorker("w", 1)).Check();
  for (int64_t id = 1; id <= 3; ++id) s.Submit(MakeTask(id)).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "w"}}));

  s.Cancel(2).Check();
  EXPECT_EQ(s.state(2), TaskState::kCancelled);
  EXPECT_EQ(s.num_queued(), 1);
  s.Cancel(1).Check();
  EXPECT_EQ(s.state(1), TaskState::kCancelled);
  EXPECT_EQ(s.worker_of(1), "");
  EXPECT_EQ(s.num_running(), 0);
  ExpectUsed(s, "w", {0, 0, 0});
  EXPECT_EQ(s.TaskCompleted(1).code(), StatusCode::kInvalid);

  EXPECT_EQ(Placed(s.Schedule()), (Placements{{3, "w"}}));
  s.TaskCompleted(3).Check();
  s.Cancel(3).Check();
  s.Cancel(1).Check();
  EXPECT_EQ(s.state(3), TaskState::kCompleted);
  EXPECT_EQ(s.state(1), TaskState::kCancelled);
  EXPECT_TRUE(s.Schedule().empty());
}

TEST(SchedulerTest, ResubmitRunsACompletedTaskAgain) {
  Scheduler s;
  s.AddWorker(MakeWorker("w", 1)).Check();
  TaskSpec t = MakeTask(1);
  t.max_attempts = 1;
  s.Submit(t).Check();
  EXPECT_EQ(s.Resubmit(1).code(), StatusCode::kInvalid);  // queued
  ASSERT_EQ(s.Schedule().size(), 1u);
  EXPECT_EQ(s.Resubmit(1).code(), StatusCode::kInvalid);  // running
  s.TaskCompleted(1).Check();

  s.Resubmit(1).Check();
  EXPECT_EQ(s.state(1), TaskState::kQueued);
  std::vector<Assignment> a = s.Schedule();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].attempt, 2);
  s.TaskCompleted(1).Check();
  EXPECT_EQ(s.state(1), TaskState::kCompleted);
}

TEST(SchedulerTest, UnknownAndDuplicateIdsAreErrors) {
  Scheduler s;
  s.AddWorker(MakeWorker("w", 1)).Check();
  EXPECT_EQ(s.AddWorker(MakeWorker("w", 8)).code(), StatusCode::kInvalid);
  s.Submit(MakeTask(1)).Check();
  EXPECT_EQ(s.Submit(MakeTask(1, 5)).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.num_workers(), 1);
  EXPECT_EQ(s.num_queued(), 1);

  EXPECT_EQ(s.RemoveWorker("x").status().code(), StatusCode::kKeyError);
  EXPECT_EQ(s.used("x").status().code(), StatusCode::kKeyError);
  EXPECT_EQ(s.TaskCompleted(99).code(), StatusCode::kKeyError);
  EXPECT_EQ(s.TaskFailed(99, true).status().code(), StatusCode::kKeyError);
  EXPECT_EQ(s.Cancel(99).code(), StatusCode::kKeyError);
  EXPECT_EQ(s.Resubmit(99).code(), StatusCode::kKeyError);
  EXPECT_EQ(s.worker_of(99), "");
  EXPECT_EQ(s.attempt(99), 0);

  // Reports about a task that is not running are refused, not applied.
  EXPECT_EQ(s.TaskCompleted(1).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.TaskFailed(1, true).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(s.state(1), TaskState::kQueued);
}

// ---- A simulated cluster, checked against a brute-force model after every step ----------------

#if defined(__SANITIZE_ADDRESS__)
constexpr int kSimTasks = 100'000;
#else
constexpr int kSimTasks = 100'000;
#endif
constexpr int kSimWorkers = 1'000;

struct SimWorker {
  WorkerSpec spec;
  bool up = false;
  uint64_t seq = 0;  // join order, as the scheduler breaks ties
  int rejoin_step = 0;
  Resources used;
};

struct SimTask {
  TaskSpec spec;
  TaskState state = TaskState::kQueued;
  int attempt = 1;
  int worker = -1;
  int finals = 0;  // transitions to completed or failed
};

// A set of small integers with O(1) insert, erase and uniform sampling.
class IndexSet {
 public:
  explicit IndexSet(size_t universe) : pos_(universe, -1) {}
  void Insert(int i) {
    pos_[i] = static_cast<int>(items_.size());
    items_.push_back(i);
  }
  void Erase(int i) {
    int last = items_.back();
    items_[pos_[i]] = last;
    pos_[last] = pos_[i];
    items_.pop_back();
    pos_[i] = -1;
  }
  bool Contains(int i) const { return pos_[i] >= 0; }
  const std::vector<int>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<int> pos_;
  std::vector<int> items_;
};

class Simulation {
 public:
  explicit Simulation(uint64_t seed) : rng_(seed), queued_(kSimTasks), running_(kSimTasks) {}

  void Run() {
    for (int i = 0; i < kSimWorkers; ++i) ASSERT_NO_FATAL_FAILURE(AddNewWorker());
    for (int i = 0; i < kSimTasks; ++i) tasks_.push_back(RandomTask(i));
    std::shuffle(tasks_.begin(), tasks_.end(), rng_);  // submission order is not priority order
    for (int i = 0; i < kSimTasks; ++i) index_of_[tasks_[i].spec.task_id] = i;

    int submitted = 0;
    int finished = 0;
    for (int step = 0; finished < kSimTasks; ++step) {
      ASSERT_LT(step, 10'000) << "the simulation does not drain";
      for (int n = 0; n < 4'000 && submitted < kSimTasks; ++n, ++submitted) {
        ASSERT_TRUE(sched_.Submit(tasks_[submitted].spec).ok());
        queued_.Insert(submitted);
      }
      if (step % 5 == 4) {
        ASSERT_NO_FATAL_FAILURE(Churn(step, &finished));
      }

      auto t0 = std::chrono::steady_clock::now();
      std::vector<Assignment> assignments = sched_.Schedule();
      sched_ns_ += (std::chrono::steady_clock::now() - t0).count(); steps_ = step;
      assignments_ += assignments.size();
      ASSERT_NO_FATAL_FAILURE(ApplyAssignments(assignments));
      ASSERT_NO_FATAL_FAILURE(CheckWorkers());
      ASSERT_NO_FATAL_FAILURE(CheckNothingQueuedFits());
      ASSERT_EQ(sched_.num_queued(), static_cast<int64_t>(queued_.size()));
      ASSERT_EQ(sched_.num_running(), static_cast<int64_t>(running_.size()));
      bool workers_down = std::any_of(workers_.begin(), workers_.end(),
                                      [](const SimWorker& w) { return !w.up; });
      ASSERT_TRUE(!assignments.empty() || !running_.empty() || submitted < kSimTasks ||
                  workers_down || queued_.empty())
          << "stuck with " << queued_.size() << " queued tasks";

      ASSERT_NO_FATAL_FAILURE(FinishSome(&finished));
    }

    fprintf(stderr, "steps %d assignments %zu schedule ms %.1f\n", steps_, assignments_, sched_ns_/1e6);
    EXPECT_EQ(sched_.num_queued(), 0);
    EXPECT_EQ(sched_.num_running(), 0);
    int completed = 0;
    for (const SimTask& t : tasks_) {
      ASSERT_EQ(t.finals, 1) << "task " << t.spec.task_id;
      ASSERT_EQ(sched_.state(t.spec.task_id), t.state) << "task " << t.spec.task_id;
      completed += t.state == TaskState::kCompleted;
    }
    for (const SimWorker& w : workers_) {
      if (!w.up) continue;
      Resources used = *sched_.used(w.spec.id);
      EXPECT_TRUE(used.cpus == 0 && used.gpus == 0 && used.memory_bytes == 0) << w.spec.id;
    }
    // The mix must exercise both outcomes, or the test checks less than it claims.
    EXPECT_GT(completed, kSimTasks * 9 / 10);
    EXPECT_LT(completed, kSimTasks);
    EXPECT_GE(assignments_, static_cast<size_t>(kSimTasks));
  }

 private:
  uint64_t Uniform(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  void AddNewWorker() {
    static constexpr double kCpus[] = {4, 8, 16, 32};
    static constexpr int64_t kMemory[] = {16, 32, 64, 128};
    SimWorker w;
    w.spec.id = "w" + std::to_string(workers_.size());
    w.spec.capacity.cpus = kCpus[Uniform(4)];
    w.spec.capacity.memory_bytes = kMemory[Uniform(4)] * kGiB;
    if (Chance(0.03)) {
      w.spec.pool = "embed";
    } else if (Chance(0.1)) {
      w.spec.capacity.gpus = static_cast<double>(1 + Uniform(4));
    }
    index_of_worker_[w.spec.id] = static_cast<int>(workers_.size());
    workers_.push_back(w);
    ASSERT_NO_FATAL_FAILURE(Join(static_cast<int>(workers_.size()) - 1));
  }

  void Join(int w) {
    SimWorker& worker = workers_[w];
    ASSERT_TRUE(sched_.AddWorker(worker.spec).ok());
    worker.up = true;
    worker.seq = next_seq_++;
    worker.used = Resources{0, 0, 0};
  }

  // Every request fits some worker shape that keeps coming back, so every task can finish.
  SimTask RandomTask(int i) {
    static constexpr double kCpus[] = {0.5, 1, 1, 1, 2, 4};
    static constexpr int64_t kMemoryMiB[] = {256, 1024, 2048, 4096, 8192, 16384};
    SimTask t;
    TaskSpec& s = t.spec;
    s.task_id = 1'000'003 + int64_t{i} * 7;
    s.query_id = static_cast<int64_t>(Uniform(8));
    s.node_rank = static_cast<int>(Uniform(5));
    s.request = {kCpus[Uniform(6)], 0, kMemoryMiB[Uniform(6)] << 20};
    s.max_attempts = 1 + static_cast<int>(Uniform(4));
    double r = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (r < 0.02) {
      s.pool = "embed";
    } else if (r < 0.07) {
      s.request.gpus = 1;
    } else if (r < 0.075) {
      const SimWorker& w = workers_[Uniform(workers_.size())];
      s.required_worker = w.spec.id;
      s.pool = w.spec.pool;
      s.request.cpus = std::min(s.request.cpus, w.spec.capacity.cpus);
      s.request.gpus = w.spec.capacity.gpus > 0 ? 1 : 0;
    }
    for (uint64_t n = Uniform(4); n > 0; --n) {
      std::string holder = "w" + std::to_string(Uniform(workers_.size() + 50));
      s.input_bytes.emplace_back(holder, 1 + static_cast<int64_t>(Uniform(1'000'000'000)));
    }
    return t;
  }

  SimTask& TaskById(int64_t task_id) { return tasks_[index_of_.at(task_id)]; }

  bool Eligible(const SimTask& t, const SimWorker& w) const {
    return w.up && w.spec.pool == t.spec.pool &&
           (t.spec.required_worker.empty() || t.spec.required_worker == w.spec.id);
  }

  static Resources Free(const SimWorker& w) {
    Resources free = w.spec.capacity;
    free -= w.used;
    return free;
  }

  // The header's placement rule, by brute force over every worker.
  int ExpectedWorker(const SimTask& t) const {
    if (!t.spec.required_worker.empty()) return index_of_worker_.at(t.spec.required_worker);
    int best = -1;
    int64_t best_bytes = 0;
    for (const auto& [id, bytes] : t.spec.input_bytes) {
      auto it = index_of_worker_.find(id);
      if (it == index_of_worker_.end()) continue;
      const SimWorker& w = workers_[it->second];
      if (!Eligible(t, w) || !Free(w).Fits(t.spec.request)) continue;
      if (best < 0 || bytes > best_bytes || (bytes == best_bytes && w.seq < workers_[best].seq)) {
        best = it->second;
        best_bytes = bytes;
      }
    }
    if (best >= 0) return best;
    auto load = [](const SimWorker& w) {
      return w.spec.capacity.cpus > 0 ? w.used.cpus / w.spec.capacity.cpus : 1.0;
    };
    for (size_t i = 0; i < workers_.size(); ++i) {
      const SimWorker& w = workers_[i];
      if (!Eligible(t, w) || !Free(w).Fits(t.spec.request)) continue;
      if (best < 0 || std::make_pair(load(w), w.seq) <
                          std::make_pair(load(workers_[best]), workers_[best].seq)) {
        best = static_cast<int>(i);
      }
    }
    return best;
  }

  void ApplyAssignments(const std::vector<Assignment>& assignments) {
    std::tuple<int64_t, int64_t, int64_t> previous{INT64_MIN, INT64_MIN, INT64_MIN};
    for (size_t i = 0; i < assignments.size(); ++i) {
      const Assignment& a = assignments[i];
      int index = index_of_.at(a.task_id);
      SimTask& t = tasks_[index];
      std::tuple<int64_t, int64_t, int64_t> key{t.spec.query_id, -t.spec.node_rank,
                                                t.spec.task_id};
      ASSERT_LT(previous, key) << "assignments out of priority order";
      previous = key;
      ASSERT_EQ(t.state, TaskState::kQueued) << "task " << a.task_id << " was not queued";
      ASSERT_EQ(a.attempt, t.attempt);
      auto it = index_of_worker_.find(a.worker);
      ASSERT_NE(it, index_of_worker_.end());
      SimWorker& w = workers_[it->second];
      ASSERT_TRUE(Eligible(t, w)) << "task " << a.task_id << " on " << a.worker;
      ASSERT_TRUE(Free(w).Fits(t.spec.request)) << "task " << a.task_id << " overfills "
                                                << a.worker;
      // The replay sees the cluster as the scheduler saw it at this decision.
      if (i % 8 == 0) {
        ASSERT_EQ(ExpectedWorker(t), it->second) << "task " << a.task_id << " on " << a.worker;
      }
      w.used += t.spec.request;
      t.state = TaskState::kRunning;
      t.worker = it->second;
      queued_.Erase(index);
      running_.Insert(index);
    }
  }

  void CheckWorkers() {
    for (const SimWorker& w : workers_) {
      if (!w.up) continue;
      Result<Resources> used = sched_.used(w.spec.id);
      ASSERT_TRUE(used.ok());
      ASSERT_TRUE(w.spec.capacity.Fits(*used)) << w.spec.id << " over capacity";
      ASSERT_EQ(used->cpus, w.used.cpus) << w.spec.id;
      ASSERT_EQ(used->gpus, w.used.gpus) << w.spec.id;
      ASSERT_EQ(used->memory_bytes, w.used.memory_bytes) << w.spec.id;
    }
  }

  // Scheduling is work-conserving: a sample of the tasks left queued fits on no eligible worker.
  void CheckNothingQueuedFits() {
    for (int n = 0; n < 32 && !queued_.empty(); ++n) {
      const SimTask& t = tasks_[queued_.items()[Uniform(queued_.size())]];
      for (const SimWorker& w : workers_) {
        ASSERT_FALSE(Eligible(t, w) && Free(w).Fits(t.spec.request))
            << "task " << t.spec.task_id << " left queued but fits " << w.spec.id;
      }
    }
  }

  void Final(SimTask& t, TaskState state, int* finished) {
    t.state = state;
    ++t.finals;
    ++*finished;
  }

  void Stop(int index) {
    SimTask& t = tasks_[index];
    workers_[t.worker].used -= t.spec.request;
    t.worker = -1;
    running_.Erase(index);
  }

  void FinishSome(int* finished) {
    std::vector<int> running = running_.items();
    for (int index : running) {
      SimTask& t = tasks_[index];
      ASSERT_EQ(sched_.worker_of(t.spec.task_id), workers_[t.worker].spec.id);
      double r = std::uniform_real_distribution<double>(0, 1)(rng_);
      if (r < 0.3) {
        ASSERT_TRUE(sched_.TaskCompleted(t.spec.task_id).ok());
        Stop(index);
        Final(t, TaskState::kCompleted, finished);
      } else if (r < 0.33) {
        bool retryable = Chance(0.8);
        Result<bool> retried = sched_.TaskFailed(t.spec.task_id, retryable);
        ASSERT_TRUE(retried.ok());
        Stop(index);
        bool expected = retryable && t.attempt < t.spec.max_attempts;
        ASSERT_EQ(*retried, expected) << "task " << t.spec.task_id;
        if (expected) {
          ++t.attempt;
          t.state = TaskState::kQueued;
          queued_.Insert(index);
        } else {
          Final(t, TaskState::kFailed, finished);
        }
      }
    }
  }

  void Churn(int step, int* finished) {
    for (size_t i = 0; i < workers_.size(); ++i) {
      if (!workers_[i].up && workers_[i].rejoin_step <= step) {
        ASSERT_NO_FATAL_FAILURE(Join(static_cast<int>(i)));
      }
    }
    for (uint64_t n = 1 + Uniform(3); n > 0; --n) {
      int w = static_cast<int>(Uniform(workers_.size()));
      if (!workers_[w].up) continue;
      std::vector<int64_t> expected;
      for (int index : running_.items()) {
        if (tasks_[index].worker == w) expected.push_back(tasks_[index].spec.task_id);
      }
      std::sort(expected.begin(), expected.end());
      Result<std::vector<int64_t>> requeued = sched_.RemoveWorker(workers_[w].spec.id);
      ASSERT_TRUE(requeued.ok());
      ASSERT_EQ(*requeued, expected);
      for (int64_t task_id : expected) {
        int index = index_of_.at(task_id);
        SimTask& t = tasks_[index];
        Stop(index);
        if (t.attempt < t.spec.max_attempts) {
          ++t.attempt;
          t.state = TaskState::kQueued;
          queued_.Insert(index);
        } else {
          Final(t, TaskState::kFailed, finished);
        }
        ASSERT_EQ(sched_.state(task_id), t.state);
        ASSERT_EQ(sched_.attempt(task_id), t.attempt);
      }
      workers_[w].up = false;
      workers_[w].rejoin_step = step + 3 + static_cast<int>(Uniform(20));
    }
    if (step % 10 == 9) {
      ASSERT_NO_FATAL_FAILURE(AddNewWorker());
    }
  }

  std::mt19937_64 rng_;
  Scheduler sched_;
  std::vector<SimWorker> workers_;
  std::unordered_map<std::string, int> index_of_worker_;
  uint64_t next_seq_ = 0;
  std::vector<SimTask> tasks_;
  std::unordered_map<int64_t, int> index_of_;
  IndexSet queued_;
  IndexSet running_;
  size_t assignments_ = 0;
  int64_t sched_ns_ = 0; int steps_ = 0;
};

TEST(SchedulerTest, SimulatedClusterKeepsEveryInvariant) {
  Simulation sim(20240601);
  sim.Run();
}

}  // namespace
}  // namespace flotilla::dist
