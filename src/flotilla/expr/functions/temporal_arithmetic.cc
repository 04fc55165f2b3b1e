// Calendar arithmetic: date_add/date_sub with (count, unit) intervals, date_trunc, date_diff,
// the exact time between two instants (timestamp - timestamp), last_day and make_date.

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/temporal_calendar.h"
#include "flotilla/expr/functions/temporal_kernels.h"

namespace flotilla::expr::temporal {
namespace {

using functions::AnyNull;
using functions::ArgumentTypeError;
using functions::MakeOutput;
using functions::OutputRows;
using functions::ViewAt;

Status CheckTemporal(std::string_view name, const std::vector<TypePtr>& types, size_t i) {
  if (!types[i]->is_date_or_timestamp())
    return ArgumentTypeError(name, i, "a date or timestamp", types[i]);
  return TemporalReader::Make(types[i], name).status();
}

/// Appends raw date32 (int32) or timestamp (int64) values to the matching builder.
class TemporalOutput {
 public:
  explicit TemporalOutput(const TypePtr& type) : type_(type) {}
  Status Reserve(int64_t n) {
    return type_->id() == TypeId::kDate32 ? dates_.Reserve(n) : stamps_.Reserve(n);
  }
  Status AppendNull() {
    return type_->id() == TypeId::kDate32 ? dates_.AppendNull() : stamps_.AppendNull();
  }
  Status Append(int64_t raw) {
    if (type_->id() == TypeId::kDate32) return dates_.Append(static_cast<int32_t>(raw));
    return stamps_.Append(raw);
  }
  Result<Array> Finish() {
    return type_->id() == TypeId::kDate32 ? dates_.Finish() : stamps_.Finish();
  }

 private:
  TypePtr type_;
  NumericBuilder<int32_t> dates_{date32()};
  NumericBuilder<int64_t> stamps_{type_};
};

Result<Moment> AddInterval(const Moment& m, int64_t count, DateUnit unit, bool is_date,
                           std::string_view name) {
  int64_t months = 0;
  switch (unit) {
    case DateUnit::kYear:
      months = 12;
      break;
    case DateUnit::kQuarter:
      months = 3;
      break;
    case DateUnit::kMonth:
      months = 1;
      break;
    default:
      break;
  }
  if (months != 0) {
    if (__builtin_mul_overflow(count, months, &months)) {
      return Status::Invalid(std::string(name) + "(): interval count overflows");
    }
    auto days = AddMonths(m.days, months);
    if (!days.ok()) return days.status().WithContext(std::string(name) + "()");
    return Moment{*days, m.nanos};
  }
  const int64_t unit_nanos = FixedUnitNanos(unit);
  if (is_date && unit_nanos % kNanosPerDay != 0) {
    return Status::Invalid(std::string(name) +
                           "(): a date can only move by days, weeks, months, quarters or "
                           "years; cast it to a timestamp to add sub-day units");
  }
  // 128-bit so count * unit cannot overflow before the range check.
  const __int128 nanos = static_cast<__int128>(count) * unit_nanos + m.nanos;
  const __int128 day_shift = nanos >= 0 ? nanos / kNanosPerDay : -((-nanos - 1) / kNanosPerDay) - 1;
  const __int128 days = m.days + day_shift;
  if (days > (int64_t{1} << 50) || days < -(int64_t{1} << 50)) {
    return Status::Invalid(std::string(name) + "(): result out of range");
  }
  return Moment{static_cast<int64_t>(days), static_cast<int64_t>(nanos - day_shift * kNanosPerDay)};
}

Result<TypePtr> ResolveAddLike(const std::vector<TypePtr>& types, std::string_view name) {
  FLOTILLA_RETURN_NOT_OK(CheckTemporal(name, types, 0));
  if (!types[1]->is_integer()) return ArgumentTypeError(name, 1, "an integer count", types[1]);
  if (!types[2]->is_string()) return ArgumentTypeError(name, 2, "a string unit", types[2]);
  return types[0];
}

Result<Datum> ExecAddLike(const std::vector<Datum>& args, int64_t num_rows, std::string_view name,
                          bool subtract) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, TemporalReader::Make(args[0].type(), name));
  const int64_t rows = OutputRows(args, num_rows);
  TemporalOutput out(args[0].type());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(int64_t count, functions::IntegerAt(args[1], r, name));
    if (subtract) {
      if (count == INT64_MIN) return Status::Invalid(std::string(name) + "(): count overflows");
      count = -count;
    }
    FLOTILLA_ASSIGN_OR_RETURN(DateUnit unit, ParseDateUnit(ViewAt(args[2], r), name));
    const Moment in = reader.At(args[0].array(), args[0].index(r));
    FLOTILLA_ASSIGN_OR_RETURN(Moment moved, AddInterval(in, count, unit, reader.is_date(), name));
    FLOTILLA_ASSIGN_OR_RETURN(int64_t raw, reader.ToRaw(moved));
    FLOTILLA_RETURN_NOT_OK(out.Append(raw));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

Result<Moment> Truncate(const Moment& m, DateUnit unit) {
  const CivilDate c = ToCivil(m.days);
  switch (unit) {
    case DateUnit::kYear: {
      FLOTILLA_ASSIGN_OR_RETURN(int64_t days, FromCivil(c.year, 1, 1));
      return Moment{days, 0};
    }
    case DateUnit::kQuarter: {
      FLOTILLA_ASSIGN_OR_RETURN(int64_t days, FromCivil(c.year, (c.month - 1) / 3 * 3 + 1, 1));
      return Moment{days, 0};
    }
    case DateUnit::kMonth: {
      FLOTILLA_ASSIGN_OR_RETURN(int64_t days, FromCivil(c.year, c.month, 1));
      return Moment{days, 0};
    }
    case DateUnit::kWeek:
      return Moment{m.days - (IsoWeekday(m.days) - 1), 0};
    default: {
      const int64_t unit_nanos = FixedUnitNanos(unit);
      return Moment{m.days, m.nanos - m.nanos % unit_nanos};
    }
  }
}

/// Index of the unit-long bucket holding `m`; differences of indexes count boundaries.
__int128 BucketIndex(const Moment& m, DateUnit unit) {
  switch (unit) {
    case DateUnit::kYear:
      return ToCivil(m.days).year;
    case DateUnit::kQuarter: {
      const CivilDate c = ToCivil(m.days);
      return static_cast<__int128>(c.year) * 4 + (c.month - 1) / 3;
    }
    case DateUnit::kMonth: {
      const CivilDate c = ToCivil(m.days);
      return static_cast<__int128>(c.year) * 12 + (c.month - 1);
    }
    case DateUnit::kWeek:
      return m.days;  // date_diff divides the day difference by 7
    default: {
      const int64_t unit_nanos = FixedUnitNanos(unit);
      return static_cast<__int128>(m.days) * (kNanosPerDay / unit_nanos) + m.nanos / unit_nanos;
    }
  }
}

}  // namespace

Result<TypePtr> ResolveDateAdd(const std::vector<TypePtr>& types) {
  return ResolveAddLike(types, "date_add");
}
Result<Datum> ExecDateAdd(const std::vector<Datum>& args, int64_t num_rows) {
  return ExecAddLike(args, num_rows, "date_add", false);
}
Result<TypePtr> ResolveDateSub(const std::vector<TypePtr>& types) {
  return ResolveAddLike(types, "date_sub");
}
Result<Datum> ExecDateSub(const std::vector<Datum>& args, int64_t num_rows) {
  return ExecAddLike(args, num_rows, "date_sub", true);
}

Result<TypePtr> ResolveDateTrunc(const std::vector<TypePtr>& types) {
  if (!types[0]->is_string()) return ArgumentTypeError("date_trunc", 0, "a string unit", types[0]);
  FLOTILLA_RETURN_NOT_OK(CheckTemporal("date_trunc", types, 1));
  return types[1];
}

Result<Datum> ExecDateTrunc(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, TemporalReader::Make(args[1].type(), "date_trunc"));
  const int64_t rows = OutputRows(args, num_rows);
  TemporalOutput out(args[1].type());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(DateUnit unit, ParseDateUnit(ViewAt(args[0], r), "date_trunc"));
    const Moment in = reader.At(args[1].array(), args[1].index(r));
    auto truncated = Truncate(in, unit);
    if (!truncated.ok()) return truncated.status().WithContext("date_trunc()");
    FLOTILLA_ASSIGN_OR_RETURN(int64_t raw, reader.ToRaw(*truncated));
    FLOTILLA_RETURN_NOT_OK(out.Append(raw));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

Result<TypePtr> ResolveDateDiff(const std::vector<TypePtr>& types) {
  if (!types[0]->is_string()) return ArgumentTypeError("date_diff", 0, "a string unit", types[0]);
  FLOTILLA_RETURN_NOT_OK(CheckTemporal("date_diff", types, 1));
  FLOTILLA_RETURN_NOT_OK(CheckTemporal("date_diff", types, 2));
  return int64();
}

Result<Datum> ExecDateDiff(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto start, TemporalReader::Make(args[1].type(), "date_diff"));
  FLOTILLA_ASSIGN_OR_RETURN(auto end, TemporalReader::Make(args[2].type(), "date_diff"));
  const int64_t rows = OutputRows(args, num_rows);
  Int64Builder out(int64());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(DateUnit unit, ParseDateUnit(ViewAt(args[0], r), "date_diff"));
    const Moment a = start.At(args[1].array(), args[1].index(r));
    const Moment b = end.At(args[2].array(), args[2].index(r));
    __int128 diff = BucketIndex(b, unit) - BucketIndex(a, unit);
    // Weeks are not boundaries crossed but whole 7-day spans between the two days, truncated
    // toward zero, as DuckDB counts them (Sunday to the next Monday is 0 weeks).
    if (unit == DateUnit::kWeek) diff /= 7;
    if (diff > INT64_MAX || diff < INT64_MIN) {
      return Status::Invalid("date_diff(): difference does not fit in int64");
    }
    FLOTILLA_RETURN_NOT_OK(out.Append(static_cast<int64_t>(diff)));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

Result<TypePtr> ResolveTimeBetween(const std::vector<TypePtr>& types) {
  if (types[0]->id() != TypeId::kTimestamp) {
    return ArgumentTypeError("time_between", 0, "a timestamp", types[0]);
  }
  if (types[1]->id() != TypeId::kTimestamp) {
    return ArgumentTypeError("time_between", 1, "a timestamp", types[1]);
  }
  FLOTILLA_RETURN_NOT_OK(CheckTemporal("time_between", types, 0));
  FLOTILLA_RETURN_NOT_OK(CheckTemporal("time_between", types, 1));
  return duration(TimeUnit::kMicro);
}

// end - start in microseconds (truncated toward zero), as DuckDB's timestamp subtraction.
Result<Datum> ExecTimeBetween(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto end, TemporalReader::Make(args[0].type(), "time_between"));
  FLOTILLA_ASSIGN_OR_RETURN(auto start, TemporalReader::Make(args[1].type(), "time_between"));
  const int64_t rows = OutputRows(args, num_rows);
  NumericBuilder<int64_t> out(duration(TimeUnit::kMicro));
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  constexpr __int128 kNanosPerDay = __int128{86400} * 1'000'000'000;
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    const Moment a = end.At(args[0].array(), args[0].index(r));
    const Moment b = start.At(args[1].array(), args[1].index(r));
    const __int128 nanos = (__int128{a.days} - b.days) * kNanosPerDay + (a.nanos - b.nanos);
    const __int128 micros = nanos / 1000;
    if (micros > INT64_MAX || micros < INT64_MIN) {
      return Status::Invalid("timestamp - timestamp: the difference does not fit in an interval");
    }
    FLOTILLA_RETURN_NOT_OK(out.Append(static_cast<int64_t>(micros)));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

Result<TypePtr> ResolveLastDay(const std::vector<TypePtr>& types) {
  FLOTILLA_RETURN_NOT_OK(CheckTemporal("last_day", types, 0));
  return date32();
}

Result<Datum> ExecLastDay(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, TemporalReader::Make(args[0].type(), "last_day"));
  const int64_t rows = OutputRows(args, num_rows);
  NumericBuilder<int32_t> out(date32());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    const CivilDate c = ToCivil(reader.At(args[0].array(), args[0].index(r)).days);
    auto days = FromCivil(c.year, c.month, DaysInMonth(c.year, c.month));
    if (!days.ok()) return days.status().WithContext("last_day()");
    if (*days < INT32_MIN || *days > INT32_MAX) return Status::Invalid("last_day(): out of range");
    FLOTILLA_RETURN_NOT_OK(out.Append(static_cast<int32_t>(*days)));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

Result<TypePtr> ResolveMakeDate(const std::vector<TypePtr>& types) {
  for (size_t i = 0; i < 3; ++i) {
    if (!types[i]->is_integer()) return ArgumentTypeError("make_date", i, "an integer", types[i]);
  }
  return date32();
}

Result<Datum> ExecMakeDate(const std::vector<Datum>& args, int64_t num_rows) {
  const int64_t rows = OutputRows(args, num_rows);
  NumericBuilder<int32_t> out(date32());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(int64_t y, functions::IntegerAt(args[0], r, "make_date"));
    FLOTILLA_ASSIGN_OR_RETURN(int64_t m, functions::IntegerAt(args[1], r, "make_date"));
    FLOTILLA_ASSIGN_OR_RETURN(int64_t d, functions::IntegerAt(args[2], r, "make_date"));
    if (y < -kMaxAbsYear || y > kMaxAbsYear || m < 1 || m > 12 || d < 1 ||
        d > DaysInMonth(y, static_cast<unsigned>(m))) {
      return Status::Invalid("make_date(): " + std::to_string(y) + "-" + std::to_string(m) + "-" +
                             std::to_string(d) + " is not a valid date");
    }
    FLOTILLA_RETURN_NOT_OK(
        out.Append(DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d))));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

}  // namespace flotilla::expr::temporal
