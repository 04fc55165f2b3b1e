#include "flotilla/expr/evaluator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "flotilla/compute/kernel_test_util.h"

namespace flotilla::expr {
namespace {

using namespace flotilla::testing;  // NOLINT

RecordBatch TestBatch() {
  return RecordBatch::FromColumns({
                                      {"a", I64({1, 2, N, 4})},
                                      {"b", I64({10, N, 30, 0})},
                                      {"p", Bools({true, false, N, true})},
                                      {"q", Bools({N, N, N, false})},
                                      {"d", Dates({9203, 9204, 9205, N})},
                                      {"s", Strs({"x", N, "z", "w"})},
                                      {"m", Decimals(5, 2, {"1.50", "-2.25", N, "0.01"})},
                                      {"f", F64({1.5, std::nan(""), -0.0, N})},
                                  })
      .ValueOrDie();
}

Result<Datum> Eval(const ExprPtr& e, const RecordBatch& batch = TestBatch()) {
  FLOTILLA_ASSIGN_OR_RETURN(BoundExpression bound, Bind(e, *batch.schema()));
  return Evaluate(bound, batch);
}

Array Col(const ExprPtr& e) {
  Datum d = Eval(e).ValueOrDie();
  EXPECT_FALSE(d.is_scalar()) << e->ToString();
  return d.array();
}

TEST(EvaluatorTest, ArithmeticWithNullsAndCoercion) {
  EXPECT_ARRAYS_EQUAL(I64({11, N, N, 4}), Col(Add(Column("a"), Column("b"))));
  EXPECT_ARRAYS_EQUAL(I64({2, 3, N, 5}), Col(Add(Column("a"), Literal(1))));
  EXPECT_ARRAYS_EQUAL(I64({0, N, N, N}), Col(IntDiv(Column("a"), Column("b"))));
  EXPECT_ARRAYS_EQUAL(F64({0.1, N, N, N}), Col(Divide(Column("a"), Column("b"))));
  EXPECT_ARRAYS_EQUAL(I64({-1, -2, N, -4}), Col(Negate(Column("a"))));
  EXPECT_ARRAYS_EQUAL(Decimals(22, 2, {"2.50", "-0.25", N, "4.01"}),
                      Col(Add(Column("m"), Column("a"))));
  EXPECT_ARRAYS_EQUAL(I64({0, 1, 2, N}), Col(Subtract(Column("d"), DateLiteral(1995, 3, 14))));
  auto overflow = Eval(Multiply(Column("a"), Literal(int64_t{4611686018427387904})));
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().message(),
            "in `a * 4611686018427387904`: integer overflow in 2 * 4611686018427387904 (int64)");
}

TEST(EvaluatorTest, ComparisonsAndDates) {
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false, N}),
                      Col(Less(Column("d"), Literal("1995-03-15"))));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, N, false}), Col(Less(Column("a"), Column("b"))));
  // NaN is greater than every number.
  EXPECT_ARRAYS_EQUAL(Bools({true, true, false, N}), Col(Greater(Column("f"), Literal(1))));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, true, N}), Col(Equal(Column("f"), Literal(0.0))));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, false, false}), Col(Equal(Column("s"), Literal("x"))));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, N, false}),
                      Col(Equal(Column("m"), DecimalLiteral(150000, 8, 5))));
}

TEST(EvaluatorTest, KleeneLogicOverColumns) {
  EXPECT_ARRAYS_EQUAL(Bools({N, false, N, false}), Col(And(Column("p"), Column("q"))));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, N, true}), Col(Or(Column("p"), Column("q"))));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N, false}), Col(Not(Column("p"))));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, false, false}), Col(And(Column("p"), Literal(false))));
  EXPECT_ARRAYS_EQUAL(Bools({N, false, N, N}), Col(And(Column("p"), NullLiteral(null()))));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, N, true}), Col(Or(Column("p"), NullLiteral(boolean()))));
}

TEST(EvaluatorTest, CaseTakesFirstTrueWhen) {
  // Row 2 has p = null: not true, so it falls through to the next WHEN / ELSE.
  auto e =
      Case({{Column("p"), Literal("first")}, {Greater(Column("a"), Literal(0)), Literal("second")}},
           Literal("else"));
  EXPECT_ARRAYS_EQUAL(Strs({"first", "second", "else", "first"}), Col(e));
  EXPECT_ARRAYS_EQUAL(I64({1, N, N, 4}), Col(Case({{Column("p"), Column("a")}})));
  EXPECT_ARRAYS_EQUAL(I64({1, N, 30, 4}), Col(IfElse(Column("p"), Column("a"), Column("b"))));
}

TEST(EvaluatorTest, CoalesceIsNullBetween) {
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 30, 4}), Col(Coalesce({Column("a"), Column("b")})));
  EXPECT_ARRAYS_EQUAL(I64({10, 2, 30, 0}), Col(Coalesce({Column("b"), Column("a"), Literal(0)})));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, true, false}), Col(IsNull(Column("a"))));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, true, true}), Col(IsNotNull(Column("b"))));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N, false}),
                      Col(Between(Column("a"), Literal(2), Literal(3))));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, N, true}),
                      Col(Between(Column("a"), Literal(2), Literal(3), true)));
}

TEST(EvaluatorTest, IsInFollowsSqlNullRules) {
  EXPECT_ARRAYS_EQUAL(Bools({true, false, N, true}),
                      Col(IsIn(Column("a"), {Literal(1), Literal(4)})));
  // No match and a null in the list: null; a match still wins.
  EXPECT_ARRAYS_EQUAL(Bools({true, N, N, N}),
                      Col(IsIn(Column("a"), {Literal(1), NullLiteral(null())})));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N, false}),
                      Col(IsIn(Column("a"), {Literal(1), Literal(4)}, true)));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false, N}),
                      Col(IsIn(Column("d"), {Literal("1995-03-14")})));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, false, true}),
                      Col(IsIn(Column("s"), {Literal("w"), Literal("x")})));
}

TEST(EvaluatorTest, ScalarsEmptyBatchesAndPlaceholders) {
  Datum d = Eval(Add(Literal(1), Literal(2))).ValueOrDie();
  EXPECT_TRUE(d.is_scalar());
  EXPECT_ARRAYS_EQUAL(I32({3}), d.array());
  auto empty = TestBatch().Slice(0, 0);
  auto r = Eval(Add(Column("a"), Column("b")), empty).ValueOrDie();
  EXPECT_EQ(r.array().length(), 0);
  EXPECT_EQ(Eval(Case({{Column("p"), Column("a")}}, Literal(int64_t{0})), empty)
                .ValueOrDie()
                .array()
                .length(),
            0);
  auto agg = Eval(Aggregate("sum", {Column("a")}));
  EXPECT_EQ(agg.status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(agg.status().message(), "aggregate sum must be evaluated by an aggregation operator");
  EXPECT_EQ(Eval(Window("rank", {})).status().code(), StatusCode::kNotImplemented);
  // Casts inside expressions: TRY_CAST gives null where CAST fails.
  EXPECT_ARRAYS_EQUAL(I32({N, N, N, N}), Col(TryCast(Column("s"), int32())));
  auto bad = Eval(Cast(Column("s"), int32()));
  EXPECT_EQ(bad.status().message(),
            "in `CAST(s AS int32)`: cannot cast string value 'x' (row 0) to int32");
}

}  // namespace
}  // namespace flotilla::expr
