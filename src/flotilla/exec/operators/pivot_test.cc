#include <gtest/gtest.h>

#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;

// g: group key (with nulls), p: pivot value (with nulls and a value that is no name),
// v: value (with nulls).
RecordBatch Input() {
  return Batch({{"g", Strs({"a", "b", "a", N, "a", "b", N, "a", "c", "b"})},
                {"p", Strs({"x", "x", "y", "x", "x", N, "y", "z", "z", "y"})},
                {"v", I64({1, 10, 2, 100, 3, 1000, N, 5, 7, N})}});
}

// Several batches, so threads and morsels split the rows.
PlanPtr Source() {
  RecordBatch input = Input();
  return MemorySource({input.Slice(0, 3), input.Slice(3, 4), input.Slice(7, 3)});
}

TEST(PivotOperator, SumWithNullKeysPivotValuesAndValues) {
  // "w" never occurs; "z" rows and the null pivot value are ignored, but their groups exist.
  auto plan = MakePivot(Source(), {Column("g")}, Column("p"), Column("v"), "sum", {"x", "y", "w"})
                  .ValueOrDie();
  auto expected = Batch({{"g", Strs({"a", "b", N, "c"})},
                         {"x", I64({4, 10, 100, N})},
                         {"y", I64({2, N, N, N})},
                         {"w", I64({N, N, N, N})}});
  ExpectPlanRows(plan, expected, false);
}

TEST(PivotOperator, CountGivesZeroForAnEmptyCell) {
  auto plan = MakePivot(Source(), {Column("g")}, Column("p"), Column("v"), "count", {"x", "y", "w"})
                  .ValueOrDie();
  // count(v) skips null values: b's "y" row has a null v, N's "y" row too.
  auto expected = Batch({{"g", Strs({"a", "b", N, "c"})},
                         {"x", I64({2, 1, 1, 0})},
                         {"y", I64({1, 0, 0, 0})},
                         {"w", I64({0, 0, 0, 0})}});
  ExpectPlanRows(plan, expected, false);
}

TEST(PivotOperator, NonStringPivotColumnIsCastToUtf8) {
  auto input = Batch({{"g", I64({1, 1, 2, 2, N})},
                      {"p", I64({10, 20, 10, N, 20})},
                      {"v", F64({0.5, 1.5, 2.5, 3.5, 4.5})}});
  auto plan =
      MakePivot(MemorySource({input}), {Column("g")}, Column("p"), Column("v"), "max", {"10", "20"})
          .ValueOrDie();
  auto expected =
      Batch({{"g", I64({1, 2, N})}, {"10", F64({0.5, 2.5, N})}, {"20", F64({1.5, N, 4.5})}});
  ExpectPlanRows(plan, expected, false);
}

TEST(PivotOperator, SeveralKeys) {
  auto input = Batch({{"a", I64({1, 1, 1, 2})},
                      {"b", Strs({"u", "u", "v", "u"})},
                      {"p", Strs({"x", "y", "x", "x"})},
                      {"v", I64({1, 2, 3, 4})}});
  auto plan = MakePivot(MemorySource({input}), {Column("a"), Column("b")}, Column("p"), Column("v"),
                        "sum", {"x", "y"})
                  .ValueOrDie();
  auto expected = Batch({{"a", I64({1, 1, 2})},
                         {"b", Strs({"u", "v", "u"})},
                         {"x", I64({1, 3, 4})},
                         {"y", I64({2, N, N})}});
  ExpectPlanRows(plan, expected, false);
}

TEST(PivotOperator, EmptyInput) {
  auto empty = Batch({{"g", Strs({})}, {"p", Strs({})}, {"v", I64({})}});
  auto plan =
      MakePivot(MemorySource({empty}), {Column("g")}, Column("p"), Column("v"), "sum", {"x", "y"})
          .ValueOrDie();
  ExpectPlanRows(plan, Batch({{"g", Strs({})}, {"x", I64({})}, {"y", I64({})}}), false);
  // Without group keys there is one group, as for an ungrouped aggregate.
  auto ungrouped =
      MakePivot(MemorySource({empty}), {}, Column("p"), Column("v"), "count", {"x"}).ValueOrDie();
  ExpectPlanRows(ungrouped, Batch({{"x", I64({0})}}), false);
}

TEST(PivotOperator, WithoutGroupKeys) {
  auto plan =
      MakePivot(Source(), {}, Column("p"), Column("v"), "sum", {"x", "y", "z"}).ValueOrDie();
  ExpectPlanRows(plan, Batch({{"x", I64({114})}, {"y", I64({2})}, {"z", I64({12})}}), false);
}

TEST(PivotOperator, UnknownFunctionIsAnError) {
  auto plan = MakePivot(Source(), {Column("g")}, Column("p"), Column("v"), "no_such", {"x"});
  EXPECT_FALSE(plan.ok());
}

}  // namespace
}  // namespace flotilla::exec
