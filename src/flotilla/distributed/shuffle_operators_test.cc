// The operators that need rows from more than one partition — aggregate, distinct, top-N,
// window, pivot, sort, range repartition, monotonically increasing id — on an in-process cluster
// of 3 workers, each compared with the local runner on the same files: with many map tasks
// (16 scan tasks), a single one, and empty input; keys that are all null and a key that 90% of
// the rows share.
//
// The local runner and the workers run one thread each here: with several, the local engine
// merges thread-local aggregation states in the order threads finish, so order-sensitive
// aggregates (first, last, list, string_agg) are not deterministic locally either. With one,
// the cluster must give exactly the local rows, which shows that exchanges are read in
// map-task order.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "flotilla/distributed/test_cluster.h"
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
using testing::Recorder;
using testing::StartCluster;

constexpr int kFiles = 4;
constexpr int kGroupsPerFile = 4;
constexpr int kGroupRows = 200;
constexpr int kRows = kFiles * kGroupsPerFile * kGroupRows;

// How the input is cut into map tasks, and the exchanges' partitions into reduce tasks.
enum class Split {
  kMany,             // 16 map tasks; adjacent small partitions read by one reduce task
  kManyUncoalesced,  // 16 map tasks; one reduce task per partition
  kOne,              // one map task
  kSpilling,         // 16 map tasks on workers whose store holds 4 KiB: each writes a file
};
constexpr int kSplits = 4;

class ShuffleOperatorsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("flotilla-shuffle-test-" + std::to_string(getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_ / "data");
    for (int f = 0; f < kFiles; ++f) {
      std::vector<std::optional<int64_t>> id, k, hot, nk;
      std::vector<std::optional<std::string>> s;
      std::vector<std::optional<double>> x;
      for (int i = 0; i < kGroupsPerFile * kGroupRows; ++i) {
        const int64_t v = int64_t{f} * kGroupsPerFile * kGroupRows + i;
        id.push_back(v);
        k.push_back(v % 11 == 0 ? std::nullopt : std::optional<int64_t>(v % 7));
        hot.push_back(v % 10 == 0 ? v : 7);  // 90% of the rows share one key
        nk.push_back(std::nullopt);
        s.push_back("w" + std::to_string(v % 13));
        x.push_back(static_cast<double>((v * 37) % 101) / 4.0);  // ties
      }
      RecordBatch b = Batch({{"id", I64(id)},
                             {"k", I64(k)},
                             {"hot", I64(hot)},
                             {"nk", I64(nk)},
                             {"s", Strs(s)},
                             {"x", F64(x)}});
      io::parquet::ParquetWriteOptions o;
      o.row_group_rows = kGroupRows;
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
    cluster_ = StartCluster(3, /*threads=*/1);
    ASSERT_NE(cluster_, nullptr);
    InProcessClusterOptions o;
    o.num_workers = 3;
    o.worker.exec.progress = 0;
    o.worker.exec.num_threads = 1;
    o.worker.store_memory_bytes = 4 << 10;
    o.worker.shuffle_flush_bytes = 2 << 10;  // a map task's output is a few chunks
    auto spilling = InProcessCluster::Start(o);
    ASSERT_TRUE(spilling.ok()) << spilling.status().ToString();
    spilling_ = spilling.MoveValueUnsafe();
  }
  // The small store made map tasks write their outputs to files, and their tasks say so: what
  // the writer held, and wrote.
  void ExpectMapOutputsWereWrittenToFiles() {
    int64_t spills = 0;
    for (int w = 0; w < spilling_->num_workers(); ++w)
      spills += spilling_->worker(w).store().stats().spills;
    EXPECT_GT(spills, 0);
    int written = 0;
    for (const TaskEvent& e : recorder_->events) {
      if (e.kind != TaskEventKind::kCompleted ||
          e.node_name.find("Repartition") == std::string::npos || e.spilled_bytes == 0) {
        continue;
      }
      ++written;
      EXPECT_GT(e.peak_memory, 0) << e.node_name;
    }
    EXPECT_GT(written, 0);
  }

  static PlanPtr Scan() { return testing::ScanDirectory((*dir_ / "data").string()); }
  // Every row group read, no row passing.
  static PlanPtr EmptyScan() {
    return exec::MakeFilter(Scan(), Less(Column("id"), Literal(int64_t{0}))).ValueOrDie();
  }

  DriverOptions Options(Split split) {
    DriverOptions o;
    o.query_id = ++query_;
    o.scan_task_min_bytes = split == Split::kOne ? int64_t{1} << 40 : 1;
    if (split == Split::kOne) o.min_source_tasks = 1;  // not one per worker
    if (split == Split::kManyUncoalesced) o.reduce_task_bytes = 0;
    o.plan.gather_sort_rows = 0;  // sorts of these few rows range partitioned all the same
    o.progress = 0;
    o.subscribers.push_back(recorder_);
    return o;
  }

  // Runs `plan` locally and on the cluster, once per split, and compares the rows.
  void ExpectSame(const PlanPtr& plan, bool ordered, const std::string& what) {
    for (Split split : {Split::kMany, Split::kManyUncoalesced, Split::kOne, Split::kSpilling}) {
      const char* how = split == Split::kMany              ? " (16 map tasks)"
                        : split == Split::kManyUncoalesced ? " (16 map tasks, 16 reduce tasks)"
                        : split == Split::kOne             ? " (1 map task)"
                                                           : " (16 map tasks written to files)";
      testing::ExpectSameAsLocal(split == Split::kSpilling ? *spilling_ : *cluster_, plan,
                                 Options(split), ordered, what + how, /*threads=*/1);
    }
  }

  static std::vector<exec::AggregateSpec> EveryAggregate() {
    return {
        {"count_star", {}, "n"},
        {"count", {Column("k")}, "count_k"},
        {"sum", {Column("id")}, "sum_id"},
        {"mean", {Column("x")}, "mean_x"},
        {"min", {Column("s")}, "min_s"},
        {"max", {Column("x")}, "max_x"},
        {"first", {Column("id")}, "first_id"},
        {"last", {Column("s")}, "last_s"},
        {"list", {Column("id")}, "ids"},
        {"string_agg", {Column("s"), Literal(",")}, "all_s"},
        {"count_distinct", {Column("s")}, "distinct_s"},
        {"approx_count_distinct", {Column("id")}, "approx_ids"},
        {"approx_percentile", {Column("x"), Literal(0.5)}, "median_x"},
        {"bool_or", {Greater(Column("x"), Literal(20.0))}, "any_big"},
    };
  }

  static fs::path* dir_;
  std::unique_ptr<InProcessCluster> cluster_;
  std::unique_ptr<InProcessCluster> spilling_;
  std::shared_ptr<Recorder> recorder_ = std::make_shared<Recorder>();
  int64_t query_ = 0;
};
fs::path* ShuffleOperatorsTest::dir_ = nullptr;

TEST_F(ShuffleOperatorsTest, GroupedAggregateOfEveryFunction) {
  for (const char* key : {"k", "hot", "nk", "s"}) {
    for (bool empty : {false, true}) {
      PlanPtr plan =
          exec::MakeAggregate(empty ? EmptyScan() : Scan(), {Column(key)}, EveryAggregate())
              .ValueOrDie();
      ExpectSame(plan, false, std::string("group by ") + key + (empty ? " of nothing" : ""));
    }
  }
  // Partial aggregates in the scan tasks, one exchange, final aggregates after it.
  EXPECT_EQ(recorder_->CompletedNodes(),
            (std::set<std::string>{"Scan -> Aggregate -> Repartition", "Exchange -> Aggregate",
                                   "Scan -> Filter -> Aggregate -> Repartition"}));
  // As many partitions as map tasks (16), or one for a single map task; 16 reduce tasks for 16
  // partitions uncoalesced, fewer (at least one) coalesced.
  const int runs = 4 * 2;  // per mode
  const int exchange = recorder_->Completed("Exchange");
  EXPECT_GE(exchange, runs * 16 + runs * 1 + runs * 1);
  EXPECT_LE(exchange, runs * 16 + runs * 1 + runs * 15);
}

TEST_F(ShuffleOperatorsTest, AggregateOverSeveralKeysAndExpressions) {
  PlanPtr plan =
      exec::MakeAggregate(
          Scan(), {Column("k"), expr::Alias(expr::Mod(Column("id"), Literal(int64_t{3})), "m")},
          {{"sum", {Multiply(Column("x"), Literal(2.0))}, "twice"}, {"list", {Column("s")}, "ss"}})
          .ValueOrDie();
  ExpectSame(plan, false, "group by k, id % 3");
}

TEST_F(ShuffleOperatorsTest, UngroupedAggregateGivesOneRowEvenOfNothing) {
  for (bool empty : {false, true}) {
    PlanPtr plan =
        exec::MakeAggregate(empty ? EmptyScan() : Scan(), {}, EveryAggregate()).ValueOrDie();
    ExpectSame(plan, true, empty ? "ungrouped of nothing" : "ungrouped");
  }
  EXPECT_EQ(recorder_->Completed("Gather -> Aggregate"), 2 * kSplits);  // per input, per mode
}

TEST_F(ShuffleOperatorsTest, DistinctKeepsTheFirstRowInInputOrder) {
  for (bool empty : {false, true}) {
    PlanPtr in = empty ? EmptyScan() : Scan();
    PlanPtr keys = exec::MakeProject(in, {Column("k"), Column("hot")}).ValueOrDie();
    ExpectSame(exec::MakeDistinct(keys).ValueOrDie(), false, "distinct rows");
    // Distinct on some columns keeps every column of the first row of each key.
    for (const char* key : {"k", "hot", "nk", "s"}) {
      ExpectSame(exec::MakeDistinct(in, {key}).ValueOrDie(), false,
                 std::string("distinct on ") + key);
    }
  }
}

TEST_F(ShuffleOperatorsTest, TopNWithOffsetAndTies) {
  for (bool empty : {false, true}) {
    PlanPtr in = empty ? EmptyScan() : Scan();
    // x has ties: the first rows in input order win them, as locally.
    PlanPtr plan = exec::MakeTopN(in, {{Column("x"), false, false}}, 25, 10).ValueOrDie();
    ExpectSame(plan, true, "top 25 by x desc after 10");
    plan = exec::MakeTopN(in, {{Column("k"), true, true}, {Column("s"), false, false}}, 40, 0)
               .ValueOrDie();
    ExpectSame(plan, true, "top 40 by k nulls first, s desc");
  }
}

TEST_F(ShuffleOperatorsTest, WindowsWithAndWithoutPartitionKeys) {
  std::vector<exec::WindowExpression> functions = {
      {"row_number", {}, std::nullopt, "rn"},
      {"rank", {}, std::nullopt, "rk"},
      {"sum", {Column("id")}, std::nullopt, "running"},
      {"lag", {Column("id"), Literal(int64_t{1}), Literal(int64_t{-1})}, std::nullopt, "prev"},
  };
  for (bool empty : {false, true}) {
    PlanPtr in = empty ? EmptyScan() : Scan();
    for (const char* key : {"k", "hot", "nk"}) {
      // Ordered by x, which has ties: row_number follows input order among them.
      PlanPtr plan =
          exec::MakeWindow(in, {Column(key)}, {{Column("x"), true, false}}, functions).ValueOrDie();
      ExpectSame(plan, false, std::string("window partitioned by ") + key);
    }
    PlanPtr whole =
        exec::MakeWindow(in, {}, {{Column("id"), false, false}}, functions).ValueOrDie();
    ExpectSame(whole, false, "window over every row");
  }
  EXPECT_GT(recorder_->Completed("Exchange -> Window"), 0);
  EXPECT_GT(recorder_->Completed("Gather -> Window"), 0);
  ExpectMapOutputsWereWrittenToFiles();  // and read back in map-task order, ties and all
}

TEST_F(ShuffleOperatorsTest, Pivot) {
  PlanPtr in =
      exec::MakeProject(
          Scan(),
          {Column("k"), Column("x"),
           expr::Alias(
               expr::Call("concat",
                          {Literal("c"),
                           expr::Cast(expr::Mod(Column("id"), Literal(int64_t{3})), utf8())}),
               "p")})
          .ValueOrDie();
  for (const char* f : {"sum", "count", "first"}) {
    PlanPtr plan =
        exec::MakePivot(in, {Column("k")}, Column("p"), Column("x"), f, {"c0", "c1", "c2", "c9"})
            .ValueOrDie();
    ExpectSame(plan, false, std::string("pivot of ") + f);
  }
}

TEST_F(ShuffleOperatorsTest, SortIsGlobalAndStable) {
  const std::vector<std::vector<exec::SortSpec>> orders = {
      {{Column("x"), false, false}},                                 // ties, descending
      {{Column("hot"), true, false}, {Column("id"), false, false}},  // 90% one value
      {{Column("k"), true, true}},                                   // nulls first, ties
      {{Column("k"), false, false}, {Column("s"), true, false}},     // nulls last
      {{Column("s"), true, false}},                                  // strings
      {{Column("nk"), true, false}},                                 // every key null
      {{expr::Cast(Column("x"), decimal128(12, 2)), true, false}},   // decimals
  };
  for (bool empty : {false, true}) {
    for (size_t i = 0; i < orders.size(); ++i) {
      PlanPtr plan = exec::MakeSort(empty ? EmptyScan() : Scan(), orders[i]).ValueOrDie();
      ExpectSame(plan, true, "sort #" + std::to_string(i) + (empty ? " of nothing" : ""));
    }
  }
}

TEST_F(ShuffleOperatorsTest, ASortOfFewRowsRunsInOneTask) {
  PlanPtr agg =
      exec::MakeAggregate(Scan(), {Column("k")}, {{"sum", {Column("x")}, "total"}}).ValueOrDie();
  PlanPtr sorted = exec::MakeSort(agg, {{Column("total"), false, false}}).ValueOrDie();
  DistributedPlanOptions few;  // the default: estimated under a million rows
  const std::string text = DistributedPlanToString(PlanDistributed(sorted, few).ValueOrDie());
  EXPECT_NE(text.find("Gather -> Sort (gather)"), std::string::npos) << text;
  EXPECT_EQ(text.find("SortSample"), std::string::npos) << text;
  DriverOptions o = Options(Split::kMany);
  o.plan = few;
  recorder_->events.clear();
  testing::ExpectSameAsLocal(*cluster_, sorted, o, true, "a sort of a few groups");
  EXPECT_EQ(recorder_->Completed("Gather -> Sort"), 1);
  few.gather_sort_rows = 10;  // fewer than the estimate
  EXPECT_NE(DistributedPlanToString(PlanDistributed(sorted, few).ValueOrDie()).find("SortSample"),
            std::string::npos);
}

TEST_F(ShuffleOperatorsTest, SortSpreadsOverSeveralPartitionsInOrder) {
  PlanPtr plan = exec::MakeSort(Scan(), {{Column("id"), false, false}}).ValueOrDie();
  auto r = cluster_->Run(plan, Options(Split::kManyUncoalesced));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->partitions.size(), 16u);
  // Partition i holds larger ids than partition i + 1, and no partition holds most rows.
  int64_t previous = INT64_MAX;
  for (const MicroPartition& p : r->partitions) {
    EXPECT_LT(p.num_rows(), kRows / 4);
    for (const RecordBatch& b : p.batches()) {
      const int64_t* ids = b.column(0).values<int64_t>();
      for (int64_t i = 0; i < b.num_rows(); ++i) {
        ASSERT_LT(ids[i], previous);
        previous = ids[i];
      }
    }
  }
  EXPECT_EQ(recorder_->Completed("SortSample"), 16);
  EXPECT_EQ(recorder_->Completed("Map -> Repartition"), 16);
  EXPECT_EQ(recorder_->Completed("Exchange -> Sort"), 16);
}

TEST_F(ShuffleOperatorsTest, RangeRepartitionGivesOrderedDisjointRanges) {
  PlanPtr plan =
      exec::MakeRepartitionByRange(Scan(), 5, {{Column("hot"), true, false}}).ValueOrDie();
  auto local = exec::Run(plan, {});
  ASSERT_TRUE(local.ok());
  auto r = cluster_->Run(plan, Options(Split::kMany));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->partitions.size(), 5u);
  ExpectRows(r->ToBatch().ValueOrDie(), local->ToBatch().ValueOrDie(), false);
  // Every value of a partition is at most every value of the next; the hot key in one.
  int64_t max_before = INT64_MIN;
  int with_hot = 0;
  for (const MicroPartition& p : r->partitions) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool hot = false;
    for (const RecordBatch& b : p.batches()) {
      const int64_t* v = b.column(2).values<int64_t>();
      for (int64_t i = 0; i < b.num_rows(); ++i) {
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
        hot |= v[i] == 7;
      }
    }
    if (p.num_rows() == 0) continue;
    EXPECT_GE(lo, max_before);
    max_before = hi;
    with_hot += hot;
  }
  EXPECT_EQ(with_hot, 1);
}

TEST_F(ShuffleOperatorsTest, MonotonicIdsEqualTheLocalRunnersOnInMemoryPartitions) {
  std::vector<MicroPartition> parts;
  for (int p = 0; p < 3; ++p) {
    std::vector<std::optional<int64_t>> v;
    for (int i = 0; i < 5 + p; ++i)
      v.push_back(p * 100 + i);
    RecordBatch b = Batch({{"v", I64(v)}});
    parts.push_back(MicroPartition::FromBatches(b.schema(), {b}).ValueOrDie());
  }
  PlanPtr source = exec::MakeInMemorySource(parts[0].schema(), parts).ValueOrDie();
  PlanPtr plan =
      exec::MakeMonotonicId(
          exec::MakeFilter(source, Greater(Column("v"), Literal(int64_t{0}))).ValueOrDie(),
          "row_id")
          .ValueOrDie();
  ExpectSame(plan, true, "monotonically increasing id");
  // On files: unique ids, increasing in each task's rows.
  PlanPtr files = exec::MakeMonotonicId(Scan(), "row_id").ValueOrDie();
  auto r = cluster_->Run(files, Options(Split::kMany));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::set<int64_t> ids;
  RecordBatch all = r->ToBatch().ValueOrDie();
  for (int64_t i = 0; i < all.num_rows(); ++i)
    ids.insert(all.column(6).values<int64_t>()[i]);
  EXPECT_EQ(ids.size(), static_cast<size_t>(kRows));
}

TEST_F(ShuffleOperatorsTest, ConcatOfShuffles) {
  PlanPtr a =
      exec::MakeAggregate(Scan(), {Column("k")}, {{"sum", {Column("id")}, "v"}}).ValueOrDie();
  PlanPtr b =
      exec::MakeAggregate(Scan(), {Column("hot")}, {{"count", {Column("id")}, "v"}}).ValueOrDie();
  PlanPtr b_renamed =
      exec::MakeProject(b, {expr::Alias(Column("hot"), "k"), Column("v")}).ValueOrDie();
  ExpectSame(exec::MakeConcat({a, b_renamed}).ValueOrDie(), false, "concat of two aggregates");
  // An aggregate above a concat: both inputs' tasks write one shuffle.
  PlanPtr both = exec::MakeConcat({Scan(), EmptyScan(), Scan()}).ValueOrDie();
  ExpectSame(
      exec::MakeAggregate(both, {Column("s")}, {{"list", {Column("id")}, "ids"}}).ValueOrDie(),
      false, "aggregate of a concat");
  ExpectSame(exec::MakeSort(both, {{Column("x"), true, false}}).ValueOrDie(), true,
             "sort of a concat");
}

TEST_F(ShuffleOperatorsTest, ChainsOfShuffles) {
  // Aggregate, then sort its output, then a window over that: three exchanges.
  PlanPtr agg =
      exec::MakeAggregate(Scan(), {Column("s")}, {{"sum", {Column("x")}, "total"}}).ValueOrDie();
  PlanPtr sorted = exec::MakeSort(agg, {{Column("total"), false, false}}).ValueOrDie();
  ExpectSame(sorted, true, "sorted aggregate");
  PlanPtr window = exec::MakeWindow(agg, {}, {{Column("total"), true, false}},
                                    {{"row_number", {}, std::nullopt, "rn"}})
                       .ValueOrDie();
  ExpectSame(window, false, "window over an aggregate");
}

TEST_F(ShuffleOperatorsTest, AnEmptySourceSchedulesNoMapTask) {
  SchemaPtr schema =
      std::make_shared<Schema>(std::vector<Field>{{"k", int64(), true}, {"s", utf8(), true}});
  PlanPtr none = exec::MakeInMemorySource(schema, std::vector<MicroPartition>{}).ValueOrDie();
  PlanPtr filtered = exec::MakeFilter(none, Greater(Column("k"), Literal(int64_t{1}))).ValueOrDie();
  auto r = cluster_->Run(filtered, Options(Split::kMany));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_rows(), 0);
  EXPECT_TRUE(r->schema->Equals(*filtered->schema()));
  EXPECT_EQ(recorder_->Count(TaskEventKind::kSubmitted), 0);
  // Operators above it still answer as locally: one row of a global count, no groups.
  ExpectSame(exec::MakeAggregate(filtered, {}, {{"count", {Column("k")}, "n"}}).ValueOrDie(), true,
             "count of nothing");
  ExpectSame(
      exec::MakeAggregate(filtered, {Column("s")}, {{"count", {Column("k")}, "n"}}).ValueOrDie(),
      false, "groups of nothing");
  ExpectSame(exec::MakeSort(filtered, {{Column("k"), true, false}}).ValueOrDie(), true,
             "sort of nothing");
}

TEST_F(ShuffleOperatorsTest, SmallPartitionsAreReadTogetherWhereTheRunnerPickedTheCount) {
  PlanPtr grouped =
      exec::MakeAggregate(Scan(), {Column("id")}, {{"sum", {Column("x")}, "total"}}).ValueOrDie();
  auto reduce_tasks = [&](const PlanPtr& plan, DriverOptions o, const std::string& what) {
    recorder_->events.clear();
    testing::ExpectSameAsLocal(*cluster_, plan, std::move(o), false, what, /*threads=*/1);
    return recorder_->Completed("Exchange");
  };
  // 16 partitions of a few KiB: read by as few tasks as leave two for each task slot of the
  // cluster (3 workers of one thread), not 16.
  DriverOptions o = Options(Split::kMany);
  const int coalesced = reduce_tasks(grouped, o, "coalesced");
  EXPECT_GE(coalesced, 6);
  EXPECT_LE(coalesced, 10);
  // One slot: two tasks, or a few more where partitions differ in size.
  o = Options(Split::kMany);
  o.min_source_tasks = 1;
  const int one_slot = reduce_tasks(grouped, o, "one task slot");
  EXPECT_GE(one_slot, 2);
  EXPECT_LE(one_slot, 4);
  // More tasks asked for: at least as many.
  o = Options(Split::kMany);
  o.min_source_tasks = 1;
  o.min_shuffle_partitions = 5;
  const int five = reduce_tasks(grouped, o, "at least 5 tasks");
  EXPECT_GE(five, 5);
  EXPECT_LT(five, 16);
  // A target under every partition's size, or none: one task per partition.
  o = Options(Split::kMany);
  o.reduce_task_bytes = 1;
  EXPECT_EQ(reduce_tasks(grouped, o, "a 1-byte target"), 16);
  o.reduce_task_bytes = 0;
  EXPECT_EQ(reduce_tasks(grouped, o, "uncoalesced"), 16);
  // A count the user asked for is kept.
  PlanPtr repartitioned = exec::MakeRepartitionByHash(Scan(), 16, {Column("id")}).ValueOrDie();
  auto r = cluster_->Run(repartitioned, Options(Split::kMany));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->partitions.size(), 16u);
}

TEST_F(ShuffleOperatorsTest, ExplainShowsInputModesAndWarnsOfOneWorker) {
  PlanPtr plan =
      exec::MakeWindow(exec::MakeSort(Scan(), {{Column("id"), true, false}}).ValueOrDie(), {},
                       {{Column("id"), true, false}}, {{"row_number", {}, std::nullopt, "rn"}})
          .ValueOrDie();
  DistributedPlanOptions range;
  range.gather_sort_rows = 0;
  auto d = PlanDistributed(plan, range);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const std::string text = DistributedPlanToString(*d);
  EXPECT_NE(text.find("[1] SortSample (partition-wise) <- [0]"), std::string::npos) << text;
  EXPECT_NE(text.find("[3] Exchange -> Sort (range exchange, partitions: one per upstream task"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("warning: Window without partition keys runs on one worker"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace flotilla::distributed
