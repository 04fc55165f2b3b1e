#pragma once
// Text -> value parsing used by casts from strings. Each returns false when the text is not a
// value of the type; leading and trailing ASCII whitespace is ignored (as in DuckDB).

#include <cstdint>
#include <string_view>

#include "flotilla/columnar/decimal.h"
#include "flotilla/types/data_type.h"

namespace flotilla::compute {

/// An optionally signed decimal integer ("-42", "+7"), any magnitude below 2^127.
bool ParseInteger(std::string_view text, Int128* out);
/// A float as strtod reads it, plus "inf", "-inf", "nan" (any case).
bool ParseDouble(std::string_view text, double* out);
/// "-123.456", ".5", "5.", "1.5e3" rounded half away from zero to `scale` digits; false when it
/// needs more than `precision` digits.
bool ParseDecimal(std::string_view text, int32_t precision, int32_t scale, Int128* out);
/// true/false, t/f, yes/no, y/n, on/off, 1/0 (any case).
bool ParseBool(std::string_view text, bool* out);
/// "YYYY-MM-DD" (the year may have a sign and more digits), optionally followed by a time of
/// day as ParseTimestamp reads it, which is dropped; checks the day exists.
bool ParseDate32(std::string_view text, int32_t* days);
/// "YYYY-MM-DD", optionally followed by ' ' or 'T' and "HH:MM[:SS[.fraction]]", optionally
/// followed by "Z" or "+HH[:MM]"/"-HH[:MM]" (converted to UTC). Fractions finer than `unit`
/// are truncated.
bool ParseTimestamp(std::string_view text, TimeUnit unit, int64_t* out);

/// A time of day "HH:MM[:SS[.fraction]]" (no offset) in `unit` ticks since midnight.
bool ParseTime(std::string_view text, TimeUnit unit, int64_t* out);

/// Ticks of `unit` in one second: 1, 1000, 10^6, 10^9.
int64_t TicksPerSecond(TimeUnit unit);

}  // namespace flotilla::compute
