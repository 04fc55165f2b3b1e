#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "flotilla/expr/functions/elementwise_test_support.h"

namespace flotilla::expr {
namespace {

using testing::Call;
using testing::Col;
using testing::I64Scalar;
using testing::MakeDecimals;
using testing::MakeNumeric;
using testing::Scalar;
using testing::Values;
using Doubles = std::vector<std::optional<double>>;
using I128s = std::vector<std::optional<Int128>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Datum F64(const Doubles& v) {
  return Col(MakeNumeric<double>(float64(), v));
}
Datum F64Scalar(double v) {
  return Scalar(MakeNumeric<double>(float64(), {v}));
}

/// The one float64 result of `name(args...)`.
double One(const std::string& name, std::vector<Datum> args) {
  auto out = Call(name, args);
  EXPECT_TRUE(out.ok()) << name << ": " << out.status().ToString();
  return out.ok() ? *Values<double>(*out)[0] : -12345.0;
}

TEST(MathAbsTest, IntegersFloatsDecimals) {
  auto ints = Call("abs", {Col(MakeNumeric<int32_t>(int32(), {-5, std::nullopt, 7, 0}))});
  ASSERT_TRUE(ints.ok());
  EXPECT_EQ(Values<int32_t>(*ints), (std::vector<std::optional<int32_t>>{5, std::nullopt, 7, 0}));
  auto min8 = Call("abs", {Col(MakeNumeric<int8_t>(int8(), {1, -128}))});
  ASSERT_EQ(min8.status().code(), StatusCode::kInvalid);
  EXPECT_NE(min8.status().message().find("-128"), std::string::npos);
  EXPECT_FALSE(Call("abs", {Scalar(MakeNumeric<int64_t>(int64(), {INT64_MIN}))}).ok());
  EXPECT_EQ(*Values<int64_t>(Call("abs", {I64Scalar(INT64_MIN + 1)}).ValueOrDie())[0], INT64_MAX);
  auto u = Call("abs", {Col(MakeNumeric<uint8_t>(uint8(), {200}))});
  EXPECT_EQ(*Values<uint8_t>(*u)[0], 200);

  auto f = Call("abs", {F64({-0.0, -2.5, kNaN, -std::numeric_limits<double>::infinity()})});
  auto v = Values<double>(*f);
  EXPECT_EQ(*v[0], 0.0);
  EXPECT_FALSE(std::signbit(*v[0]));
  EXPECT_EQ(*v[1], 2.5);
  EXPECT_TRUE(std::isnan(*v[2]));
  EXPECT_EQ(*v[3], std::numeric_limits<double>::infinity());
  auto f32 = Call("abs", {Col(MakeNumeric<float>(float32(), {-1.5f}))});
  EXPECT_EQ(*Values<float>(*f32)[0], 1.5f);

  auto dec = Call("abs", {Col(MakeDecimals(5, 2, {-12345, 100, std::nullopt}))});
  ASSERT_TRUE(dec.ok());
  EXPECT_TRUE(dec->type()->Equals(*decimal128(5, 2)));
  EXPECT_EQ(Values<Int128>(*dec), (I128s{12345, 100, std::nullopt}));

  auto empty = Call("abs", {Col(MakeNumeric<int64_t>(int64(), {}))}, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->array().length(), 0);
  auto err = DefaultRegistry().Find("abs").ValueOrDie()->resolve({utf8()});
  ASSERT_EQ(err.status().code(), StatusCode::kTypeError);
  EXPECT_NE(err.status().message().find("abs()"), std::string::npos);
}

TEST(MathSignTest, Signs) {
  auto ints = Call("sign", {Col(MakeNumeric<int32_t>(int32(), {-3, 0, 9, std::nullopt}))});
  ASSERT_TRUE(ints.ok());
  EXPECT_EQ(Values<int8_t>(*ints), (std::vector<std::optional<int8_t>>{-1, 0, 1, std::nullopt}));
  auto dec = Call("sign", {Col(MakeDecimals(5, 2, {-1, 0}))});
  EXPECT_EQ(Values<int8_t>(*dec), (std::vector<std::optional<int8_t>>{-1, 0}));
  auto f = Values<double>(Call("sign", {F64({-2.5, -0.0, kNaN, 7.0})}).ValueOrDie());
  EXPECT_EQ(*f[0], -1.0);
  EXPECT_TRUE(std::signbit(*f[1]) && *f[1] == 0.0);
  EXPECT_TRUE(std::isnan(*f[2]));
  EXPECT_EQ(*f[3], 1.0);
}

TEST(MathFloorCeilTruncTest, FloatsKeepSignedZero) {
  Datum x = F64({-1.5, 1.5, -0.0, -0.5, kNaN, std::nullopt});
  auto floor = Values<double>(Call("floor", {x}).ValueOrDie());
  EXPECT_EQ(*floor[0], -2.0);
  EXPECT_EQ(*floor[1], 1.0);
  EXPECT_TRUE(std::signbit(*floor[2]));
  EXPECT_EQ(*floor[3], -1.0);
  EXPECT_TRUE(std::isnan(*floor[4]));
  EXPECT_FALSE(floor[5].has_value());
  auto ceil = Values<double>(Call("ceil", {x}).ValueOrDie());
  EXPECT_EQ(*ceil[0], -1.0);
  EXPECT_EQ(*ceil[1], 2.0);
  EXPECT_TRUE(std::signbit(*ceil[3]) && *ceil[3] == 0.0);  // ceil(-0.5) = -0.0
  auto trunc = Values<double>(Call("trunc", {x}).ValueOrDie());
  EXPECT_EQ(*trunc[0], -1.0);
  EXPECT_EQ(*trunc[1], 1.0);
  EXPECT_TRUE(std::signbit(*trunc[3]));
  auto f32 = Call("floor", {Col(MakeNumeric<float>(float32(), {2.7f}))});
  EXPECT_EQ(*Values<float>(*f32)[0], 2.0f);
  auto ints = Call("ceil", {Col(MakeNumeric<int16_t>(int16(), {-3, std::nullopt}))});
  EXPECT_EQ(Values<int16_t>(*ints), (std::vector<std::optional<int16_t>>{-3, std::nullopt}));
}

TEST(MathFloorCeilTruncTest, Decimals) {
  Datum x = Col(MakeDecimals(5, 2, {-125, 125, 300, std::nullopt}));  // -1.25, 1.25, 3.00
  // Whole numbers as decimal(p, 0), as DuckDB types them.
  auto floor = Call("floor", {x}).ValueOrDie();
  EXPECT_EQ(floor.type()->ToString(), "decimal128(5, 0)");
  EXPECT_EQ(Values<Int128>(floor), (I128s{-2, 1, 3, std::nullopt}));
  EXPECT_EQ(Values<Int128>(Call("ceil", {x}).ValueOrDie()), (I128s{-1, 2, 3, std::nullopt}));
  EXPECT_EQ(Values<Int128>(Call("trunc", {x}).ValueOrDie()), (I128s{-1, 1, 3, std::nullopt}));
  // 999.99 rounds up to 1000, which decimal(5, 0) holds: the scale's digits make room.
  EXPECT_EQ(Values<Int128>(Call("ceil", {Col(MakeDecimals(5, 2, {99999}))}).ValueOrDie()),
            (I128s{1000}));
  EXPECT_EQ(Values<Int128>(Call("floor", {Col(MakeDecimals(5, 2, {-99999}))}).ValueOrDie()),
            (I128s{-1000}));
}

TEST(MathRoundTest, FloatsHalfAwayFromZero) {
  auto r = Values<double>(Call("round", {F64({2.5, -2.5, 0.5, -0.4, 1.4999, kNaN})}).ValueOrDie());
  EXPECT_EQ(*r[0], 3.0);
  EXPECT_EQ(*r[1], -3.0);
  EXPECT_EQ(*r[2], 1.0);
  EXPECT_TRUE(std::signbit(*r[3]) && *r[3] == 0.0);
  EXPECT_EQ(*r[4], 1.0);
  EXPECT_TRUE(std::isnan(*r[5]));
  EXPECT_DOUBLE_EQ(One("round", {F64Scalar(1234.5678), I64Scalar(2)}), 1234.57);
  EXPECT_DOUBLE_EQ(One("round", {F64Scalar(1234.5678), I64Scalar(-2)}), 1200.0);
  EXPECT_DOUBLE_EQ(One("round", {F64Scalar(-1250.0), I64Scalar(-2)}), -1300.0);
  EXPECT_DOUBLE_EQ(One("round", {F64Scalar(1e300), I64Scalar(10)}), 1e300);
  EXPECT_EQ(One("round", {F64Scalar(123.0), I64Scalar(-400)}), 0.0);
  EXPECT_TRUE(std::isnan(One("round", {F64Scalar(kNaN), I64Scalar(2)})));
  // Per-row digits.
  auto cols =
      Call("round", {F64Scalar(15.55), Col(MakeNumeric<int32_t>(int32(), {1, -1, std::nullopt}))});
  ASSERT_TRUE(cols.ok());
  auto v = Values<double>(*cols);
  EXPECT_DOUBLE_EQ(*v[0], 15.6);
  EXPECT_DOUBLE_EQ(*v[1], 20.0);
  EXPECT_FALSE(v[2].has_value());
}

TEST(MathRoundTest, IntegersAndDecimals) {
  auto ints = Call("round", {Col(MakeNumeric<int32_t>(int32(), {1250, -1250, 1249, std::nullopt})),
                             I64Scalar(-2)});
  ASSERT_TRUE(ints.ok());
  EXPECT_EQ(Values<int32_t>(*ints),
            (std::vector<std::optional<int32_t>>{1300, -1300, 1200, std::nullopt}));
  EXPECT_EQ(
      *Values<int8_t>(Call("round", {Scalar(MakeNumeric<int8_t>(int8(), {120})), I64Scalar(-1)})
                          .ValueOrDie())[0],
      120);
  EXPECT_FALSE(Call("round", {Scalar(MakeNumeric<int8_t>(int8(), {125})), I64Scalar(-1)}).ok());
  EXPECT_EQ(*Values<int64_t>(Call("round", {I64Scalar(7), I64Scalar(-40)}).ValueOrDie())[0], 0);

  Datum d = Col(MakeDecimals(10, 3, {12345, -12345, std::nullopt}));  // 12.345, -12.345
  // Constant digits set the scale (DuckDB's decimal(p, min(max(d, 0), s))), which leaves room
  // for the carry.
  auto two = Call("round", {d, I64Scalar(2)}).ValueOrDie();
  EXPECT_EQ(two.type()->ToString(), "decimal128(10, 2)");
  EXPECT_EQ(Values<Int128>(two), (I128s{1235, -1235, std::nullopt}));
  auto whole = Call("round", {d}).ValueOrDie();
  EXPECT_EQ(whole.type()->ToString(), "decimal128(10, 0)");
  EXPECT_EQ(Values<Int128>(whole), (I128s{12, -12, std::nullopt}));
  EXPECT_EQ(Values<Int128>(Call("round", {Col(MakeDecimals(4, 2, {9999}))}).ValueOrDie()),
            (I128s{100}));
  auto tens = Call("round", {d, I64Scalar(-1)}).ValueOrDie();
  EXPECT_EQ(tens.type()->ToString(), "decimal128(10, 0)");
  EXPECT_EQ(Values<Int128>(tens), (I128s{10, -10, std::nullopt}));
  auto more = Call("round", {d, I64Scalar(5)}).ValueOrDie();
  EXPECT_EQ(more.type()->ToString(), "decimal128(10, 3)");
  EXPECT_EQ(Values<Int128>(more), (I128s{12345, -12345, std::nullopt}));
  // 99.99 rounded to one digit is 100.0, which decimal(4, 1) holds.
  EXPECT_EQ(
      Values<Int128>(Call("round", {Col(MakeDecimals(4, 2, {9999})), I64Scalar(1)}).ValueOrDie()),
      (I128s{1000}));
  // Digits that vary per row keep the scale; then 99.99 -> 100.00 overflows decimal(4, 2).
  auto per_row = Call("round", {d, Col(MakeNumeric<int32_t>(int32(), {1, -1, 0}))});
  ASSERT_TRUE(per_row.ok()) << per_row.status().ToString();
  EXPECT_EQ(per_row->type()->ToString(), "decimal128(10, 3)");
  EXPECT_EQ(Values<Int128>(*per_row), (I128s{12300, -10000, std::nullopt}));
  EXPECT_EQ(
      Call("round", {Col(MakeDecimals(4, 2, {9999})), Col(MakeNumeric<int32_t>(int32(), {1}))})
          .status()
          .code(),
      StatusCode::kInvalid);
  EXPECT_EQ(
      DefaultRegistry().Find("round").ValueOrDie()->Resolve({float64(), float64()}).status().code(),
      StatusCode::kTypeError);
}

TEST(MathFloatFunctionsTest, ValuesAndDomains) {
  EXPECT_EQ(One("sqrt", {F64Scalar(4.0)}), 2.0);
  EXPECT_EQ(One("sqrt", {I64Scalar(9)}), 3.0);
  EXPECT_EQ(One("sqrt", {Scalar(MakeDecimals(5, 2, {225}))}), 1.5);
  const double neg_zero = One("sqrt", {F64Scalar(-0.0)});
  EXPECT_TRUE(neg_zero == 0.0 && std::signbit(neg_zero));
  EXPECT_TRUE(std::isnan(One("sqrt", {F64Scalar(kNaN)})));
  auto neg = Call("sqrt", {F64Scalar(-1.0)});
  ASSERT_EQ(neg.status().code(), StatusCode::kInvalid);
  EXPECT_NE(neg.status().message().find("negative"), std::string::npos);

  EXPECT_EQ(One("exp", {F64Scalar(0.0)}), 1.0);
  EXPECT_DOUBLE_EQ(One("ln", {F64Scalar(std::numbers::e)}), 1.0);
  EXPECT_DOUBLE_EQ(One("log10", {I64Scalar(1000)}), 3.0);
  EXPECT_DOUBLE_EQ(One("log2", {F64Scalar(8.0)}), 3.0);
  EXPECT_FALSE(Call("ln", {F64Scalar(0.0)}).ok());
  EXPECT_FALSE(Call("log10", {F64Scalar(-1.0)}).ok());
  EXPECT_FALSE(Call("log2", {I64Scalar(0)}).ok());
  EXPECT_TRUE(std::isnan(One("ln", {F64Scalar(kNaN)})));
  EXPECT_EQ(One("sin", {F64Scalar(0.0)}), 0.0);
  EXPECT_DOUBLE_EQ(One("sin", {F64Scalar(std::numbers::pi / 2)}), 1.0);
  EXPECT_EQ(One("cos", {F64Scalar(0.0)}), 1.0);
  EXPECT_TRUE(std::signbit(One("tan", {F64Scalar(-0.0)})));

  auto col = Call("exp", {Col(MakeNumeric<int32_t>(int32(), {0, std::nullopt}))});
  ASSERT_TRUE(col.ok());
  EXPECT_EQ(Values<double>(*col), (Doubles{1.0, std::nullopt}));
  EXPECT_EQ(DefaultRegistry().Find("sqrt").ValueOrDie()->resolve({date32()}).status().code(),
            StatusCode::kTypeError);
}

TEST(MathNanInfTest, OnlyFloatsAreNanOrInfinite) {
  const double inf = std::numeric_limits<double>::infinity();
  auto nan = Call("isnan", {F64({1.0, kNaN, std::nullopt, inf})});
  ASSERT_TRUE(nan.ok()) << nan.status().ToString();
  const Array& a = nan->array();
  EXPECT_FALSE(a.BoolValue(0));
  EXPECT_TRUE(a.BoolValue(1));
  EXPECT_TRUE(a.IsNull(2));
  EXPECT_FALSE(a.BoolValue(3));
  auto isinf = Call("isinf", {F64({1.0, kNaN, -inf})});
  ASSERT_TRUE(isinf.ok());
  EXPECT_FALSE(isinf->array().BoolValue(0));
  EXPECT_FALSE(isinf->array().BoolValue(1));
  EXPECT_TRUE(isinf->array().BoolValue(2));
  auto ints = Call("isnan", {I64Scalar(3)});
  ASSERT_TRUE(ints.ok());
  EXPECT_FALSE(ints->array().BoolValue(0));
}

}  // namespace
}  // namespace flotilla::expr
