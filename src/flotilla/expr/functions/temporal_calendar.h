#pragma once
// Calendar arithmetic shared by the temporal kernels. Every date32/timestamp value is read as
// a Moment (a civil day and the nanoseconds into it, in the value's local time), so one code
// path serves date32 and timestamps of every unit without overflowing nanoseconds.
//
// Time zones: "" and "UTC" are UTC; fixed offsets "+05:30", "-08:00", "+0530", "+05" are
// applied (fields are computed in that local time). Named zones ("Europe/Paris") need a tz
// database, which this toolchain lacks (no C++20 chrono tzdb in libstdc++ 12): NotImplemented.

#include <cstdint>
#include <string>
#include <string_view>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/decimal.h"

namespace flotilla::expr::temporal {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kNanosPerDay = 86'400 * kNanosPerSecond;
/// Years outside this range are rejected by date arithmetic so day counts fit date32.
constexpr int64_t kMaxAbsYear = 5'000'000;

/// A point in local civil time: days since 1970-01-01 and nanoseconds into that day
/// (0 <= nanos < kNanosPerDay).
struct Moment {
  int64_t days = 0;
  int64_t nanos = 0;
};

struct CivilDate {
  int64_t year = 0;
  unsigned month = 1;
  unsigned day = 1;
};

int64_t NanosPerUnit(TimeUnit unit);
/// Seconds east of UTC for a timestamp time zone; NotImplemented for named zones.
Result<int64_t> UtcOffsetSeconds(std::string_view timezone, std::string_view function);

/// Converts between raw date32/timestamp values of one type and Moments.
class TemporalReader {
 public:
  /// `type` must be date32 or timestamp; errors name `function`.
  static Result<TemporalReader> Make(const TypePtr& type, std::string_view function);
  bool is_date() const { return is_date_; }
  /// Row `i` of `array` (a non-null value of this reader's type).
  Moment At(const Array& array, int64_t i) const {
    if (is_date_) return {array.values<int32_t>()[i], 0};
    return FromRaw(array.values<int64_t>()[i]);
  }
  Moment FromRaw(int64_t raw) const;
  /// The raw value (days for date32; sub-unit nanoseconds truncated) or an Invalid overflow.
  Result<int64_t> ToRaw(const Moment& m) const;

 private:
  bool is_date_ = false;
  int64_t nanos_per_unit_ = 1;
  int64_t offset_nanos_ = 0;
  std::string function_;
};

bool IsLeapYear(int64_t year);
unsigned DaysInMonth(int64_t year, unsigned month);
/// The year of a day since the epoch.
inline int64_t YearOfDays(int64_t days) {
  // 1901-01-01 (day -25202) to 2099-12-31 (day 47481): every fourth year is a leap year, so the
  // year follows from 1461-day cycles by one division. Other days take the general path.
  const int64_t d = days + 25202;
  if (d >= 0 && d < 72684) return 1901 + (4 * d + 3) / 1461;
  int64_t year;
  unsigned month, day;
  CivilFromDays(days, &year, &month, &day);
  return year;
}

inline CivilDate ToCivil(int64_t days) {
  CivilDate c;
  CivilFromDays(days, &c.year, &c.month, &c.day);
  return c;
}
/// Days since the epoch, or Invalid when the year is outside +-kMaxAbsYear.
Result<int64_t> FromCivil(int64_t year, unsigned month, unsigned day);

/// ISO weekday: Monday = 1 .. Sunday = 7.
int64_t IsoWeekday(int64_t days);
/// ISO-8601 week number (1..53) and the ISO year it belongs to.
void IsoWeek(int64_t days, int64_t* iso_year, int64_t* week);
/// Adds months, clamping the day to the target month's end (Jan 31 + 1 month = Feb 28/29).
Result<int64_t> AddMonths(int64_t days, int64_t months);

enum class DateUnit {
  kYear,
  kQuarter,
  kMonth,
  kWeek,
  kDay,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kMicrosecond,
  kNanosecond,
};
/// Case-insensitive singular or plural unit name ("day", "Days"); Invalid lists the choices.
Result<DateUnit> ParseDateUnit(std::string_view text, std::string_view function);
/// Nanoseconds in one fixed-length unit (week and smaller); 0 for month, quarter, year.
int64_t FixedUnitNanos(DateUnit unit);

/// Floor division and modulo (the remainder has the divisor's sign).
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t FloorMod(int64_t a, int64_t b) {
  return a - FloorDiv(a, b) * b;
}

}  // namespace flotilla::expr::temporal
