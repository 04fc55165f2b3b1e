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
using testing::MakeStrings;
using testing::Scalar;
using testing::StringValues;
using testing::Values;
using Doubles = std::vector<std::optional<double>>;
using I64s = std::vector<std::optional<int64_t>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
Datum F64Scalar(double v) {
  return Scalar(MakeNumeric<double>(float64(), {v}));
}

double One(const std::string& name, std::vector<Datum> args) {
  auto out = Call(name, args);
  EXPECT_TRUE(out.ok()) << name << ": " << out.status().ToString();
  return out.ok() ? *Values<double>(*out)[0] : -12345.0;
}

TEST(MathLogPowTest, Values) {
  EXPECT_DOUBLE_EQ(One("log", {I64Scalar(2), I64Scalar(8)}), 3.0);
  EXPECT_DOUBLE_EQ(One("log", {F64Scalar(100.0)}), 2.0);
  EXPECT_FALSE(Call("log", {I64Scalar(1), I64Scalar(5)}).ok());
  EXPECT_FALSE(Call("log", {I64Scalar(-2), I64Scalar(5)}).ok());
  EXPECT_FALSE(Call("log", {I64Scalar(2), I64Scalar(0)}).ok());
  EXPECT_TRUE(std::isnan(One("log", {I64Scalar(2), F64Scalar(kNaN)})));

  EXPECT_EQ(One("pow", {I64Scalar(2), I64Scalar(10)}), 1024.0);
  EXPECT_EQ(One("power", {F64Scalar(4.0), F64Scalar(0.5)}), 2.0);
  EXPECT_TRUE(std::isnan(One("pow", {F64Scalar(-8.0), F64Scalar(1.0 / 3)})));
  EXPECT_TRUE(std::isnan(One("pow", {F64Scalar(kNaN), F64Scalar(2.0)})));
  EXPECT_EQ(One("pow", {F64Scalar(kNaN), F64Scalar(0.0)}), 1.0);  // IEEE pow(NaN, 0) = 1
  EXPECT_EQ(One("pow", {F64Scalar(2.0), F64Scalar(-1.0)}), 0.5);

  auto cols = Call("pow", {Col(MakeNumeric<int32_t>(int32(), {2, 3, std::nullopt})), I64Scalar(2)});
  ASSERT_TRUE(cols.ok());
  EXPECT_EQ(Values<double>(*cols), (Doubles{4.0, 9.0, std::nullopt}));
  EXPECT_EQ(
      DefaultRegistry().Find("pow").ValueOrDie()->resolve({float64(), utf8()}).status().code(),
      StatusCode::kTypeError);

  auto pi = Call("pi", {});
  ASSERT_TRUE(pi.ok());
  EXPECT_TRUE(pi->is_scalar());
  EXPECT_EQ(*Values<double>(*pi)[0], std::numbers::pi);
}

TEST(MathGreatestLeastTest, NumbersAndNulls) {
  Datum a = Col(MakeNumeric<int32_t>(int32(), {1, std::nullopt, 7, std::nullopt}));
  Datum b = Col(MakeNumeric<int64_t>(int64(), {5, 2, -7, std::nullopt}));
  auto g = Call("greatest", {a, b, I64Scalar(3)});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(g->type()->Equals(*int64()));
  EXPECT_EQ(Values<int64_t>(*g), (I64s{5, 3, 7, 3}));
  auto l = Call("least", {a, b});
  EXPECT_EQ(Values<int64_t>(*l), (I64s{1, 2, -7, std::nullopt}));

  // NaN sorts above every number.
  auto nan = Call("greatest", {F64Scalar(1.0), F64Scalar(kNaN)});
  EXPECT_TRUE(std::isnan(*Values<double>(*nan)[0]));
  EXPECT_EQ(One("least", {F64Scalar(kNaN), F64Scalar(1.0)}), 1.0);
  // Mixed int and float meet at the float.
  EXPECT_EQ(One("greatest", {I64Scalar(2), F64Scalar(2.5)}), 2.5);
  // All unsigned stays unsigned; uint64 above int64 cannot join signed arguments.
  auto u = Call("greatest", {Scalar(MakeNumeric<uint64_t>(uint64(), {UINT64_MAX})),
                             Scalar(MakeNumeric<uint8_t>(uint8(), {1}))});
  EXPECT_EQ(*Values<uint64_t>(*u)[0], UINT64_MAX);
  EXPECT_EQ(Call("greatest", {Scalar(MakeNumeric<uint64_t>(uint64(), {UINT64_MAX})), I64Scalar(1)})
                .status()
                .code(),
            StatusCode::kInvalid);
  auto single = Call("least", {I64Scalar(4)});
  EXPECT_EQ(*Values<int64_t>(*single)[0], 4);
}

TEST(MathGreatestLeastTest, OtherTypes) {
  auto s = Call("greatest", {Col(MakeStrings({"b", "apple", std::nullopt})),
                             Col(MakeStrings({"a", "banana", std::nullopt}))});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(StringValues(*s),
            (std::vector<std::optional<std::string>>{"b", "banana", std::nullopt}));
  auto d = Call("least", {Col(MakeNumeric<int32_t>(date32(), {-1, 10})),
                          Scalar(MakeNumeric<int32_t>(date32(), {0}))});
  EXPECT_EQ(Values<int32_t>(*d), (std::vector<std::optional<int32_t>>{-1, 0}));
  auto dec =
      Call("greatest", {Scalar(MakeDecimals(5, 2, {-100})), Scalar(MakeDecimals(5, 2, {5}))});
  EXPECT_EQ(*Values<Int128>(*dec)[0], 5);

  auto f = DefaultRegistry().Find("greatest").ValueOrDie();
  auto mixed = f->resolve({date32(), int32()});
  ASSERT_EQ(mixed.status().code(), StatusCode::kTypeError);
  EXPECT_NE(mixed.status().message().find("greatest()"), std::string::npos);
  // Mixed decimals (and integers with decimals) meet at one decimal wide enough for all.
  EXPECT_EQ(f->resolve({decimal128(5, 2), decimal128(6, 2)}).ValueOrDie()->ToString(),
            "decimal128(6, 2)");
  EXPECT_EQ(f->resolve({decimal128(9, 2), decimal128(18, 4), int32()}).ValueOrDie()->ToString(),
            "decimal128(18, 4)");
  auto mixed_dec = Call("least", {Col(MakeDecimals(9, 2, {12345, -1, std::nullopt})),
                                  Col(MakeDecimals(18, 4, {1234600, -200, 5})), I64Scalar(0)});
  ASSERT_TRUE(mixed_dec.ok()) << mixed_dec.status().ToString();
  EXPECT_EQ(mixed_dec->type()->ToString(), "decimal128(23, 4)");
  EXPECT_EQ(Values<Int128>(*mixed_dec), (std::vector<std::optional<Int128>>{0, -200, 0}));
  // A date meets a timestamp at the timestamp.
  auto ts = Call("greatest", {Col(MakeNumeric<int32_t>(date32(), {1})),
                              Scalar(MakeNumeric<int64_t>(timestamp(TimeUnit::kMicro), {1}))});
  ASSERT_TRUE(ts.ok()) << ts.status().ToString();
  EXPECT_EQ(Values<int64_t>(*ts), (std::vector<std::optional<int64_t>>{86400000000LL}));
  EXPECT_EQ(f->resolve({boolean(), boolean()}).status().code(), StatusCode::kTypeError);
}

TEST(MathClipTest, Bounds) {
  Datum x = Col(MakeNumeric<int64_t>(int64(), {-5, 5, 15, std::nullopt}));
  auto out = Call("clip", {x, I64Scalar(0), I64Scalar(10)});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<int64_t>(*out), (I64s{0, 5, 10, std::nullopt}));
  auto null_bound = Call(
      "clip", {I64Scalar(3), Scalar(MakeNumeric<int64_t>(int64(), {std::nullopt})), I64Scalar(1)});
  ASSERT_TRUE(null_bound.ok());
  EXPECT_TRUE(null_bound->is_scalar());
  EXPECT_FALSE(Values<int64_t>(*null_bound)[0].has_value());
  auto inverted = Call("clip", {I64Scalar(3), I64Scalar(5), I64Scalar(1)});
  ASSERT_EQ(inverted.status().code(), StatusCode::kInvalid);
  EXPECT_NE(inverted.status().message().find("5"), std::string::npos);

  EXPECT_TRUE(std::isnan(One("clip", {F64Scalar(kNaN), F64Scalar(0.0), F64Scalar(1.0)})));
  EXPECT_TRUE(std::isnan(One("clip", {F64Scalar(0.5), F64Scalar(kNaN), F64Scalar(1.0)})));
  EXPECT_EQ(One("clip", {F64Scalar(2.5), I64Scalar(0), I64Scalar(1)}), 1.0);
  const double neg_zero = One("clip", {F64Scalar(-0.0), F64Scalar(-1.0), F64Scalar(1.0)});
  EXPECT_TRUE(neg_zero == 0.0 && std::signbit(neg_zero));
  EXPECT_EQ(DefaultRegistry()
                .Find("clip")
                .ValueOrDie()
                ->resolve({utf8(), int64(), int64()})
                .status()
                .code(),
            StatusCode::kTypeError);
}

TEST(MathRegistryTest, EveryFunctionHasDocAndArity) {
  for (const char* name :
       {"abs", "round", "floor", "ceil", "trunc", "sqrt", "exp", "ln", "log10",    "log2", "log",
        "pow", "power", "sign",  "clip", "sin",   "cos",  "tan", "pi", "greatest", "least"}) {
    auto f = DefaultRegistry().Find(name);
    ASSERT_TRUE(f.ok()) << name;
    EXPECT_FALSE((*f)->doc.empty()) << name;
  }
}

}  // namespace
}  // namespace flotilla::expr
