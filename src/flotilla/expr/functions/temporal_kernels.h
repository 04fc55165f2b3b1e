#pragma once
// Resolve and exec entry points of the temporal functions, registered (with their docs) by
// register_temporal.cc. All take date32 or timestamp (any unit; UTC, no zone, or a fixed
// offset) and propagate nulls: a null in any argument gives a null row.

#include <vector>

#include "flotilla/expr/function_registry.h"

namespace flotilla::expr::temporal {

/// Fields extracted by year(), month(), ... and extract()/date_part().
enum class DateField {
  kYear,
  kQuarter,
  kMonth,
  kDay,
  kIsoDayOfWeek,  // Monday = 1 .. Sunday = 7 (isodow)
  kDayOfWeek,     // Sunday = 0 .. Saturday = 6 (dayofweek, dow), as DuckDB's dayofweek
  kWeekday,       // Monday = 0 .. Sunday = 6 (day_of_week), as Daft's day_of_week
  kDayOfYear,
  kWeek,  // ISO-8601 week 1..53
  kIsoYear,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,  // seconds * 1000 + milliseconds (sub-minute, as DuckDB)
  kMicrosecond,  // seconds * 1e6 + microseconds (sub-minute, as DuckDB)
};

/// Function pointers for the one-argument field function `field` (e.g. year(x) -> int64).
ResolveFn FieldResolver(DateField field);
ExecFn FieldExecutor(DateField field);
/// extract(field, x) / date_part(field, x): field is a string ('year', 'dow', ...).
Result<TypePtr> ResolveExtract(const std::vector<TypePtr>& types);
Result<Datum> ExecExtract(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveDatePart(const std::vector<TypePtr>& types);
Result<Datum> ExecDatePart(const std::vector<Datum>& args, int64_t num_rows);

// Arithmetic (temporal_arithmetic.cc).
Result<TypePtr> ResolveDateAdd(const std::vector<TypePtr>& types);
Result<Datum> ExecDateAdd(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveDateSub(const std::vector<TypePtr>& types);
Result<Datum> ExecDateSub(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveDateTrunc(const std::vector<TypePtr>& types);
Result<Datum> ExecDateTrunc(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveDateDiff(const std::vector<TypePtr>& types);
Result<Datum> ExecDateDiff(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveTimeBetween(const std::vector<TypePtr>& types);
Result<Datum> ExecTimeBetween(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveLastDay(const std::vector<TypePtr>& types);
Result<Datum> ExecLastDay(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveMakeDate(const std::vector<TypePtr>& types);
Result<Datum> ExecMakeDate(const std::vector<Datum>& args, int64_t num_rows);

// Formatting and parsing (temporal_format.cc).
Result<TypePtr> ResolveStrftime(const std::vector<TypePtr>& types);
Result<Datum> ExecStrftime(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveStrptime(const std::vector<TypePtr>& types);
Result<Datum> ExecStrptime(const std::vector<Datum>& args, int64_t num_rows);
/// try_strptime: null where the text does not match the format.
Result<Datum> ExecTryStrptime(const std::vector<Datum>& args, int64_t num_rows);
/// epoch (float64 seconds), epoch_ms and epoch_us (int64) of a date or timestamp.
Status RegisterEpochFunctions(FunctionRegistry* registry);
Result<TypePtr> ResolveToDate(const std::vector<TypePtr>& types);
Result<Datum> ExecToDate(const std::vector<Datum>& args, int64_t num_rows);

}  // namespace flotilla::expr::temporal
