#include <gtest/gtest.h>

#include "flotilla/exec/exec_test_util.h"
#include "flotilla/expr/expression.h"

namespace flotilla::exec {
namespace {

using namespace test;
using expr::Column;

TEST(DistinctOperator, AllColumnsAndASubset) {
  auto input = Batch({{"a", I64({1, 2, 1, N, N, 2})}, {"b", Strs({"x", "y", "x", "z", "z", "w"})}});
  auto all = MakeDistinct(MemorySource({input})).ValueOrDie();
  ExpectPlanRows(all, Batch({{"a", I64({1, 2, N, 2})}, {"b", Strs({"x", "y", "z", "w"})}}), false);
  auto by_a = MakeDistinct(MemorySource({input}), {"a"}).ValueOrDie();
  for (const RunMode& mode : AllModes()) {
    auto result = RunToBatch(by_a, OptionsFor(mode)).ValueOrDie();
    EXPECT_EQ(result.num_rows(), 3) << mode.ToString();
    EXPECT_EQ(result.schema()->field(1).name, "b");
  }
  ExpectPlanRows(by_a, Batch({{"a", I64({1, 2, N})}, {"b", Strs({"x", "y", "z"})}}), false);
}

TEST(CrossJoinOperator, EveryPair) {
  auto l = Batch({{"a", I64({1, 2, 3})}});
  auto r = Batch({{"b", Strs({"x", N})}});
  auto plan = MakeCrossJoin(MemorySource({l}), MemorySource({r})).ValueOrDie();
  ExpectPlanRows(
      plan, Batch({{"a", I64({1, 1, 2, 2, 3, 3})}, {"b", Strs({"x", N, "x", N, "x", N})}}), false);
  auto empty =
      MakeCrossJoin(MemorySource({l}), MemorySource({Batch({{"b", Strs({})}})})).ValueOrDie();
  ExpectPlanRows(empty, Batch({{"a", I64({})}, {"b", Strs({})}}), false);
}

}  // namespace
}  // namespace flotilla::exec
