#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "flotilla/compute/filter.h"
#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;
using expr::Literal;

TEST(TopNOperator, FirstRowsInSortOrderWithTiesByInputOrder) {
  std::vector<std::optional<int64_t>> k, pos;
  std::mt19937_64 rng(3);
  for (int64_t i = 0; i < 3000; ++i) {
    k.push_back(rng() % 9 == 0 ? std::nullopt : std::optional<int64_t>(rng() % 100));
    pos.push_back(i);
  }
  auto input = Batch({{"k", I64(k)}, {"pos", I64(pos)}});
  auto source = MemorySource({input.Slice(0, 1000), input.Slice(1000, 2000)});
  for (auto [limit, offset] :
       std::vector<std::pair<int64_t, int64_t>>{{10, 0}, {7, 5}, {0, 0}, {5000, 2990}}) {
    auto top = MakeTopN(source, {{Column("k"), false, false}}, limit, offset).ValueOrDie();
    auto sorted = MakeSort(source, {{Column("k"), false, false}}).ValueOrDie();
    auto expected =
        RunToBatch(MakeLimit(sorted, limit, offset).ValueOrDie(), OptionsFor({1, 131072, true}))
            .ValueOrDie();
    ExpectPlanRows(top, expected, true);
  }
}

// Enough rows that buffers compact and later morsels are cut against a boundary row: float keys
// with NaN, -0.0 and nulls, ties across morsels on both keys, ascending and descending.
TEST(TopNOperator, RowsBeyondTheBoundaryAreDroppedWithoutChangingTheResult) {
  std::vector<std::optional<double>> f;
  std::vector<std::optional<int64_t>> g, pos;
  std::mt19937_64 rng(11);
  for (int64_t i = 0; i < 60000; ++i) {
    const uint64_t r = rng() % 50;
    f.push_back(r == 0   ? std::nullopt
                : r == 1 ? std::optional<double>(std::nan(""))
                : r == 2 ? std::optional<double>(-0.0)
                         : std::optional<double>(static_cast<double>(rng() % 40) / 4));
    g.push_back(static_cast<int64_t>(rng() % 3));
    pos.push_back(i);
  }
  auto input = Batch({{"f", F64(f)}, {"g", I64(g)}, {"pos", I64(pos)}});
  std::vector<RecordBatch> slices;
  for (int64_t start = 0; start < 60000; start += 9000)
    slices.push_back(input.Slice(start, std::min<int64_t>(9000, 60000 - start)));
  // The same rows with no nulls, so the fixed-width first-key path runs.
  std::vector<RecordBatch> no_nulls;
  for (const RecordBatch& slice : slices) {
    std::vector<std::optional<bool>> valid;
    for (int64_t i = 0; i < slice.num_rows(); ++i)
      valid.push_back(slice.column(0).IsValid(i));
    no_nulls.push_back(compute::Filter(slice, Bools(valid)).ValueOrDie());
  }
  for (const auto& batches : {slices, no_nulls}) {
    auto source = MemorySource(batches);
    for (bool ascending : {true, false}) {
      for (bool nulls_first : {true, false}) {
        std::vector<SortSpec> keys = {{Column("f"), ascending, nulls_first},
                                      {Column("g"), !ascending, false}};
        for (auto [limit, offset] :
             std::vector<std::pair<int64_t, int64_t>>{{100, 0}, {30, 2000}}) {
          auto top = MakeTopN(source, keys, limit, offset).ValueOrDie();
          auto sorted = MakeSort(source, keys).ValueOrDie();
          auto expected = RunToBatch(MakeLimit(sorted, limit, offset).ValueOrDie(),
                                     OptionsFor({1, 131072, true}))
                              .ValueOrDie();
          ASSERT_EQ(expected.num_rows(), limit);
          ExpectPlanRows(top, expected, true);
        }
      }
    }
  }
}

TEST(WindowOperator, RankingAndRunningSumPerPartition) {
  auto input =
      Batch({{"g", Strs({"a", "b", "a", "a", "b", N})}, {"v", I64({30, 10, 10, 20, 10, 5})}});
  std::vector<WindowExpression> functions = {
      {"row_number", {}, std::nullopt, "rn"},
      {"rank", {}, std::nullopt, "rk"},
      {"sum", {Column("v")}, std::nullopt, "running"},
      {"lag", {Column("v"), Literal(int64_t{1}), Literal(int64_t{-1})}, std::nullopt, "prev"},
  };
  auto plan =
      MakeWindow(MemorySource({input}), {Column("g")}, {{Column("v"), true, false}}, functions)
          .ValueOrDie();
  // Sorted by g (nulls first), then v.
  auto expected = Batch({{"g", Strs({N, "a", "a", "a", "b", "b"})},
                         {"v", I64({5, 10, 20, 30, 10, 10})},
                         {"rn", I64({1, 1, 2, 3, 1, 2})},
                         {"rk", I64({1, 1, 2, 3, 1, 1})},
                         {"running", I64({5, 10, 30, 60, 20, 20})},
                         {"prev", I64({-1, -1, 10, 20, -1, 10})}});
  ExpectPlanRows(plan, expected, false);
  for (const RunMode& mode : AllModes()) {
    auto result = RunToBatch(plan, OptionsFor(mode)).ValueOrDie();
    // In order when order is maintained; otherwise threads may interleave the batches of
    // different partitions, and the values (row numbers, running sums, lags) carry the order.
    ExpectRows(result, expected, mode.maintain_order, mode.ToString());
  }
}

// Over the budget the rows spill as sorted runs and the functions run partition by partition
// as the merge completes each; the rows (and their order) are those of the in-memory run. A
// window without PARTITION BY is one partition: it spills too, and is computed whole.
TEST(WindowOperator, SpillsUnderASmallBudgetWithTheSameRowsAndCleansUp) {
  std::vector<std::optional<int64_t>> g, v, pos;
  std::mt19937_64 rng(5);
  for (int64_t i = 0; i < 30000; ++i) {
    g.push_back(rng() % 50 == 0 ? std::nullopt : std::optional<int64_t>(rng() % 97));
    v.push_back(static_cast<int64_t>(rng() % 20));
    pos.push_back(i);
  }
  auto input = Batch({{"g", I64(g)}, {"v", I64(v)}, {"pos", I64(pos)}});
  std::vector<RecordBatch> chunks;
  for (int64_t o = 0; o < input.num_rows(); o += 1000)
    chunks.push_back(input.Slice(o, 1000));
  const std::vector<WindowExpression> functions = {
      {"row_number", {}, std::nullopt, "rn"},
      {"sum", {Column("v")}, std::nullopt, "running"},
      {"lag", {Column("v")}, std::nullopt, "prev"},
  };
  const ScopedSpillDir spill("window_spill_test");
  const std::string& spill_dir = spill.path();
  for (bool partitioned : {true, false}) {
    auto plan = MakeWindow(MemorySource(chunks),
                           partitioned ? std::vector<expr::ExprPtr>{Column("g")}
                                       : std::vector<expr::ExprPtr>{},
                           {{Column("v"), true, false}, {Column("pos"), true, false}}, functions)
                    .ValueOrDie();
    const RecordBatch expected = RunToBatch(plan, OptionsFor({1, 131072, true})).ValueOrDie();
    // (partition, v, pos) orders every row, so every value is fixed, and so is the order
    // where order is maintained.
    ExpectSameRowsWhenSpilling(plan, expected, true, 64 * 1024, spill_dir);
  }
}

TEST(WindowOperator, UnknownFunctionIsAPlanError) {
  auto input = Batch({{"v", I64({1})}});
  auto plan = MakeWindow(MemorySource({input}), {}, {}, {{"row_numbr", {}, std::nullopt, "x"}});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().ToString().find("row_number"), std::string::npos)
      << plan.status().ToString();
}

}  // namespace
}  // namespace flotilla::exec
