// Field extraction: year(x), month(x), ..., extract(field, x) and date_part(field, x).

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "flotilla/columnar/builder.h"
#include "flotilla/common/ascii.h"
#include "flotilla/common/suggest.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/temporal_calendar.h"
#include "flotilla/expr/functions/temporal_kernels.h"

namespace flotilla::expr::temporal {
namespace {

using functions::AnyNull;
using functions::ArgumentTypeError;
using functions::MakeOutput;
using functions::OutputRows;

constexpr std::string_view FieldFunctionName(DateField f) {
  constexpr std::array<std::string_view, 15> kNames = {
      "year", "quarter", "month", "day",    "isodow", "dayofweek",   "day_of_week", "day_of_year",
      "week", "isoyear", "hour",  "minute", "second", "millisecond", "microsecond"};
  return kNames[static_cast<size_t>(f)];
}

int64_t ExtractField(DateField f, const Moment& m) {
  switch (f) {
    case DateField::kYear:
      return YearOfDays(m.days);
    case DateField::kQuarter:
      return (ToCivil(m.days).month - 1) / 3 + 1;
    case DateField::kMonth:
      return ToCivil(m.days).month;
    case DateField::kDay:
      return ToCivil(m.days).day;
    case DateField::kIsoDayOfWeek:
      return IsoWeekday(m.days);
    case DateField::kDayOfWeek:
      return IsoWeekday(m.days) % 7;
    case DateField::kWeekday:
      return IsoWeekday(m.days) - 1;
    case DateField::kDayOfYear: {
      const int64_t year = ToCivil(m.days).year;
      // DaysFromCivil is exact for +-5.8 million years: every date32 and every timestamp
      // except seconds-unit values near the int64 limits.
      return m.days - DaysFromCivil(year, 1, 1) + 1;
    }
    case DateField::kWeek:
    case DateField::kIsoYear: {
      int64_t iso_year, week;
      IsoWeek(m.days, &iso_year, &week);
      return f == DateField::kWeek ? week : iso_year;
    }
    case DateField::kHour:
      return m.nanos / (3600 * kNanosPerSecond);
    case DateField::kMinute:
      return m.nanos / (60 * kNanosPerSecond) % 60;
    case DateField::kSecond:
      return m.nanos / kNanosPerSecond % 60;
    case DateField::kMillisecond:
      return m.nanos / 1'000'000 % 60'000;
    case DateField::kMicrosecond:
      return m.nanos / 1'000 % 60'000'000;
  }
  return 0;
}

Result<DateField> ParseField(std::string_view text) {
  std::string s = AsciiLower(text);
  static constexpr std::pair<std::string_view, DateField> kNames[] = {
      {"year", DateField::kYear},
      {"years", DateField::kYear},
      {"quarter", DateField::kQuarter},
      {"month", DateField::kMonth},
      {"months", DateField::kMonth},
      {"day", DateField::kDay},
      {"days", DateField::kDay},
      {"dow", DateField::kDayOfWeek},
      {"dayofweek", DateField::kDayOfWeek},
      {"isodow", DateField::kIsoDayOfWeek},
      {"day_of_week", DateField::kWeekday},
      {"doy", DateField::kDayOfYear},
      {"dayofyear", DateField::kDayOfYear},
      {"day_of_year", DateField::kDayOfYear},
      {"week", DateField::kWeek},
      {"weeks", DateField::kWeek},
      {"weekofyear", DateField::kWeek},
      {"isoyear", DateField::kIsoYear},
      {"hour", DateField::kHour},
      {"hours", DateField::kHour},
      {"minute", DateField::kMinute},
      {"minutes", DateField::kMinute},
      {"second", DateField::kSecond},
      {"seconds", DateField::kSecond},
      {"millisecond", DateField::kMillisecond},
      {"milliseconds", DateField::kMillisecond},
      {"microsecond", DateField::kMicrosecond},
      {"microseconds", DateField::kMicrosecond}};
  for (const auto& [name, field] : kNames) {
    if (s == name) return field;
  }
  return Status::Invalid("unknown date field '" + std::string(text) +
                         "'; expected year, quarter, month, day, dow, isodow, doy, week, "
                         "isoyear, hour, minute, second, millisecond or microsecond");
}

template <DateField F>
Result<TypePtr> ResolveFieldFn(const std::vector<TypePtr>& types) {
  constexpr std::string_view kName = FieldFunctionName(F);
  if (!types[0]->is_date_or_timestamp())
    return ArgumentTypeError(kName, 0, "a date or timestamp", types[0]);
  // Fail at bind time, not per batch, for zones we cannot convert.
  FLOTILLA_RETURN_NOT_OK(TemporalReader::Make(types[0], kName));
  return int64();
}

template <DateField F>
Result<Datum> ExecFieldFn(const std::vector<Datum>& args, int64_t num_rows) {
  constexpr std::string_view kName = FieldFunctionName(F);
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, TemporalReader::Make(args[0].type(), kName));
  const Datum& in = args[0];
  if (reader.is_date()) {
    const int32_t* days = in.array().values<int32_t>();
    return functions::MapValues<int64_t>(args, num_rows, int64(), [&](int64_t row) {
      return ExtractField(F, Moment{days[in.index(row)], 0});
    });
  }
  return functions::MapValues<int64_t>(args, num_rows, int64(), [&](int64_t row) {
    return ExtractField(F, reader.At(in.array(), in.index(row)));
  });
}

template <std::size_t... I>
constexpr auto MakeResolvers(std::index_sequence<I...>) {
  return std::array<ResolveFn, sizeof...(I)>{&ResolveFieldFn<static_cast<DateField>(I)>...};
}
template <std::size_t... I>
constexpr auto MakeExecutors(std::index_sequence<I...>) {
  return std::array<ExecFn, sizeof...(I)>{&ExecFieldFn<static_cast<DateField>(I)>...};
}
constexpr size_t kNumFields = static_cast<size_t>(DateField::kMicrosecond) + 1;

Result<TypePtr> ResolveExtractNamed(const std::vector<TypePtr>& types, std::string_view name) {
  if (!types[0]->is_string()) {
    return ArgumentTypeError(name, 0, "a string field name", types[0]);
  }
  if (!types[1]->is_date_or_timestamp())
    return ArgumentTypeError(name, 1, "a date or timestamp", types[1]);
  FLOTILLA_RETURN_NOT_OK(TemporalReader::Make(types[1], name));
  return int64();
}

Result<Datum> ExecExtractNamed(const std::vector<Datum>& args, int64_t num_rows,
                               std::string_view name) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, TemporalReader::Make(args[1].type(), name));
  const int64_t rows = OutputRows(args, num_rows);
  Int64Builder out(int64());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    auto field = ParseField(functions::ViewAt(args[0], r));
    if (!field.ok()) return field.status().WithContext(std::string(name) + "()");
    const Moment m = reader.At(args[1].array(), args[1].index(r));
    FLOTILLA_RETURN_NOT_OK(out.Append(ExtractField(*field, m)));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

}  // namespace

ResolveFn FieldResolver(DateField field) {
  static constexpr auto kResolvers = MakeResolvers(std::make_index_sequence<kNumFields>());
  return kResolvers[static_cast<size_t>(field)];
}

ExecFn FieldExecutor(DateField field) {
  static constexpr auto kExecutors = MakeExecutors(std::make_index_sequence<kNumFields>());
  return kExecutors[static_cast<size_t>(field)];
}

Result<TypePtr> ResolveExtract(const std::vector<TypePtr>& types) {
  return ResolveExtractNamed(types, "extract");
}
Result<Datum> ExecExtract(const std::vector<Datum>& args, int64_t num_rows) {
  return ExecExtractNamed(args, num_rows, "extract");
}
Result<TypePtr> ResolveDatePart(const std::vector<TypePtr>& types) {
  return ResolveExtractNamed(types, "date_part");
}
Result<Datum> ExecDatePart(const std::vector<Datum>& args, int64_t num_rows) {
  return ExecExtractNamed(args, num_rows, "date_part");
}

}  // namespace flotilla::expr::temporal
