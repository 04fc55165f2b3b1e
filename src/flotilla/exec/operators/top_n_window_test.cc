#include <gtest/gtest.h>

#include <random>

#include "flotilla/exec/exec_test_util.h"
#include "flotilla/expr/expression.h"

namespace flotilla::exec {
namespace {

using namespace test;
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
    // Partitions come out grouped; within one, in order.
    ExpectRows(result, expected, true, mode.ToString());
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
