#include "flotilla/columnar/decimal.h"

#include <gtest/gtest.h>

namespace flotilla {
namespace {

TEST(DecimalTest, FormatsAndParses) {
  EXPECT_EQ(DecimalToString(12345, 2), "123.45");
  EXPECT_EQ(DecimalToString(-5, 2), "-0.05");
  EXPECT_EQ(DecimalToString(7, 0), "7");
  EXPECT_EQ(DecimalFromString("-123.45", 9, 2).ValueOrDie(), -12345);
  EXPECT_FALSE(DecimalFromString("12345.6", 5, 2).ok());
}

TEST(DecimalTest, DatesRoundTripThroughCivil) {
  EXPECT_EQ(FormatDate32(0), "1970-01-01");
  EXPECT_EQ(FormatDate32(DaysFromCivil(2024, 2, 29)), "2024-02-29");
  EXPECT_EQ(FormatDate32(-1), "1969-12-31");
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(DaysFromCivil(1900, 3, 1), &y, &m, &d);
  EXPECT_EQ(y * 10000 + m * 100 + d, 19000301);
}

TEST(DecimalTest, TimestampsPrintTheShortestExactFraction) {
  const int64_t noon = (int64_t{DaysFromCivil(2024, 2, 29)} * 86400 + 12 * 3600) * 1000000;
  EXPECT_EQ(FormatTimestamp(noon, TimeUnit::kMicro, ""), "2024-02-29 12:00:00");
  EXPECT_EQ(FormatTimestamp(noon + 100000, TimeUnit::kMicro, ""), "2024-02-29 12:00:00.1");
  EXPECT_EQ(FormatTimestamp(noon + 272400, TimeUnit::kMicro, ""), "2024-02-29 12:00:00.2724");
  EXPECT_EQ(FormatTimestamp(noon + 1, TimeUnit::kMicro, ""), "2024-02-29 12:00:00.000001");
  EXPECT_EQ(FormatTimestamp(-1, TimeUnit::kNano, ""), "1969-12-31 23:59:59.999999999");
  EXPECT_EQ(FormatTimestamp(1500, TimeUnit::kMilli, "UTC"), "1970-01-01 00:00:01.5Z");
}

}  // namespace
}  // namespace flotilla
