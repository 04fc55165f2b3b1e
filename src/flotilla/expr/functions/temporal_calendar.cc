#include "flotilla/expr/functions/temporal_calendar.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "flotilla/columnar/decimal.h"
#include "flotilla/common/ascii.h"
#include "flotilla/common/suggest.h"

namespace flotilla::expr::temporal {

int64_t NanosPerUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return kNanosPerSecond;
    case TimeUnit::kMilli:
      return 1'000'000;
    case TimeUnit::kMicro:
      return 1'000;
    case TimeUnit::kNano:
      return 1;
  }
  return 1;
}

namespace {
bool ParseTwoDigits(std::string_view s, int64_t* out) {
  if (s.size() != 2 || !std::isdigit(static_cast<unsigned char>(s[0])) ||
      !std::isdigit(static_cast<unsigned char>(s[1]))) {
    return false;
  }
  *out = (s[0] - '0') * 10 + (s[1] - '0');
  return true;
}
}  // namespace

Result<int64_t> UtcOffsetSeconds(std::string_view tz, std::string_view function) {
  if (tz.empty() || tz == "UTC" || tz == "Z" || tz == "Etc/UTC") return int64_t{0};
  if (tz[0] == '+' || tz[0] == '-') {
    std::string_view rest = tz.substr(1);
    int64_t hours = 0, minutes = 0;
    bool ok = false;
    if (rest.size() == 2) {
      ok = ParseTwoDigits(rest, &hours);
    } else if (rest.size() == 4) {
      ok = ParseTwoDigits(rest.substr(0, 2), &hours) && ParseTwoDigits(rest.substr(2), &minutes);
    } else if (rest.size() == 5 && rest[2] == ':') {
      ok = ParseTwoDigits(rest.substr(0, 2), &hours) && ParseTwoDigits(rest.substr(3), &minutes);
    }
    if (ok && hours <= 23 && minutes <= 59) {
      int64_t seconds = hours * 3600 + minutes * 60;
      return tz[0] == '-' ? -seconds : seconds;
    }
    return Status::Invalid(std::string(function) + "(): malformed UTC offset time zone '" +
                           std::string(tz) + "'; expected +HH:MM");
  }
  return Status::NotImplemented(
      std::string(function) + "(): named time zone '" + std::string(tz) +
      "' is not supported (no time zone database); use UTC or a fixed offset like '+05:30'");
}

Result<TemporalReader> TemporalReader::Make(const TypePtr& type, std::string_view function) {
  TemporalReader r;
  r.function_ = std::string(function);
  if (type->id() == TypeId::kDate32) {
    r.is_date_ = true;
    return r;
  }
  if (type->id() != TypeId::kTimestamp) {
    return Status::TypeError(r.function_ + "() expects a date or timestamp, got " +
                             type->ToString());
  }
  r.nanos_per_unit_ = NanosPerUnit(type->unit());
  FLOTILLA_ASSIGN_OR_RETURN(int64_t offset, UtcOffsetSeconds(type->timezone(), function));
  r.offset_nanos_ = offset * kNanosPerSecond;
  return r;
}

Moment TemporalReader::FromRaw(int64_t raw) const {
  // Split in the value's own unit first so seconds-unit values far from 1970 cannot overflow.
  const int64_t units_per_day = kNanosPerDay / nanos_per_unit_;
  Moment m{FloorDiv(raw, units_per_day), FloorMod(raw, units_per_day) * nanos_per_unit_};
  if (offset_nanos_ != 0) {
    m.nanos += offset_nanos_;
    m.days += FloorDiv(m.nanos, kNanosPerDay);
    m.nanos = FloorMod(m.nanos, kNanosPerDay);
  }
  return m;
}

Result<int64_t> TemporalReader::ToRaw(const Moment& local) const {
  if (is_date_) {
    if (local.days < INT32_MIN || local.days > INT32_MAX) {
      return Status::Invalid(function_ + "(): date out of range");
    }
    return local.days;
  }
  Moment m = local;
  m.nanos -= offset_nanos_;
  m.days += FloorDiv(m.nanos, kNanosPerDay);
  m.nanos = FloorMod(m.nanos, kNanosPerDay);
  const int64_t units_per_day = kNanosPerDay / nanos_per_unit_;
  int64_t raw;
  if (__builtin_mul_overflow(m.days, units_per_day, &raw) ||
      __builtin_add_overflow(raw, m.nanos / nanos_per_unit_, &raw)) {
    return Status::Invalid(function_ + "(): timestamp out of range for its unit");
  }
  return raw;
}

bool IsLeapYear(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned DaysInMonth(int64_t year, unsigned month) {
  static constexpr std::array<unsigned, 12> kDays = {31, 28, 31, 30, 31, 30,
                                                     31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

Result<int64_t> FromCivil(int64_t year, unsigned month, unsigned day) {
  if (year < -kMaxAbsYear || year > kMaxAbsYear) {
    return Status::Invalid("year " + std::to_string(year) + " is out of the supported range");
  }
  return static_cast<int64_t>(DaysFromCivil(year, month, day));
}

int64_t IsoWeekday(int64_t days) {
  // 1970-01-01 was a Thursday (ISO 4).
  return FloorMod(days + 3, 7) + 1;
}

void IsoWeek(int64_t days, int64_t* iso_year, int64_t* week) {
  // The ISO year is the year of this week's Thursday; week 1 holds that year's first Thursday.
  const int64_t thursday = days - IsoWeekday(days) + 4;
  const int64_t year = ToCivil(thursday).year;
  const int64_t jan1 = DaysFromCivil(year, 1, 1);
  *iso_year = year;
  *week = (thursday - jan1) / 7 + 1;
}

Result<int64_t> AddMonths(int64_t days, int64_t months) {
  CivilDate c = ToCivil(days);
  if (months > 12 * kMaxAbsYear || months < -12 * kMaxAbsYear) {
    return Status::Invalid("month count " + std::to_string(months) + " is out of range");
  }
  const int64_t total = c.year * 12 + (c.month - 1) + months;
  const int64_t year = FloorDiv(total, 12);
  const auto month = static_cast<unsigned>(FloorMod(total, 12) + 1);
  return FromCivil(year, month, std::min(c.day, DaysInMonth(year, month)));
}

Result<DateUnit> ParseDateUnit(std::string_view text, std::string_view function) {
  std::string s = AsciiLower(text);
  if (s.size() > 1 && s.back() == 's') s.pop_back();
  static constexpr std::pair<std::string_view, DateUnit> kNames[] = {
      {"year", DateUnit::kYear},
      {"quarter", DateUnit::kQuarter},
      {"month", DateUnit::kMonth},
      {"week", DateUnit::kWeek},
      {"day", DateUnit::kDay},
      {"hour", DateUnit::kHour},
      {"minute", DateUnit::kMinute},
      {"second", DateUnit::kSecond},
      {"millisecond", DateUnit::kMillisecond},
      {"microsecond", DateUnit::kMicrosecond},
      {"nanosecond", DateUnit::kNanosecond}};
  for (const auto& [name, unit] : kNames) {
    if (s == name) return unit;
  }
  return Status::Invalid(std::string(function) + "(): unknown unit '" + std::string(text) +
                         "'; expected one of year, quarter, month, week, day, hour, minute, "
                         "second, millisecond, microsecond, nanosecond");
}

int64_t FixedUnitNanos(DateUnit unit) {
  switch (unit) {
    case DateUnit::kWeek:
      return 7 * kNanosPerDay;
    case DateUnit::kDay:
      return kNanosPerDay;
    case DateUnit::kHour:
      return 3600 * kNanosPerSecond;
    case DateUnit::kMinute:
      return 60 * kNanosPerSecond;
    case DateUnit::kSecond:
      return kNanosPerSecond;
    case DateUnit::kMillisecond:
      return 1'000'000;
    case DateUnit::kMicrosecond:
      return 1'000;
    case DateUnit::kNanosecond:
      return 1;
    default:
      return 0;
  }
}

}  // namespace flotilla::expr::temporal
