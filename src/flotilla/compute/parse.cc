#include "flotilla/compute/parse.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "flotilla/common/ascii.h"

namespace flotilla::compute {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Reads exactly 1..max_digits digits at `*pos`.
bool ReadNumber(std::string_view s, size_t* pos, int max_digits, int64_t* out) {
  int64_t v = 0;
  int n = 0;
  while (*pos < s.size() && n < max_digits && std::isdigit(static_cast<unsigned char>(s[*pos]))) {
    v = v * 10 + (s[*pos] - '0');
    ++*pos;
    ++n;
  }
  *out = v;
  return n > 0;
}

bool IsLeap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned DaysInMonth(int64_t y, int64_t m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Parses the date part at the front of `s`, leaving `*pos` after it.
bool ParseDatePart(std::string_view s, size_t* pos, int32_t* days) {
  bool negative = false;
  if (*pos < s.size() && (s[*pos] == '-' || s[*pos] == '+')) {
    negative = s[*pos] == '-';
    ++*pos;
  }
  int64_t y, m, d;
  if (!ReadNumber(s, pos, 7, &y) || *pos >= s.size() || s[*pos] != '-') return false;
  ++*pos;
  if (!ReadNumber(s, pos, 2, &m) || *pos >= s.size() || s[*pos] != '-') return false;
  ++*pos;
  if (!ReadNumber(s, pos, 2, &d)) return false;
  // Beyond about 5.8 million years the day count no longer fits date32.
  if (y > 5000000) return false;
  if (negative) y = -y;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

}  // namespace

bool ParseTime(std::string_view text, TimeUnit unit, int64_t* out) {
  const std::string_view t = Trim(text);
  if (t.empty() || t.find_first_of("Zz+-") != std::string_view::npos) return false;
  return ParseTimestamp("1970-01-01 " + std::string(t), unit, out);
}

int64_t TicksPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 1;
    case TimeUnit::kMilli:
      return 1000;
    case TimeUnit::kMicro:
      return 1000000;
    case TimeUnit::kNano:
      return 1000000000;
  }
  return 1;
}

bool ParseInteger(std::string_view text, Int128* out) {
  std::string_view t = Trim(text);
  bool negative = false;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    negative = t[0] == '-';
    t.remove_prefix(1);
  }
  if (t.empty()) return false;
  Int128 v = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) return false;
  }
  *out = negative ? -v : v;
  return true;
}

bool ParseDouble(std::string_view text, double* out) {
  std::string_view t = Trim(text);
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  // Out-of-range values are errors rather than silently becoming infinity.
  return ec == std::errc() && end == t.data() + t.size();
}

bool ParseDecimal(std::string_view text, int32_t precision, int32_t scale, Int128* out) {
  std::string_view t = Trim(text);
  bool negative = false;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    negative = t[0] == '-';
    t.remove_prefix(1);
  }
  // The value is digits * 10^(exponent - fraction_digits); leading zeros carry nothing.
  std::string digits;
  int64_t fraction_digits = 0;
  bool point = false, any = false;
  size_t i = 0;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = true;
    if (!digits.empty() || c != '0') digits += c;
    if (point) ++fraction_digits;
  }
  if (!any) return false;
  int64_t exponent = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) exponent_negative = t[i++] == '-';
    const size_t first = i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      if (exponent < 100000) exponent = exponent * 10 + (t[i] - '0');
    }
    if (i == first) return false;
    if (exponent_negative) exponent = -exponent;
  }
  if (i != t.size()) return false;

  // Unscaled value at `scale`: digits shifted by `shift` places, rounding half away from zero
  // on the first dropped digit.
  const int64_t shift = exponent - fraction_digits + scale;
  const int64_t keep = static_cast<int64_t>(digits.size()) + std::min<int64_t>(shift, 0);
  Int128 v = 0;
  for (int64_t j = 0; j < keep; ++j) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, digits[j] - '0', &v)) {
      return false;
    }
  }
  if (shift < 0 && keep >= 0 && keep < static_cast<int64_t>(digits.size()) && digits[keep] >= '5') {
    ++v;
  }
  for (int64_t j = 0; j < shift && v != 0; ++j) {
    if (__builtin_mul_overflow(v, 10, &v)) return false;
  }
  Int128 limit = 1;
  for (int j = 0; j < precision; ++j)
    limit *= 10;
  if (v >= limit) return false;
  *out = negative ? -v : v;
  return true;
}

bool ParseBool(std::string_view text, bool* out) {
  std::string_view t = Trim(text);
  for (const char* s : {"true", "t", "yes", "y", "on", "1"}) {
    if (AsciiEqualsIgnoreCase(t, s)) return *out = true;
  }
  for (const char* s : {"false", "f", "no", "n", "off", "0"}) {
    if (AsciiEqualsIgnoreCase(t, s)) {
      *out = false;
      return true;
    }
  }
  return false;
}

bool ParseDate32(std::string_view text, int32_t* days) {
  std::string_view t = Trim(text);
  size_t pos = 0;
  if (!ParseDatePart(t, &pos, days)) return false;
  if (pos == t.size()) return true;
  // A timestamp's text is a date too (its time of day dropped), as in PostgreSQL and DuckDB.
  int64_t ignored;
  return (t[pos] == ' ' || t[pos] == 'T') && ParseTimestamp(t, TimeUnit::kMicro, &ignored);
}

bool ParseTimestamp(std::string_view text, TimeUnit unit, int64_t* out) {
  std::string_view t = Trim(text);
  size_t pos = 0;
  int32_t days;
  if (!ParseDatePart(t, &pos, &days)) return false;
  int64_t seconds = 0, fraction = 0;  // fraction in `unit` ticks
  int64_t offset_seconds = 0;
  const int64_t ticks = TicksPerSecond(unit);
  if (pos < t.size() && (t[pos] == ' ' || t[pos] == 'T')) {
    ++pos;
    int64_t h, m, s = 0;
    if (!ReadNumber(t, &pos, 2, &h) || pos >= t.size() || t[pos] != ':') return false;
    ++pos;
    if (!ReadNumber(t, &pos, 2, &m)) return false;
    if (pos < t.size() && t[pos] == ':') {
      ++pos;
      if (!ReadNumber(t, &pos, 2, &s)) return false;
      if (pos < t.size() && t[pos] == '.') {
        ++pos;
        int64_t scale = ticks;
        size_t start = pos;
        while (pos < t.size() && std::isdigit(static_cast<unsigned char>(t[pos]))) {
          scale /= 10;
          fraction += (t[pos] - '0') * scale;
          ++pos;
        }
        if (pos == start) return false;
      }
    }
    if (h > 23 || m > 59 || s > 59) return false;
    seconds = h * 3600 + m * 60 + s;
    if (pos < t.size() && (t[pos] == 'Z' || t[pos] == 'z')) {
      ++pos;
    } else if (pos < t.size() && (t[pos] == '+' || t[pos] == '-')) {
      const int sign = t[pos] == '-' ? -1 : 1;
      ++pos;
      int64_t oh, om = 0;
      if (!ReadNumber(t, &pos, 2, &oh)) return false;
      if (pos < t.size() && t[pos] == ':') ++pos;
      if (pos < t.size() && !ReadNumber(t, &pos, 2, &om)) return false;
      offset_seconds = sign * (oh * 3600 + om * 60);
    }
  }
  if (pos != t.size()) return false;
  int64_t total = int64_t{days} * 86400 + seconds - offset_seconds;
  // Just above the int64 minimum the whole seconds alone overflow while the value does not:
  // borrow one second from them.
  if (total < 0 && fraction > 0) {
    total += 1;
    fraction -= ticks;
  }
  int64_t scaled;
  if (__builtin_mul_overflow(total, ticks, &scaled)) return false;
  return !__builtin_add_overflow(scaled, fraction, out);
}

}  // namespace flotilla::compute
