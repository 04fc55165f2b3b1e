// Queries from several threads on one cluster session: they share its scheduler (the older
// query placed first), and one that fails or is cancelled stops only its own tasks.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "flotilla/distributed/in_process_cluster.h"
#include "flotilla/distributed/test_cluster.h"
#include "tests/support/plan_checks.h"

namespace flotilla::distributed {
namespace {

using exec::PlanPtr;
using expr::Column;
using flotilla::testing::I64;
using testing::IdPartitions;
using testing::StartCluster;

// Events from every query, in the order the session emitted them (query_started comes from the
// caller's thread, hence the lock).
class OrderedRecorder final : public EventSubscriber {
 public:
  void OnEvent(const TaskEvent& e) override {
    std::lock_guard lock(mutex_);
    events_.push_back(e);
  }
  std::vector<TaskEvent> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }
  int Count(int64_t query, TaskEventKind kind) const {
    int n = 0;
    for (const TaskEvent& e : events())
      n += e.query_id == query && e.kind == kind;
    return n;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<TaskEvent> events_;
};

// v * 3, after `delay_ms` per batch; fails on a batch holding `fail_on` when it is >= 0.
exec::BatchFunction Slow(int delay_ms, int64_t fail_on = -1) {
  return [=](const std::vector<Array>& args) -> Result<Array> {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    std::vector<std::optional<int64_t>> out;
    for (int64_t i = 0; i < args[0].length(); ++i) {
      const int64_t v = args[0].values<int64_t>()[i];
      if (v == fail_on) return Status::Invalid("the UDF refuses " + std::to_string(v));
      out.push_back(v * 3);
    }
    return I64(out);
  };
}

PlanPtr SlowUdf(const std::string& name, int partitions, int delay_ms, int64_t fail_on = -1) {
  return exec::MakeUdfProject(IdPartitions(partitions, 10), name, Slow(delay_ms, fail_on),
                              {Column("v")}, {"v"}, "t", int64())
      .ValueOrDie();
}

DriverOptions OptionsFor(int64_t query, const std::shared_ptr<OrderedRecorder>& recorder) {
  DriverOptions o;
  o.query_id = query;
  o.progress = 0;
  o.subscribers.push_back(recorder);
  return o;
}

// Runs `plan` as query `first`; once its first task finished, the same plan as query `second`
// from another thread. Returns both results.
std::pair<Result<exec::QueryResult>, Result<exec::QueryResult>> RunSecondDuringFirst(
    InProcessCluster& cluster, const PlanPtr& plan, int64_t first, int64_t second,
    const std::shared_ptr<OrderedRecorder>& recorder) {
  Result<exec::QueryResult> later = Status::Internal("not run");
  std::thread thread;
  Result<exec::QueryResult> earlier =
      cluster.Run(plan, OptionsFor(first, recorder), [&](int64_t results) {
        if (results == 1)
          thread = std::thread([&] { later = cluster.Run(plan, OptionsFor(second, recorder)); });
      });
  thread.join();
  return {std::move(earlier), std::move(later)};
}

TEST(ClusterSessionTest, FourQueriesAtOnceOneFailingOneCancelled) {
  auto cluster = StartCluster(2);
  ASSERT_NE(cluster, nullptr);
  auto recorder = std::make_shared<OrderedRecorder>();
  // 1 and 4 must give the local engine's answer; 2 fails in its UDF; 3 is cancelled while it
  // runs. Each is a slow UDF over 8 partitions, so all four are running at once.
  const PlanPtr good = SlowUdf("good", 8, 30);
  const PlanPtr failing = SlowUdf("failing", 8, 30, /*fail_on=*/45);
  const PlanPtr cancelled = SlowUdf("cancelled", 40, 30);
  exec::ExecOptions local;
  local.progress = 0;
  const RecordBatch expected = exec::Run(good, local).ValueOrDie().ToBatch().ValueOrDie();

  std::vector<Result<exec::QueryResult>> results(4, Status::Internal("not run"));
  std::vector<std::thread> threads;
  const PlanPtr plans[] = {good, failing, cancelled, good};
  for (int q = 0; q < 4; ++q) {
    threads.emplace_back(
        [&, q] { results[q] = cluster->Run(plans[q], OptionsFor(q + 1, recorder)); });
  }
  // Cancel 3 once two of its tasks finished.
  while (recorder->Count(3, TaskEventKind::kCompleted) < 2)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  cluster->Cancel(3);
  for (std::thread& t : threads)
    t.join();

  for (int q : {0, 3}) {
    ASSERT_TRUE(results[q].ok()) << "query " << q + 1 << ": " << results[q].status().ToString();
    flotilla::testing::ExpectRows(results[q]->ToBatch().ValueOrDie(), expected, false,
                                  "query " + std::to_string(q + 1));
    // Untouched by the others' failure and cancel.
    EXPECT_EQ(recorder->Count(q + 1, TaskEventKind::kFailed), 0);
    EXPECT_EQ(recorder->Count(q + 1, TaskEventKind::kCancelled), 0);
  }
  ASSERT_FALSE(results[1].ok());
  EXPECT_NE(results[1].status().message().find("the UDF refuses 45"), std::string::npos)
      << results[1].status().ToString();
  ASSERT_FALSE(results[2].ok());
  EXPECT_EQ(results[2].status().code(), StatusCode::kCancelled) << results[2].status().ToString();
  // The cancel stopped its tasks: most of its 40 never ran.
  EXPECT_LT(recorder->Count(3, TaskEventKind::kCompleted), 20);
  EXPECT_GT(recorder->Count(3, TaskEventKind::kCancelled), 0);

  // The session goes on: a fifth query after them.
  auto again = cluster->Run(good, OptionsFor(5, recorder));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  flotilla::testing::ExpectRows(again->ToBatch().ValueOrDie(), expected, false, "query 5");
}

TEST(ClusterSessionTest, TheOlderQuerysTasksArePlacedFirst) {
  // One worker running one task at a time: the order of placements is the scheduler's.
  auto cluster = StartCluster(1);
  ASSERT_NE(cluster, nullptr);
  auto recorder = std::make_shared<OrderedRecorder>();
  // The younger query (2) arrives while the older (1) runs its first task; 1's other five are
  // queued then, and all go before any of 2's.
  auto [older, younger] = RunSecondDuringFirst(*cluster, SlowUdf("slow", 6, 20), 1, 2, recorder);
  ASSERT_TRUE(older.ok()) << older.status().ToString();
  ASSERT_TRUE(younger.ok()) << younger.status().ToString();
  int64_t last_of_older = -1, first_of_younger = -1, i = 0;
  for (const TaskEvent& e : recorder->events()) {
    if (e.kind == TaskEventKind::kScheduled && e.query_id == 1) last_of_older = i;
    if (e.kind == TaskEventKind::kScheduled && e.query_id == 2 && first_of_younger < 0)
      first_of_younger = i;
    ++i;
  }
  EXPECT_EQ(recorder->Count(1, TaskEventKind::kScheduled), 6);
  EXPECT_EQ(recorder->Count(2, TaskEventKind::kScheduled), 6);
  EXPECT_LT(last_of_older, first_of_younger);
}

TEST(ClusterSessionTest, AQueryIdRunningAlreadyIsRefused) {
  auto cluster = StartCluster(1);
  ASSERT_NE(cluster, nullptr);
  auto recorder = std::make_shared<OrderedRecorder>();
  auto [first, second] = RunSecondDuringFirst(*cluster, SlowUdf("slow", 4, 30), 7, 7, recorder);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("query 7 runs on this cluster already"),
            std::string::npos)
      << second.status().ToString();
}

}  // namespace
}  // namespace flotilla::distributed
