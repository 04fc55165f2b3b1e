#include "flotilla/compute/arithmetic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "flotilla/compute/kernel_test_util.h"

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
  EXPECT_ARRAYS_EQUAL(F64({N, 0.5}), Apply(ArithmeticOp::kDivide, I64({1, 1}), I64({0, 2})));
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

TEST(ArithmeticTest, DateDifferenceAndEmpty) {
  EXPECT_ARRAYS_EQUAL(I64({31, -1, N}),
                      Apply(ArithmeticOp::kSubtract, Dates({31, 0, N}), Dates({0, 1, 5})));
  auto empty = Arithmetic(ArithmeticOp::kAdd, I64({}), I64({}), 0).ValueOrDie();
  EXPECT_EQ(empty.length(), 0);
  EXPECT_FALSE(Arithmetic(ArithmeticOp::kAdd, I64({1, 2}), I64({1, 2, 3}), 3).ok());
}

}  // namespace
}  // namespace flotilla::compute
