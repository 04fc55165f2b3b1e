// The temporal family: date/timestamp fields, calendar arithmetic, formatting and parsing.
//
// Intervals. There is no interval type (the type system is shared and has none); functions
// that move a date take the interval as two arguments, a count and a unit string:
// date_add(x, 3, 'month'). Units: year, quarter, month, week, day, hour, minute, second,
// millisecond, microsecond, nanosecond (singular or plural, any case). The SQL front end should
// lower `x + INTERVAL '3' MONTH` to date_add(x, 3, 'month') and `x - INTERVAL ...` to
// date_sub(...), keeping these unit names.
//
// Time zones. Timestamps without a zone or in "UTC" are read as UTC; fixed offsets such as
// "+05:30" are applied, so fields are those of the local wall clock. Named zones need a tz
// database (not available: libstdc++ 12 has no C++20 chrono tzdb) and are a NotImplemented
// error at bind time.

#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/temporal_kernels.h"

namespace flotilla::expr {

Status RegisterTemporalFunctions(FunctionRegistry* registry) {
  using temporal::DateField;
  struct FieldEntry {
    const char* name;
    DateField field;
    const char* doc;
  };
  static const FieldEntry kFields[] = {
      {"year", DateField::kYear, "Year of a date or timestamp (int64); null stays null."},
      {"quarter", DateField::kQuarter, "Quarter 1-4 of a date or timestamp; null stays null."},
      {"month", DateField::kMonth, "Month 1-12 of a date or timestamp; null stays null."},
      {"day", DateField::kDay, "Day of the month 1-31; null stays null."},
      {"day_of_week", DateField::kWeekday,
       "Day of the week as Daft's day_of_week: Monday = 0 .. Sunday = 6 (see isodow for "
       "Monday = 1, dayofweek for Sunday = 0); null stays null."},
      {"isodow", DateField::kIsoDayOfWeek, "ISO day of the week, Monday = 1 .. Sunday = 7."},
      {"dayofweek", DateField::kDayOfWeek,
       "Day of the week as DuckDB's dayofweek: Sunday = 0 .. Saturday = 6 (see day_of_week for "
       "ISO numbering); null stays null."},
      {"day_of_year", DateField::kDayOfYear, "Day of the year 1-366; null stays null."},
      {"week", DateField::kWeek,
       "ISO-8601 week 1-53 (2021-01-01 is in week 53 of 2020); null stays null."},
      {"isoyear", DateField::kIsoYear,
       "ISO-8601 week-numbering year (2021-01-01 belongs to 2020); null stays null."},
      {"hour", DateField::kHour, "Hour 0-23 (0 for dates); null stays null."},
      {"minute", DateField::kMinute, "Minute 0-59 (0 for dates); null stays null."},
      {"second", DateField::kSecond, "Second 0-59 (0 for dates); null stays null."},
      {"millisecond", DateField::kMillisecond,
       "Milliseconds within the minute, seconds included (0-59999, as DuckDB); null stays "
       "null."},
      {"microsecond", DateField::kMicrosecond,
       "Microseconds within the minute, seconds included (0-59999999, as DuckDB); null stays "
       "null."},
  };
  for (const auto& f : kFields) {
    FLOTILLA_RETURN_NOT_OK(registry->Add(
        {f.name, f.doc, 1, 1, temporal::FieldResolver(f.field), temporal::FieldExecutor(f.field)}));
  }

  const char* kFieldNames =
      " Fields: year, quarter, month, day, dow/dayofweek (Sunday = 0), isodow/day_of_week "
      "(Monday = 1), doy/dayofyear, week, isoyear, hour, minute, second, millisecond, "
      "microsecond. Null in, null out.";
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"extract",
       std::string("extract(field, x): one field of a date or timestamp as int64.") + kFieldNames,
       2, 2, temporal::ResolveExtract, temporal::ExecExtract}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"date_part", std::string("date_part(field, x): same as extract(field, x).") + kFieldNames, 2,
       2, temporal::ResolveDatePart, temporal::ExecDatePart}));

  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"date_add",
       "date_add(x, count, unit): x moved forward by count units ('day', 'month', 'hour', ...); "
       "month, quarter and year steps clamp to the month end (2024-01-31 + 1 month = "
       "2024-02-29). Dates only move by whole days. Null in, null out.",
       3, 3, temporal::ResolveDateAdd, temporal::ExecDateAdd}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"date_sub", "date_sub(x, count, unit): x moved back by count units; same rules as date_add.",
       3, 3, temporal::ResolveDateSub, temporal::ExecDateSub}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"date_trunc",
       "date_trunc(unit, x): x truncated to the start of its year, quarter, month, week "
       "(Monday), day, hour, minute, second, millisecond or microsecond; keeps x's type.",
       2, 2, temporal::ResolveDateTrunc, temporal::ExecDateTrunc}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"date_diff",
       "date_diff(unit, a, b): the number of unit boundaries crossed from a to b (as DuckDB: "
       "date_diff('year', 2023-12-31, 2024-01-01) = 1), except weeks: whole 7-day spans between "
       "the days, truncated toward zero. int64.",
       3, 3, temporal::ResolveDateDiff, temporal::ExecDateDiff}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"time_between",
       "time_between(end, start): the exact time from start to end, two timestamps, as an "
       "interval (duration in microseconds); what SQL's end - start gives.",
       2, 2, temporal::ResolveTimeBetween, temporal::ExecTimeBetween}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"last_day", "last_day(x): the last day of x's month, as a date. Null in, null out.", 1, 1,
       temporal::ResolveLastDay, temporal::ExecLastDay}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"make_date",
       "make_date(year, month, day): the date; an impossible date (2023-02-29) is an error.", 3, 3,
       temporal::ResolveMakeDate, temporal::ExecMakeDate}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"strftime",
       "strftime(x, format): x as text. Specifiers %Y %y %m %d %H %I %p %M %S %f (microseconds) "
       "%j %b %B %a %A %z %F %T %%.",
       2, 2, temporal::ResolveStrftime, temporal::ExecStrftime}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"strptime",
       "strptime(text, format): parses text into timestamp[us] with the strftime specifiers; a "
       "%z offset converts to UTC. Text that does not match is an error naming the value and "
       "the format.",
       2, 2, temporal::ResolveStrptime, temporal::ExecStrptime}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"try_strptime",
       "try_strptime(text, format): as strptime, but null where the text does not match the "
       "format or is out of range.",
       2, 2, temporal::ResolveStrptime, temporal::ExecTryStrptime}));
  FLOTILLA_RETURN_NOT_OK(temporal::RegisterEpochFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"to_date",
       "to_date(text[, format]): parses a date ('YYYY-MM-DD' by default, else a strptime "
       "format); a mismatch is an error.",
       1, 2, temporal::ResolveToDate, temporal::ExecToDate}));
  return Status::OK();
}

}  // namespace flotilla::expr
