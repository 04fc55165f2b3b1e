#include <gtest/gtest.h>

#include "flotilla/columnar/decimal.h"
#include "flotilla/expr/functions/elementwise_test_support.h"

namespace flotilla::expr {
namespace {

using testing::Call;
using testing::Col;
using testing::I64Scalar;
using testing::MakeNumeric;
using testing::Scalar;
using testing::StrScalar;
using testing::Values;
using I32s = std::vector<std::optional<int32_t>>;
using I64s = std::vector<std::optional<int64_t>>;

int32_t D(int64_t y, unsigned m, unsigned d) {
  return DaysFromCivil(y, m, d);
}
Datum DateScalar(int32_t days) {
  return Scalar(MakeNumeric<int32_t>(date32(), {days}));
}
Datum TsScalar(TimeUnit unit, int64_t v) {
  return Scalar(MakeNumeric<int64_t>(timestamp(unit), {v}));
}

/// date_add/date_sub on one date; the result or the error.
Result<int32_t> MoveDate(const std::string& fn, int32_t days, int64_t count,
                         const std::string& unit) {
  FLOTILLA_ASSIGN_OR_RETURN(Datum out,
                            Call(fn, {DateScalar(days), I64Scalar(count), StrScalar(unit)}));
  return *Values<int32_t>(out)[0];
}

TEST(TemporalDateAddTest, MonthEndsClamp) {
  EXPECT_EQ(MoveDate("date_add", D(2024, 1, 31), 1, "month").ValueOrDie(), D(2024, 2, 29));
  EXPECT_EQ(MoveDate("date_add", D(2023, 1, 31), 1, "month").ValueOrDie(), D(2023, 2, 28));
  EXPECT_EQ(MoveDate("date_add", D(2024, 2, 29), 1, "year").ValueOrDie(), D(2025, 2, 28));
  EXPECT_EQ(MoveDate("date_sub", D(2024, 2, 29), 1, "year").ValueOrDie(), D(2023, 2, 28));
  EXPECT_EQ(MoveDate("date_add", D(2024, 2, 29), 4, "years").ValueOrDie(), D(2028, 2, 29));
  EXPECT_EQ(MoveDate("date_add", D(2023, 11, 30), 1, "quarter").ValueOrDie(), D(2024, 2, 29));
  EXPECT_EQ(MoveDate("date_sub", D(2024, 3, 31), 1, "MONTH").ValueOrDie(), D(2024, 2, 29));
  EXPECT_EQ(MoveDate("date_add", D(2023, 12, 15), 1, "month").ValueOrDie(), D(2024, 1, 15));
  EXPECT_EQ(MoveDate("date_sub", D(1970, 1, 15), 1, "month").ValueOrDie(), D(1969, 12, 15));
  EXPECT_EQ(MoveDate("date_add", D(2000, 1, 31), 1, "month").ValueOrDie(), D(2000, 2, 29));
  EXPECT_EQ(MoveDate("date_add", D(1900, 1, 31), 1, "month").ValueOrDie(), D(1900, 2, 28));
}

TEST(TemporalDateAddTest, DaysAndWeeks) {
  EXPECT_EQ(MoveDate("date_add", D(2023, 12, 31), 1, "day").ValueOrDie(), D(2024, 1, 1));
  EXPECT_EQ(MoveDate("date_sub", 0, 1, "day").ValueOrDie(), -1);
  EXPECT_EQ(MoveDate("date_add", D(1900, 2, 28), 1, "day").ValueOrDie(), D(1900, 3, 1));
  EXPECT_EQ(MoveDate("date_add", D(2000, 2, 28), 1, "day").ValueOrDie(), D(2000, 2, 29));
  EXPECT_EQ(MoveDate("date_add", D(2024, 2, 26), 2, "weeks").ValueOrDie(), D(2024, 3, 11));
  EXPECT_EQ(MoveDate("date_add", 0, -1, "week").ValueOrDie(), -7);
  // Dates move by whole days only; unknown units name themselves.
  auto hour = MoveDate("date_add", 0, 1, "hour");
  EXPECT_EQ(hour.status().code(), StatusCode::kInvalid);
  auto unknown = MoveDate("date_add", 0, 1, "fortnight");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("fortnight"), std::string::npos);
  EXPECT_FALSE(MoveDate("date_add", 0, INT64_MAX, "month").ok());
  EXPECT_FALSE(MoveDate("date_sub", 0, INT64_MIN, "day").ok());
  EXPECT_FALSE(MoveDate("date_add", 0, 4'000'000'000LL, "day").ok());
}

TEST(TemporalDateAddTest, Timestamps) {
  auto add = [](TimeUnit unit, int64_t v, int64_t n, const std::string& u) -> Result<int64_t> {
    FLOTILLA_ASSIGN_OR_RETURN(Datum out,
                              Call("date_add", {TsScalar(unit, v), I64Scalar(n), StrScalar(u)}));
    return *Values<int64_t>(out)[0];
  };
  EXPECT_EQ(add(TimeUnit::kMilli, -1, 1, "second").ValueOrDie(), 999);
  EXPECT_EQ(add(TimeUnit::kSecond, 0, -1, "hour").ValueOrDie(), -3600);
  EXPECT_EQ(add(TimeUnit::kNano, 5, 1, "microsecond").ValueOrDie(), 1005);
  EXPECT_EQ(add(TimeUnit::kMicro, 0, 90, "minutes").ValueOrDie(), 5'400'000'000);
  // 2024-01-31 10:00:00 + 1 month = 2024-02-29 10:00:00, time of day kept.
  const int64_t jan31 = int64_t{D(2024, 1, 31)} * 86400 + 36000;
  EXPECT_EQ(add(TimeUnit::kSecond, jan31, 1, "month").ValueOrDie(),
            int64_t{D(2024, 2, 29)} * 86400 + 36000);
  // Before the epoch: 1969-12-31 23:59:59.5 + 1 day.
  EXPECT_EQ(add(TimeUnit::kMilli, -500, 1, "day").ValueOrDie(), 86'400'000 - 500);
  // Out of the nanosecond range (year 2262).
  EXPECT_EQ(add(TimeUnit::kNano, 0, 300, "years").status().code(), StatusCode::kInvalid);
  EXPECT_FALSE(add(TimeUnit::kNano, INT64_MAX - 5, 1, "second").ok());

  // With a fixed offset, month arithmetic happens on the local calendar: 2024-01-31 20:00 at
  // -05:00 is 2024-02-01 01:00 UTC; + 1 month = 2024-02-29 20:00 local = 2024-03-01 01:00 UTC.
  const int64_t utc = int64_t{D(2024, 2, 1)} * 86400 + 3600;
  auto out =
      Call("date_add", {Scalar(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond, "-05:00"), {utc})),
                        I64Scalar(1), StrScalar("month")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*Values<int64_t>(*out)[0], int64_t{D(2024, 3, 1)} * 86400 + 3600);
}

TEST(TemporalDateAddTest, ColumnsNullsAndTypes) {
  Datum dates = Col(MakeNumeric<int32_t>(date32(), {D(2024, 1, 31), std::nullopt, 0, 0}));
  Datum counts = Col(MakeNumeric<int32_t>(int32(), {1, 1, std::nullopt, -2}));
  auto out = Call("date_add", {dates, counts, StrScalar("month")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values<int32_t>(*out),
            (I32s{D(2024, 2, 29), std::nullopt, std::nullopt, D(1969, 11, 1)}));
  auto units = Call("date_add", {DateScalar(0), I64Scalar(1),
                                 Col(testing::MakeStrings({"day", "week", std::nullopt}))});
  ASSERT_TRUE(units.ok());
  EXPECT_EQ(Values<int32_t>(*units), (I32s{1, 7, std::nullopt}));
  auto empty = Call("date_sub",
                    {Col(MakeNumeric<int32_t>(date32(), {})), I64Scalar(1), StrScalar("day")}, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->array().length(), 0);

  auto f = DefaultRegistry().Find("date_add").ValueOrDie();
  EXPECT_EQ(f->resolve({int64(), int64(), utf8()}).status().code(), StatusCode::kTypeError);
  auto bad_count = f->resolve({date32(), float64(), utf8()});
  ASSERT_EQ(bad_count.status().code(), StatusCode::kTypeError);
  EXPECT_NE(bad_count.status().message().find("argument 2"), std::string::npos);
  EXPECT_EQ(f->resolve({date32(), int64(), int64()}).status().code(), StatusCode::kTypeError);
}

TEST(TemporalDateTruncTest, DatesAndTimestamps) {
  auto trunc_date = [](const std::string& unit, int32_t days) {
    return *Values<int32_t>(
        Call("date_trunc", {StrScalar(unit), DateScalar(days)}).ValueOrDie())[0];
  };
  EXPECT_EQ(trunc_date("month", D(2024, 2, 29)), D(2024, 2, 1));
  EXPECT_EQ(trunc_date("year", D(2024, 2, 29)), D(2024, 1, 1));
  EXPECT_EQ(trunc_date("quarter", D(2024, 5, 15)), D(2024, 4, 1));
  EXPECT_EQ(trunc_date("quarter", D(1969, 12, 31)), D(1969, 10, 1));
  EXPECT_EQ(trunc_date("week", D(2024, 2, 29)), D(2024, 2, 26));
  EXPECT_EQ(trunc_date("week", D(2021, 1, 3)), D(2020, 12, 28));
  EXPECT_EQ(trunc_date("week", D(2024, 2, 26)), D(2024, 2, 26));
  EXPECT_EQ(trunc_date("day", -1), -1);
  EXPECT_EQ(trunc_date("hour", -1), -1);

  auto trunc_ts = [](const std::string& unit, TimeUnit tu, int64_t v) {
    return *Values<int64_t>(Call("date_trunc", {StrScalar(unit), TsScalar(tu, v)}).ValueOrDie())[0];
  };
  EXPECT_EQ(trunc_ts("hour", TimeUnit::kMicro, -1), -3'600'000'000);
  EXPECT_EQ(trunc_ts("second", TimeUnit::kMilli, -1), -1000);
  EXPECT_EQ(trunc_ts("millisecond", TimeUnit::kNano, 1'234'567), 1'000'000);
  EXPECT_EQ(trunc_ts("day", TimeUnit::kSecond, -1), -86400);
  EXPECT_EQ(trunc_ts("minute", TimeUnit::kSecond, 119), 60);
  // 2024-02-29 12:34:56.789 -> month start.
  EXPECT_EQ(trunc_ts("month", TimeUnit::kMilli, 1709210096789),
            int64_t{D(2024, 2, 1)} * 86'400'000);
  EXPECT_EQ(trunc_ts("year", TimeUnit::kNano, -1), int64_t{D(1969, 1, 1)} * 86'400'000'000'000);

  // Fixed offset: truncation to the local day. 1970-01-01 03:00 at +05:30 is 1969-12-31 21:30
  // UTC; the local day starts at 1970-01-01 00:00 +05:30 = -19800 s.
  auto out = Call("date_trunc",
                  {StrScalar("day"),
                   Scalar(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond, "+05:30"), {-9000}))});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*Values<int64_t>(*out)[0], -19800);
  EXPECT_TRUE(out->type()->Equals(*timestamp(TimeUnit::kSecond, "+05:30")));

  auto nulls = Call("date_trunc",
                    {StrScalar("day"), Col(MakeNumeric<int32_t>(date32(), {std::nullopt, 3}))});
  ASSERT_TRUE(nulls.ok());
  EXPECT_EQ(Values<int32_t>(*nulls), (I32s{std::nullopt, 3}));
  EXPECT_FALSE(Call("date_trunc", {StrScalar("decade"), DateScalar(0)}).ok());
}

TEST(TemporalDateDiffTest, BoundariesCrossed) {
  auto diff = [](const std::string& unit, Datum a, Datum b) {
    auto out = Call("date_diff", {StrScalar(unit), a, b});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *Values<int64_t>(*out)[0] : -999;
  };
  EXPECT_EQ(diff("year", DateScalar(D(2023, 12, 31)), DateScalar(D(2024, 1, 1))), 1);
  EXPECT_EQ(diff("year", DateScalar(D(2024, 1, 1)), DateScalar(D(2024, 12, 31))), 0);
  EXPECT_EQ(diff("quarter", DateScalar(D(2023, 12, 31)), DateScalar(D(2024, 1, 1))), 1);
  EXPECT_EQ(diff("month", DateScalar(D(2024, 1, 31)), DateScalar(D(2024, 2, 1))), 1);
  EXPECT_EQ(diff("month", DateScalar(D(2024, 3, 1)), DateScalar(D(2023, 3, 31))), -12);
  EXPECT_EQ(diff("day", DateScalar(D(2024, 3, 1)), DateScalar(D(2024, 2, 28))), -2);
  EXPECT_EQ(diff("day", DateScalar(D(1900, 3, 1)), DateScalar(D(1900, 2, 28))), -1);
  // Weeks: whole 7-day spans between the days, truncated toward zero (time of day ignored).
  EXPECT_EQ(diff("week", DateScalar(D(2024, 2, 25)), DateScalar(D(2024, 2, 26))), 0);
  EXPECT_EQ(diff("week", DateScalar(D(2024, 2, 26)), DateScalar(D(2024, 3, 4))), 1);
  EXPECT_EQ(diff("week", DateScalar(D(2024, 1, 19)), DateScalar(D(2024, 1, 7))), -1);
  EXPECT_EQ(diff("week", DateScalar(D(1969, 12, 20)), DateScalar(D(1970, 1, 5))), 2);
  EXPECT_EQ(diff("week", TsScalar(TimeUnit::kSecond, 12 * 3600),
                 TsScalar(TimeUnit::kSecond, 7 * 86400 + 6 * 3600)),
            1);
  EXPECT_EQ(diff("day", TsScalar(TimeUnit::kSecond, -1), TsScalar(TimeUnit::kSecond, 0)), 1);
  EXPECT_EQ(diff("second", TsScalar(TimeUnit::kMilli, -1), TsScalar(TimeUnit::kMilli, 0)), 1);
  EXPECT_EQ(diff("hour", TsScalar(TimeUnit::kSecond, 3599), TsScalar(TimeUnit::kSecond, 3600)), 1);
  EXPECT_EQ(diff("millisecond", TsScalar(TimeUnit::kNano, 0), TsScalar(TimeUnit::kNano, 2'500'000)),
            2);
  // A date against a timestamp of another unit: 2024-01-01 and 2024-01-01 05:00.
  EXPECT_EQ(diff("hour", DateScalar(D(2024, 1, 1)),
                 TsScalar(TimeUnit::kSecond, int64_t{D(2024, 1, 1)} * 86400 + 5 * 3600)),
            5);

  auto cols = Call("date_diff",
                   {StrScalar("day"), Col(MakeNumeric<int32_t>(date32(), {0, std::nullopt, 10})),
                    DateScalar(5)});
  ASSERT_TRUE(cols.ok());
  EXPECT_EQ(Values<int64_t>(*cols), (I64s{5, std::nullopt, -5}));
  // Nanoseconds between far-apart seconds-unit timestamps do not fit int64.
  EXPECT_FALSE(Call("date_diff", {StrScalar("nanosecond"), TsScalar(TimeUnit::kSecond, 0),
                                  TsScalar(TimeUnit::kSecond, int64_t{1} << 40)})
                   .ok());
}

TEST(TemporalLastDayTest, MonthEnds) {
  Datum x = Col(MakeNumeric<int32_t>(
      date32(), {D(2024, 2, 10), D(1900, 2, 10), D(2000, 2, 1), D(1969, 12, 1), std::nullopt}));
  auto out = Call("last_day", {x});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Values<int32_t>(*out),
            (I32s{D(2024, 2, 29), D(1900, 2, 28), D(2000, 2, 29), D(1969, 12, 31), std::nullopt}));
  auto ts = Call("last_day", {TsScalar(TimeUnit::kMicro, 1709210096789000)});
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(*Values<int32_t>(*ts)[0], D(2024, 2, 29));
}

TEST(TemporalMakeDateTest, ValidAndInvalid) {
  auto make = [](int64_t y, int64_t m, int64_t d) -> Result<int32_t> {
    FLOTILLA_ASSIGN_OR_RETURN(Datum out,
                              Call("make_date", {I64Scalar(y), I64Scalar(m), I64Scalar(d)}));
    return *Values<int32_t>(out)[0];
  };
  EXPECT_EQ(make(2024, 2, 29).ValueOrDie(), 19782);
  EXPECT_EQ(make(2000, 2, 29).ValueOrDie(), D(2000, 2, 29));
  EXPECT_EQ(make(1969, 12, 31).ValueOrDie(), -1);
  auto bad = make(2023, 2, 29);
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalid);
  EXPECT_NE(bad.status().message().find("2023-2-29"), std::string::npos);
  EXPECT_FALSE(make(1900, 2, 29).ok());
  EXPECT_FALSE(make(2024, 13, 1).ok());
  EXPECT_FALSE(make(2024, 0, 1).ok());
  EXPECT_FALSE(make(2024, 4, 31).ok());

  auto cols = Call("make_date", {Col(MakeNumeric<int16_t>(int16(), {2024, std::nullopt})),
                                 Col(MakeNumeric<int8_t>(int8(), {1, 1})), I64Scalar(1)});
  ASSERT_TRUE(cols.ok());
  EXPECT_EQ(Values<int32_t>(*cols), (I32s{D(2024, 1, 1), std::nullopt}));
  EXPECT_EQ(DefaultRegistry()
                .Find("make_date")
                .ValueOrDie()
                ->resolve({int64(), utf8(), int64()})
                .status()
                .code(),
            StatusCode::kTypeError);
}

}  // namespace
}  // namespace flotilla::expr
