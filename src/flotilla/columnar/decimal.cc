#include "flotilla/columnar/decimal.h"

#include <fmt/format.h>

#include <utility>

namespace flotilla {

std::string Int128ToString(Int128 value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  // Work on the unsigned magnitude so the most negative value does not overflow.
  unsigned __int128 mag =
      negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  while (mag > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

std::string DecimalToString(Int128 value, int32_t scale) {
  std::string s = Int128ToString(value);
  if (scale <= 0) return s + std::string(static_cast<size_t>(-scale), '0');
  bool negative = !s.empty() && s[0] == '-';
  std::string digits = negative ? s.substr(1) : s;
  if (static_cast<int32_t>(digits.size()) <= scale) {
    digits = std::string(static_cast<size_t>(scale) - digits.size() + 1, '0') + digits;
  }
  digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  return negative ? "-" + digits : digits;
}

Result<Int128> DecimalFromString(std::string_view text, int32_t precision, int32_t scale) {
  std::string_view t = text;
  bool negative = false;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    negative = t[0] == '-';
    t.remove_prefix(1);
  }
  Int128 value = 0;
  int digits = 0;
  int frac = -1;  // digits seen after the point, -1 before it
  bool any = false;
  for (char c : t) {
    if (c == '.' && frac < 0) {
      frac = 0;
      continue;
    }
    if (c < '0' || c > '9') {
      return Status::Invalid(fmt::format("'{}' is not a decimal number", text));
    }
    any = true;
    if (frac >= 0) {
      if (frac == scale) {
        return Status::Invalid(
            fmt::format("'{}' has more than {} digits after the point", text, scale));
      }
      ++frac;
    }
    if (value != 0 || c != '0') ++digits;
    value = value * 10 + (c - '0');
    if (digits > 38) return Status::Invalid(fmt::format("'{}' does not fit in decimal128", text));
  }
  if (!any) return Status::Invalid(fmt::format("'{}' is not a decimal number", text));
  for (int i = frac < 0 ? 0 : frac; i < scale; ++i) {
    value *= 10;
    ++digits;
  }
  if (digits > precision) {
    return Status::Invalid(fmt::format("'{}' needs more than the {} digits of decimal128({}, {})",
                                       text, precision, precision, scale));
  }
  return negative ? -value : value;
}

// Civil-calendar conversions follow the standard era-based (400-year cycle) method.
int32_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<int32_t>(era * 146097 + static_cast<int64_t>(doe) - 719468);
}

std::string FormatDate32(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  // Years before 1 keep four digits after the sign (ISO 8601's expanded form: "-0044-03-15").
  if (y < 0) return fmt::format("-{:04d}-{:02d}-{:02d}", -y, m, d);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

std::string FormatTime64(int64_t value, TimeUnit unit) {
  const int64_t per_day = int64_t{86400} * (unit == TimeUnit::kNano    ? 1000000000
                                            : unit == TimeUnit::kMicro ? 1000000
                                            : unit == TimeUnit::kMilli ? 1000
                                                                       : 1);
  if (value < 0 || value >= per_day) return std::to_string(value) + TimeUnitName(unit);
  return FormatTimestamp(value, unit, "").substr(11);  // past "1970-01-01 "
}

namespace {

// Units per second and the digits of a full fraction.
std::pair<int64_t, int> SecondFraction(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return {1, 0};
    case TimeUnit::kMilli:
      return {1000, 3};
    case TimeUnit::kMicro:
      return {1000000, 6};
    case TimeUnit::kNano:
      return {1000000000, 9};
  }
  return {1, 0};
}

// ".fraction" with the shortest exact digits (".1" rather than ".100000"), as DuckDB and
// PostgreSQL print; nothing for a whole second.
std::string FractionText(int64_t frac, int width) {
  if (width == 0 || frac == 0) return "";
  std::string digits = fmt::format("{:0{}d}", frac, width);
  digits.erase(digits.find_last_not_of('0') + 1);
  return "." + digits;
}

}  // namespace

std::string FormatDuration(int64_t value, TimeUnit unit) {
  const auto [per_second, width] = SecondFraction(unit);
  const int64_t per_day = per_second * 86400;
  const int64_t days = value / per_day;  // both toward zero: the parts share the sign
  int64_t rest = value % per_day;
  std::string out;
  if (days != 0) out = fmt::format("{} day{}", days, days == 1 || days == -1 ? "" : "s");
  if (rest != 0 || days == 0) {
    if (!out.empty()) out += ' ';
    if (rest < 0) {
      out += '-';
      rest = -rest;
    }
    const int64_t secs = rest / per_second;
    out += fmt::format("{:02d}:{:02d}:{:02d}", secs / 3600, secs / 60 % 60, secs % 60);
    out += FractionText(rest % per_second, width);
  }
  return out;
}

std::string FormatTimestamp(int64_t value, TimeUnit unit, const std::string& timezone) {
  const auto [per_second, width] = SecondFraction(unit);
  int64_t secs = value / per_second;
  int64_t frac = value % per_second;
  if (frac < 0) {
    frac += per_second;
    secs -= 1;
  }
  int64_t days = secs / 86400;
  int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  std::string out = FormatDate32(static_cast<int32_t>(days)) +
                    fmt::format(" {:02d}:{:02d}:{:02d}", rem / 3600, rem / 60 % 60, rem % 60);
  out += FractionText(frac, width);
  if (!timezone.empty()) out += "Z";
  return out;
}

}  // namespace flotilla
