#include "flotilla/distributed/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace flotilla::distributed {
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
  for (const Assignment& a : assignments)
    out.emplace_back(a.task_id, a.worker);
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
  for (auto [id, query, rank] : tasks)
    one_at_a_time.Submit(MakeTask(id, query, rank)).Check();
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
  for (auto [id, query, rank] : tasks)
    all_at_once.Submit(MakeTask(id, query, rank)).Check();
  order.clear();
  for (const Assignment& a : all_at_once.Schedule())
    order.push_back(a.task_id);
  EXPECT_EQ(order, expected);
}

TEST(SchedulerTest, TaskThatFitsNowhereDoesNotBlockTasksBehindIt) {
  Scheduler s;
  s.AddWorker(MakeWorker("small", 2)).Check();
  s.Submit(MakeTask(1, 1, 0, {4, 0, 0})).Check();
  for (int64_t id : {2, 3, 4})
    s.Submit(MakeTask(id, 2)).Check();
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
  for (const char* id : {"a", "b", "c"})
    s.AddWorker(MakeWorker(id, 4)).Check();
  s.AddWorker(MakeWorker("pool", 4, 0, 64 * kGiB, "actors")).Check();

  TaskSpec t1 = MakeTask(1);
  t1.input_bytes = {{"a", 10}, {"c", 500}, {"b", 100}, {"gone", 9000}, {"pool", 9000}};
  s.Submit(t1).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "c"}}));

  // c full: the next best holder with room, not the least loaded (a).
  TaskSpec fill = MakeTask(2, 1, 0, {3, 0, 0});
  fill.input_bytes = {{"c", 1}};
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
  for (const char* id : {"a", "b", "c"})
    even.AddWorker(MakeWorker(id, 4)).Check();
  for (int64_t id = 1; id <= 6; ++id)
    even.Submit(MakeTask(id)).Check();
  EXPECT_EQ(Placed(even.Schedule()),
            (Placements{{1, "a"}, {2, "b"}, {3, "c"}, {4, "a"}, {5, "b"}, {6, "c"}}));

  // Load is the share of cpus in use, not the count: 2 of 8 is less loaded than 1 of 2.
  Scheduler mixed;
  mixed.AddWorker(MakeWorker("big", 8)).Check();
  mixed.AddWorker(MakeWorker("small", 2)).Check();
  TaskSpec preload = MakeTask(1, 1, 0, {2, 0, 0});
  preload.input_bytes = {{"big", 1}};
  mixed.Submit(preload).Check();
  for (int64_t id = 2; id <= 6; ++id)
    mixed.Submit(MakeTask(id)).Check();
  EXPECT_EQ(
      Placed(mixed.Schedule()),
      (Placements{{1, "big"}, {2, "small"}, {3, "big"}, {4, "big"}, {5, "big"}, {6, "small"}}));

  // A worker that leaves and rejoins is the latest to join: ties go to the others first.
  Scheduler rejoin;
  for (const char* id : {"a", "b"})
    rejoin.AddWorker(MakeWorker(id, 4)).Check();
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
  for (int64_t id = 1; id <= 3; ++id)
    cpus.Submit(MakeTask(id, 1, 0, {1.5, 0, 0})).Check();
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
  for (int64_t id = 1; id <= 4; ++id)
    s.Submit(MakeTask(id)).Check();
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

WorkerSpec MakeGuest(std::string id, std::string pool, std::string host) {
  WorkerSpec w = MakeWorker(std::move(id), 1, 0, 64 * kGiB, std::move(pool));
  w.host = std::move(host);
  return w;
}

TaskSpec MakePoolTask(int64_t task_id, std::string pool, int node_rank = 1) {
  TaskSpec t = MakeTask(task_id, 1, node_rank);
  t.pool = std::move(pool);
  return t;
}

TEST(SchedulerTest, AGuestsTasksCountAgainstItsHost) {
  // Two actors living on a 2-cpu worker: the worker never runs more than 2 tasks of either kind.
  Scheduler s;
  s.AddWorker(MakeWorker("h", 2)).Check();
  s.AddWorker(MakeGuest("a1", "embed", "h")).Check();
  s.AddWorker(MakeGuest("a2", "embed", "h")).Check();
  for (int64_t id = 1; id <= 2; ++id)
    s.Submit(MakeTask(id)).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "h"}, {2, "h"}}));
  s.Submit(MakePoolTask(10, "embed")).Check();
  s.Submit(MakePoolTask(11, "embed")).Check();
  EXPECT_TRUE(s.Schedule().empty());  // the actors are idle, their host is not

  // The room a general task leaves goes to the pool's task (downstream, placed first), not to
  // the general task queued behind it.
  s.Submit(MakeTask(4)).Check();
  s.TaskCompleted(1).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{10, "a1"}}));
  ExpectUsed(s, "h", {2, 0, 0});
  s.TaskCompleted(2).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{11, "a2"}}));
  EXPECT_EQ(s.state(4), TaskState::kQueued);

  // The host's room comes back as its guests finish.
  s.TaskCompleted(10).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{4, "h"}}));
  s.TaskCompleted(11).Check();
  s.TaskCompleted(4).Check();
  ExpectUsed(s, "h", {0, 0, 0});
  ExpectUsed(s, "a1", {0, 0, 0});
}

TEST(SchedulerTest, AGuestOutlivesItsHostAsAWorkerOfItsOwn) {
  Scheduler s;
  s.AddWorker(MakeWorker("h", 1)).Check();
  s.AddWorker(MakeGuest("a", "embed", "h")).Check();
  s.AddWorker(MakeGuest("b", "embed", "unknown")).Check();  // no such host: no link
  s.Submit(MakePoolTask(1, "embed")).Check();
  s.Submit(MakePoolTask(2, "embed")).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{1, "a"}, {2, "b"}}));
  ExpectUsed(s, "h", {1, 0, 0});

  // The host leaves while its guest runs; a new worker takes its place (and index).
  s.RemoveWorker("h").ValueOrDie();
  s.AddWorker(MakeWorker("n", 1)).Check();
  s.Submit(MakeTask(3)).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{3, "n"}}));
  s.TaskCompleted(1).Check();  // charges nothing back to the new worker
  ExpectUsed(s, "n", {1, 0, 0});
  s.Submit(MakePoolTask(4, "embed")).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{4, "a"}}));  // no host to wait for
  ExpectUsed(s, "n", {1, 0, 0});

  // A guest that leaves frees its host's room.
  s.AddWorker(MakeGuest("c", "embed", "n")).Check();
  s.TaskCompleted(3).Check();
  s.Submit(MakePoolTask(5, "embed")).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{5, "c"}}));
  ExpectUsed(s, "n", {1, 0, 0});
  EXPECT_EQ(s.RemoveWorker("c").ValueOrDie(), (std::vector<int64_t>{5}));
  ExpectUsed(s, "n", {0, 0, 0});
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

  // Failures that are not the task's (its input lost with another worker) use no attempt: the
  // task runs again however many there are, and its own failures still count to three.
  TaskSpec reader = MakeTask(3);
  reader.max_attempts = 3;
  s.Submit(reader).Check();
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(s.Schedule().size(), 1u);
    Result<bool> again = s.TaskFailed(3, /*retryable=*/true, /*charged=*/false);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(*again) << "lost input " << i;
  }
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(s.Schedule().size(), 1u);
    EXPECT_EQ(*s.TaskFailed(3, /*retryable=*/true), i < 3) << "own failure " << i;
  }
  EXPECT_EQ(s.state(3), TaskState::kFailed);
  EXPECT_EQ(s.attempt(3), 8);

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

  // A task too large for what b has left waits for a worker with room.
  TaskSpec large = MakeTask(4, 9);
  large.request = {4, 0, 0};
  s.Submit(large).Check();
  std::vector<Assignment> a = s.Schedule();
  ASSERT_EQ(Placed(a), (Placements{{1, "b"}, {2, "b"}}));
  EXPECT_EQ(a[0].attempt, 2);
  EXPECT_EQ(s.state(4), TaskState::kQueued);

  s.AddWorker(MakeWorker("a", 4)).Check();
  EXPECT_EQ(Placed(s.Schedule()), (Placements{{4, "a"}}));
  EXPECT_EQ(s.num_workers(), 2);
}

TEST(SchedulerTest, CancelDropsQueuedAndRunningTasks) {
  Scheduler s;
  s.AddWorker(MakeWorker("w", 1)).Check();
  for (int64_t id = 1; id <= 3; ++id)
    s.Submit(MakeTask(id)).Check();
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
  EXPECT_EQ(s.worker_of(99), "");
  EXPECT_EQ(s.attempt(99), 0);

  // Reports about a task that is not running are refused, not applied.
  EXPECT_EQ(s.TaskCompleted(1).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.TaskFailed(1, true).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(s.state(1), TaskState::kQueued);
}

TEST(SchedulerTest, NegativeOrNonFiniteAmountsAreRefused) {
  Scheduler s;
  EXPECT_EQ(s.AddWorker(MakeWorker("w", -1)).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.AddWorker(MakeWorker("w", std::nan(""))).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.AddWorker(MakeWorker("w", 4, 0, -1)).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.num_workers(), 0);
  s.AddWorker(MakeWorker("w", 4)).Check();
  EXPECT_EQ(s.Submit(MakeTask(1, 1, 0, {-1, 0, 0})).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.Submit(MakeTask(2, 1, 0, {1, std::nan(""), 0})).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.Submit(MakeTask(3, 1, 0, {1, 0, -5})).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.num_queued(), 0);
  // A refused task was not taken: its id is still free.
  s.Submit(MakeTask(1)).Check();
}

// ---- Simulated clusters, checked against a brute-force model after every Schedule() ----------

struct SimOptions {
  const char* name;
  int workers;
  int tasks;
  // false: thousands of tasks are submitted, finish and fail between two Schedule() calls.
  // true: one task finishes or fails between calls, as with a backend that schedules on every
  // event; then the model checks exactly that no queued task fits anywhere after each call.
  bool every_event;
};

struct SimWorker {
  WorkerSpec spec;
  int pool = 0;  // 0: general, 1: "embed"
  bool up = false;
  uint64_t seq = 0;  // join order, as the scheduler breaks ties
  int rejoin_step = 0;
  Resources used;
};

struct SimTask {
  TaskSpec spec;
  int pool = 0;
  // By worker index (worker k is "w<k>"); spec.input_bytes is filled only for Submit().
  std::vector<std::pair<int, int64_t>> input_bytes;
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
  Simulation(SimOptions options, uint64_t seed)
      : options_(options), rng_(seed), queued_(options.tasks), running_(options.tasks) {}

  void Run() {
    for (int i = 0; i < options_.workers; ++i) {
      ASSERT_NO_FATAL_FAILURE(AddNewWorker());
    }
    // Random queries and ranks: submission order is not priority order.
    for (int i = 0; i < options_.tasks; ++i)
      tasks_.push_back(RandomTask(i));
    for (int i = 0; i < options_.tasks; ++i)
      index_of_[tasks_[i].spec.task_id] = i;

    const int batch = options_.every_event ? options_.tasks : 4'000;
    churn_every_ = options_.every_event ? 100 : 5;
    const int max_steps = options_.every_event ? 4 * options_.tasks : 10'000;
    int submitted = 0;
    for (int step = 0; finished_ < options_.tasks; ++step) {
      ASSERT_LT(step, max_steps) << "the simulation does not drain";
      for (int n = 0; n < batch && submitted < options_.tasks; ++n, ++submitted) {
        TaskSpec spec = tasks_[submitted].spec;
        for (auto [holder, bytes] : tasks_[submitted].input_bytes) {
          spec.input_bytes.emplace_back("w" + std::to_string(holder), bytes);
        }
        ASSERT_TRUE(sched_.Submit(std::move(spec)).ok());
        Queue(submitted);
      }
      bool churned = step % churn_every_ == churn_every_ - 1;
      if (churned) {
        ASSERT_NO_FATAL_FAILURE(Churn(step));
      }

      auto schedule_start = std::chrono::steady_clock::now();
      std::vector<Assignment> assignments = sched_.Schedule();
      schedule_seconds_ +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - schedule_start).count();
      steps_ = step + 1;
      assignments_ += assignments.size();
      ASSERT_NO_FATAL_FAILURE(ApplyAssignments(assignments));
      ASSERT_EQ(sched_.num_queued(), static_cast<int64_t>(queued_.size()));
      ASSERT_EQ(sched_.num_running(), static_cast<int64_t>(running_.size()));
      if (!options_.every_event || step % 100 == 0) {
        ASSERT_NO_FATAL_FAILURE(CheckWorkers());
      }
      if (!options_.every_event) {
        ASSERT_NO_FATAL_FAILURE(CheckSampleFitsNowhere(32));
      } else if (step == 0 || churned) {
        ASSERT_NO_FATAL_FAILURE(CheckQueuedFitsNowhere());
      } else {
        ASSERT_NO_FATAL_FAILURE(CheckChangesFitNowhere());
      }
      grown_.clear();
      fresh_.clear();
      bool workers_down =
          std::any_of(workers_.begin(), workers_.end(), [](const SimWorker& w) { return !w.up; });
      ASSERT_TRUE(!assignments.empty() || !running_.empty() || submitted < options_.tasks ||
                  workers_down || queued_.empty())
          << "stuck with " << queued_.size() << " queued tasks";

      if (options_.every_event) {
        ASSERT_NO_FATAL_FAILURE(FinishOne());
      } else {
        ASSERT_NO_FATAL_FAILURE(FinishSome());
      }
    }

    // bench/dist.sh reports this line.
    std::printf(
        "%s: %zu workers, %d tasks, %d steps, %zu assignments, "
        "Schedule() %.0f ms (%.0f assignments/s)\n",
        options_.name, workers_.size(), options_.tasks, steps_, assignments_,
        schedule_seconds_ * 1e3, static_cast<double>(assignments_) / schedule_seconds_);
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
    EXPECT_GT(completed, options_.tasks * 9 / 10);
    EXPECT_LT(completed, options_.tasks);
    EXPECT_GE(assignments_, static_cast<size_t>(options_.tasks));
  }

 private:
  // What decides where a queued task may run: pool, request.
  using Shape = std::tuple<int, double, double, int64_t>;

  uint64_t Uniform(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  static Shape ShapeOf(const SimTask& t) {
    return {t.pool, t.spec.request.cpus, t.spec.request.gpus, t.spec.request.memory_bytes};
  }

  void Queue(int index) {
    SimTask& t = tasks_[index];
    t.state = TaskState::kQueued;
    queued_.Insert(index);
    if (!options_.every_event) return;
    ++queued_shapes_[ShapeOf(t)];
    fresh_.push_back(index);
  }

  void Unqueue(int index) {
    queued_.Erase(index);
    if (!options_.every_event) return;
    auto it = queued_shapes_.find(ShapeOf(tasks_[index]));
    if (--it->second == 0) queued_shapes_.erase(it);
  }

  void AddNewWorker() {
    static constexpr double kCpus[] = {4, 8, 16, 32};
    static constexpr int64_t kMemory[] = {16, 32, 64, 128};
    SimWorker w;
    w.spec.id = "w" + std::to_string(workers_.size());
    w.spec.capacity.cpus = kCpus[Uniform(4)];
    w.spec.capacity.memory_bytes = kMemory[Uniform(4)] * kGiB;
    if (Chance(0.03)) {
      w.spec.pool = "embed";
      w.pool = 1;
    } else if (Chance(0.1)) {
      w.spec.capacity.gpus = static_cast<double>(1 + Uniform(4));
    }
    workers_.push_back(w);
    ASSERT_NO_FATAL_FAILURE(Join(static_cast<int>(workers_.size()) - 1));
  }

  void Join(int w) {
    SimWorker& worker = workers_[w];
    ASSERT_TRUE(sched_.AddWorker(worker.spec).ok());
    worker.up = true;
    worker.seq = next_seq_++;
    worker.used = Resources{0, 0, 0};
    grown_.push_back(w);
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
      t.pool = 1;
    } else if (r < 0.07) {
      s.request.gpus = 1;
    }
    for (uint64_t n = Uniform(4); n > 0; --n) {
      int holder = static_cast<int>(Uniform(workers_.size() + 50));  // some join later
      t.input_bytes.emplace_back(holder, 1 + static_cast<int64_t>(Uniform(1'000'000'000)));
    }
    return t;
  }

  bool Eligible(int pool, int w) const { return workers_[w].up && workers_[w].pool == pool; }
  bool Eligible(const SimTask& t, int w) const { return Eligible(t.pool, w); }

  static Resources Free(const SimWorker& w) {
    Resources free = w.spec.capacity;
    free -= w.used;
    return free;
  }

  // The header's placement rule, by brute force over every worker.
  int ExpectedWorker(const SimTask& t) const {
    int best = -1;
    int64_t best_bytes = 0;
    for (const auto& [holder, bytes] : t.input_bytes) {
      if (holder >= static_cast<int>(workers_.size())) continue;
      const SimWorker& w = workers_[holder];
      if (!Eligible(t, holder) || !Free(w).Fits(t.spec.request)) continue;
      if (best < 0 || bytes > best_bytes || (bytes == best_bytes && w.seq < workers_[best].seq)) {
        best = holder;
        best_bytes = bytes;
      }
    }
    if (best >= 0) return best;
    auto load = [](const SimWorker& w) {
      return w.spec.capacity.cpus > 0 ? w.used.cpus / w.spec.capacity.cpus : 1.0;
    };
    for (size_t i = 0; i < workers_.size(); ++i) {
      const SimWorker& w = workers_[i];
      if (!Eligible(t, static_cast<int>(i)) || !Free(w).Fits(t.spec.request)) continue;
      if (best < 0 || std::make_pair(load(w), w.seq) <
                          std::make_pair(load(workers_[best]), workers_[best].seq)) {
        best = static_cast<int>(i);
      }
    }
    return best;
  }

  void ApplyAssignments(const std::vector<Assignment>& assignments) {
    const size_t check_placement_every = options_.every_event ? 1 : 16;
    std::tuple<int64_t, int64_t, int64_t> previous{INT64_MIN, INT64_MIN, INT64_MIN};
    for (size_t i = 0; i < assignments.size(); ++i) {
      const Assignment& a = assignments[i];
      int index = index_of_.at(a.task_id);
      SimTask& t = tasks_[index];
      std::tuple<int64_t, int64_t, int64_t> key{t.spec.query_id, -t.spec.node_rank, t.spec.task_id};
      ASSERT_LT(previous, key) << "assignments out of priority order";
      previous = key;
      ASSERT_EQ(t.state, TaskState::kQueued) << "task " << a.task_id << " was not queued";
      ASSERT_EQ(a.attempt, t.attempt);
      ASSERT_EQ(a.worker[0], 'w');
      int wi = std::stoi(a.worker.substr(1));
      ASSERT_LT(wi, static_cast<int>(workers_.size()));
      SimWorker& w = workers_[wi];
      ASSERT_EQ(w.spec.id, a.worker);
      ASSERT_TRUE(Eligible(t, wi)) << "task " << a.task_id << " on " << a.worker;
      ASSERT_TRUE(Free(w).Fits(t.spec.request))
          << "task " << a.task_id << " overfills " << a.worker;
      // The replay sees the cluster as the scheduler saw it at this decision.
      if (i % check_placement_every == 0) {
        ASSERT_EQ(ExpectedWorker(t), wi) << "task " << a.task_id << " on " << a.worker;
      }
      w.used += t.spec.request;
      t.state = TaskState::kRunning;
      t.worker = wi;
      Unqueue(index);
      running_.Insert(index);
    }
    if (options_.every_event) {
      for (const Assignment& a : assignments) {
        ASSERT_NO_FATAL_FAILURE(CheckWorker(std::stoi(a.worker.substr(1))));
      }
    }
  }

  void CheckWorker(int w) {
    const SimWorker& worker = workers_[w];
    Result<Resources> used = sched_.used(worker.spec.id);
    ASSERT_TRUE(used.ok());
    ASSERT_TRUE(worker.spec.capacity.Fits(*used)) << worker.spec.id << " over capacity";
    ASSERT_EQ(used->cpus, worker.used.cpus) << worker.spec.id;
    ASSERT_EQ(used->gpus, worker.used.gpus) << worker.spec.id;
    ASSERT_EQ(used->memory_bytes, worker.used.memory_bytes) << worker.spec.id;
  }

  void CheckWorkers() {
    for (size_t w = 0; w < workers_.size(); ++w) {
      if (!workers_[w].up) continue;
      ASSERT_NO_FATAL_FAILURE(CheckWorker(static_cast<int>(w)));
    }
  }

  bool HasRoom(const Shape& shape, int w) const {
    auto [pool, cpus, gpus, memory] = shape;
    return Eligible(pool, w) && Free(workers_[w]).Fits({cpus, gpus, memory});
  }

  std::string Describe(const Shape& shape, int w) const {
    auto [pool, cpus, gpus, memory] = shape;
    return "a queued task of " + std::to_string(cpus) + " cpus, " + std::to_string(gpus) +
           " gpus, " + std::to_string(memory) + " bytes fits " + workers_[w].spec.id;
  }

  void CheckFitsNowhere(const Shape& shape) const {
    for (size_t w = 0; w < workers_.size(); ++w) {
      ASSERT_FALSE(HasRoom(shape, static_cast<int>(w))) << Describe(shape, static_cast<int>(w));
    }
  }

  // Scheduling is work-conserving: no queued task fits an eligible worker.
  void CheckQueuedFitsNowhere() const {
    for (const auto& [shape, count] : queued_shapes_) {
      ASSERT_NO_FATAL_FAILURE(CheckFitsNowhere(shape));
    }
  }

  // The same, when it held after the previous call: only the workers that gained room and the
  // tasks queued since can make a fit.
  void CheckChangesFitNowhere() const {
    for (int w : grown_) {
      for (const auto& [shape, count] : queued_shapes_) {
        ASSERT_FALSE(HasRoom(shape, w)) << Describe(shape, w);
      }
    }
    for (int index : fresh_) {
      if (!queued_.Contains(index)) continue;
      ASSERT_NO_FATAL_FAILURE(CheckFitsNowhere(ShapeOf(tasks_[index])));
    }
  }

  void CheckSampleFitsNowhere(int samples) {
    for (int n = 0; n < samples && !queued_.empty(); ++n) {
      ASSERT_NO_FATAL_FAILURE(
          CheckFitsNowhere(ShapeOf(tasks_[queued_.items()[Uniform(queued_.size())]])));
    }
  }

  void Final(SimTask& t, TaskState state) {
    t.state = state;
    ++t.finals;
    ++finished_;
  }

  void Stop(int index) {
    SimTask& t = tasks_[index];
    workers_[t.worker].used -= t.spec.request;
    grown_.push_back(t.worker);
    t.worker = -1;
    running_.Erase(index);
  }

  void Complete(int index) {
    SimTask& t = tasks_[index];
    if (t.spec.task_id % 16 == 0) {
      ASSERT_EQ(sched_.worker_of(t.spec.task_id), workers_[t.worker].spec.id);
    }
    ASSERT_TRUE(sched_.TaskCompleted(t.spec.task_id).ok());
    Stop(index);
    Final(t, TaskState::kCompleted);
  }

  void Fail(int index) {
    SimTask& t = tasks_[index];
    bool retryable = Chance(0.8);
    Result<bool> retried = sched_.TaskFailed(t.spec.task_id, retryable);
    ASSERT_TRUE(retried.ok());
    Stop(index);
    bool expected = retryable && t.attempt < t.spec.max_attempts;
    ASSERT_EQ(*retried, expected) << "task " << t.spec.task_id;
    if (expected) {
      ++t.attempt;
      Queue(index);
    } else {
      Final(t, TaskState::kFailed);
    }
  }

  void FinishSome() {
    std::vector<int> running = running_.items();
    for (int index : running) {
      double r = std::uniform_real_distribution<double>(0, 1)(rng_);
      if (r < 0.3) {
        ASSERT_NO_FATAL_FAILURE(Complete(index));
      } else if (r < 0.33) {
        ASSERT_NO_FATAL_FAILURE(Fail(index));
      }
    }
  }

  void FinishOne() {
    if (running_.empty()) return;
    int index = running_.items()[Uniform(running_.size())];
    if (Chance(0.9)) {
      ASSERT_NO_FATAL_FAILURE(Complete(index));
    } else {
      ASSERT_NO_FATAL_FAILURE(Fail(index));
    }
  }

  void Churn(int step) {
    for (size_t i = 0; i < workers_.size(); ++i) {
      if (!workers_[i].up && workers_[i].rejoin_step <= step) {
        ASSERT_NO_FATAL_FAILURE(Join(static_cast<int>(i)));
      }
    }
    const int removals = options_.every_event ? 1 : 1 + static_cast<int>(Uniform(3));
    for (int n = 0; n < removals; ++n) {
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
          Queue(index);
        } else {
          Final(t, TaskState::kFailed);
        }
        ASSERT_EQ(sched_.state(task_id), t.state);
        ASSERT_EQ(sched_.attempt(task_id), t.attempt);
      }
      workers_[w].up = false;
      // Back after 1 to 20 more churns.
      workers_[w].rejoin_step = step + churn_every_ * (1 + static_cast<int>(Uniform(20)));
    }
    if (++churns_ % 2 == 0) {
      ASSERT_NO_FATAL_FAILURE(AddNewWorker());
    }
  }

  SimOptions options_;
  std::mt19937_64 rng_;
  Scheduler sched_;
  std::vector<SimWorker> workers_;
  uint64_t next_seq_ = 0;
  std::vector<SimTask> tasks_;
  std::unordered_map<int64_t, int> index_of_;
  IndexSet queued_;
  IndexSet running_;
  std::map<Shape, int> queued_shapes_;  // queued tasks by shape
  std::vector<int> grown_;              // workers that gained room since the last Schedule()
  std::vector<int> fresh_;              // tasks queued since the last Schedule()
  int churn_every_ = 0;                 // steps
  int churns_ = 0;
  int finished_ = 0;
  size_t assignments_ = 0;
  int steps_ = 0;
  double schedule_seconds_ = 0;
};

// AddressSanitizer makes the simulation about five times slower: half the tasks keep it within a
// few seconds there, on the same 1,000 workers.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kSimulatedTasks = 50'000;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kSimulatedTasks = 50'000;
#else
constexpr int kSimulatedTasks = 100'000;
#endif
#else
constexpr int kSimulatedTasks = 100'000;
#endif

TEST(SchedulerTest, SimulatedClusterKeepsEveryInvariant) {
  Simulation sim({"simulated cluster", 1'000, kSimulatedTasks, /*every_event=*/false}, 20240601);
  sim.Run();
}

TEST(SchedulerTest, SimulatedClusterSchedulingOnEveryEventKeepsEveryInvariant) {
  Simulation sim({"simulated cluster, Schedule() after every event", 300, 10'000,
                  /*every_event=*/true},
                 20240602);
  sim.Run();
}

}  // namespace
}  // namespace flotilla::distributed
