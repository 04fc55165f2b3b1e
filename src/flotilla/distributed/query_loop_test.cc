// The query loop's own rules, the same for every backend: cancels go to the worker running the
// task, a stalled query waits for workers to join (and fails clearly when none does), a failed
// query waits for its running tasks, and a result that cannot be fetched is recomputed.
#include "flotilla/distributed/query_loop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "flotilla/common/logging.h"
#include "flotilla/distributed/flight_task_backend.h"
#include "flotilla/distributed/test_cluster.h"

namespace flotilla::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using flotilla::testing::Batch;
using flotilla::testing::ExpectRows;
using flotilla::testing::I64;
using testing::IdPartitions;
using testing::RecordedTo;
using testing::Recorder;

constexpr char kToken[] = "query-loop-test";

// A backend over worker runtimes in this process that records what the loop asks of it, and
// can be told to have a worker join later.
class RecordingBackend final : public ClusterBackend {
 public:
  ~RecordingBackend() override {
    for (std::thread& t : threads_)
      t.join();
  }

  WorkerRuntime* StartWorker(const std::string& id) {
    std::lock_guard lock(mutex_);
    return StartWorkerLocked(id);
  }

  void JoinAfter(std::string id, double seconds) {
    std::lock_guard lock(mutex_);
    joins_.push_back({Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(seconds)),
                      std::move(id)});
  }

  Status Submit(const std::string& worker, int64_t task_id, std::string bytes) override {
    std::lock_guard lock(mutex_);
    submitted_.push_back({task_id, worker});
    WorkerRuntime* runtime = workers_.at(worker).get();
    threads_.emplace_back([this, runtime, worker, task_id, b = std::move(bytes)] {
      std::string result = runtime->RunTask(b);
      std::lock_guard lock(mutex_);
      events_.finished.push_back({task_id, worker, std::move(result)});
      reported_.insert(task_id);
      cv_.notify_all();
    });
    return Status::OK();
  }

  void Cancel(const std::string& worker, int64_t task_id) override {
    std::lock_guard lock(mutex_);
    cancels_.push_back({task_id, worker});
    workers_.at(worker)->CancelTask(task_id);
  }

  void Release(const std::string& worker, const std::vector<std::string>& keys) override {
    std::lock_guard lock(mutex_);
    auto it = workers_.find(worker);
    if (it != workers_.end()) it->second->DropTaskOutputs(keys);
  }

  void RequestSample(const std::string& worker) override {
    std::lock_guard lock(mutex_);
    sample_requests_.push_back(worker);
    auto it = workers_.find(worker);
    if (it != workers_.end()) events_.samples.emplace_back(worker, it->second->SampleBytes());
  }

  Result<BackendEvents> Wait(double timeout_seconds) override {
    std::unique_lock lock(mutex_);
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(timeout_seconds));
    cv_.wait_until(lock, until, [&] { return !events_.empty() || interrupted_; });
    interrupted_ = false;
    for (auto it = joins_.begin(); it != joins_.end();) {
      if (it->first > Clock::now()) {
        ++it;
        continue;
      }
      StartWorkerLocked(it->second);
      events_.joined.push_back({it->second, {1, 0, 0}, ""});
      it = joins_.erase(it);
    }
    return std::exchange(events_, {});
  }

  void Interrupt() override {
    std::lock_guard lock(mutex_);
    interrupted_ = true;
    cv_.notify_all();
  }

  std::vector<std::pair<int64_t, std::string>> submitted() {
    std::lock_guard lock(mutex_);
    return submitted_;
  }
  std::vector<std::pair<int64_t, std::string>> cancels() {
    std::lock_guard lock(mutex_);
    return cancels_;
  }
  std::vector<std::string> sample_requests() {
    std::lock_guard lock(mutex_);
    return sample_requests_;
  }
  bool reported(int64_t task) {
    std::lock_guard lock(mutex_);
    return reported_.count(task) > 0;
  }
  WorkerRuntime& worker(const std::string& id) {
    std::lock_guard lock(mutex_);
    return *workers_.at(id);
  }

 private:
  WorkerRuntime* StartWorkerLocked(const std::string& id) {
    WorkerOptions o;
    o.id = id;
    o.token = kToken;
    o.exec.progress = 0;
    o.exec.num_threads = 1;
    workers_[id] = WorkerRuntime::Start(o).ValueOrDie();
    return workers_[id].get();
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, std::unique_ptr<WorkerRuntime>> workers_;
  std::vector<std::pair<Clock::time_point, std::string>> joins_;
  std::vector<std::pair<int64_t, std::string>> submitted_, cancels_;
  std::vector<std::string> sample_requests_;
  std::set<int64_t> reported_;
  BackendEvents events_;
  bool interrupted_ = false;
  std::vector<std::thread> threads_;
};

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

std::vector<std::optional<int64_t>> Range(int n) {
  std::vector<std::optional<int64_t>> v;
  for (int i = 0; i < n; ++i)
    v.push_back(i);
  return v;
}

RecordBatch ToBatch(const std::vector<StoredPartition>& parts) {
  std::vector<RecordBatch> all;
  for (const StoredPartition& p : parts)
    all.insert(all.end(), p.batches.begin(), p.batches.end());
  return compute::ConcatBatches(all).ValueOrDie();
}

TEST(QueryLoopTest, CancelsGoToTheWorkerRunningTheTaskAndAFailedQueryWaitsForThem) {
  // Two one-row partitions on two workers: the task of row 0 fails at once (a user error),
  // the other is still running and must be stopped on its own worker only.
  exec::BatchFunction udf = [](const std::vector<Array>& args) -> Result<Array> {
    if (args[0].values<int64_t>()[0] == 0) return Status::Invalid("row 0 is refused");
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    return args[0];
  };
  RecordingBackend backend;
  for (const char* id : {"a", "b"})
    backend.StartWorker(id)->RegisterUdf("slow_or_fail", udf);
  exec::PlanPtr plan = exec::MakeUdfProject(IdPartitions(2, 1), "slow_or_fail", udf,
                                            {expr::Column("v")}, {"v"}, "w", int64())
                           .ValueOrDie();
  auto driver = QueryDriver::Make(plan, RecordedTo(std::make_shared<Recorder>())).ValueOrDie();
  for (const char* id : {"a", "b"})
    ASSERT_TRUE(driver->AddWorker({id, {1, 0, 0}, ""}).ok());
  QueryLoopOptions o;
  o.token = kToken;
  auto r = RunQuery(*driver, backend, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("row 0 is refused"), std::string::npos)
      << r.status().ToString();

  const auto submitted = backend.submitted();
  ASSERT_EQ(submitted.size(), 2u);
  const auto cancels = backend.cancels();
  ASSERT_EQ(cancels.size(), 1u) << "one task was still running";
  bool owner = false;
  for (const auto& [task, worker] : submitted) {
    if (task == cancels[0].first) owner = worker == cancels[0].second;
  }
  EXPECT_TRUE(owner) << "the cancel went to the worker running the task";
  EXPECT_TRUE(backend.reported(cancels[0].first))
      << "the failed query returned only once its cancelled task had stopped";
}

// `udf` over `partitions` partitions of `rows` ids on workers a and b, events to `recorder`;
// returns the query's id.
Result<int64_t> RunUdfQuery(RecordingBackend* backend, const exec::BatchFunction& udf,
                            int partitions, int rows, const std::shared_ptr<Recorder>& recorder) {
  for (const char* id : {"a", "b"})
    backend->StartWorker(id)->RegisterUdf("udf", udf);
  FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr plan,
                            exec::MakeUdfProject(IdPartitions(partitions, rows), "udf", udf,
                                                 {expr::Column("v")}, {"v"}, "w", int64()));
  FLOTILLA_ASSIGN_OR_RETURN(auto driver, QueryDriver::Make(plan, RecordedTo(recorder)));
  for (const char* id : {"a", "b"})
    FLOTILLA_RETURN_NOT_OK(driver->AddWorker({id, {1, 0, 0}, ""}));
  QueryLoopOptions o;
  o.token = kToken;
  FLOTILLA_RETURN_NOT_OK(RunQuery(*driver, *backend, o).status());
  return driver->query_id();
}

TEST(QueryLoopTest, WorkersReportTheirResourcesWhileALongTaskRunsAndWhenTheyFinishOne) {
  // One task of 2.5 s on worker a; b has nothing to run. Each is asked for a sample when its
  // last report is a second old, so both report while the task runs, and a's result carries
  // one more.
  exec::BatchFunction udf = [](const std::vector<Array>& args) -> Result<Array> {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    return args[0];
  };
  RecordingBackend backend;
  auto recorder = std::make_shared<Recorder>();
  ASSERT_TRUE(RunUdfQuery(&backend, udf, 1, 1, recorder).ok());

  std::map<std::string, std::vector<TaskEvent>> samples;
  std::set<std::string> joined;
  std::string ran_on;
  double completed_at = 0;
  for (const TaskEvent& e : recorder->events) {
    if (e.kind == TaskEventKind::kWorkerSample) samples[e.worker].push_back(e);
    if (e.kind == TaskEventKind::kWorkerJoined) joined.insert(e.worker);
    if (e.kind == TaskEventKind::kCompleted) {
      ran_on = e.worker;
      completed_at = e.time;
    }
  }
  EXPECT_EQ(joined, (std::set<std::string>{"a", "b"}));
  ASSERT_FALSE(ran_on.empty());
  const std::string idle = ran_on == "a" ? "b" : "a";
  // Asked at the start and about every second after: 3 times at least in 2.5 s.
  EXPECT_GE(samples[idle].size(), 3u);
  int running_samples = 0;
  for (const TaskEvent& e : samples[ran_on]) {
    running_samples += e.time < completed_at && e.resources.running_tasks == 1;
    EXPECT_GT(e.resources.rss_bytes, 0);
    EXPECT_GT(e.resources.disk_free_bytes, 0);
    EXPECT_GE(e.resources.cpu_percent, 0);
  }
  EXPECT_GE(running_samples, 2) << "sampled while its task ran";
  for (const TaskEvent& e : samples[idle])
    EXPECT_EQ(e.resources.running_tasks, 0);
  // The result carried a sample: reported with the completion, not asked for.
  bool with_result = false;
  for (size_t i = 1; i < recorder->events.size(); ++i) {
    const TaskEvent& e = recorder->events[i];
    with_result |= e.kind == TaskEventKind::kCompleted &&
                   recorder->events[i - 1].kind == TaskEventKind::kWorkerSample &&
                   recorder->events[i - 1].worker == ran_on;
  }
  EXPECT_TRUE(with_result);
}

TEST(QueryLoopTest, WhatATaskLogsOnItsWorkerComesBackAsLogEventsNamingTheTask) {
  // Each task's UDF warns once per batch, on the engine's pool threads.
  exec::BatchFunction udf = [](const std::vector<Array>& args) -> Result<Array> {
    log::Warn("scoring {} rows", args[0].length());
    return args[0];
  };
  RecordingBackend backend;
  auto recorder = std::make_shared<Recorder>();
  ::testing::internal::CaptureStderr();
  Result<int64_t> query = RunUdfQuery(&backend, udf, 4, 3, recorder);
  (void)::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(query.ok()) << query.status().ToString();
  std::map<int64_t, std::string> completed;  // task -> its worker
  for (const TaskEvent& e : recorder->events) {
    if (e.kind == TaskEventKind::kCompleted) completed[e.task_id] = e.worker;
  }
  std::map<int64_t, int> lines;
  for (const TaskEvent& e : recorder->events) {
    if (e.kind != TaskEventKind::kLog) continue;
    ASSERT_TRUE(completed.count(e.task_id)) << e.message;
    EXPECT_EQ(e.worker, completed[e.task_id]);
    // "[time WARN q<query> t<task>.<attempt>] scoring 3 rows"
    EXPECT_NE(e.message.find("WARN q" + std::to_string(*query) + " t" + std::to_string(e.task_id) +
                             "." + std::to_string(e.attempt) + "] scoring 3 rows"),
              std::string::npos)
        << e.message;
    ++lines[e.task_id];
  }
  EXPECT_EQ(lines.size(), 4u) << "every UDF task logged";
}

TEST(QueryLoopTest, AStalledQueryWaitsForAWorkerToJoin) {
  RecordingBackend backend;
  backend.JoinAfter("late", 0.2);
  auto driver =
      QueryDriver::Make(IdPartitions(3, 10), RecordedTo(std::make_shared<Recorder>())).ValueOrDie();
  QueryLoopOptions o;
  o.token = kToken;
  o.stall_seconds = 30;
  const auto start = Clock::now();
  auto r = RunQuery(*driver, backend, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GE(Seconds(start), 0.2);
  ExpectRows(ToBatch(*r), Batch({{"v", I64(Range(30))}}), true);
}

TEST(QueryLoopTest, AStalledQueryFailsClearlyOnceItsWaitIsOver) {
  RecordingBackend backend;
  auto driver =
      QueryDriver::Make(IdPartitions(3, 10), RecordedTo(std::make_shared<Recorder>())).ValueOrDie();
  QueryLoopOptions o;
  o.token = kToken;
  o.stall_seconds = 0.3;
  const auto start = Clock::now();
  auto r = RunQuery(*driver, backend, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("stalled: no task can run on the 0 live worker(s)"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_GE(Seconds(start), 0.3);
  EXPECT_LT(Seconds(start), 20);
}

TEST(QueryLoopTest, AResultThatCannotBeFetchedIsComputedAgainElsewhere) {
  // The one result task's worker stops serving right after the task finished, without the
  // backend noticing: the fetch fails, the loop takes the worker out, the task runs again.
  RecordingBackend backend;
  for (const char* id : {"a", "b"})
    backend.StartWorker(id);
  auto recorder = std::make_shared<Recorder>();
  auto driver = QueryDriver::Make(IdPartitions(1, 25), RecordedTo(recorder)).ValueOrDie();
  for (const char* id : {"a", "b"})
    ASSERT_TRUE(driver->AddWorker({id, {1, 0, 0}, ""}).ok());
  QueryLoopOptions o;
  o.token = kToken;
  bool stopped = false;
  o.on_result = [&](int64_t) {
    if (stopped) return;
    stopped = true;
    backend.worker(backend.submitted()[0].second).Stop();
  };
  auto r = RunQuery(*driver, backend, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectRows(ToBatch(*r), Batch({{"v", I64(Range(25))}}), true);
  const auto submitted = backend.submitted();
  ASSERT_EQ(submitted.size(), 2u) << "the task ran again";
  EXPECT_NE(submitted[0].second, submitted[1].second) << "on the other worker";
  EXPECT_EQ(recorder->Count(TaskEventKind::kCompleted), 2);
}

}  // namespace
}  // namespace flotilla::distributed

namespace flotilla::distributed {
namespace {

TEST(QueryLoopTest, AWorkerTheQueryWroteOffGetsNoMoreOfItsWorkWhenItComesBack) {
  auto recorder = std::make_shared<Recorder>();
  auto driver = QueryDriver::Make(IdPartitions(4, 10), RecordedTo(recorder)).ValueOrDie();
  for (const char* id : {"a", "b"})
    ASSERT_TRUE(driver->AddWorker({id, {1, 0, 0}, ""}).ok());
  ASSERT_TRUE(driver->RemoveWorker("b").ok());
  const log::Level level = log::CurrentLevel();
  log::SetLevel(log::Level::kInfo);
  ASSERT_TRUE(driver->AddWorker({"b", {1, 0, 0}, ""}).ok());  // back, as a backend may report
  log::SetLevel(level);
  // The driver's own line is the query's log event too (its log file has it), as printed.
  std::vector<std::string> lines;
  for (const TaskEvent& e : recorder->events) {
    if (e.kind == TaskEventKind::kLog) lines.push_back(e.message);
  }
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("INFO"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("worker b is back; this query no longer uses it"), std::string::npos)
      << lines[0];
  auto dispatches = driver->Schedule();
  ASSERT_TRUE(dispatches.ok()) << dispatches.status().ToString();
  ASSERT_EQ(dispatches->size(), 1u) << "only a's one slot takes a task";
  EXPECT_EQ((*dispatches)[0].worker, "a");
  // A worker new to the query is used.
  ASSERT_TRUE(driver->AddWorker({"c", {1, 0, 0}, ""}).ok());
  dispatches = driver->Schedule();
  ASSERT_TRUE(dispatches.ok());
  ASSERT_EQ(dispatches->size(), 1u);
  EXPECT_EQ((*dispatches)[0].worker, "c");
}

}  // namespace
}  // namespace flotilla::distributed

namespace flotilla::distributed {
namespace {

TEST(FlightTaskBackendTest, TasksGoToTheWorkersFlightServersAndAWorkerThatStopsAnsweringIsLost) {
  // A sum of v * 3 over 8 partitions on workers a and b. Every task goes to a worker's Flight
  // server, none through the inner backend; after the first result b stops serving, so its
  // next call fails and the worker is lost: what it held runs again on a.
  exec::BatchFunction triple = [](const std::vector<Array>& args) -> Result<Array> {
    std::vector<std::optional<int64_t>> out;
    for (int64_t i = 0; i < args[0].length(); ++i)
      out.push_back(args[0].values<int64_t>()[i] * 3);
    return flotilla::testing::I64(out);
  };
  RecordingBackend inner;
  FlightTaskBackend backend(inner, kToken);
  for (const char* id : {"a", "b"}) {
    WorkerRuntime* w = inner.StartWorker(id);
    w->RegisterUdf("triple", triple);
    backend.SetAddress(id, w->address());
  }
  exec::PlanPtr udf = exec::MakeUdfProject(IdPartitions(8, 50), "triple", triple,
                                           {expr::Column("v")}, {"v"}, "w", int64())
                          .ValueOrDie();
  exec::PlanPtr plan =
      exec::MakeAggregate(udf, {}, {{"sum", {expr::Column("w")}, "s"}}).ValueOrDie();
  auto recorder = std::make_shared<Recorder>();
  DriverOptions options = RecordedTo(recorder);
  options.min_shuffle_partitions = 2;
  auto driver = QueryDriver::Make(plan, options).ValueOrDie();
  for (const char* id : {"a", "b"})
    ASSERT_TRUE(driver->AddWorker({id, {1, 0, 0}, ""}).ok());
  QueryLoopOptions o;
  o.token = kToken;
  int results = 0;
  o.on_result = [&](int64_t) {
    if (++results == 1) inner.worker("b").Stop();
  };
  auto r = RunQuery(*driver, backend, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const int64_t sum = 3 * (400 * 399 / 2);
  EXPECT_EQ(ToBatch(*r).column(0).values<int64_t>()[0], sum);
  EXPECT_TRUE(inner.submitted().empty()) << "no task went through the inner backend";
  int left = 0;
  for (const TaskEvent& e : recorder->events)
    left += e.kind == TaskEventKind::kWorkerLeft && e.worker == "b";
  EXPECT_EQ(left, 1) << "b was lost once its call failed";
}

}  // namespace
}  // namespace flotilla::distributed

namespace flotilla::distributed {
namespace {

TEST(FlightTaskBackendTest, ATaskMessageOfManyMegabytesIsTakenAndARefusedCallLosesNoWorker) {
  // 700,000 ids in one in-memory partition: the task's message carries 5.6 MB of them, over
  // gRPC's default 4 MiB limit.
  const int64_t rows = 700000;
  exec::PlanPtr plan = exec::MakeAggregate(IdPartitions(1, static_cast<int>(rows)), {},
                                           {{"sum", {expr::Column("v")}, "s"}})
                           .ValueOrDie();
  for (const std::string& token : {std::string(kToken), std::string("not the cluster's")}) {
    SCOPED_TRACE(token);
    RecordingBackend inner;
    FlightTaskBackend backend(inner, token);
    WorkerRuntime* w = inner.StartWorker("a");
    backend.SetAddress("a", w->address());
    auto recorder = std::make_shared<Recorder>();
    auto driver = QueryDriver::Make(plan, RecordedTo(recorder)).ValueOrDie();
    ASSERT_TRUE(driver->AddWorker({"a", {1, 0, 0}, ""}).ok());
    QueryLoopOptions o;
    o.token = kToken;
    auto r = RunQuery(*driver, backend, o);
    if (token == kToken) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(ToBatch(*r).column(0).values<int64_t>()[0], rows * (rows - 1) / 2);
    } else {
      // The worker refuses the call: the query fails saying so, rather than writing the worker
      // off as lost and blaming the task for killing it.
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.status().message().find("could not be sent to worker a"), std::string::npos)
          << r.status().ToString();
      EXPECT_NE(r.status().message().find("token"), std::string::npos) << r.status().ToString();
    }
    EXPECT_EQ(recorder->Count(TaskEventKind::kWorkerLeft), 0);
  }
}

}  // namespace
}  // namespace flotilla::distributed
