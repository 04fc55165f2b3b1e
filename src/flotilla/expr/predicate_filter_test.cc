#include "flotilla/expr/predicate_filter.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <vector>

#include "flotilla/compute/kernel_test_util.h"
#include "flotilla/expr/expression.h"

namespace flotilla::expr {
namespace {

using namespace flotilla::testing;  // NOLINT

// 0..99 with every seventh value null.
RecordBatch Numbers() {
  std::vector<std::optional<int64_t>> v;
  for (int64_t i = 0; i < 100; ++i)
    v.push_back(i % 7 == 3 ? std::nullopt : std::optional(i));
  return RecordBatch::FromColumns({{"v", I64(v)}}).ValueOrDie();
}

// The values of column 0 of `batch`, nulls as -1.
std::vector<int64_t> Values(const RecordBatch& batch) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < batch.num_rows(); ++i)
    out.push_back(batch.column(0).IsValid(i) ? batch.column(0).values<int64_t>()[i] : -1);
  return out;
}

std::vector<int64_t> Apply(const ExprPtr& predicate) {
  const RecordBatch batch = Numbers();
  auto filter = PredicateFilter::Make(predicate, *batch.schema()).ValueOrDie();
  return Values(filter.Apply(batch).ValueOrDie());
}

// The rows a reference keeps: every conjunct true, by hand.
std::vector<int64_t> Expected(const std::function<bool(int64_t)>& keep) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < 100; ++i)
    if (i % 7 != 3 && keep(i)) out.push_back(i);
  return out;
}

TEST(PredicateFilter, ConjunctsOfEverySelectivityKeepTheRowsAllOfThemAccept) {
  auto v = Column("v");
  auto lit = [](int64_t x) { return Literal(x); };
  // Keeps most (pending mask), then few (rows copied out), then all of what is left.
  EXPECT_EQ(Apply(And(And(Greater(v, lit(10)), Less(v, lit(30))), GreaterEqual(v, lit(0)))),
            Expected([](int64_t i) { return i > 10 && i < 30; }));
  // Two conjuncts that each keep most rows: only the AND of their masks is applied.
  EXPECT_EQ(Apply(And(Greater(v, lit(20)), Less(v, lit(90)))),
            Expected([](int64_t i) { return i > 20 && i < 90; }));
  // A null comparison drops the row (null rows of v too).
  EXPECT_EQ(Apply(NotEqual(v, lit(5))), Expected([](int64_t i) { return i != 5; }));
  // Constant conjuncts.
  EXPECT_EQ(Apply(And(Literal(true), Less(v, lit(3)))), Expected([](int64_t i) { return i < 3; }));
  EXPECT_TRUE(Apply(And(Less(v, lit(50)), Literal(false))).empty());
  EXPECT_TRUE(Apply(And(Less(v, lit(50)), NullLiteral(boolean()))).empty());
  EXPECT_TRUE(Apply(And(Less(v, lit(0)), Greater(v, lit(10)))).empty());
}

TEST(PredicateFilter, ANonBooleanPredicateIsATypeError) {
  const RecordBatch batch = Numbers();
  auto filter = PredicateFilter::Make(Column("v"), *batch.schema());
  // Refused when bound or when applied, never taken as a mask.
  EXPECT_TRUE(!filter.ok() || !filter->Apply(batch).ok());
}

}  // namespace
}  // namespace flotilla::expr
