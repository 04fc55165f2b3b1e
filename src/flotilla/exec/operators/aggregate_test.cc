#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>

#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;
using expr::Literal;

RecordBatch Sales() {
  return Batch(
      {{"g", Strs({"a", "b", "a", N, "b", "a", N})}, {"v", I64({1, 10, 2, 100, N, 4, 200})}});
}

TEST(AggregateOperator, GroupedSingleMode) {
  auto plan = MakeAggregate(MemorySource({Sales()}), {Column("g")},
                            {{"sum", {Column("v")}, "s"},
                             {"count", {Column("v")}, "c"},
                             {"count_star", {}, "n"},
                             {"max", {Column("v")}, "m"}})
                  .ValueOrDie();
  auto expected = Batch({{"g", Strs({"a", "b", N})},
                         {"s", I64({7, 10, 300})},
                         {"c", I64({3, 1, 2})},
                         {"n", I64({3, 2, 2})},
                         {"m", I64({4, 10, 200})}});
  ExpectPlanRows(plan, expected, false);
}

TEST(AggregateOperator, UngroupedOverEmptyInputGivesOneRow) {
  auto empty = Batch({{"v", I64({})}});
  auto plan = MakeAggregate(MemorySource({empty}), {},
                            {{"sum", {Column("v")}, "s"}, {"count_star", {}, "n"}})
                  .ValueOrDie();
  ExpectPlanRows(plan, Batch({{"s", I64({N})}, {"n", I64({0})}}), false);
  auto grouped = MakeAggregate(MemorySource({Batch({{"g", I64({})}, {"v", I64({})}})}),
                               {Column("g")}, {{"sum", {Column("v")}, "s"}})
                     .ValueOrDie();
  ExpectPlanRows(grouped, Batch({{"g", I64({})}, {"s", I64({})}}), false);
}

TEST(AggregateOperator, PartialThenFinalEqualsSingle) {
  std::vector<std::optional<int64_t>> g, v;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 6000; ++i) {
    g.push_back(rng() % 13 == 0 ? std::nullopt : std::optional<int64_t>(rng() % 500));
    v.push_back(static_cast<int64_t>(rng() % 1000));
  }
  auto input = Batch({{"g", I64(g)}, {"v", I64(v)}});
  std::vector<AggregateSpec> aggs = {{"sum", {Column("v")}, "s"},
                                     {"mean", {Column("v")}, "avg"},
                                     {"count_distinct", {Column("v")}, "d"},
                                     {"min", {Column("v")}, "lo"}};
  auto source = MemorySource({input.Slice(0, 2500), input.Slice(2500, 3500)});
  auto single = MakeAggregate(source, {Column("g")}, aggs).ValueOrDie();
  auto partial = MakeAggregate(source, {Column("g")}, aggs, AggregateMode::kPartial).ValueOrDie();
  auto final_plan =
      MakeFinalAggregate(partial, static_cast<const AggregateNode&>(*partial)).ValueOrDie();
  auto expected = RunToBatch(single, OptionsFor({1, 131072, true})).ValueOrDie();
  EXPECT_EQ(expected.num_rows(), 501);
  ExpectPlanRows(final_plan, expected, false);
  // The reference: std::map.
  std::map<std::optional<int64_t>, int64_t> sums;
  for (size_t i = 0; i < g.size(); ++i)
    sums[g[i]] += *v[i];
  std::vector<std::optional<int64_t>> rg, rs;
  for (auto& [k, s] : sums) {
    rg.push_back(k);
    rs.push_back(s);
  }
  auto sums_only = MakeProject(single, {Column("g"), Column("s")}).ValueOrDie();
  ExpectPlanRows(sums_only, Batch({{"g", I64(rg)}, {"s", I64(rs)}}), false);
}

TEST(AggregateOperator, SpillsUnderASmallBudgetWithTheSameResult) {
  std::vector<std::optional<int64_t>> g, v;
  std::vector<std::optional<std::string>> name;
  for (int i = 0; i < 60000; ++i) {
    g.push_back(i % 20000);
    v.push_back(i);
    name.push_back("n" + std::to_string(i % 20000));
  }
  auto input = Batch({{"g", I64(g)}, {"name", Strs(name)}, {"v", I64(v)}});
  std::vector<RecordBatch> chunks;
  for (int o = 0; o < 60000; o += 5000)
    chunks.push_back(input.Slice(o, 5000));
  auto plan = MakeAggregate(MemorySource(chunks), {Column("g"), Column("name")},
                            {{"sum", {Column("v")}, "s"}, {"count_star", {}, "n"}})
                  .ValueOrDie();
  auto expected = RunToBatch(plan, OptionsFor({1, 131072, true})).ValueOrDie();
  ASSERT_EQ(expected.num_rows(), 20000);
  const ScopedSpillDir spill("aggregate_spill_test");
  const std::string& spill_dir = spill.path();
  ExpectSameRowsWhenSpilling(plan, expected, false, 256 * 1024, spill_dir, 1000);
}

TEST(AggregateOperator, OverflowErrorNamesTheFunction) {
  auto input = Batch({{"v", I64({INT64_MAX, 1})}});
  auto plan = MakeAggregate(MemorySource({input}), {}, {{"sum", {Column("v")}, "s"}}).ValueOrDie();
  auto result = RunToBatch(plan, OptionsFor({1, 131072, true}));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().ToString().find("sum"), std::string::npos)
      << result.status().ToString();
}

}  // namespace
}  // namespace flotilla::exec
