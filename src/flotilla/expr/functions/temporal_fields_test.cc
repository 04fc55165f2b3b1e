#include <gtest/gtest.h>

#include "flotilla/columnar/decimal.h"
#include "flotilla/expr/functions/elementwise_test_support.h"

namespace flotilla::expr {
namespace {

using testing::Call;
using testing::Col;
using testing::MakeNumeric;
using testing::Scalar;
using testing::StrScalar;
using testing::Values;
using I64s = std::vector<std::optional<int64_t>>;

int32_t D(int64_t y, unsigned m, unsigned d) {
  return DaysFromCivil(y, m, d);
}

Datum Dates(const std::vector<std::optional<int32_t>>& days) {
  return Col(MakeNumeric<int32_t>(date32(), days));
}

I64s Field(const std::string& name, const Datum& x) {
  auto out = Call(name, {x});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? Values<int64_t>(*out) : I64s{};
}

TEST(TemporalCalendarTest, KnownDayNumbers) {
  EXPECT_EQ(D(1970, 1, 1), 0);
  EXPECT_EQ(D(1969, 12, 31), -1);
  EXPECT_EQ(D(2000, 1, 1), 10957);
  EXPECT_EQ(D(2024, 2, 29), 19782);
  EXPECT_EQ(D(1900, 1, 1), -25567);
}

TEST(TemporalFieldsTest, DateFields) {
  // 2024-02-29 (leap day, Thursday), 1900-03-01 (1900 not leap), 2000-02-29 (leap),
  // 1969-12-31 (Wednesday, before the epoch), 2023-01-01 (Sunday), null.
  Datum x = Dates({19782, D(1900, 3, 1), D(2000, 2, 29), -1, D(2023, 1, 1), std::nullopt});
  EXPECT_EQ(Field("year", x), (I64s{2024, 1900, 2000, 1969, 2023, std::nullopt}));
  EXPECT_EQ(Field("month", x), (I64s{2, 3, 2, 12, 1, std::nullopt}));
  EXPECT_EQ(Field("day", x), (I64s{29, 1, 29, 31, 1, std::nullopt}));
  EXPECT_EQ(Field("quarter", x), (I64s{1, 1, 1, 4, 1, std::nullopt}));
  EXPECT_EQ(Field("day_of_week", x), (I64s{3, 3, 1, 2, 6, std::nullopt}));
  EXPECT_EQ(Field("isodow", x), (I64s{4, 4, 2, 3, 7, std::nullopt}));
  EXPECT_EQ(Field("dayofweek", x), (I64s{4, 4, 2, 3, 0, std::nullopt}));
  // 1900-03-01 is day 60 (no Feb 29); 2000-02-29 day 60; 1969-12-31 day 365.
  EXPECT_EQ(Field("day_of_year", x), (I64s{60, 60, 60, 365, 1, std::nullopt}));
  EXPECT_EQ(Field("hour", x), (I64s{0, 0, 0, 0, 0, std::nullopt}));
  EXPECT_EQ(Field("second", x), (I64s{0, 0, 0, 0, 0, std::nullopt}));
}

TEST(TemporalFieldsTest, YearMatchesTheCivilCalendarEverywhere) {
  // year() has a one-division path for 1901..2099: every day from 1850 to 2150 (both edges of
  // that range, 1900 and 2100 not leap) and far dates must agree with the full conversion.
  std::vector<std::optional<int32_t>> days;
  for (int32_t d = D(1850, 1, 1); d <= D(2150, 12, 31); ++d)
    days.push_back(d);
  for (int32_t d : {D(-4000, 2, 29), D(1, 1, 1), D(9999, 12, 31), D(1901, 1, 1) - 1, D(2100, 1, 1),
                    D(2100, 3, 1)})
    days.push_back(d);
  const I64s years = Field("year", Dates(days));
  ASSERT_EQ(years.size(), days.size());
  for (size_t i = 0; i < days.size(); ++i) {
    int64_t year;
    unsigned month, day;
    CivilFromDays(*days[i], &year, &month, &day);
    ASSERT_EQ(years[i], year) << "day " << *days[i];
  }
}

TEST(TemporalFieldsTest, IsoWeekEdges) {
  // 2021-01-01 (Fri) is week 53 of 2020; 2021-01-04 (Mon) week 1 of 2021; 2019-12-30 (Mon) is
  // week 1 of 2020; 2016-01-03 (Sun) week 53 of 2015; 2024-12-30 (Mon) week 1 of 2025.
  Datum x = Dates({D(2021, 1, 1), D(2021, 1, 4), D(2019, 12, 30), D(2016, 1, 3), D(2024, 12, 30),
                   D(2018, 12, 31)});
  EXPECT_EQ(Field("week", x), (I64s{53, 1, 1, 53, 1, 1}));
  EXPECT_EQ(Field("isoyear", x), (I64s{2020, 2021, 2020, 2015, 2025, 2019}));
  EXPECT_EQ(Field("year", x), (I64s{2021, 2021, 2019, 2016, 2024, 2018}));
}

TEST(TemporalFieldsTest, TimestampsOfEveryUnit) {
  // 2024-02-29 12:34:56.789 UTC.
  const int64_t ms = 1709210096789;
  struct Case {
    TimeUnit unit;
    int64_t value;
  };
  for (const Case& c : {Case{TimeUnit::kSecond, ms / 1000}, Case{TimeUnit::kMilli, ms},
                        Case{TimeUnit::kMicro, ms * 1000}, Case{TimeUnit::kNano, ms * 1000000}}) {
    SCOPED_TRACE(TimeUnitName(c.unit));
    Datum x = Col(MakeNumeric<int64_t>(timestamp(c.unit), {c.value, std::nullopt}));
    EXPECT_EQ(Field("year", x), (I64s{2024, std::nullopt}));
    EXPECT_EQ(Field("month", x), (I64s{2, std::nullopt}));
    EXPECT_EQ(Field("day", x), (I64s{29, std::nullopt}));
    EXPECT_EQ(Field("hour", x), (I64s{12, std::nullopt}));
    EXPECT_EQ(Field("minute", x), (I64s{34, std::nullopt}));
    EXPECT_EQ(Field("second", x), (I64s{56, std::nullopt}));
    const int64_t frac_ms = c.unit == TimeUnit::kSecond ? 0 : 789;
    EXPECT_EQ(Field("millisecond", x), (I64s{56000 + frac_ms, std::nullopt}));
    EXPECT_EQ(Field("microsecond", x), (I64s{(56000 + frac_ms) * 1000, std::nullopt}));
  }
}

TEST(TemporalFieldsTest, NegativeTimestamps) {
  // One unit before the epoch is 1969-12-31 23:59:59.999...
  Datum s = Col(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond), {-1}));
  EXPECT_EQ(Field("year", s), (I64s{1969}));
  EXPECT_EQ(Field("day", s), (I64s{31}));
  EXPECT_EQ(Field("hour", s), (I64s{23}));
  EXPECT_EQ(Field("second", s), (I64s{59}));
  Datum ms = Col(MakeNumeric<int64_t>(timestamp(TimeUnit::kMilli), {-1}));
  EXPECT_EQ(Field("millisecond", ms), (I64s{59999}));
  Datum us = Col(MakeNumeric<int64_t>(timestamp(TimeUnit::kMicro), {-1}));
  EXPECT_EQ(Field("microsecond", us), (I64s{59999999}));
  Datum ns = Col(MakeNumeric<int64_t>(timestamp(TimeUnit::kNano), {-1, 1}));
  EXPECT_EQ(Field("minute", ns), (I64s{59, 0}));
  EXPECT_EQ(Field("microsecond", ns), (I64s{59999999, 0}));
  // 1900-01-01 00:00:00 in seconds.
  Datum old = Col(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond), {-25567LL * 86400}));
  EXPECT_EQ(Field("year", old), (I64s{1900}));
  EXPECT_EQ(Field("day_of_week", old), (I64s{0}));  // a Monday
  EXPECT_EQ(Field("isodow", old), (I64s{1}));
}

TEST(TemporalFieldsTest, TimeZones) {
  Datum utc = Col(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond, "UTC"), {0}));
  EXPECT_EQ(Field("hour", utc), (I64s{0}));
  Datum india = Col(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond, "+05:30"), {0}));
  EXPECT_EQ(Field("hour", india), (I64s{5}));
  EXPECT_EQ(Field("minute", india), (I64s{30}));
  Datum west = Col(MakeNumeric<int64_t>(timestamp(TimeUnit::kMilli, "-08:00"), {0}));
  EXPECT_EQ(Field("year", west), (I64s{1969}));
  EXPECT_EQ(Field("day", west), (I64s{31}));
  EXPECT_EQ(Field("hour", west), (I64s{16}));

  auto f = DefaultRegistry().Find("hour").ValueOrDie();
  auto named = f->resolve({timestamp(TimeUnit::kSecond, "Europe/Paris")});
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(named.status().message().find("Europe/Paris"), std::string::npos);
  auto bad = f->resolve({timestamp(TimeUnit::kSecond, "+5")});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
}

TEST(TemporalFieldsTest, ScalarEmptyAndTypeErrors) {
  auto out = Call("year", {Scalar(MakeNumeric<int32_t>(date32(), {19782}))});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->is_scalar());
  EXPECT_EQ(Values<int64_t>(*out), (I64s{2024}));

  auto empty = Call("month", {Dates({})}, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->array().length(), 0);

  auto f = DefaultRegistry().Find("year").ValueOrDie();
  auto err = f->resolve({int64()});
  ASSERT_EQ(err.status().code(), StatusCode::kTypeError);
  EXPECT_NE(err.status().message().find("year()"), std::string::npos);
  EXPECT_NE(err.status().message().find("argument 1"), std::string::npos);
}

TEST(TemporalFieldsTest, ExtractAndDatePart) {
  Datum x = Dates({D(2021, 1, 1), std::nullopt});
  auto get = [&](const std::string& fn, const std::string& field) {
    auto out = Call(fn, {StrScalar(field), x});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? Values<int64_t>(*out) : I64s{};
  };
  EXPECT_EQ(get("extract", "year"), (I64s{2021, std::nullopt}));
  EXPECT_EQ(get("extract", "WEEK"), (I64s{53, std::nullopt}));
  EXPECT_EQ(get("date_part", "dow"), (I64s{5, std::nullopt}));
  EXPECT_EQ(get("date_part", "isodow"), (I64s{5, std::nullopt}));
  EXPECT_EQ(get("date_part", "doy"), (I64s{1, std::nullopt}));
  EXPECT_EQ(get("extract", "isoyear"), (I64s{2020, std::nullopt}));
  EXPECT_EQ(get("extract", "quarter"), (I64s{1, std::nullopt}));

  // A column of field names.
  auto per_row = Call("extract", {Col(testing::MakeStrings({"month", "day"})),
                                  Scalar(MakeNumeric<int32_t>(date32(), {D(1999, 7, 4)}))});
  ASSERT_TRUE(per_row.ok());
  EXPECT_EQ(Values<int64_t>(*per_row), (I64s{7, 4}));

  auto bad = Call("extract", {StrScalar("fortnight"), x});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fortnight"), std::string::npos);
  EXPECT_EQ(
      DefaultRegistry().Find("extract").ValueOrDie()->resolve({int32(), date32()}).status().code(),
      StatusCode::kTypeError);
}

}  // namespace
}  // namespace flotilla::expr
