#include <gtest/gtest.h>

#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;

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
