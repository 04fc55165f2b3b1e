#pragma once
// Value-level helpers for decimal128 and the temporal types: parsing and formatting.

#include <cstdint>
#include <string>
#include <string_view>

#include "flotilla/common/result.h"
#include "flotilla/types/data_type.h"

namespace flotilla {

/// decimal128 values: 16-byte two's complement, little-endian, the Arrow layout.
using Int128 = __int128;

/// Unscaled integer `value` with `scale` digits after the point: (12345, 2) -> "123.45".
std::string DecimalToString(Int128 value, int32_t scale);
/// Parses "-123.45" into the unscaled value for `scale`; errors on too many digits.
Result<Int128> DecimalFromString(std::string_view text, int32_t precision, int32_t scale);
std::string Int128ToString(Int128 value);

/// Days since 1970-01-01 -> "YYYY-MM-DD" (proleptic Gregorian).
std::string FormatDate32(int32_t days);
/// Civil date -> days since the epoch, and back.
int32_t DaysFromCivil(int64_t year, unsigned month, unsigned day);
/// Inline: date kernels (year(), month(), ...) call it once per row.
inline void CivilFromDays(int64_t z, int64_t* year, unsigned* month, unsigned* day) {
  // The era-based method: 400-year eras of 146097 days, years starting in March.
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *day = doy - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = y + (*month <= 2);
}
/// "YYYY-MM-DD HH:MM:SS[.fraction]" in UTC, the fraction without trailing zeros; with a time zone
/// the instant is shown in UTC with "Z".
std::string FormatTimestamp(int64_t value, TimeUnit unit, const std::string& timezone);
/// A time of day since midnight: "HH:MM:SS[.fraction]" (as FormatTimestamp); values outside the
/// day as "<count><unit>".
std::string FormatTime64(int64_t value, TimeUnit unit);
/// A length of time as DuckDB prints an interval: "[N day[s]] [-]HH:MM:SS[.fraction]", whole
/// days split off, the time part left out when zero unless the whole is zero ("00:00:00").
std::string FormatDuration(int64_t value, TimeUnit unit);

}  // namespace flotilla
