#include "flotilla/compute/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "flotilla/compute/parse.h"
#include "tests/support/literal_arrays.h"
#include "tests/support/random_data.h"

namespace flotilla::compute {
namespace {

using namespace flotilla::testing;  // NOLINT

Array C(const Array& a, const TypePtr& to) {
  return Cast(a, to).ValueOrDie();
}
Array Try(const Array& a, const TypePtr& to) {
  return Cast(a, to, CastOptions{false}).ValueOrDie();
}

TEST(CastTest, IntegerToInteger) {
  EXPECT_ARRAYS_EQUAL(I8({1, -128, N}), C(I64({1, -128, N}), int8()));
  auto r = Cast(I64({1, 300}), int8());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot cast int64 value 300 (row 1) to int8");
  EXPECT_ARRAYS_EQUAL(I8({1, N}), Try(I64({1, 300}), int8()));
  EXPECT_FALSE(Cast(I64({-1}), uint8()).ok());
  EXPECT_ARRAYS_EQUAL(I64({255}), C(U8({255}), int64()));
  auto same = I64({1});
  EXPECT_EQ(C(same, int64()).data(), same.data());  // identity is zero-copy
}

TEST(CastTest, FloatToIntegerRoundsTiesToEvenAndChecksRange) {
  EXPECT_ARRAYS_EQUAL(I32({3, -2, 0, 0, 2, 4, 2, N}),
                      C(F64({2.9, -2.5, -0.5, -0.4, 2.4999, 3.5, 2.5, N}), int32()));
  EXPECT_FALSE(Cast(F64({std::nan("")}), int32()).ok());
  EXPECT_FALSE(Cast(F64({3e9}), int32()).ok());
  EXPECT_FALSE(Cast(F64({9223372036854775808.0}), int64()).ok());
  EXPECT_ARRAYS_EQUAL(I64({std::numeric_limits<int64_t>::min()}),
                      C(F64({-9223372036854775808.0}), int64()));
  EXPECT_ARRAYS_EQUAL(F64({3, -1, N}), C(I64({3, -1, N}), float64()));
  EXPECT_ARRAYS_EQUAL(F32({1.5f}), C(F64({1.5}), float32()));
}

TEST(CastTest, Decimals) {
  // To decimal: rounding half away from zero, precision checked.
  EXPECT_ARRAYS_EQUAL(Decimals(5, 2, {"1.24", "1.25", "-1.25", N}),
                      C(Decimals(6, 3, {"1.235", "1.245", "-1.245", N}), decimal128(5, 2)));
  EXPECT_ARRAYS_EQUAL(Decimals(5, 2, {"12.00", "-3.00"}), C(I64({12, -3}), decimal128(5, 2)));
  EXPECT_FALSE(Cast(I64({1000}), decimal128(5, 2)).ok());
  EXPECT_ARRAYS_EQUAL(Decimals(5, 2, {"0.13", "-0.13"}), C(F64({0.125, -0.125}), decimal128(5, 2)));
  EXPECT_FALSE(Cast(F64({INFINITY}), decimal128(5, 2)).ok());
  EXPECT_ARRAYS_EQUAL(Decimals(10, 4, {"1.5000"}), C(Decimals(5, 2, {"1.50"}), decimal128(10, 4)));
  // From decimal.
  EXPECT_ARRAYS_EQUAL(I64({2, -2, 1}), C(Decimals(5, 2, {"1.50", "-1.50", "1.49"}), int64()));
  EXPECT_ARRAYS_EQUAL(F64({1.5, -0.25}), C(Decimals(5, 2, {"1.50", "-0.25"}), float64()));
  EXPECT_FALSE(Cast(Decimals(5, 0, {"300"}), int8()).ok());
}

TEST(CastTest, FromStrings) {
  EXPECT_ARRAYS_EQUAL(I32({42, -7, 3, N}), C(Strs({"42", " -7 ", "+3", N}), int32()));
  auto bad = Cast(Strs({"1", "abc"}), int32());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "cannot cast string value 'abc' (row 1) to int32");
  EXPECT_ARRAYS_EQUAL(I32({1, N, N}), Try(Strs({"1", "abc", "99999999999"}), int32()));
  auto f = C(Strs({"1.5", "-2e3", "inf", "nan"}), float64());
  EXPECT_EQ(f.values<double>()[0], 1.5);
  EXPECT_EQ(f.values<double>()[1], -2000);
  EXPECT_TRUE(std::isinf(f.values<double>()[2]));
  EXPECT_TRUE(std::isnan(f.values<double>()[3]));
  EXPECT_ARRAYS_EQUAL(Decimals(5, 2, {"1.24", "-1.25", "3.00"}),
                      C(Strs({"1.2351", "-1.245", "3"}), decimal128(5, 2)));
  EXPECT_ARRAYS_EQUAL(Decimals(5, 2, {N}), Try(Strs({"1.2.3"}), decimal128(5, 2)));
  // Exponents, bare points and long fractions (rounded on the first dropped digit).
  EXPECT_ARRAYS_EQUAL(
      Decimals(12, 3, {"1000.000", "0.500", "5.000", "0.001", "-1.236", "0.000", "123.457", N, N}),
      Try(Strs({"1e3", ".5", "5.", "1E-3", "-1.2355", "0.0004",
                "1.234567890123456789012345678901234567890e2", "1e", "."}),
          decimal128(12, 3)));
  EXPECT_ARRAYS_EQUAL(Decimals(5, 2, {N, "0.00"}),
                      Try(Strs({"1e10", "0e99999"}), decimal128(5, 2)));
  // Text in decimal or exponent notation casts to integers rounded half away from zero.
  EXPECT_ARRAYS_EQUAL(
      I32({4, 3, -3, 1000, 0, 1, 5, N, N}),
      Try(Strs({"3.5", "2.5", "-2.5", "1e3", "1e-1", ".5", "5.", "1e10", "1_000"}), int32()));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, true, N}),
                      Try(Strs({"TRUE", "f", "1", "maybe"}), boolean()));
  // 1995-03-15 is day 9204; 2000-02-29 exists, 1999-02-29 does not.
  EXPECT_ARRAYS_EQUAL(Dates({9204, 11016, N}),
                      Try(Strs({"1995-03-15", "2000-02-29", "1999-02-29"}), date32()));
  EXPECT_FALSE(Cast(Strs({"1995-13-01"}), date32()).ok());
  // A timestamp's text gives its date; anything else after the date is not a date.
  EXPECT_ARRAYS_EQUAL(Dates({9204, 9204, N, N, N}),
                      Try(Strs({"1995-03-15 23:59:59.5", "1995-03-15T00:00", "1995-03-15 lead",
                                "1995-03-15 25:00", "1995-03-15x"}),
                          date32()));
  auto ts = C(Strs({"1970-01-02", "1970-01-01 00:00:01.5", "1970-01-01T01:00:00+01:00"}),
              timestamp(TimeUnit::kMilli));
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int64_t>(timestamp(TimeUnit::kMilli), {86400000, 1500, 0}), ts);
}

TEST(CastTest, ToStrings) {
  EXPECT_ARRAYS_EQUAL(Strs({"1", "-5", N}), C(I64({1, -5, N}), utf8()));
  EXPECT_ARRAYS_EQUAL(Strs({"1.5", "0.1"}), C(F64({1.5, 0.1}), utf8()));
  EXPECT_ARRAYS_EQUAL(Strs({"-1.25"}), C(Decimals(5, 2, {"-1.25"}), utf8()));
  EXPECT_ARRAYS_EQUAL(Strs({"1995-03-15"}), C(Dates({9204}), utf8()));
  EXPECT_ARRAYS_EQUAL(Strs({"true"}), C(Bools({true}), utf8()));
  EXPECT_ARRAYS_EQUAL(MakeStrings({"a", N}, large_utf8()), C(Strs({"a", N}), large_utf8()));
}

TEST(CastTest, Temporal) {
  auto ts = MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond), {86400, -1, N});
  EXPECT_ARRAYS_EQUAL(Dates({1, -1, N}), C(ts, date32()));
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond), {86400, -86400}),
                      C(Dates({1, -1}), timestamp(TimeUnit::kSecond)));
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int64_t>(timestamp(TimeUnit::kMilli), {86400000, -1000, N}),
                      C(ts, timestamp(TimeUnit::kMilli)));
  auto ms = MakeNumeric<int64_t>(timestamp(TimeUnit::kMilli), {1999, -1});
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond), {1, -1}),
                      C(ms, timestamp(TimeUnit::kSecond)));
  auto far = MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond),
                                  {std::numeric_limits<int64_t>::max() / 10});
  EXPECT_FALSE(Cast(far, timestamp(TimeUnit::kNano)).ok());
}

TEST(CastTest, BoolsNullsAndUnsupported) {
  EXPECT_ARRAYS_EQUAL(I32({1, 0, N}), C(Bools({true, false, N}), int32()));
  EXPECT_ARRAYS_EQUAL(Bools({true, false}), C(F64({-0.5, 0.0}), boolean()));
  auto nulls = C(Array::MakeNull(null(), 2).ValueOrDie(), int64());
  EXPECT_ARRAYS_EQUAL(I64({N, N}), nulls);
  EXPECT_EQ(Cast(Dates({1}), int32()).status().message(), "cannot cast date32 to int32");
  EXPECT_TRUE(CanCast(*utf8(), *date32()));
  EXPECT_FALSE(CanCast(*date32(), *boolean()));
  EXPECT_EQ(C(I64({}), utf8()).length(), 0);
}

TEST(CastTest, DictionaryDecodesToItsValues) {
  // Entries: 0 "red", 1 "blue", 2 null; row 3 is a null index, row 4 points at the null entry.
  Array entries = Strs({"red", "blue", N});
  for (const TypePtr& index_type : {int8(), uint16(), int32(), int64()}) {
    SCOPED_TRACE(index_type->ToString());
    Array indices = Cast(I64({1, 0, 1, N, 2}), index_type).ValueOrDie();
    Array dict = MakeDictionaryArray(indices, entries).ValueOrDie();
    EXPECT_TRUE(CanCast(*dict.type(), *utf8()));
    EXPECT_ARRAYS_EQUAL(Strs({"blue", "red", "blue", N, N}), C(dict, utf8()));
    // A slice decodes only its own rows.
    EXPECT_ARRAYS_EQUAL(Strs({"red", "blue"}), C(dict.Slice(1, 2), utf8()));
    // On to what the value type casts to.
    EXPECT_ARRAYS_EQUAL(MakeStrings({"blue", "red", "blue", N, N}, large_utf8()),
                        C(dict, large_utf8()));
  }
  Array numbers = MakeDictionaryArray(I32({2, 0, N}), Strs({"10", "x", "7"})).ValueOrDie();
  EXPECT_ARRAYS_EQUAL(I64({7, 10, N}), C(numbers, int64()));
  auto bad = Cast(MakeDictionaryArray(I32({1}), Strs({"10", "x"})).ValueOrDie(), int64());
  EXPECT_EQ(bad.status().message(), "cannot cast string value 'x' (row 0) to int64");
  EXPECT_ARRAYS_EQUAL(I64({N}),
                      Try(MakeDictionaryArray(I32({1}), Strs({"10", "x"})).ValueOrDie(), int64()));
  EXPECT_FALSE(CanCast(*dictionary(int32(), date32()), *boolean()));
  EXPECT_EQ(
      Cast(MakeDictionaryArray(I32({0}), Dates({1})).ValueOrDie(), boolean()).status().message(),
      "cannot cast dictionary<values=date32, indices=int32> to bool");
}

TEST(ParseTest, Timestamps) {
  int64_t v = 0;
  EXPECT_TRUE(ParseTimestamp("2024-01-01 12:30", TimeUnit::kSecond, &v));
  EXPECT_EQ(v, 1704112200);
  EXPECT_TRUE(ParseTimestamp("1970-01-01 00:00:00.123456789", TimeUnit::kMicro, &v));
  EXPECT_EQ(v, 123456);
  EXPECT_TRUE(ParseTimestamp("1970-01-01 00:00:00Z", TimeUnit::kSecond, &v));
  EXPECT_FALSE(ParseTimestamp("1970-01-01 25:00", TimeUnit::kSecond, &v));
  EXPECT_FALSE(ParseTimestamp("1970-01-01x", TimeUnit::kSecond, &v));
  // The nanosecond range ends one tick above the int64 minimum, fraction included.
  EXPECT_TRUE(ParseTimestamp("1677-09-21 00:12:43.145224193", TimeUnit::kNano, &v));
  EXPECT_EQ(v, INT64_MIN + 1);
  EXPECT_FALSE(ParseTimestamp("1677-09-21 00:12:43.145224191", TimeUnit::kNano, &v));
  int32_t d = 0;
  EXPECT_TRUE(ParseDate32("-0001-12-31", &d));
  EXPECT_FALSE(ParseDate32("", &d));
}

}  // namespace
}  // namespace flotilla::compute

namespace flotilla::compute {
namespace {

// Value -> text -> value is the identity for every random value (nulls included).
TEST(CastTest, TextRoundTripOnRandomData) {
  for (const TypePtr& type : {int8(), int64(), uint64(), float64(), date32(), decimal128(15, 2),
                              timestamp(TimeUnit::kMicro)}) {
    Array values = flotilla::testing::RandomArray(type, 500, 42);
    Array text = Cast(values, utf8()).ValueOrDie();
    Array back = Cast(text, type).ValueOrDie();
    EXPECT_ARRAYS_EQUAL(values, back);
  }
}

}  // namespace
}  // namespace flotilla::compute
