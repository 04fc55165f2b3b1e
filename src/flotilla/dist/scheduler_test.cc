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
  preload.required_worker = "big";
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

