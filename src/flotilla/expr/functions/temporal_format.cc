// strftime / strptime / to_date. Format specifiers (both directions): %Y %m %d %H %M %S %f
// (microseconds, 6 digits; parsing takes 1-9 fraction digits) %j %b %B %a %A %y %p %I %z %F
// (%Y-%m-%d) %T (%H:%M:%S) %%.

#include <fmt/format.h>

#include <array>
#include <cctype>

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

constexpr std::array<std::string_view, 12> kMonthNames = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
// Indexed by ISO weekday - 1.
constexpr std::array<std::string_view, 7> kDayNames = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

std::string OffsetText(int64_t seconds) {
  const char sign = seconds < 0 ? '-' : '+';
  const int64_t a = seconds < 0 ? -seconds : seconds;
  return fmt::format("{}{:02d}{:02d}", sign, a / 3600, a / 60 % 60);
}

/// Formats one value; `offset` is empty for values without a time zone.
Status Format(const Moment& m, std::string_view format, const std::string& offset,
              std::string* out) {
  const CivilDate c = ToCivil(m.days);
  const int64_t hour = m.nanos / (3600 * kNanosPerSecond);
  auto it = std::back_inserter(*out);
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out->push_back(format[i]);
      continue;
    }
    if (++i == format.size()) return Status::Invalid("format ends with a lone '%'");
    switch (format[i]) {
      case 'Y':
        fmt::format_to(it, "{:04d}", c.year);
        break;
      case 'y':
        fmt::format_to(it, "{:02d}", FloorMod(c.year, 100));
        break;
      case 'm':
        fmt::format_to(it, "{:02d}", c.month);
        break;
      case 'd':
        fmt::format_to(it, "{:02d}", c.day);
        break;
      case 'H':
        fmt::format_to(it, "{:02d}", hour);
        break;
      case 'I':
        fmt::format_to(it, "{:02d}", hour % 12 == 0 ? 12 : hour % 12);
        break;
      case 'p':
        out->append(hour < 12 ? "AM" : "PM");
        break;
      case 'M':
        fmt::format_to(it, "{:02d}", m.nanos / (60 * kNanosPerSecond) % 60);
        break;
      case 'S':
        fmt::format_to(it, "{:02d}", m.nanos / kNanosPerSecond % 60);
        break;
      case 'f':
        fmt::format_to(it, "{:06d}", m.nanos / 1000 % 1'000'000);
        break;
      case 'j':
        fmt::format_to(it, "{:03d}", m.days - DaysFromCivil(c.year, 1, 1) + 1);
        break;
      case 'b':
        out->append(kMonthNames[c.month - 1].substr(0, 3));
        break;
      case 'B':
        out->append(kMonthNames[c.month - 1]);
        break;
      case 'a':
        out->append(kDayNames[IsoWeekday(m.days) - 1].substr(0, 3));
        break;
      case 'A':
        out->append(kDayNames[IsoWeekday(m.days) - 1]);
        break;
      case 'z':
        out->append(offset);
        break;
      case 'F':
        fmt::format_to(it, "{:04d}-{:02d}-{:02d}", c.year, c.month, c.day);
        break;
      case 'T':
        fmt::format_to(it, "{:02d}:{:02d}:{:02d}", hour, m.nanos / (60 * kNanosPerSecond) % 60,
                       m.nanos / kNanosPerSecond % 60);
        break;
      case '%':
        out->push_back('%');
        break;
      default:
        return Status::Invalid("unsupported format specifier '%" + std::string(1, format[i]) +
                               "' in '" + std::string(format) + "'");
    }
  }
  return Status::OK();
}

/// Fields read by Parse; unset ones default to 1970-01-01 00:00:00.
struct Parsed {
  int64_t year = 1970, month = 1, day = 1, day_of_year = 0;
  int64_t hour = 0, minute = 0, second = 0, nanos = 0;
  int64_t offset_seconds = 0;
  int am_pm = 0;  // 0 none, 1 AM, 2 PM
  bool twelve_hour = false;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view format) : text_(text), format_(format) {}

  /// Parses the whole text; on failure `error_` says why.
  Result<Moment> Run(Parsed* p) {
    for (size_t i = 0; i < format_.size(); ++i) {
      const char f = format_[i];
      if (f != '%') {
        if (std::isspace(static_cast<unsigned char>(f))) {
          while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
            ++pos_;
          }
        } else if (pos_ < text_.size() && text_[pos_] == f) {
          ++pos_;
        } else {
          return Fail("expected '" + std::string(1, f) + "'");
        }
        continue;
      }
      if (++i == format_.size()) return Fail("format ends with a lone '%'");
      FLOTILLA_RETURN_NOT_OK(Specifier(format_[i], p));
    }
    if (pos_ != text_.size()) return Fail("unexpected trailing text");
    return Build(*p);
  }

 private:
  Status Fail(const std::string& why) const {
    return Status::Invalid("could not parse '" + std::string(text_) + "' with format '" +
                           std::string(format_) + "': " + why + " at position " +
                           std::to_string(pos_));
  }

  Status Number(int min_digits, int max_digits, int64_t* out, const char* what) {
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && pos_ - start < static_cast<size_t>(max_digits) &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + (text_[pos_++] - '0');
    }
    if (pos_ - start < static_cast<size_t>(min_digits)) {
      return Fail(std::string("expected ") + what);
    }
    *out = v;
    return Status::OK();
  }

  /// Matches a full or three-letter name, case-insensitively; returns its index.
  template <size_t N>
  Status Name(const std::array<std::string_view, N>& names, int64_t* index, const char* what) {
    for (size_t n = 0; n < N; ++n) {
      for (size_t len : {names[n].size(), size_t{3}}) {
        if (text_.size() - pos_ < len) continue;
        bool match = true;
        for (size_t k = 0; k < len && match; ++k) {
          match = std::tolower(static_cast<unsigned char>(text_[pos_ + k])) ==
                  std::tolower(static_cast<unsigned char>(names[n][k]));
        }
        if (match) {
          pos_ += len;
          *index = static_cast<int64_t>(n);
          return Status::OK();
        }
      }
    }
    return Fail(std::string("expected ") + what);
  }

  Status Specifier(char f, Parsed* p) {
    int64_t ignored = 0;
    switch (f) {
      case 'Y': {
        bool negative = pos_ < text_.size() && text_[pos_] == '-';
        if (negative || (pos_ < text_.size() && text_[pos_] == '+')) ++pos_;
        FLOTILLA_RETURN_NOT_OK(Number(1, 4, &p->year, "a year"));
        if (negative) p->year = -p->year;
        return Status::OK();
      }
      case 'y': {
        FLOTILLA_RETURN_NOT_OK(Number(2, 2, &p->year, "a two-digit year"));
        // POSIX pivot: 69-99 are 1969-1999, 00-68 are 2000-2068.
        p->year += p->year >= 69 ? 1900 : 2000;
        return Status::OK();
      }
      case 'm':
        return Number(1, 2, &p->month, "a month");
      case 'd':
        return Number(1, 2, &p->day, "a day");
      case 'j':
        return Number(1, 3, &p->day_of_year, "a day of the year");
      case 'H':
        return Number(1, 2, &p->hour, "an hour");
      case 'I':
        p->twelve_hour = true;
        return Number(1, 2, &p->hour, "an hour");
      case 'M':
        return Number(1, 2, &p->minute, "a minute");
      case 'S':
        return Number(1, 2, &p->second, "a second");
      case 'f': {
        const size_t start = pos_;
        FLOTILLA_RETURN_NOT_OK(Number(1, 9, &p->nanos, "fractional seconds"));
        for (size_t digits = pos_ - start; digits < 9; ++digits)
          p->nanos *= 10;
        return Status::OK();
      }
      case 'b':
      case 'B': {
        FLOTILLA_RETURN_NOT_OK(Name(kMonthNames, &p->month, "a month name"));
        ++p->month;
        return Status::OK();
      }
      case 'a':
      case 'A':
        return Name(kDayNames, &ignored, "a weekday name");
      case 'p': {
        static constexpr std::array<std::string_view, 2> kAmPm = {"AM", "PM"};
        for (int k = 0; k < 2; ++k) {
          if (text_.size() - pos_ >= 2 &&
              std::toupper(static_cast<unsigned char>(text_[pos_])) == kAmPm[k][0] &&
              std::toupper(static_cast<unsigned char>(text_[pos_ + 1])) == 'M') {
            pos_ += 2;
            p->am_pm = k + 1;
            return Status::OK();
          }
        }
        return Fail("expected AM or PM");
      }
      case 'z':
        return Offset(p);
      case 'F':
        FLOTILLA_RETURN_NOT_OK(Specifier('Y', p));
        FLOTILLA_RETURN_NOT_OK(Literal('-'));
        FLOTILLA_RETURN_NOT_OK(Specifier('m', p));
        FLOTILLA_RETURN_NOT_OK(Literal('-'));
        return Specifier('d', p);
      case 'T':
        FLOTILLA_RETURN_NOT_OK(Specifier('H', p));
        FLOTILLA_RETURN_NOT_OK(Literal(':'));
        FLOTILLA_RETURN_NOT_OK(Specifier('M', p));
        FLOTILLA_RETURN_NOT_OK(Literal(':'));
        return Specifier('S', p);
      case '%':
        return Literal('%');
      default:
        return Status::Invalid("unsupported format specifier '%" + std::string(1, f) + "' in '" +
                               std::string(format_) + "'");
    }
  }

  Status Literal(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return Status::OK();
    }
    return Fail("expected '" + std::string(1, c) + "'");
  }

  Status Offset(Parsed* p) {
    if (pos_ < text_.size() && text_[pos_] == 'Z') {
      ++pos_;
      p->offset_seconds = 0;
      return Status::OK();
    }
    if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-')) {
      return Fail("expected a UTC offset like +05:30");
    }
    const bool negative = text_[pos_++] == '-';
    int64_t hours = 0, minutes = 0;
    FLOTILLA_RETURN_NOT_OK(Number(2, 2, &hours, "offset hours"));
    if (pos_ < text_.size() && text_[pos_] == ':') ++pos_;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      FLOTILLA_RETURN_NOT_OK(Number(2, 2, &minutes, "offset minutes"));
    }
    if (hours > 23 || minutes > 59) return Fail("UTC offset out of range");
    p->offset_seconds = (negative ? -1 : 1) * (hours * 3600 + minutes * 60);
    return Status::OK();
  }

  Result<Moment> Build(Parsed& p) {
    if (p.twelve_hour && (p.hour < 1 || p.hour > 12)) return Fail("hour must be 1-12 with %I");
    if (p.am_pm != 0) {
      p.hour %= 12;
      if (p.am_pm == 2) p.hour += 12;
    }
    if (p.month < 1 || p.month > 12) return Fail("month out of range");
    if (p.hour > 23 || p.minute > 59 || p.second > 59) return Fail("time out of range");
    int64_t days = 0;
    if (p.day_of_year != 0) {
      if (p.day_of_year > (IsLeapYear(p.year) ? 366 : 365)) return Fail("day of year out of range");
      days = DaysFromCivil(p.year, 1, 1) + p.day_of_year - 1;
    } else {
      if (p.day < 1 || p.day > DaysInMonth(p.year, static_cast<unsigned>(p.month))) {
        return Fail("day out of range for the month");
      }
      days = DaysFromCivil(p.year, static_cast<unsigned>(p.month), static_cast<unsigned>(p.day));
    }
    return Moment{days, ((p.hour * 60 + p.minute) * 60 + p.second) * kNanosPerSecond + p.nanos};
  }

  std::string_view text_;
  std::string_view format_;
  size_t pos_ = 0;
};

Status CheckStringArg(std::string_view name, const std::vector<TypePtr>& types, size_t i,
                      const char* what) {
  if (!types[i]->is_string()) return ArgumentTypeError(name, i, what, types[i]);
  return Status::OK();
}

}  // namespace

Result<TypePtr> ResolveStrftime(const std::vector<TypePtr>& types) {
  if (types[0]->id() != TypeId::kDate32 && types[0]->id() != TypeId::kTimestamp) {
    return ArgumentTypeError("strftime", 0, "a date or timestamp", types[0]);
  }
  FLOTILLA_RETURN_NOT_OK(TemporalReader::Make(types[0], "strftime"));
  FLOTILLA_RETURN_NOT_OK(CheckStringArg("strftime", types, 1, "a string format"));
  return utf8();
}

Result<Datum> ExecStrftime(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, TemporalReader::Make(args[0].type(), "strftime"));
  std::string offset;
  if (args[0].type()->id() == TypeId::kTimestamp && !args[0].type()->timezone().empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(int64_t seconds,
                              UtcOffsetSeconds(args[0].type()->timezone(), "strftime"));
    offset = OffsetText(seconds);
  }
  const int64_t rows = OutputRows(args, num_rows);
  StringBuilder out(utf8());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  std::string text;
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    text.clear();
    const Moment m = reader.At(args[0].array(), args[0].index(r));
    Status st = Format(m, ViewAt(args[1], r), offset, &text);
    if (!st.ok()) return st.WithContext("strftime()");
    FLOTILLA_RETURN_NOT_OK(out.Append(text));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

Result<TypePtr> ResolveStrptime(const std::vector<TypePtr>& types) {
  FLOTILLA_RETURN_NOT_OK(CheckStringArg("strptime", types, 0, "a string"));
  FLOTILLA_RETURN_NOT_OK(CheckStringArg("strptime", types, 1, "a string format"));
  return timestamp(TimeUnit::kMicro);
}

template <bool kTry>
Result<Datum> Strptime(const std::vector<Datum>& args, int64_t num_rows) {
  const int64_t rows = OutputRows(args, num_rows);
  NumericBuilder<int64_t> out(timestamp(TimeUnit::kMicro));
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    Parsed parsed;
    auto m = Parser(ViewAt(args[0], r), ViewAt(args[1], r)).Run(&parsed);
    if (!m.ok() && kTry) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    if (!m.ok()) return m.status().WithContext("strptime()");
    // An explicit %z makes the text a local time at that offset; store the UTC instant.
    int64_t micros;
    if (__builtin_mul_overflow(m->days, int64_t{86'400'000'000}, &micros) ||
        __builtin_add_overflow(micros, m->nanos / 1000 - parsed.offset_seconds * 1'000'000,
                               &micros)) {
      if (kTry) {
        FLOTILLA_RETURN_NOT_OK(out.AppendNull());
        continue;
      }
      return Status::Invalid("strptime(): '" + std::string(ViewAt(args[0], r)) +
                             "' is out of the timestamp range");
    }
    FLOTILLA_RETURN_NOT_OK(out.Append(micros));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

Result<Datum> ExecStrptime(const std::vector<Datum>& args, int64_t num_rows) {
  return Strptime<false>(args, num_rows);
}

Result<Datum> ExecTryStrptime(const std::vector<Datum>& args, int64_t num_rows) {
  return Strptime<true>(args, num_rows);
}

Result<TypePtr> ResolveToDate(const std::vector<TypePtr>& types) {
  FLOTILLA_RETURN_NOT_OK(CheckStringArg("to_date", types, 0, "a string"));
  if (types.size() > 1) {
    FLOTILLA_RETURN_NOT_OK(CheckStringArg("to_date", types, 1, "a string format"));
  }
  return date32();
}

Result<Datum> ExecToDate(const std::vector<Datum>& args, int64_t num_rows) {
  const int64_t rows = OutputRows(args, num_rows);
  NumericBuilder<int32_t> out(date32());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    const std::string_view format = args.size() > 1 ? ViewAt(args[1], r) : "%Y-%m-%d";
    Parsed parsed;
    auto m = Parser(ViewAt(args[0], r), format).Run(&parsed);
    if (!m.ok()) return m.status().WithContext("to_date()");
    // The calendar date as written; a %z offset does not move it to another day.
    FLOTILLA_RETURN_NOT_OK(out.Append(static_cast<int32_t>(m->days)));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

}  // namespace flotilla::expr::temporal
