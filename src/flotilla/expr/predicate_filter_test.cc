#include "flotilla/expr/predicate_filter.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <vector>

#include "flotilla/expr/expression.h"
#include "tests/support/literal_arrays.h"

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

TEST(PredicateFilter, LaterConjunctsReadTheirOwnColumnsOfTheRowsLeft) {
  // Columns read by no conjunct, by the first only and by later ones; the rows kept come back
  // with every column, in order.
  std::vector<std::optional<int64_t>> a, b, c;
  std::vector<std::optional<std::string>> s;
  for (int64_t i = 0; i < 200; ++i) {
    a.push_back(i);
    b.push_back(i % 10 == 0 ? std::nullopt : std::optional(i % 13));
    c.push_back(-i);
    s.push_back(std::string(1, static_cast<char>('a' + i % 3)));
  }
  const RecordBatch batch =
      RecordBatch::FromColumns({{"a", I64(a)}, {"b", I64(b)}, {"c", I64(c)}, {"s", Strs(s)}})
          .ValueOrDie();
  auto filter = PredicateFilter::Make(And(And(Less(Column("a"), Literal(int64_t{150})),
                                              GreaterEqual(Column("b"), Literal(int64_t{4}))),
                                          Equal(Column("s"), Literal("b"))),
                                      *batch.schema())
                    .ValueOrDie();
  const RecordBatch out = filter.Apply(batch).ValueOrDie();
  ASSERT_EQ(out.num_columns(), 4);
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 150; ++i)
    if (i % 10 != 0 && i % 13 >= 4 && i % 3 == 1) want.push_back(i);
  EXPECT_EQ(Values(out), want);
  for (int64_t r = 0; r < out.num_rows(); ++r) {
    EXPECT_EQ(out.column(2).values<int64_t>()[r], -want[static_cast<size_t>(r)]);
    EXPECT_EQ(out.column(3).GetView(r), "b");
  }
}

TEST(PredicateFilter, StringConjunctsWrittenFirstKeepTheSameRows) {
  // Conjuncts on strings run after those on numbers: the string one first in the predicate,
  // with nulls in both, keeps exactly the rows where every conjunct is true.
  std::vector<std::optional<int64_t>> a;
  std::vector<std::optional<std::string>> s;
  for (int64_t i = 0; i < 300; ++i) {
    a.push_back(i % 11 == 0 ? std::nullopt : std::optional(i));
    s.push_back(i % 5 == 0 ? std::nullopt : std::optional(std::string(1, 'a' + i % 4)));
  }
  const RecordBatch batch = RecordBatch::FromColumns({{"a", I64(a)}, {"s", Strs(s)}}).ValueOrDie();
  auto filter =
      PredicateFilter::Make(
          And(And(NotEqual(Column("s"), Literal("c")), Less(Column("a"), Literal(int64_t{200}))),
              Greater(Column("a"), Literal(int64_t{20}))),
          *batch.schema())
          .ValueOrDie();
  std::vector<int64_t> want;
  for (int64_t i = 21; i < 200; ++i)
    if (i % 11 != 0 && i % 5 != 0 && i % 4 != 2) want.push_back(i);
  const RecordBatch out = filter.Apply(batch).ValueOrDie();
  EXPECT_EQ(Values(out), want);
  for (int64_t r = 0; r < out.num_rows(); ++r)
    EXPECT_EQ(out.column(1).GetView(r), std::string(1, 'a' + want[static_cast<size_t>(r)] % 4));
}

TEST(PredicateFilter, ANonBooleanPredicateIsATypeError) {
  const RecordBatch batch = Numbers();
  auto filter = PredicateFilter::Make(Column("v"), *batch.schema());
  // Refused when bound or when applied, never taken as a mask.
  EXPECT_TRUE(!filter.ok() || !filter->Apply(batch).ok());
}

}  // namespace
}  // namespace flotilla::expr
