#include "flotilla/compute/arithmetic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/support/literal_arrays.h"

namespace flotilla::compute {
namespace {

using namespace flotilla::testing;  // NOLINT

Array Apply(ArithmeticOp op, const Array& a, const Array& b) {
  const int64_t n = std::max(a.length(), b.length());
  return Arithmetic(op, a, b, n).ValueOrDie();
}

TEST(ArithmeticTest, IntegersWithNulls) {
  auto a = I64({1, 2, N, -7, 10});
  auto b = I64({4, N, 3, 2, -3});
  EXPECT_ARRAYS_EQUAL(I64({5, N, N, -5, 7}), Apply(ArithmeticOp::kAdd, a, b));
  EXPECT_ARRAYS_EQUAL(I64({-3, N, N, -9, 13}), Apply(ArithmeticOp::kSubtract, a, b));
  EXPECT_ARRAYS_EQUAL(I64({4, N, N, -14, -30}), Apply(ArithmeticOp::kMultiply, a, b));
  EXPECT_ARRAYS_EQUAL(I64({0, N, N, -3, -3}), Apply(ArithmeticOp::kIntDiv, a, b));
  EXPECT_ARRAYS_EQUAL(I64({1, N, N, -1, 1}), Apply(ArithmeticOp::kMod, a, b));
  EXPECT_ARRAYS_EQUAL(F64({0.25, N, N, -3.5, 10.0 / -3}), Apply(ArithmeticOp::kDivide, a, b));
}

TEST(ArithmeticTest, NarrowIntegersAndBroadcast) {
  EXPECT_ARRAYS_EQUAL(I8({11, 12, N}), Apply(ArithmeticOp::kAdd, I8({1, 2, N}), I8({10})));
  EXPECT_ARRAYS_EQUAL(U8({9, 8}), Apply(ArithmeticOp::kSubtract, U8({10}), U8({1, 2})));
  auto overflow = Arithmetic(ArithmeticOp::kAdd, I8({100, 27}), I8({27}), 2);
  EXPECT_TRUE(overflow.ok());
  overflow = Arithmetic(ArithmeticOp::kAdd, I8({100, 28}), I8({28}), 2);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().message(), "integer overflow in 100 + 28 (int8)");
  auto under = Arithmetic(ArithmeticOp::kSubtract, U8({1}), U8({2}), 1);
  EXPECT_EQ(under.status().message(), "integer overflow in 1 - 2 (uint8)");
}

TEST(ArithmeticTest, Int64Overflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  auto r = Arithmetic(ArithmeticOp::kAdd, I64({max}), I64({1}), 1);
  EXPECT_EQ(r.status().message(), "integer overflow in 9223372036854775807 + 1 (int64)");
  EXPECT_FALSE(Arithmetic(ArithmeticOp::kMultiply, I64({max}), I64({2}), 1).ok());
  EXPECT_FALSE(Arithmetic(ArithmeticOp::kIntDiv, I64({min}), I64({-1}), 1).ok());
  EXPECT_ARRAYS_EQUAL(I64({0}), Apply(ArithmeticOp::kMod, I64({min}), I64({-1})));
  // A null row does not overflow even when its hidden value would.
  EXPECT_ARRAYS_EQUAL(I64({N, 2}), Apply(ArithmeticOp::kAdd, I64({N, 1}), I64({max, 1})));
  EXPECT_FALSE(Negate(I64({min})).ok());
  EXPECT_ARRAYS_EQUAL(I64({-max, N}), Negate(I64({max, N})).ValueOrDie());
}

TEST(ArithmeticTest, IntegerDivisionByZeroIsNull) {
  EXPECT_ARRAYS_EQUAL(I64({N, 2, N}), Apply(ArithmeticOp::kIntDiv, I64({5, 4, N}), I64({0, 2, 0})));
  EXPECT_ARRAYS_EQUAL(I32({N, 1}), Apply(ArithmeticOp::kMod, I32({5, 7}), I32({0, 3})));
}

TEST(ArithmeticTest, IntegerDivideByZeroIsIeee) {
  EXPECT_ARRAYS_EQUAL(F64({INFINITY, -INFINITY, 0.5}),
                      Apply(ArithmeticOp::kDivide, I64({1, -1, 1}), I64({0, 0, 2})));
  Array nan = Apply(ArithmeticOp::kDivide, I32({0}), I32({0}));
  EXPECT_TRUE(std::isnan(nan.values<double>()[0]));
}

TEST(ArithmeticTest, FloatsFollowIeee) {
  const double inf = std::numeric_limits<double>::infinity();
  auto q = Apply(ArithmeticOp::kDivide, F64({1, -1, 0, 7.5}), F64({0, 0, 0, 2}));
  EXPECT_EQ(q.values<double>()[0], inf);
  EXPECT_EQ(q.values<double>()[1], -inf);
  EXPECT_TRUE(std::isnan(q.values<double>()[2]));
  EXPECT_EQ(q.values<double>()[3], 3.75);
  EXPECT_ARRAYS_EQUAL(F64({3, -3}), Apply(ArithmeticOp::kIntDiv, F64({7.5, -7.5}), F64({2})));
  EXPECT_ARRAYS_EQUAL(F64({1.5, -1.5}), Apply(ArithmeticOp::kMod, F64({7.5, -7.5}), F64({2})));
  EXPECT_ARRAYS_EQUAL(F32({2.5f, N}), Apply(ArithmeticOp::kAdd, F32({1.0f, N}), F32({1.5f})));
  auto neg = Negate(F64({0.0})).ValueOrDie();
  EXPECT_TRUE(std::signbit(neg.values<double>()[0]));  // -(0.0) is -0.0
}

TEST(ArithmeticTest, DecimalResultTypes) {
  auto type = [](ArithmeticOp op, int p1, int s1, int p2, int s2) {
    return ArithmeticResultType(op, decimal128(p1, s1), decimal128(p2, s2))
        .ValueOrDie()
        ->ToString();
  };
  EXPECT_EQ(type(ArithmeticOp::kAdd, 10, 2, 5, 3), "decimal128(12, 3)");
  EXPECT_EQ(type(ArithmeticOp::kSubtract, 38, 2, 38, 2), "decimal128(38, 2)");
  EXPECT_EQ(type(ArithmeticOp::kMultiply, 10, 2, 5, 3), "decimal128(16, 5)");
  EXPECT_EQ(type(ArithmeticOp::kDivide, 10, 2, 5, 3), "decimal128(19, 8)");
  EXPECT_EQ(type(ArithmeticOp::kDivide, 38, 10, 38, 10), "decimal128(38, 6)");
  EXPECT_EQ(type(ArithmeticOp::kMod, 10, 2, 5, 3), "decimal128(5, 3)");
  EXPECT_EQ(ArithmeticResultType(ArithmeticOp::kAdd, int64(), utf8()).status().message(),
            "cannot apply + to int64 and string");
  EXPECT_EQ(ArithmeticResultType(ArithmeticOp::kDivide, int32(), int32()).ValueOrDie()->ToString(),
            "float64");
}

TEST(ArithmeticTest, DecimalValuesWithMixedScales) {
  auto a = Decimals(10, 2, {"1.25", "-3.50", N, "0.01"});
  auto b = Decimals(5, 3, {"0.125", "2.000", "1.000", "-0.005"});
  EXPECT_ARRAYS_EQUAL(Decimals(12, 3, {"1.375", "-1.500", N, "0.005"}),
                      Apply(ArithmeticOp::kAdd, a, b));
  EXPECT_ARRAYS_EQUAL(Decimals(12, 3, {"1.125", "-5.500", N, "0.015"}),
                      Apply(ArithmeticOp::kSubtract, a, b));
  EXPECT_ARRAYS_EQUAL(Decimals(16, 5, {"0.15625", "-7.00000", N, "-0.00005"}),
                      Apply(ArithmeticOp::kMultiply, a, b));
  // 1.25 / 0.125 = 10; -3.5 / 2 = -1.75; 0.01 / -0.005 = -2 (scale 8).
  EXPECT_ARRAYS_EQUAL(Decimals(19, 8, {"10.00000000", "-1.75000000", N, "-2.00000000"}),
                      Apply(ArithmeticOp::kDivide, a, b));
  EXPECT_ARRAYS_EQUAL(Decimals(5, 3, {"0.000", "-1.500", N, "0.000"}),
                      Apply(ArithmeticOp::kMod, a, b));
}

TEST(ArithmeticTest, DecimalsWithoutNullsOfAtMost18DigitsInEveryShape) {
  // Without nulls and within 18 digits the kernel takes its 64-bit loop; the values are
  // worked by hand, for column with column, column with constant and constant with column.
  auto a = Decimals(15, 2, {"1.50", "-2.25", "9999999999999.99", "0.00"});
  auto b = Decimals(15, 2, {"-2.00", "0.05", "9999999999999.99", "-0.01"});
  EXPECT_ARRAYS_EQUAL(
      Decimals(31, 4, {"-3.0000", "-0.1125", "99999999999999800000000000.0001", "0.0000"}),
      Apply(ArithmeticOp::kMultiply, a, b));
  EXPECT_ARRAYS_EQUAL(Decimals(16, 2, {"-0.50", "-2.20", "19999999999999.98", "-0.01"}),
                      Apply(ArithmeticOp::kAdd, a, b));
  auto one = Decimals(1, 0, {"1"});
  auto discount = Decimals(15, 2, {"0.05", "0.10", "0.00"});
  EXPECT_ARRAYS_EQUAL(Decimals(16, 2, {"0.95", "0.90", "1.00"}),
                      Apply(ArithmeticOp::kSubtract, one, discount));
  EXPECT_ARRAYS_EQUAL(Decimals(16, 2, {"-0.95", "-0.90", "-1.00"}),
                      Apply(ArithmeticOp::kSubtract, discount, one));
  // Different scales: 12.34 + 0.006 at scale 3.
  EXPECT_ARRAYS_EQUAL(
      Decimals(17, 3, {"12.346", "-12.334"}),
      Apply(ArithmeticOp::kAdd, Decimals(15, 2, {"12.34", "-12.34"}), Decimals(4, 3, {"0.006"})));
}

TEST(ArithmeticTest, DecimalRoundingDivisionByZeroAndOverflow) {
  // 2 / 3 at scale 6 rounds half away from zero: 0.666667; -2 / 3 -> -0.666667.
  auto q = Apply(ArithmeticOp::kDivide, Decimals(1, 0, {"2", "-2", "1"}),
                 Decimals(1, 0, {"3", "3", "0"}));
  EXPECT_ARRAYS_EQUAL(Decimals(7, 6, {"0.666667", "-0.666667", N}), q);
  auto big = Decimals(38, 0, {"99999999999999999999999999999999999999"});
  auto r = Arithmetic(ArithmeticOp::kAdd, big, big, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "decimal overflow in 99999999999999999999999999999999999999 + "
            "99999999999999999999999999999999999999: the result does not fit decimal128(38, 0)");
  EXPECT_FALSE(Arithmetic(ArithmeticOp::kMultiply, big, big, 1).ok());
  EXPECT_ARRAYS_EQUAL(Decimals(38, 0, {"-99999999999999999999999999999999999999"}),
                      Negate(big).ValueOrDie());
}

// A one-row operand stands for every row; the kernel reads and rescales it once. Every operation
// with the scalar on either side equals the same operation on the scalar repeated.
TEST(ArithmeticTest, DecimalScalarOperandsOnEitherSide) {
  auto column = Decimals(10, 2, {"1.25", "-3.50", N, "0.00", "7.05"});
  for (const char* value : {"2.125", "-0.004", "0.000"}) {
    auto scalar = Decimals(5, 3, {value});
    auto repeated = Decimals(5, 3, {value, value, value, value, value});
    for (ArithmeticOp op : {ArithmeticOp::kAdd, ArithmeticOp::kSubtract, ArithmeticOp::kMultiply,
                            ArithmeticOp::kDivide, ArithmeticOp::kMod}) {
      SCOPED_TRACE(std::string(value) + " " + ArithmeticOpSymbol(op));
      EXPECT_ARRAYS_EQUAL(Apply(op, column, repeated), Apply(op, column, scalar));
      EXPECT_ARRAYS_EQUAL(Apply(op, repeated, column), Apply(op, scalar, column));
    }
  }
  // TPC-H Q1's shapes: 1 - l_discount, 1 + l_tax.
  auto discount = Decimals(15, 2, {"0.04", "0.10", N, "0.00"});
  EXPECT_ARRAYS_EQUAL(Decimals(16, 2, {"0.96", "0.90", N, "1.00"}),
                      Apply(ArithmeticOp::kSubtract, Decimals(1, 0, {"1"}), discount));
  EXPECT_ARRAYS_EQUAL(Decimals(16, 2, {"1.04", "1.10", N, "1.00"}),
                      Apply(ArithmeticOp::kAdd, discount, Decimals(1, 0, {"1"})));
  // A scalar divisor: 7.05 / 4 = 1.7625; zero gives null rows.
  EXPECT_ARRAYS_EQUAL(Decimals(14, 6, {"0.312500", "-0.875000", N, "0.000000", "1.762500"}),
                      Apply(ArithmeticOp::kDivide, column, Decimals(1, 0, {"4"})));
  EXPECT_ARRAYS_EQUAL(Decimals(14, 6, {N, N, N, N, N}),
                      Apply(ArithmeticOp::kDivide, column, Decimals(1, 0, {"0"})));
  EXPECT_ARRAYS_EQUAL(Decimals(3, 2, {N, N, N, N, N}),
                      Apply(ArithmeticOp::kMod, column, Decimals(1, 0, {"0"})));
  // A null scalar, and two scalars broadcast over three rows.
  EXPECT_ARRAYS_EQUAL(Decimals(12, 3, {N, N, N, N, N}),
                      Apply(ArithmeticOp::kAdd, Decimals(5, 3, {N}), column));
  EXPECT_ARRAYS_EQUAL(
      Decimals(3, 1, {"1.5", "1.5", "1.5"}),
      Arithmetic(ArithmeticOp::kAdd, Decimals(1, 0, {"1"}), Decimals(1, 1, {"0.5"}), 3)
          .ValueOrDie());
}

// Operands at different scales are brought to the output scale, by factors that fit int64 and
// by factors that do not (10^30).
TEST(ArithmeticTest, DecimalRescaleWithDifferentScales) {
  auto whole = Decimals(5, 0, {"12345", "-1", N});
  auto fine = Decimals(20, 10, {"0.0000000001", "-99.5", "1"});
  EXPECT_ARRAYS_EQUAL(Decimals(21, 10, {"12345.0000000001", "-100.5000000000", N}),
                      Apply(ArithmeticOp::kAdd, whole, fine));
  EXPECT_ARRAYS_EQUAL(Decimals(21, 10, {"98.9999999999", "98.5", N}),
                      Apply(ArithmeticOp::kSubtract, Decimals(5, 0, {"99", "-1", N}), fine));
  auto tiny = Decimals(38, 30, {"0.000000000000000000000000000001", "-1.5", N});
  EXPECT_ARRAYS_EQUAL(Decimals(38, 30, {"12345.000000000000000000000000000001", "-2.5", N}),
                      Apply(ArithmeticOp::kAdd, whole, tiny));
  // 12 / 10^-30 at scale 6: the dividend is scaled by 10^36.
  EXPECT_ARRAYS_EQUAL(Decimals(38, 6, {"12000000000000000000000000000000", N, "-0.5"}),
                      Apply(ArithmeticOp::kDivide, Decimals(2, 0, {"12", N, "-1"}),
                            Decimals(38, 30, {"0.000000000000000000000000000001", "1", "2"})));
}

// Products of operands that fit int64 take a widening multiply even when the int64 product
// would overflow; operands beyond int64 take the checked 128-bit multiply.
TEST(ArithmeticTest, DecimalMultiplyBeyondInt64) {
  auto max = Decimals(19, 0, {"9223372036854775807", "-9223372036854775808", "10000000000"});
  auto same = Decimals(19, 0, {"9223372036854775807", "-9223372036854775808", "10000000000"});
  EXPECT_ARRAYS_EQUAL(Decimals(38, 0,
                               {"85070591730234615847396907784232501249",
                                "85070591730234615865843651857942052864", "100000000000000000000"}),
                      Apply(ArithmeticOp::kMultiply, max, same));
  EXPECT_ARRAYS_EQUAL(Decimals(37, 8, {"-152415787532388365279682997.65279684"}),
                      Apply(ArithmeticOp::kMultiply, Decimals(18, 4, {"12345678901234.5678"}),
                            Decimals(18, 4, {"-12345678901234.5678"})));
  EXPECT_ARRAYS_EQUAL(
      Decimals(29, 0, {"-300000000000000000000", "3", N}),
      Apply(ArithmeticOp::kMultiply, Decimals(25, 0, {"100000000000000000000", "-1", N}),
            Decimals(3, 0, {"-3"})));
}

// Results beyond the output precision (or beyond 128 bits) fail with the same message whichever
// multiply path computed them; a null row hides an overflow.
TEST(ArithmeticTest, DecimalPrecisionOverflow) {
  auto e19 = Decimals(20, 0, {"10000000000000000000"});
  auto r = Arithmetic(ArithmeticOp::kMultiply, e19, e19, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "decimal overflow in 10000000000000000000 * 10000000000000000000: the result does not "
            "fit decimal128(38, 0)");
  r = Arithmetic(ArithmeticOp::kMultiply, Decimals(38, 0, {"100000000000000000000000000000"}),
                 Decimals(10, 0, {"1", "1000000000"}), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "decimal overflow in 100000000000000000000000000000 * 1000000000: the result does not "
            "fit decimal128(38, 0)");
  auto big = Decimals(38, 0, {"99999999999999999999999999999999999999"});
  r = Arithmetic(ArithmeticOp::kMultiply, big, Decimals(38, 0, {N, "-2"}), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "decimal overflow in 99999999999999999999999999999999999999 * -2: the result does not "
            "fit decimal128(38, 0)");
  EXPECT_ARRAYS_EQUAL(Decimals(38, 0, {N, "2"}),
                      Apply(ArithmeticOp::kMultiply, Decimals(38, 0, {N, "1"}),
                            Decimals(38, 0, {"99999999999999999999999999999999999999", "2"})));
  // A scalar whose rescale overflows 128 bits fails on the first valid row only.
  auto scale30 = Decimals(38, 30, {N, "0"});
  EXPECT_ARRAYS_EQUAL(Decimals(38, 30, {N}), Apply(ArithmeticOp::kAdd, big, scale30.Slice(0, 1)));
  r = Arithmetic(ArithmeticOp::kAdd, big, scale30, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "decimal overflow in 99999999999999999999999999999999999999 + "
            "0.000000000000000000000000000000: the result does not fit decimal128(38, 30)");
  // Rescaling this scalar by 10 overflows 128 bits, though the wrapped value rescaled again
  // would fit: the overflow must be reported from the original value.
  r = Arithmetic(ArithmeticOp::kSubtract, Decimals(17, 3, {"1.000", N}),
                 Decimals(38, 2, {"-332727919102396386912226476147844104.94"}), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "decimal overflow in 1.000 - -332727919102396386912226476147844104.94: the result does "
            "not fit decimal128(38, 3)");
  r = Arithmetic(ArithmeticOp::kSubtract, scale30, big, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "decimal overflow in 0.000000000000000000000000000000 - "
            "99999999999999999999999999999999999999: the result does not fit decimal128(38, 30)");
}

TEST(ArithmeticTest, DateDifferenceAndEmpty) {
  EXPECT_ARRAYS_EQUAL(I64({31, -1, N}),
                      Apply(ArithmeticOp::kSubtract, Dates({31, 0, N}), Dates({0, 1, 5})));
  auto empty = Arithmetic(ArithmeticOp::kAdd, I64({}), I64({}), 0).ValueOrDie();
  EXPECT_EQ(empty.length(), 0);
  EXPECT_FALSE(Arithmetic(ArithmeticOp::kAdd, I64({1, 2}), I64({1, 2, 3}), 3).ok());
}

}  // namespace
}  // namespace flotilla::compute
