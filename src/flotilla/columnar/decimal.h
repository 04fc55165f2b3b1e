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
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day);
/// "YYYY-MM-DD HH:MM:SS[.fraction]" in UTC, the fraction without trailing zeros; with a time zone
/// the instant is shown in UTC with "Z".
std::string FormatTimestamp(int64_t value, TimeUnit unit, const std::string& timezone);
/// A time of day since midnight: "HH:MM:SS[.fraction]" (as FormatTimestamp); values outside the
/// day as "<count><unit>".
std::string FormatTime64(int64_t value, TimeUnit unit);

}  // namespace flotilla
