// The distributed runner end to end on an in-process cluster: every operator it distributes gives
// the local engine's result on the same data, through real workers, Flight and the scheduler.
#include "flotilla/distributed/in_process_cluster.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "flotilla/distributed/distributed_plan.h"
#include "flotilla/distributed/proto/task.pb.h"
#include "flotilla/distributed/test_cluster.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/io/parquet/writer.h"
#include "tests/support/plan_checks.h"

namespace flotilla::distributed {
namespace {

namespace fs = std::filesystem;
using exec::PlanPtr;
using flotilla::testing::Batch;
using flotilla::testing::ExpectRows;
using namespace flotilla::testing;
using expr::Column;
using expr::Literal;
using testing::IdPartitions;
using testing::RecordedTo;
using testing::Recorder;
using testing::StartCluster;

class DistributedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("flotilla-dist-test-" + std::to_string(getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_ / "data");
    // 4 files x 3 row groups of 250 rows: 12 scan tasks.
    for (int f = 0; f < 4; ++f) {
      std::vector<std::optional<int64_t>> id, k;
      std::vector<std::optional<std::string>> s;
      for (int i = 0; i < 750; ++i) {
        int64_t v = f * 750 + i;
        id.push_back(v);
        k.push_back(v % 7);
        s.push_back("w" + std::to_string(v % 13) + " x" + std::to_string(v % 5));
      }
      RecordBatch b = Batch({{"id", I64(id)}, {"k", I64(k)}, {"s", Strs(s)}});
      io::parquet::ParquetWriteOptions o;
      o.row_group_rows = 250;
      ASSERT_TRUE(io::parquet::WriteParquetFile(
                      (*dir_ / "data" / ("part-" + std::to_string(f) + ".parquet")).string(),
                      b.schema(), {b}, o)
                      .ok());
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }

  void SetUp() override {
    cluster_ = StartCluster(2);
    ASSERT_NE(cluster_, nullptr);
  }

  static PlanPtr Scan() { return testing::ScanDirectory((*dir_ / "data").string()); }

  DriverOptions Options() {
    DriverOptions o;
    o.query_id = ++query_;
    o.scan_task_min_bytes = 1;  // every row group its own task
    o.progress = 0;
    o.subscribers.push_back(recorder_);
    return o;
  }

  // Runs `plan` locally and distributed; returns the distributed result after comparing rows.
  exec::QueryResult ExpectSame(const PlanPtr& plan, bool ordered, DriverOptions options) {
    return testing::ExpectSameAsLocal(*cluster_, plan, std::move(options), ordered);
  }

  static fs::path* dir_;
  std::unique_ptr<InProcessCluster> cluster_;
  std::shared_ptr<Recorder> recorder_ = std::make_shared<Recorder>();
  int64_t query_ = 0;
};
fs::path* DistributedTest::dir_ = nullptr;

TEST_F(DistributedTest, FilterAndProjectAreFusedIntoOneTaskPerScanTask) {
  PlanPtr plan = exec::MakeFilter(Scan(), Less(Column("k"), Literal(int64_t{5}))).ValueOrDie();
  plan =
      exec::MakeProject(plan, {Column("id"), Column("s"),
                               expr::Alias(Multiply(Column("id"), Literal(int64_t{2})), "twice")})
          .ValueOrDie();
  exec::QueryResult r = ExpectSame(plan, /*ordered=*/true, Options());
  EXPECT_EQ(r.num_rows(), 428 * 5 + 4);  // 3000 = 428 * 7 + 4 ids, k = id % 7 < 5
  EXPECT_EQ(recorder_->Count(TaskEventKind::kCompleted), 12);
  std::set<std::string> workers, nodes;
  for (const TaskEvent& e : recorder_->events) {
    if (e.kind != TaskEventKind::kCompleted) continue;
    workers.insert(e.worker);
    nodes.insert(e.node_name);
    EXPECT_GT(e.bytes, 0);
  }
  EXPECT_EQ(workers.size(), 2u) << "both workers ran tasks";
  EXPECT_EQ(nodes, std::set<std::string>{"Scan -> Filter -> Project"});
}

TEST_F(DistributedTest, SmallScanTasksAreMergedTowardTheMinimumSizeButKeepEveryWorkerBusy) {
  DriverOptions o = Options();
  o.scan_task_min_bytes = int64_t{1} << 30;
  ExpectSame(Scan(), true, o);
  EXPECT_EQ(recorder_->Count(TaskEventKind::kCompleted), 2) << "one per worker";
  recorder_->events.clear();
  o.min_source_tasks = 1;
  ExpectSame(Scan(), true, o);
  EXPECT_EQ(recorder_->Count(TaskEventKind::kCompleted), 1);
}

TEST_F(DistributedTest, ExplodeAndUnpivot) {
  PlanPtr words = exec::MakeProject(
                      Scan(), {Column("id"),
                               expr::Alias(expr::Call("split", {Column("s"), Literal(" ")}), "w")})
                      .ValueOrDie();
  ExpectSame(exec::MakeExplode(words, {"w"}).ValueOrDie(), true, Options());
  ExpectSame(exec::MakeUnpivot(Scan(), {"s"}, {"id", "k"}).ValueOrDie(), true, Options());
}

TEST_F(DistributedTest, SampleByFractionAndBySize) {
  // One partition of one morsel: the local engine draws the same random stream.
  RecordBatch b = Batch({{"v", I64({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})}});
  PlanPtr source = exec::MakeInMemorySource(b.schema(), std::vector<RecordBatch>{b}).ValueOrDie();
  ExpectSame(exec::MakeSampleFraction(source, 0.5, false, 7).ValueOrDie(), true, Options());
  // Over 12 tasks each task draws its own rows: the same seed in all would pick the same
  // positions (ids 250 apart) in every row group.
  auto spread =
      cluster_->Run(exec::MakeSampleFraction(Scan(), 0.1, false, 7).ValueOrDie(), Options());
  ASSERT_TRUE(spread.ok()) << spread.status().ToString();
  std::set<int64_t> positions;
  RecordBatch picked = spread->ToBatch().ValueOrDie();
  for (int64_t i = 0; i < picked.num_rows(); ++i)
    positions.insert(picked.column(0).values<int64_t>()[i] % 250);
  EXPECT_GT(positions.size(), 100u) << "tasks drew independent samples";
  EXPECT_GT(picked.num_rows(), 200);
  EXPECT_LT(picked.num_rows(), 400);
  auto sized = cluster_->Run(exec::MakeSampleSize(Scan(), 50, false, 3).ValueOrDie(), Options());
  ASSERT_TRUE(sized.ok()) << sized.status().ToString();
  RecordBatch rows = sized->ToBatch().ValueOrDie();
  EXPECT_EQ(rows.num_rows(), 50);
  std::set<std::string> distinct;
  for (const std::string& row : CanonicalRows(rows))
    distinct.insert(row);
  EXPECT_EQ(distinct.size(), 50u) << "a sample without replacement repeats no row";
}

TEST_F(DistributedTest, GlobalLimitCancelsTheTasksItDoesNotNeed) {
  // One worker running one task at a time: the first scan task finishes before any other
  // starts, and holds enough rows. (With two, a slow first task lets the other worker run
  // every other scan task before the limit can be satisfied in order.)
  cluster_ = StartCluster(1);
  ExpectSame(exec::MakeLimit(Scan(), 100, 20).ValueOrDie(), true, Options());
  int source_done = 0;
  for (const TaskEvent& e : recorder_->events) {
    source_done += e.kind == TaskEventKind::kCompleted && e.node_name == "Scan -> Limit";
  }
  EXPECT_LT(source_done, 12) << "the limit was satisfied before every scan task ran";
  EXPECT_GT(recorder_->Count(TaskEventKind::kCancelled), 0);
}

TEST_F(DistributedTest, ConcatKeepsInputOrder) {
  PlanPtr a = exec::MakeFilter(Scan(), Equal(Column("k"), Literal(int64_t{1}))).ValueOrDie();
  PlanPtr b = exec::MakeFilter(Scan(), Equal(Column("k"), Literal(int64_t{2}))).ValueOrDie();
  PlanPtr both = exec::MakeConcat({a, b}).ValueOrDie();
  ExpectSame(exec::MakeProject(both, {Column("id")}).ValueOrDie(), true, Options());
}

TEST_F(DistributedTest, HashRepartitionPutsEachKeyInOnePartition) {
  PlanPtr plan = exec::MakeRepartitionByHash(Scan(), 4, {Column("k")}).ValueOrDie();
  const int64_t calls_before =
      cluster_->worker(0).flight_calls_served() + cluster_->worker(1).flight_calls_served();
  exec::QueryResult r = ExpectSame(plan, false, Options());
  ASSERT_EQ(r.partitions.size(), 4u);
  const int64_t calls = cluster_->worker(0).flight_calls_served() +
                        cluster_->worker(1).flight_calls_served() - calls_before;
  // 12 map tasks, 4 reducers: each reducer reads the other worker's map outputs in one call
  // (at most 4), and the driver fetches the 4 results.
  EXPECT_LE(calls, 8) << "reducers read per worker, not per map task";
  std::map<std::string, std::set<size_t>> partitions_of_key;
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    for (const RecordBatch& b : r.partitions[p].batches()) {
      for (int64_t i = 0; i < b.num_rows(); ++i) {
        partitions_of_key[std::to_string(b.column(1).values<int64_t>()[i])].insert(p);
      }
    }
  }
  EXPECT_EQ(partitions_of_key.size(), 7u);
  for (const auto& [key, parts] : partitions_of_key)
    EXPECT_EQ(parts.size(), 1u) << key;
}

// A hash repartition whose count is left to the runner gets one as an aggregation's shuffle
// does: from its input's tasks, its small partitions read together.
TEST_F(DistributedTest, AHashRepartitionWithoutACountGetsTheRunners) {
  PlanPtr plan = exec::MakeRepartitionByHash(Scan(), 0, {Column("k")}).ValueOrDie();
  DistributedPlan distributed = PlanDistributed(plan, {}).ValueOrDie();
  const PipelineNode& exchange = distributed.nodes.back();
  ASSERT_EQ(exchange.kind, NodeKind::kExchange) << DistributedPlanToString(distributed);
  EXPECT_EQ(exchange.num_partitions, 0);
  EXPECT_EQ(exchange.count_from, std::vector<int>{exchange.inputs[0]});
  exec::QueryResult r = ExpectSame(plan, false, Options());
  EXPECT_GE(r.partitions.size(), 1u);
  std::map<int64_t, std::set<size_t>> partitions_of_key;
  for (size_t p = 0; p < r.partitions.size(); ++p)
    for (const RecordBatch& b : r.partitions[p].batches())
      for (int64_t i = 0; i < b.num_rows(); ++i)
        partitions_of_key[b.column(1).values<int64_t>()[i]].insert(p);
  EXPECT_EQ(partitions_of_key.size(), 7u);
  for (const auto& [key, parts] : partitions_of_key)
    EXPECT_EQ(parts.size(), 1u) << key;
  EXPECT_NE(plan->Describe().find("runner's partitions"), std::string::npos) << plan->Describe();
}

TEST_F(DistributedTest, RandomRepartitionAndIntoPartitions) {
  exec::QueryResult r =
      ExpectSame(exec::MakeRepartitionRandom(Scan(), 3, 11).ValueOrDie(), false, Options());
  EXPECT_EQ(r.partitions.size(), 3u);
  exec::ExecOptions local_options;
  local_options.progress = 0;
  PlanPtr into = exec::MakeIntoPartitions(Scan(), 5).ValueOrDie();
  exec::QueryResult local = exec::Run(into, local_options).ValueOrDie();
  exec::QueryResult dist = ExpectSame(into, true, Options());
  ASSERT_EQ(dist.partitions.size(), local.partitions.size());
  for (size_t i = 0; i < dist.partitions.size(); ++i) {
    EXPECT_EQ(dist.partitions[i].num_rows(), local.partitions[i].num_rows()) << "partition " << i;
  }
}

exec::BatchFunction Triple() {
  return [](const std::vector<Array>& args) -> Result<Array> {
    std::vector<std::optional<int64_t>> out;
    for (int64_t i = 0; i < args[0].length(); ++i)
      out.push_back(args[0].values<int64_t>()[i] * 3);
    return I64(out);
  };
}

TEST_F(DistributedTest, UdfAndActorPool) {
  PlanPtr udf =
      exec::MakeUdfProject(Scan(), "triple", Triple(), {Column("id")}, {"id"}, "t", int64())
          .ValueOrDie();
  ExpectSame(udf, true, Options());
  PlanPtr pool = exec::MakeUdfProject(Scan(), "triple_pool", Triple(), {Column("id")}, {"id"}, "t",
                                      int64(), /*concurrency=*/2)
                     .ValueOrDie();
  recorder_->events.clear();
  ExpectSame(pool, true, Options());
  std::set<std::string> pool_workers;
  int64_t query = 0;
  for (const TaskEvent& e : recorder_->events) {
    if (e.kind == TaskEventKind::kCompleted && e.node_name == "ActorPool") {
      pool_workers.insert(e.worker);
      query = e.query_id;
    }
  }
  // A pool's workers are its query's own (queries may run at once).
  const std::string prefix = "pool-q" + std::to_string(query) + "-triple_pool-";
  EXPECT_EQ(pool_workers, (std::set<std::string>{prefix + "0", prefix + "1"}));
}

TEST_F(DistributedTest, AUdfOverOneSourceTaskIsSpreadOverTheWorkers) {
  // One in-memory partition of 40 rows: one source task on a cluster of 2 workers.
  std::vector<std::optional<int64_t>> ids;
  for (int64_t i = 0; i < 40; ++i)
    ids.push_back(i);
  RecordBatch b = flotilla::testing::Batch({{"id", I64(ids)}});
  PlanPtr one = exec::MakeInMemorySource(
                    b.schema(), {MicroPartition::FromBatches(b.schema(), {b}).ValueOrDie()})
                    .ValueOrDie();
  PlanPtr udf = exec::MakeUdfProject(one, "triple", Triple(), {Column("id")}, {"id"}, "t", int64())
                    .ValueOrDie();
  DistributedPlanOptions two;
  two.concurrent_tasks = 2;
  const std::string text = DistributedPlanToString(PlanDistributed(udf, two).ValueOrDie());
  EXPECT_NE(text.find("[1] IntoPartitions -> UdfProject (2 partitions) <- [0], added: 1 source "
                      "task(s) split so the UDF runs 2 at once"),
            std::string::npos)
      << text;
  recorder_->events.clear();
  ExpectSame(udf, true, Options());  // rows in their order still
  std::set<std::string> workers;
  for (const TaskEvent& e : recorder_->events) {
    if (e.kind == TaskEventKind::kCompleted && e.node_name == "IntoPartitions -> UdfProject") {
      workers.insert(e.worker);
    }
  }
  EXPECT_EQ(workers.size(), 2u) << "both workers ran the UDF";
  // A source with a task per concurrent task already is left as it is.
  EXPECT_EQ(DistributedPlanToString(
                PlanDistributed(exec::MakeUdfProject(Scan(), "triple", Triple(), {Column("id")},
                                                     {"id"}, "t", int64())
                                    .ValueOrDie(),
                                two)
                    .ValueOrDie())
                .find("IntoPartitions"),
            std::string::npos);
}

TEST_F(DistributedTest, WritesGoThroughStagingAndOneCommit) {
  fs::path root = *dir_ / ("out-" + std::to_string(query_));
  DriverOptions o = Options();
  o.write = WriteSpec{root.string(), "parquet", {"k"}, ""};
  auto files = cluster_->Run(Scan(), std::move(o));
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  RecordBatch table = files->ToBatch().ValueOrDie();
  EXPECT_EQ(table.num_rows(), 12 * 7) << "one file per task and key";
  int64_t rows = 0;
  for (int64_t i = 0; i < table.num_rows(); ++i) {
    rows += table.column(table.schema()->GetFieldIndex("rows")).values<int64_t>()[i];
    EXPECT_TRUE(fs::exists(std::string(table.column(0).GetView(i))));
  }
  EXPECT_EQ(rows, 3000);
  for (const auto& entry : fs::directory_iterator(root)) {
    EXPECT_EQ(entry.path().filename().string().rfind("k=", 0), 0u) << entry.path();
  }
  // Read back, the partition column comes from the directories.
  auto back = io::parquet::PlanParquetScan({root.string()});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  PlanPtr read = exec::MakeProject(exec::MakeScan(back->schema, back->tasks).ValueOrDie(),
                                   {Column("id"), Column("s")})
                     .ValueOrDie();
  exec::ExecOptions local_options;
  local_options.progress = 0;
  ExpectRows(
      exec::Run(read, local_options).ValueOrDie().ToBatch().ValueOrDie(),
      exec::Run(exec::MakeProject(Scan(), {Column("id"), Column("s")}).ValueOrDie(), local_options)
          .ValueOrDie()
          .ToBatch()
          .ValueOrDie(),
      false);
}

TEST_F(DistributedTest, AFailedWriteLeavesNothingBehind) {
  fs::path root = *dir_ / ("failed-" + std::to_string(query_));
  std::atomic<int> calls{0};
  exec::BatchFunction late_failure = [&calls](const std::vector<Array>& args) -> Result<Array> {
    if (++calls > 6) return Status::Invalid("the disk is full of bad ideas");
    return args[0];
  };
  PlanPtr plan =
      exec::MakeUdfProject(Scan(), "late", late_failure, {Column("id")}, {"id"}, "t", int64())
          .ValueOrDie();
  DriverOptions o = Options();
  o.write = WriteSpec{root.string(), "parquet", {}, ""};
  auto r = cluster_->Run(plan, std::move(o));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad ideas"), std::string::npos);
  // Some tasks had written their staged files; none is left, and nothing is in the root.
  std::vector<std::string> left;
  if (fs::exists(root)) {
    for (const auto& e : fs::recursive_directory_iterator(root))
      left.push_back(e.path().string());
  }
  EXPECT_TRUE(left.empty()) << left.size() << " entries left, e.g. "
                            << (left.empty() ? "" : left[0]);
}

TEST_F(DistributedTest, OperatorsNotDistributedYetFailAtOnceNamingThem) {
  // A partial aggregate is the local engine's own business: no plan the user makes has one.
  PlanPtr partial = exec::MakeAggregate(Scan(), {Column("k")}, {{"count_star", {}, "n"}},
                                        exec::AggregateMode::kPartial)
                        .ValueOrDie();
  auto r = cluster_->Run(partial, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(r.status().message().find("not supported by the distributed runner yet: Aggregate"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(recorder_->Count(TaskEventKind::kSubmitted), 0);
}

TEST_F(DistributedTest, AUserErrorFailsTheQueryWithItsMessageWithoutRetrying) {
  exec::BatchFunction boom = [](const std::vector<Array>&) -> Result<Array> {
    return Status::Invalid("the model refused the input");
  };
  PlanPtr plan =
      exec::MakeUdfProject(Scan(), "boom", boom, {Column("id")}, {"id"}, "t", int64()).ValueOrDie();
  auto r = cluster_->Run(plan, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the model refused the input"), std::string::npos);
  for (const TaskEvent& e : recorder_->events)
    EXPECT_EQ(e.attempt <= 1, true);
}

// Out of memory may be the worker's load rather than the task's need: the task runs again (here
// the first call fails, and the second attempt succeeds); a task out of memory on every attempt
// fails the query naming it and how often it was tried.
TEST_F(DistributedTest, ATaskOutOfMemoryIsTriedAgainAndFailsTheQueryNamedWhenItAlwaysIs) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  exec::BatchFunction first_fails = [calls](const std::vector<Array>& args) -> Result<Array> {
    if (calls->fetch_add(1) == 0) return Status::OutOfMemory("the model needs 12 GiB");
    return args[0];
  };
  PlanPtr plan =
      exec::MakeUdfProject(Scan(), "first_fails", first_fails, {Column("id")}, {"id"}, "t", int64())
          .ValueOrDie();
  auto r = cluster_->Run(plan, Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  exec::ExecOptions local;
  local.progress = 0;
  ExpectRows(r->ToBatch().ValueOrDie(), exec::Run(plan, local).ValueOrDie().ToBatch().ValueOrDie(),
             true);
  int failed = 0;
  for (const TaskEvent& e : recorder_->events) {
    if (e.kind != TaskEventKind::kFailed) continue;
    ++failed;
    EXPECT_NE(e.message.find("the model needs 12 GiB"), std::string::npos) << e.message;
  }
  EXPECT_EQ(failed, 1);

  exec::BatchFunction always = [](const std::vector<Array>&) -> Result<Array> {
    return Status::OutOfMemory("the model needs 12 GiB");
  };
  plan = exec::MakeUdfProject(Scan(), "always", always, {Column("id")}, {"id"}, "t", int64())
             .ValueOrDie();
  r = cluster_->Run(plan, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfMemory) << r.status().ToString();
  EXPECT_NE(r.status().message().find("failed in all of its 3 attempts"), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("UdfProject"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("the model needs 12 GiB"), std::string::npos);
}

// How many tasks were re-run because `worker` lost their outputs.
int RerunsFor(const Recorder& recorder, const std::string& worker) {
  int n = 0;
  for (const TaskEvent& e : recorder.events) {
    n += e.kind == TaskEventKind::kCancelled && e.message.find(worker) != std::string::npos;
  }
  return n;
}

TEST(DistributedRecoveryTest, AWorkerKilledMidQueryIsRecoveredFromLineage) {
  auto cluster = StartCluster(3);
  PlanPtr plan = exec::MakeRepartitionByHash(IdPartitions(9, 100), 4, {Column("v")}).ValueOrDie();
  plan = exec::MakeFilter(plan, GreaterEqual(Column("v"), Literal(int64_t{50}))).ValueOrDie();
  auto recorder = std::make_shared<Recorder>();
  InProcessCluster* c = cluster.get();
  // Killed at a chosen phase, not after a count of results (which under load can come before
  // worker-1 finished anything): as soon as worker-1 holds a map output, which the shuffle's
  // reduce tasks, not yet started, will need.
  bool killed = false;
  auto r = cluster->Run(plan, RecordedTo(recorder), [&](int64_t) {
    if (killed) return;
    for (const TaskEvent& e : recorder->events) {
      if (e.kind == TaskEventKind::kCompleted && e.worker == "worker-1" &&
          e.node_name.rfind("InMemorySource", 0) == 0) {
        c->KillWorker(1);
        killed = true;
        return;
      }
    }
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(killed) << "worker-1 ran no map task";
  exec::ExecOptions local_options;
  local_options.progress = 0;
  ExpectRows(r->ToBatch().ValueOrDie(),
             exec::Run(plan, local_options).ValueOrDie().ToBatch().ValueOrDie(), false);
  EXPECT_GT(RerunsFor(*recorder, "worker-1"), 0)
      << "outputs held by the killed worker were recomputed";
}

TEST(DistributedRecoveryTest, AWorkerWhoseDataCannotBeReadIsRemovedBeforeRetriesRunOut) {
  // Worker 1 stops serving without anyone telling the driver (a crash the backend has not
  // noticed yet): reducers fail to read its map outputs, and the driver takes it out at once.
  auto cluster = StartCluster(3);
  PlanPtr plan = exec::MakeRepartitionByHash(IdPartitions(6, 50), 3, {Column("v")}).ValueOrDie();
  auto recorder = std::make_shared<Recorder>();
  InProcessCluster* c = cluster.get();
  // Once every map task has finished, the worker of the first one stops (whichever it is:
  // under load one worker may have run none).
  std::string stopped;
  auto r = cluster->Run(plan, RecordedTo(recorder), [&](int64_t results) {
    if (results != 6) return;
    for (const TaskEvent& e : recorder->events) {
      if (e.kind != TaskEventKind::kCompleted) continue;
      stopped = e.worker;
      c->worker(std::stoi(stopped.substr(stopped.rfind('-') + 1))).Stop();
      return;
    }
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(stopped.empty());
  std::vector<std::optional<int64_t>> all;
  for (int i = 0; i < 300; ++i)
    all.push_back(i);
  ExpectRows(r->ToBatch().ValueOrDie(), Batch({{"v", I64(all)}}), false);
  EXPECT_GT(RerunsFor(*recorder, stopped), 0)
      << stopped << "'s map outputs were recomputed elsewhere";
}

TEST(DistributedRecoveryTest, LosingEveryWorkerIsAClearErrorNotAHang) {
  auto cluster = StartCluster(1);
  DriverOptions d;
  d.progress = 0;
  InProcessCluster* c = cluster.get();
  auto r = cluster->Run(IdPartitions(4, 2), d, [c](int64_t) { c->KillWorker(0); });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no task can run"), std::string::npos)
      << r.status().ToString();
}

TEST(GroupScanTasksTest, MergesSmallTasksAndSplitsAtTheMaximum) {
  auto task = [](int64_t bytes) {
    struct Sized final : io::ScanTask {
      explicit Sized(int64_t b) : b(b) {}
      Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns&) const override {
        return std::vector<RecordBatch>{};
      }
      int64_t size_bytes() const override { return b; }
      std::string ToString() const override { return "sized"; }
      int64_t b;
    };
    return std::shared_ptr<const io::ScanTask>(std::make_shared<Sized>(bytes));
  };
  auto sizes = [](const auto& groups) {
    std::vector<size_t> out;
    for (const auto& g : groups)
      out.push_back(g.size());
    return out;
  };
  // A task of unknown size stands alone; the known runs on either side are grouped apart
  // (80 bytes at 30: 2 groups; 235 bytes: 7 wanted, but only 3 tasks).
  auto groups = GroupScanTasks(
      {task(10), task(10), task(10), task(50), task(-1), task(30), task(200), task(5)},
      /*min=*/30, /*max=*/1000);
  EXPECT_EQ(sizes(groups), (std::vector<size_t>{3, 1, 1, 1, 1, 1}));
  // Thirteen tasks of 10 at a minimum of 40: three groups of 4-5, not three of 4 and a leftover.
  std::vector<std::shared_ptr<const io::ScanTask>> even(13, task(10));
  EXPECT_EQ(sizes(GroupScanTasks(even, 40, 1000)), (std::vector<size_t>{4, 5, 4}));
  // A maximum below the minimum's share asks for more groups.
  EXPECT_EQ(sizes(GroupScanTasks(even, 1000, 25)), (std::vector<size_t>{2, 2, 2, 3, 2, 2}));
  EXPECT_EQ(sizes(GroupScanTasks(even, 1000, 1000)), (std::vector<size_t>{13}));
  EXPECT_EQ(sizes(GroupScanTasks(even, 1000, 1000, 3)), (std::vector<size_t>{4, 5, 4}));
  EXPECT_EQ(sizes(GroupScanTasks(even, 1000, 1000, 50)).size(), 13u) << "one task each at most";
}

}  // namespace
}  // namespace flotilla::distributed

namespace flotilla::distributed {
namespace {

TEST(WorkerRuntimeTest, ACancelledTaskStopsAndSaysSo) {
  WorkerOptions o;
  o.token = "t";
  o.exec.progress = 0;
  auto worker = WorkerRuntime::Start(o).ValueOrDie();
  std::atomic<int> calls{0};
  exec::BatchFunction slow = [&calls](const std::vector<Array>& args) -> Result<Array> {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return args[0];
  };
  worker->RegisterUdf("slow", slow);
  RecordBatch b =
      flotilla::testing::Batch({{"v", testing::I64(std::vector<std::optional<int64_t>>(10, 1))}});
  std::vector<MicroPartition> parts;
  for (int i = 0; i < 300; ++i)
    parts.push_back(MicroPartition::FromBatches(b.schema(), {b}).ValueOrDie());
  PlanPtr plan = exec::MakeUdfProject(exec::MakeInMemorySource(b.schema(), parts).ValueOrDie(),
                                      "slow", slow, {expr::Column("v")}, {}, "w", int64())
                     .ValueOrDie();
  proto::Task task;
  task.set_query_id(1);
  task.set_task_id(42);
  task.set_attempt(1);
  task.set_plan(exec::SerializePlan(plan).ValueOrDie());
  std::string result;
  auto start = std::chrono::steady_clock::now();
  std::thread run([&] { result = worker->RunTask(task.SerializeAsString()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  worker->CancelTask(42);
  run.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  proto::TaskResult r;
  ASSERT_TRUE(r.ParseFromString(result));
  EXPECT_NE(r.error().find("cancelled"), std::string::npos) << r.error();
  EXPECT_EQ(r.code(), static_cast<int>(StatusCode::kCancelled));
  EXPECT_LT(calls.load(), 300) << "the task stopped before its last batch";
  EXPECT_LT(seconds, 3.0);
  // A task cancelled before it arrives is refused at once.
  worker->CancelTask(43);
  task.set_task_id(43);
  ASSERT_TRUE(r.ParseFromString(worker->RunTask(task.SerializeAsString())));
  EXPECT_EQ(r.code(), static_cast<int>(StatusCode::kCancelled));
}

}  // namespace
}  // namespace flotilla::distributed

namespace flotilla::distributed {
namespace {

// Four stages: 6 in-memory partitions -> hash exchange into 4 -> (v * 7) hash exchange into 8
// -> hash exchange into 5.
PlanPtr FourStages() {
  PlanPtr plan = exec::MakeRepartitionByHash(IdPartitions(6, 100), 4, {Column("v")}).ValueOrDie();
  plan = exec::MakeProject(
             plan, {Column("v"), expr::Alias(Multiply(Column("v"), Literal(int64_t{7})), "w")})
             .ValueOrDie();
  plan = exec::MakeRepartitionByHash(plan, 8, {Column("w")}).ValueOrDie();
  return exec::MakeRepartitionByHash(plan, 5, {Column("v")}).ValueOrDie();
}

// The store keys of the completed tasks of the nodes whose names start with `prefix`.
std::vector<std::string> KeysOf(const Recorder& recorder, const std::string& prefix) {
  std::vector<std::string> keys;
  for (const TaskEvent& e : recorder.events) {
    if (e.kind == TaskEventKind::kCompleted && e.node_name.rfind(prefix, 0) == 0)
      keys.push_back(TaskOutputKey(e.query_id, e.task_id, e.attempt));
  }
  return keys;
}

bool AnyWorkerHolds(InProcessCluster& cluster, int workers, const std::string& key) {
  for (int w = 0; w < workers; ++w) {
    if (!cluster.worker(w).store().List(key + "/").empty()) return true;
  }
  return false;
}

// Any output upstream of one that can still be lost may be needed by a recovery, so all stages'
// outputs stay while the query runs (on disk once the store is over its budget), and go with
// the query.
TEST(ShuffleReleaseTest, OutputsAreKeptWhileARecoveryMayNeedThem) {
  auto cluster = StartCluster(3);
  auto recorder = std::make_shared<Recorder>();
  InProcessCluster* c = cluster.get();
  int64_t results = 0;
  bool all_held = false;
  std::vector<std::string> keys;
  auto r = cluster->Run(FourStages(), RecordedTo(recorder), [&](int64_t) {
    if (++results != 6 + 4 + 8 + 1) return;
    keys = KeysOf(*recorder, "");
    all_held = std::all_of(keys.begin(), keys.end() - 1,
                           [&](const std::string& k) { return AnyWorkerHolds(*c, 3, k); });
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(all_held) << "every stage's outputs are there while the last stage runs";
  EXPECT_TRUE(std::none_of(keys.begin(), keys.end(), [&](const std::string& k) {
    return AnyWorkerHolds(*c, 3, k);
  })) << "and gone with the query";
  exec::ExecOptions local;
  local.progress = 0;
  ExpectRows(r->ToBatch().ValueOrDie(),
             exec::Run(FourStages(), local).ValueOrDie().ToBatch().ValueOrDie(), false);
}

// Outputs whose readers are beyond loss — here a branch of a concat whose results the driver
// fetched — are dropped while the rest of the query runs.
TEST(ShuffleReleaseTest, OutputsOnlyFetchedResultsReadAreDroppedWhileTheQueryRuns) {
  auto cluster = StartCluster(3);
  auto recorder = std::make_shared<Recorder>();
  InProcessCluster* c = cluster.get();
  PlanPtr small = exec::MakeRepartitionByHash(IdPartitions(3, 10), 2, {Column("v")}).ValueOrDie();
  small = exec::MakeProject(
              small, {Column("v"), expr::Alias(Multiply(Column("v"), Literal(int64_t{7})), "w")})
              .ValueOrDie();
  PlanPtr plan = exec::MakeConcat({small, FourStages()}).ValueOrDie();
  // The concat's first input is planned first: its source is node 0, its exchange node 1.
  const int small_source = 0, small_exchange = 1;
  // Checked at the last result: the scheduler runs downstream nodes first, so the small
  // branch's exchange (rank 1) runs as soon as its sources are done and ends long before the
  // large branch's last stage (rank 3).
  const int64_t total = 3 + 2 + 6 + 4 + 8 + 5;
  int64_t results = 0;
  bool checked = false, small_gone = false, large_held = false;
  auto r = cluster->Run(plan, RecordedTo(recorder), [&](int64_t) {
    if (++results != total) return;
    checked = true;
    std::vector<std::string> sources, large;
    for (const TaskEvent& e : recorder->events) {
      if (e.kind != TaskEventKind::kCompleted) continue;
      const std::string key = TaskOutputKey(e.query_id, e.task_id, e.attempt);
      if (e.node_id == small_source) sources.push_back(key);
      if (e.node_id != small_source && e.node_id != small_exchange) large.push_back(key);
    }
    small_gone = std::none_of(sources.begin(), sources.end(),
                              [&](const std::string& k) { return AnyWorkerHolds(*c, 3, k); });
    large_held = std::all_of(large.begin(), large.end() - 1,
                             [&](const std::string& k) { return AnyWorkerHolds(*c, 3, k); });
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(checked);
  EXPECT_TRUE(small_gone) << "the small branch's map outputs were dropped once its results were "
                             "fetched";
  EXPECT_TRUE(large_held) << "the large branch's outputs are kept while it runs";
  exec::ExecOptions local;
  local.progress = 0;
  ExpectRows(r->ToBatch().ValueOrDie(), exec::Run(plan, local).ValueOrDie().ToBatch().ValueOrDie(),
             false);
}

}  // namespace
}  // namespace flotilla::distributed

namespace flotilla::distributed {
namespace {

// The query's life in its events: query_started (with the distributed plan) first; a node's
// node_started before its first task is submitted and node_finished after its last one
// completed, with the rows it output.
TEST(QueryEventsTest, TheQueryAndEachNodeStartAndFinishAroundTheirTasks) {
  auto cluster = StartCluster(3);
  auto recorder = std::make_shared<Recorder>();
  auto r = cluster->Run(FourStages(), RecordedTo(recorder));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<TaskEvent>& events = recorder->events;
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].kind, TaskEventKind::kQueryStarted);
  EXPECT_NE(events[0].message.find("[3] Exchange"), std::string::npos) << events[0].message;
  std::map<int, size_t> started, finished, first_submit, last_done;
  std::map<int, int64_t> rows, finished_rows;
  for (size_t i = 0; i < events.size(); ++i) {
    const TaskEvent& e = events[i];
    switch (e.kind) {
      case TaskEventKind::kNodeStarted:
        EXPECT_TRUE(started.emplace(e.node_id, i).second) << "node " << e.node_id;
        break;
      case TaskEventKind::kNodeFinished:
        EXPECT_TRUE(finished.emplace(e.node_id, i).second) << "node " << e.node_id;
        finished_rows[e.node_id] = e.rows;
        EXPECT_GE(e.seconds, 0);
        break;
      case TaskEventKind::kSubmitted:
        first_submit.emplace(e.node_id, i);
        break;
      case TaskEventKind::kCompleted:
        last_done[e.node_id] = i;
        rows[e.node_id] += e.rows;
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(started.size(), 4u);
  EXPECT_EQ(finished.size(), 4u);
  for (const auto& [node, at] : started) {
    EXPECT_LT(at, first_submit.at(node)) << "node " << node;
    EXPECT_GT(finished.at(node), last_done.at(node)) << "node " << node;
    EXPECT_EQ(finished_rows.at(node), rows.at(node)) << "node " << node;
    EXPECT_EQ(rows.at(node), 600) << "node " << node;
  }
}

}  // namespace
}  // namespace flotilla::distributed
