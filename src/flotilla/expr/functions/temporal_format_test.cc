#include <gtest/gtest.h>

#include "flotilla/columnar/decimal.h"
#include "flotilla/expr/functions/elementwise_test_support.h"

namespace flotilla::expr {
namespace {

using testing::Call;
using testing::Col;
using testing::MakeNumeric;
using testing::MakeStrings;
using testing::Scalar;
using testing::StringValues;
using testing::StrScalar;
using testing::Values;
using Strs = std::vector<std::optional<std::string>>;

int32_t D(int64_t y, unsigned m, unsigned d) {
  return DaysFromCivil(y, m, d);
}
constexpr int64_t kMicrosPerDay = 86'400'000'000;

std::string Strftime(Datum x, const std::string& format) {
  auto out = Call("strftime", {x, StrScalar(format)});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *StringValues(*out)[0] : "";
}

Result<int64_t> Strptime(const std::string& text, const std::string& format) {
  FLOTILLA_ASSIGN_OR_RETURN(Datum out, Call("strptime", {StrScalar(text), StrScalar(format)}));
  return *Values<int64_t>(out)[0];
}

TEST(TemporalStrftimeTest, Specifiers) {
  // 2024-02-29 13:04:05.000123 (a Thursday, day 60).
  const int64_t us = int64_t{19782} * kMicrosPerDay + (13 * 3600 + 4 * 60 + 5) * 1'000'000LL + 123;
  Datum x = Scalar(MakeNumeric<int64_t>(timestamp(TimeUnit::kMicro), {us}));
  EXPECT_EQ(Strftime(x, "%Y-%m-%d %H:%M:%S.%f"), "2024-02-29 13:04:05.000123");
  EXPECT_EQ(Strftime(x, "%a %A %b %B %j %y %I %p %%"), "Thu Thursday Feb February 060 24 01 PM %");
  EXPECT_EQ(Strftime(x, "%F %T"), "2024-02-29 13:04:05");
  EXPECT_EQ(Strftime(x, "[%z]"), "[]");  // no time zone, no offset

  Datum before = Scalar(MakeNumeric<int32_t>(date32(), {-1}));
  EXPECT_EQ(Strftime(before, "%d/%m/%Y %I%p %a"), "31/12/1969 12AM Wed");
  Datum ns = Scalar(MakeNumeric<int64_t>(timestamp(TimeUnit::kNano), {-1}));
  EXPECT_EQ(Strftime(ns, "%T.%f"), "23:59:59.999999");
  Datum offset = Scalar(MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond, "+05:30"), {0}));
  EXPECT_EQ(Strftime(offset, "%H:%M %z"), "05:30 +0530");
  Datum utc = Scalar(MakeNumeric<int64_t>(timestamp(TimeUnit::kMilli, "UTC"), {0}));
  EXPECT_EQ(Strftime(utc, "%Y %z"), "1970 +0000");

  auto col =
      Call("strftime", {Col(MakeNumeric<int32_t>(date32(), {0, std::nullopt})), StrScalar("%Y")});
  ASSERT_TRUE(col.ok());
  EXPECT_EQ(StringValues(*col), (Strs{"1970", std::nullopt}));

  auto bad = Call("strftime", {before, StrScalar("%Q")});
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalid);
  EXPECT_NE(bad.status().message().find("%Q"), std::string::npos);
  EXPECT_FALSE(Call("strftime", {before, StrScalar("50%")}).ok());
  EXPECT_EQ(
      DefaultRegistry().Find("strftime").ValueOrDie()->resolve({utf8(), utf8()}).status().code(),
      StatusCode::kTypeError);
}

TEST(TemporalStrptimeTest, Parses) {
  EXPECT_EQ(Strptime("2024-02-29 13:04:05.123", "%Y-%m-%d %H:%M:%S.%f").ValueOrDie(),
            1709211845123000);
  EXPECT_EQ(Strptime("29/Feb/2024:01:02:03 PM", "%d/%b/%Y:%I:%M:%S %p").ValueOrDie(),
            int64_t{19782} * kMicrosPerDay + (13 * 3600 + 2 * 60 + 3) * 1'000'000LL);
  EXPECT_EQ(Strptime("12:00:00 am 1970-01-01", "%I:%M:%S %p %F").ValueOrDie(), 0);
  EXPECT_EQ(Strptime("Thursday, February 29 2024", "%A, %B %d %Y").ValueOrDie(),
            int64_t{19782} * kMicrosPerDay);
  EXPECT_EQ(Strptime("2024 060", "%Y %j").ValueOrDie(), int64_t{19782} * kMicrosPerDay);
  EXPECT_EQ(Strptime("1900 060", "%Y %j").ValueOrDie(), int64_t{D(1900, 3, 1)} * kMicrosPerDay);
  EXPECT_EQ(Strptime("69-01-01", "%y-%m-%d").ValueOrDie(), int64_t{D(1969, 1, 1)} * kMicrosPerDay);
  EXPECT_EQ(Strptime("68-01-01", "%y-%m-%d").ValueOrDie(), int64_t{D(2068, 1, 1)} * kMicrosPerDay);
  EXPECT_EQ(Strptime("1969-12-31 23:59:59.999999", "%Y-%m-%d %H:%M:%S.%f").ValueOrDie(), -1);
  EXPECT_EQ(Strptime("1970-01-01T00:00:00.5", "%Y-%m-%dT%H:%M:%S.%f").ValueOrDie(), 500'000);
  EXPECT_EQ(Strptime("10%", "%S%%").ValueOrDie(), 10'000'000);
  // An offset converts to UTC: 2024-01-01 00:00 +01:00 = 2023-12-31 23:00 UTC.
  const int64_t expected = int64_t{D(2023, 12, 31)} * kMicrosPerDay + 23 * 3'600'000'000LL;
  EXPECT_EQ(Strptime("2024-01-01 00:00:00+0100", "%Y-%m-%d %H:%M:%S%z").ValueOrDie(), expected);
  EXPECT_EQ(Strptime("2024-01-01 00:00:00 +01:00", "%Y-%m-%d %H:%M:%S %z").ValueOrDie(), expected);
  EXPECT_EQ(Strptime("2024-01-01 00:00:00Z", "%Y-%m-%d %H:%M:%S%z").ValueOrDie(),
            int64_t{D(2024, 1, 1)} * kMicrosPerDay);
}

TEST(TemporalStrptimeTest, ErrorsNameValueAndFormat) {
  auto leap = Strptime("2023-02-29", "%Y-%m-%d");
  ASSERT_EQ(leap.status().code(), StatusCode::kInvalid);
  EXPECT_NE(leap.status().message().find("'2023-02-29'"), std::string::npos);
  EXPECT_NE(leap.status().message().find("'%Y-%m-%d'"), std::string::npos);
  EXPECT_FALSE(Strptime("1900-02-29", "%Y-%m-%d").ok());
  EXPECT_FALSE(Strptime("2024-13-01", "%Y-%m-%d").ok());
  EXPECT_FALSE(Strptime("2024-01-01 24:00:00", "%Y-%m-%d %H:%M:%S").ok());
  EXPECT_FALSE(Strptime("2024-01-01 extra", "%Y-%m-%d").ok());
  EXPECT_FALSE(Strptime("abc", "%Y").ok());
  EXPECT_FALSE(Strptime("13:00 PM", "%I:%M %p").ok());
  EXPECT_FALSE(Strptime("2023 366", "%Y %j").ok());
  EXPECT_FALSE(Strptime("Foo 1 2024", "%b %d %Y").ok());
  EXPECT_FALSE(Strptime("2024", "%Q").ok());

  auto nulls =
      Call("strptime", {Col(MakeStrings({"2024-02-29", std::nullopt})), StrScalar("%Y-%m-%d")});
  ASSERT_TRUE(nulls.ok());
  EXPECT_EQ(Values<int64_t>(*nulls),
            (std::vector<std::optional<int64_t>>{int64_t{19782} * kMicrosPerDay, std::nullopt}));
  EXPECT_TRUE(nulls->type()->Equals(*timestamp(TimeUnit::kMicro)));
}

TEST(TemporalToDateTest, DefaultAndFormat) {
  auto to_date = [](std::vector<Datum> args) -> Result<int32_t> {
    FLOTILLA_ASSIGN_OR_RETURN(Datum out, Call("to_date", args));
    return *Values<int32_t>(out)[0];
  };
  EXPECT_EQ(to_date({StrScalar("2024-02-29")}).ValueOrDie(), 19782);
  EXPECT_EQ(to_date({StrScalar("1899-12-31")}).ValueOrDie(), -25568);
  EXPECT_EQ(to_date({StrScalar("31.12.1999"), StrScalar("%d.%m.%Y")}).ValueOrDie(), 10956);
  EXPECT_EQ(to_date({StrScalar("2000-02-29 23:59"), StrScalar("%Y-%m-%d %H:%M")}).ValueOrDie(),
            D(2000, 2, 29));
  auto bad = to_date({StrScalar("2023-02-29")});
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalid);
  EXPECT_NE(bad.status().message().find("2023-02-29"), std::string::npos);
  EXPECT_FALSE(to_date({StrScalar("2024/01/01")}).ok());

  auto col = Call("to_date", {Col(MakeStrings({"1970-01-02", std::nullopt, "1969-12-31"}))});
  ASSERT_TRUE(col.ok());
  EXPECT_EQ(Values<int32_t>(*col), (std::vector<std::optional<int32_t>>{1, std::nullopt, -1}));
  auto empty = Call("to_date", {Col(MakeStrings({}))}, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->array().length(), 0);
}

}  // namespace
}  // namespace flotilla::expr
