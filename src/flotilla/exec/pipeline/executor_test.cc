#include "flotilla/exec/pipeline/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "flotilla/exec/pipeline/partition_writer.h"
#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;
using expr::Literal;

RecordBatch Numbers(int64_t from, int64_t to) {
  std::vector<std::optional<int64_t>> a, b;
  for (int64_t i = from; i < to; ++i) {
    a.push_back(i);
    b.push_back(i % 3 == 0 ? std::nullopt : std::optional<int64_t>(i * 10));
  }
  return Batch({{"a", I64(a)}, {"b", I64(b)}});
}

TEST(Executor, SourceAloneKeepsOrderAndPartitions) {
  auto plan = MemorySource({Numbers(0, 10), Numbers(10, 25)});
  ExpectPlanRows(plan, compute::ConcatBatches({Numbers(0, 10), Numbers(10, 25)}).ValueOrDie(),
                 true);
}

TEST(Executor, ProjectFilterPipeline) {
  auto source = MemorySource({Numbers(0, 20), Numbers(20, 40)});
  auto filtered =
      MakeFilter(source, expr::Greater(Column("b"), Literal(int64_t{100}))).ValueOrDie();
  auto projected =
      MakeProject(filtered, {Column("a"), expr::Alias(expr::Add(Column("a"), Column("b")), "s")})
          .ValueOrDie();
  std::vector<std::optional<int64_t>> a, s;
  for (int64_t i = 0; i < 40; ++i) {
    if (i % 3 != 0 && i * 10 > 100) {
      a.push_back(i);
      s.push_back(i + i * 10);
    }
  }
  ExpectPlanRows(projected, Batch({{"a", I64(a)}, {"s", I64(s)}}), true);
  EXPECT_EQ(projected->schema()->field(1).name, "s");
}

TEST(Executor, FilterDroppingEverythingGivesAnEmptyResultOfTheRightSchema) {
  auto plan = MakeFilter(MemorySource({Numbers(0, 5)}), Literal(false)).ValueOrDie();
  for (const RunMode& mode : AllModes()) {
    auto result = RunToBatch(plan, OptionsFor(mode));
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->num_rows(), 0);
    EXPECT_EQ(result->num_columns(), 2);
  }
}

TEST(Executor, PlanErrorsNameTheNode) {
  auto source = MemorySource({Numbers(0, 5)});
  auto bad = MakeProject(source, {Column("nope")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("Project"), std::string::npos);
  EXPECT_NE(bad.status().ToString().find("nope"), std::string::npos);
  auto not_bool = MakeFilter(source, Column("a"));
  ASSERT_FALSE(not_bool.ok());
  EXPECT_NE(not_bool.status().ToString().find("boolean"), std::string::npos);
}

TEST(Executor, RuntimeErrorsStopTheQueryAndNameTheOperator) {
  // a * INT64_MAX overflows from a = 2 on.
  auto source = MemorySource({Numbers(0, 50)});
  auto plan = MakeProject(source, {expr::Multiply(Column("a"), Literal(INT64_MAX))}).ValueOrDie();
  for (const RunMode& mode : AllModes()) {
    auto result = RunToBatch(plan, OptionsFor(mode));
    ASSERT_FALSE(result.ok()) << mode.ToString();
    EXPECT_NE(result.status().ToString().find("Project"), std::string::npos)
        << result.status().ToString();
  }
}

TEST(Executor, LimitAndOffsetInOrder) {
  // Which rows a limit keeps is defined only when input order is kept.
  auto source = MemorySource({Numbers(0, 10), Numbers(10, 30)});
  const std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>> cases = {
      {7, 8, 8, 15}, {0, 0, 0, 0}, {100, 25, 25, 30}, {-1, 28, 28, 30}};
  for (const RunMode& mode : AllModes()) {
    if (!mode.maintain_order) continue;
    for (const auto& [limit, offset, from, to] : cases) {
      auto result = RunToBatch(MakeLimit(source, limit, offset).ValueOrDie(), OptionsFor(mode));
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      ExpectRows(*result, Numbers(from, to), true, mode.ToString());
    }
  }
}

TEST(Executor, UnorderedLimitReturnsTheRightNumberOfInputRows) {
  auto source = MemorySource({Numbers(0, 1000)});
  auto plan = MakeLimit(source, 10).ValueOrDie();
  ExecOptions options = OptionsFor({4, 3, false});
  auto result = RunToBatch(plan, options).ValueOrDie();
  EXPECT_EQ(result.num_rows(), 10);
}

/// A scan task that counts how often it is read.
class CountingTask final : public ScanTask {
 public:
  CountingTask(RecordBatch batch, std::atomic<int>* reads)
      : batch_(std::move(batch)), reads_(reads) {}
  Result<std::vector<RecordBatch>> Read(const ScanPushdowns& pushdowns) const override {
    ++*reads_;
    return InMemoryScanTask({batch_}).Read(pushdowns);
  }
  std::string ToString() const override { return "counting"; }

 private:
  RecordBatch batch_;
  std::atomic<int>* reads_;
};

TEST(Executor, LimitStopsTheScanEarly) {
  std::atomic<int> reads{0};
  std::vector<std::shared_ptr<const ScanTask>> tasks;
  for (int i = 0; i < 200; ++i)
    tasks.push_back(std::make_shared<CountingTask>(Numbers(i * 10, i * 10 + 10), &reads));
  auto scan = MakeScan(Numbers(0, 1).schema(), tasks).ValueOrDie();
  auto plan = MakeLimit(scan, 15).ValueOrDie();
  ExecOptions options = OptionsFor({2, 5, true});
  auto result = RunToBatch(plan, options).ValueOrDie();
  ExpectRows(result, Numbers(0, 15), true);
  // 15 rows are 2 tasks. The scan stops once any 15 rows have arrived, even while a thread is
  // descheduled on the first morsel, so only the tasks read ahead before that are extra.
  EXPECT_LE(reads.load(), 12) << "the scan went on long after the limit was satisfied";
}

TEST(Executor, LimitStopsTheScanWhileTheFirstMorselIsSlow) {
  std::atomic<int> reads{0};
  std::vector<std::shared_ptr<const ScanTask>> tasks;
  for (int i = 0; i < 200; ++i)
    tasks.push_back(std::make_shared<CountingTask>(Numbers(i * 10, i * 10 + 10), &reads));
  auto scan = MakeScan(Numbers(0, 1).schema(), tasks).ValueOrDie();
  // The first morsel takes long, so the other thread gets every later one first.
  auto slow = MakeUdfProject(
                  scan, "slow_first",
                  [](const std::vector<Array>& args) -> Result<Array> {
                    if (args[0].values<int64_t>()[0] == 0)
                      std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    return args[0];
                  },
                  {expr::Column("a")}, {}, "a", int64())
                  .ValueOrDie();
  auto plan = MakeLimit(slow, 15).ValueOrDie();
  auto result = RunToBatch(plan, OptionsFor({2, 5, true})).ValueOrDie();
  ExpectRows(result, Numbers(0, 15).SelectColumns({0}).ValueOrDie(), true);
  EXPECT_LE(reads.load(), 12) << "the scan ran on while the first morsel was processed";
}

TEST(Executor, ScanAppliesProjectionAndFilterPushdowns) {
  std::vector<std::shared_ptr<const ScanTask>> tasks;
  for (int i = 0; i < 5; ++i)
    tasks.push_back(
        std::make_shared<InMemoryScanTask>(std::vector<RecordBatch>{Numbers(i * 10, i * 10 + 10)}));
  ScanPushdowns pushdowns;
  pushdowns.columns = std::vector<std::string>{"a"};
  pushdowns.filter = expr::Less(Column("b"), Literal(int64_t{200}));
  auto scan = MakeScan(Numbers(0, 1).schema(), tasks, pushdowns).ValueOrDie();
  std::vector<std::optional<int64_t>> a;
  for (int64_t i = 0; i < 50; ++i)
    if (i % 3 != 0 && i * 10 < 200) a.push_back(i);
  ExpectPlanRows(scan, Batch({{"a", I64(a)}}), true);
}

TEST(Executor, ScanErrorsNameTheTask) {
  class Failing final : public ScanTask {
   public:
    Result<std::vector<RecordBatch>> Read(const ScanPushdowns&) const override {
      return Status::IOError("disk on fire");
    }
    std::string ToString() const override { return "file 'x.parquet'"; }
  };
  auto scan = MakeScan(Numbers(0, 1).schema(), {std::make_shared<Failing>()}).ValueOrDie();
  auto result = RunToBatch(scan, OptionsFor({2, 4, true}));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().ToString().find("x.parquet"), std::string::npos);
  EXPECT_NE(result.status().ToString().find("disk on fire"), std::string::npos);
}

TEST(Executor, ConcatKeepsInputOrder) {
  auto plan =
      MakeConcat({MemorySource({Numbers(0, 5)}), MemorySource({Numbers(5, 12), Numbers(12, 13)}),
                  MakeFilter(MemorySource({Numbers(13, 20)}), Literal(true)).ValueOrDie()})
          .ValueOrDie();
  ExpectPlanRows(plan, Numbers(0, 20), true);
  auto mismatched =
      MakeConcat({MemorySource({Numbers(0, 5)}),
                  MakeProject(MemorySource({Numbers(0, 5)}), {Column("a")}).ValueOrDie()});
  EXPECT_FALSE(mismatched.ok());
}

TEST(Executor, MonotonicallyIncreasingIdNumbersRowsPerPartition) {
  auto batch0 = Numbers(0, 3);
  auto batch1 = Numbers(3, 5);
  std::vector<MicroPartition> partitions;
  partitions.push_back(MicroPartition::FromBatches(batch0.schema(), {batch0}).ValueOrDie());
  partitions.push_back(MicroPartition::FromBatches(batch1.schema(), {batch1}).ValueOrDie());
  auto source = MakeInMemorySource(batch0.schema(), std::move(partitions)).ValueOrDie();
  auto plan = MakeMonotonicId(source, "id").ValueOrDie();
  const int64_t p1 = int64_t{1} << 36;
  auto expected = Batch({{"a", I64({0, 1, 2, 3, 4})},
                         {"b", I64({N, 10, 20, N, 40})},
                         {"id", I64({0, 1, 2, p1, p1 + 1})}});
  for (const RunMode& mode : AllModes()) {
    auto result = exec::Run(plan, OptionsFor(mode)).ValueOrDie();
    ASSERT_EQ(result.partitions.size(), 2u);
    ExpectRows(result.ToBatch().ValueOrDie(), expected, true, mode.ToString());
  }
}

TEST(Executor, StreamCanBeDroppedEarlyWithoutHanging) {
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 100; ++i)
    batches.push_back(Numbers(i * 100, i * 100 + 100));
  auto plan = MakeProject(MemorySource(batches), {Column("a")}).ValueOrDie();
  ExecOptions options = OptionsFor({4, 10, true});
  options.result_queue_capacity = 2;
  auto stream = Execute(plan, options).ValueOrDie();
  auto first = stream->Next().ValueOrDie();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->seq, 0);
  stream.reset();  // cancels and joins; must not hang
}

TEST(Executor, ExplainAnalyzeReportsRowsPerOperator) {
  auto source = MemorySource({Numbers(0, 30)});
  auto filtered = MakeFilter(source, expr::Less(Column("a"), Literal(int64_t{10}))).ValueOrDie();
  auto plan = MakeProject(filtered, {Column("a")}).ValueOrDie();
  std::string text = ExplainAnalyze(plan, OptionsFor({2, 4, true})).ValueOrDie();
  EXPECT_NE(text.find("Project: a  [Project: rows 10 -> 10"), std::string::npos) << text;
  EXPECT_NE(text.find("  Filter: a < 10  [Filter: rows 30 -> 10"), std::string::npos) << text;
  EXPECT_NE(text.find("    InMemorySource"), std::string::npos) << text;
}

// A blocking operator's output is what the next pipeline reads from it; every operator shows
// its wall time.
TEST(Executor, ExplainAnalyzeCountsWhatSinksEmit) {
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 5; ++i)
    batches.push_back(Numbers(i * 10, i * 10 + 10));
  auto grouped =
      MakeAggregate(MemorySource(batches), {expr::Call("mod", {Column("a"), Literal(int64_t{7})})},
                    {{"count_star", {}, "n"}})
          .ValueOrDie();
  auto plan = MakeSort(grouped, {{Column("n"), true, false}}).ValueOrDie();
  std::string text = ExplainAnalyze(plan, OptionsFor({2, 4, true})).ValueOrDie();
  EXPECT_NE(text.find("[Sort: rows 7 -> 7,"), std::string::npos) << text;
  EXPECT_NE(text.find("[Aggregate: rows 50 -> 7,"), std::string::npos) << text;
  for (const char* op : {"Sort", "Aggregate", "InMemorySource"}) {
    const size_t at = text.find(std::string("[") + op + ":");
    ASSERT_NE(at, std::string::npos) << text;
    EXPECT_NE(text.substr(at, text.find('\n', at) - at).find(", wall "), std::string::npos)
        << op << " has no wall time:\n"
        << text;
  }
}

}  // namespace
}  // namespace flotilla::exec

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;

RecordBatch Keys(int64_t n) {
  std::vector<std::optional<int64_t>> k;
  for (int64_t i = 0; i < n; ++i)
    k.push_back((i * 7919) % 101);
  return Batch({{"k", I64(k)}});
}

// Hash repartitioning splits morsels on whatever thread produced them, yet each partition holds
// its rows in input order whenever order is kept (any threads, any morsel size).
TEST(RepartitionOperator, HashPartitionsKeepTheInputOrder) {
  std::vector<RecordBatch> batches;
  int64_t position = 0;
  for (int64_t rows : {700, 1, 4096, 333}) {
    std::vector<std::optional<int64_t>> k, pos;
    for (int64_t i = 0; i < rows; ++i, ++position) {
      k.push_back((position * 7919) % 101);
      pos.push_back(position);
    }
    batches.push_back(Batch({{"k", I64(k)}, {"pos", I64(pos)}}));
  }
  auto source = MemorySource(batches);
  for (const RunMode& mode : AllModes()) {
    auto hash = exec::Run(MakeRepartitionByHash(source, 5, {expr::Column("k")}).ValueOrDie(),
                          OptionsFor(mode))
                    .ValueOrDie();
    ASSERT_EQ(hash.partitions.size(), 5u);
    int64_t rows = 0;
    for (const MicroPartition& p : hash.partitions) {
      int64_t previous = -1;
      for (const RecordBatch& b : p.batches()) {
        for (int64_t r = 0; r < b.num_rows(); ++r, ++rows) {
          const int64_t at = b.column(1).values<int64_t>()[r];
          if (mode.maintain_order) {
            EXPECT_GT(at, previous) << "out of input order with " << mode.ToString();
          }
          previous = at;
        }
      }
    }
    EXPECT_EQ(rows, position);
  }
}

// Collects what a hash repartition hands out, as a shuffle's map side would.
class CollectingWriter final : public PartitionWriter {
 public:
  Status Write(std::vector<std::vector<RecordBatch>> pieces) override {
    std::lock_guard lock(mutex);
    ++calls;
    if (partitions.empty()) partitions.resize(pieces.size());
    for (size_t p = 0; p < pieces.size(); ++p)
      for (RecordBatch& b : pieces[p]) {
        EXPECT_GT(b.num_rows(), 0) << "no empty pieces";
        partitions[p].push_back(std::move(b));
      }
    return Status::OK();
  }
  std::mutex mutex;
  int calls = 0;
  std::vector<std::vector<RecordBatch>> partitions;
};

// With a writer, the repartition hands each morsel's pieces out as it splits them and holds
// nothing: the writer gets every row, in the partition the sink would have put it in.
TEST(RepartitionOperator, AHashRepartitionHandsItsPiecesToTheWriterAsItSplits) {
  auto source = MemorySource({Keys(5000), Keys(3000), Keys(1)});
  for (const RunMode& mode : AllModes()) {
    auto plan = MakeRepartitionByHash(source, 7, {expr::Column("k")}).ValueOrDie();
    auto held = exec::Run(plan, OptionsFor(mode)).ValueOrDie();
    CollectingWriter writer;
    ExecOptions options = OptionsFor(mode);
    options.partition_writer = &writer;
    auto written = exec::Run(plan, options).ValueOrDie();
    EXPECT_EQ(written.num_rows(), 0) << "the writer took the rows";
    ASSERT_EQ(writer.partitions.size(), 7u);
    if (mode.morsel_size == 1) {
      EXPECT_EQ(writer.calls, 8001) << "a call per morsel";
    }
    for (size_t p = 0; p < 7; ++p) {
      std::multiset<int64_t> want, got;
      for (const RecordBatch& b : held.partitions[p].batches())
        for (int64_t r = 0; r < b.num_rows(); ++r)
          want.insert(b.column(0).values<int64_t>()[r]);
      for (const RecordBatch& b : writer.partitions[p])
        for (int64_t r = 0; r < b.num_rows(); ++r)
          got.insert(b.column(0).values<int64_t>()[r]);
      EXPECT_EQ(got, want) << "partition " << p << " with " << mode.ToString();
    }
  }
}

TEST(RepartitionOperator, EverySchemeKeepsEveryRowOnceInTheRightPartition) {
  auto source = MemorySource({Keys(500), Keys(300)});
  for (const RunMode& mode : AllModes()) {
    auto hash = exec::Run(MakeRepartitionByHash(source, 4, {expr::Column("k")}).ValueOrDie(),
                          OptionsFor(mode))
                    .ValueOrDie();
    ASSERT_EQ(hash.partitions.size(), 4u);
    std::map<int64_t, size_t> home;
    for (size_t p = 0; p < 4; ++p)
      for (const RecordBatch& b : hash.partitions[p].batches())
        for (int64_t r = 0; r < b.num_rows(); ++r) {
          const int64_t key = b.column(0).values<int64_t>()[r];
          EXPECT_TRUE(home.emplace(key, p).first->second == p)
              << "key " << key << " in two partitions";
        }
    EXPECT_EQ(hash.num_rows(), 800);

    auto range = exec::Run(MakeRepartitionByRange(source, 3, {{expr::Column("k")}}).ValueOrDie(),
                           OptionsFor(mode))
                     .ValueOrDie();
    ASSERT_EQ(range.partitions.size(), 3u);
    EXPECT_EQ(range.num_rows(), 800);
    int64_t previous_max = -1;
    for (const MicroPartition& p : range.partitions) {
      int64_t lo = INT64_MAX, hi = -1;
      for (const RecordBatch& b : p.batches())
        for (int64_t r = 0; r < b.num_rows(); ++r) {
          lo = std::min(lo, b.column(0).values<int64_t>()[r]);
          hi = std::max(hi, b.column(0).values<int64_t>()[r]);
        }
      if (hi >= 0) {
        EXPECT_GT(lo, previous_max);
        previous_max = hi;
      }
    }

    auto into =
        exec::Run(MakeIntoPartitions(source, 3).ValueOrDie(), OptionsFor(mode)).ValueOrDie();
    ASSERT_EQ(into.partitions.size(), 3u);
    for (const MicroPartition& p : into.partitions)
      EXPECT_NEAR(p.num_rows(), 800 / 3.0, 1.0);

    auto random =
        exec::Run(MakeRepartitionRandom(source, 5, 9).ValueOrDie(), OptionsFor(mode)).ValueOrDie();
    EXPECT_EQ(random.partitions.size(), 5u);
    EXPECT_EQ(random.num_rows(), 800);
  }
}

TEST(SampleOperator, FractionIsReproducibleAndSizeIsExact) {
  auto source = MemorySource({Keys(4000)});
  auto plan = MakeSampleFraction(source, 0.25, false, 42).ValueOrDie();
  ExecOptions one = OptionsFor({1, 100, true});
  ExecOptions four = OptionsFor({4, 100, true});
  auto a = RunToBatch(plan, one).ValueOrDie();
  auto b = RunToBatch(plan, four).ValueOrDie();
  ExpectRows(a, b, true, "same seed and morsel size, different thread counts");
  EXPECT_NEAR(a.num_rows(), 1000, 150);
  auto sized = MakeSampleSize(source, 37, false, 1).ValueOrDie();
  for (const RunMode& mode : AllModes()) {
    EXPECT_EQ(RunToBatch(sized, OptionsFor(mode)).ValueOrDie().num_rows(), 37);
  }
}

TEST(ReshapeOperators, ExplodeUnpivotAndUdf) {
  auto input = Batch({{"id", I64({1, 2})}, {"a", I64({10, 20})}, {"b", I64({11, 21})}});
  auto unpivot = MakeUnpivot(MemorySource({input}), {"id"}, {"a", "b"}).ValueOrDie();
  ExpectPlanRows(unpivot,
                 Batch({{"id", I64({1, 1, 2, 2})},
                        {"variable", Strs({"a", "b", "a", "b"})},
                        {"value", I64({10, 11, 20, 21})}}),
                 true);
  auto udf = MakeUdfProject(
                 MemorySource({input}), "double_it",
                 [](const std::vector<Array>& args) -> Result<Array> {
                   std::vector<std::optional<int64_t>> out;
                   for (int64_t i = 0; i < args[0].length(); ++i)
                     out.push_back(args[0].values<int64_t>()[i] * 2);
                   return I64(out);
                 },
                 {expr::Column("a")}, {"id"}, "twice", int64())
                 .ValueOrDie();
  ExpectPlanRows(udf, Batch({{"id", I64({1, 2})}, {"twice", I64({20, 40})}}), true);
  auto failing = MakeUdfProject(
                     MemorySource({input}), "broken",
                     [](const std::vector<Array>&) -> Result<Array> {
                       return Status::Invalid("model not loaded");
                     },
                     {expr::Column("a")}, {}, "x", int64())
                     .ValueOrDie();
  auto result = RunToBatch(failing, OptionsFor({1, 131072, true}));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().ToString().find("UDF 'broken'"), std::string::npos)
      << result.status().ToString();
}

}  // namespace
}  // namespace flotilla::exec
