#include "flotilla/expr/expression.h"

#include <gtest/gtest.h>

namespace flotilla::expr {
namespace {

TEST(ExpressionTest, ToStringReadsLikeSql) {
  EXPECT_EQ(Less(Column("o_orderdate"), Literal("1995-03-15"))->ToString(),
            "o_orderdate < '1995-03-15'");
  EXPECT_EQ(Multiply(Add(Column("a"), Literal(1)), Literal(2.5))->ToString(), "(a + 1) * 2.5");
  EXPECT_EQ(And(Not(Column("x")), Literal(true))->ToString(), "(NOT x) AND TRUE");
  EXPECT_EQ(Negate(Column("x"))->ToString(), "-x");
  EXPECT_EQ(Subtract(Column("a"), Negate(Column("x")))->ToString(), "a - (-x)");
  EXPECT_EQ(Cast(Column("x"), int32())->ToString(), "CAST(x AS int32)");
  EXPECT_EQ(TryCast(Column("x"), date32())->ToString(), "TRY_CAST(x AS date32)");
  EXPECT_EQ(Alias(Column("x"), "y")->ToString(), "x AS y");
  EXPECT_EQ(Call("lower", {Column("s")})->ToString(), "lower(s)");
  EXPECT_EQ(Case({{Column("c"), Literal(1)}}, Literal(2))->ToString(),
            "CASE WHEN c THEN 1 ELSE 2 END");
  EXPECT_EQ(IfElse(Column("c"), Literal(1), Literal(2))->ToString(),
            "CASE WHEN c THEN 1 ELSE 2 END");
  EXPECT_EQ(IsIn(Column("x"), {Literal(1), NullLiteral(null())})->ToString(), "x IN (1, NULL)");
  EXPECT_EQ(IsIn(Column("x"), {Literal("a")}, true)->ToString(), "x NOT IN ('a')");
  EXPECT_EQ(Between(Column("x"), Literal(1), Literal(5))->ToString(), "x BETWEEN 1 AND 5");
  EXPECT_EQ(IsNull(Column("x"))->ToString(), "x IS NULL");
  EXPECT_EQ(IsNotNull(Column("x"))->ToString(), "x IS NOT NULL");
  EXPECT_EQ(Coalesce({Column("a"), Literal(0)})->ToString(), "coalesce(a, 0)");
  EXPECT_EQ(Aggregate("sum", {Column("a")})->ToString(), "sum(a)");
  EXPECT_EQ(Window("row_number", {})->ToString(), "row_number() OVER (...)");
  EXPECT_EQ(DateLiteral(1995, 3, 15)->ToString(), "DATE '1995-03-15'");
  EXPECT_EQ(Literal("it's")->ToString(), "'it''s'");
  EXPECT_EQ(IntDiv(Column("a"), Mod(Column("b"), Literal(int64_t{3})))->ToString(), "a // (b % 3)");
}

TEST(ExpressionTest, Literals) {
  EXPECT_EQ(Literal(1)->literal().type()->ToString(), "int32");
  EXPECT_EQ(Literal(int64_t{1})->literal().type()->ToString(), "int64");
  EXPECT_EQ(Literal(1.0)->literal().type()->ToString(), "float64");
  EXPECT_EQ(Literal("x")->literal().type()->ToString(), "string");
  EXPECT_EQ(Literal(false)->literal().type()->ToString(), "bool");
  auto dec = DecimalLiteral("-123.45").ValueOrDie();
  EXPECT_EQ(dec->literal().type()->ToString(), "decimal128(5, 2)");
  EXPECT_EQ(dec->ToString(), "-123.45");
  EXPECT_FALSE(DecimalLiteral("1x").ok());
  EXPECT_TRUE(NullLiteral(int64())->literal().IsNull(0));
  EXPECT_EQ(NullLiteral(int64())->ToString(), "NULL");
  EXPECT_EQ(TimestampLiteral(0, TimeUnit::kSecond)->ToString(), "TIMESTAMP '1970-01-01 00:00:00'");
}

}  // namespace
}  // namespace flotilla::expr
