#include "flotilla/io/text/infer.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "flotilla/common/ascii.h"
#include "flotilla/compute/parse.h"

namespace flotilla::io::text {

namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// "YYYY-MM-DD" exactly, then whatever ParseDate32 and ParseTimestamp decide.
bool LooksLikeDateStart(std::string_view t) {
  return t.size() >= 10 && IsDigit(t[0]) && IsDigit(t[1]) && IsDigit(t[2]) && IsDigit(t[3]) &&
         t[4] == '-' && IsDigit(t[5]) && IsDigit(t[6]) && t[7] == '-' && IsDigit(t[8]) &&
         IsDigit(t[9]);
}

// A "Z" or a sign after the time of day ("2020-01-01 10:00:00+02:00").
bool HasOffset(std::string_view t) {
  if (t.back() == 'Z' || t.back() == 'z') return true;
  for (size_t i = 11; i < t.size(); ++i)
    if (t[i] == '+' || t[i] == '-') return true;
  return false;
}

std::string_view Trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
    t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t'))
    t.remove_suffix(1);
  return t;
}

bool IsTextKind(Kind k) {
  return k == Kind::kString || k == Kind::kDate || k == Kind::kTimestamp ||
         k == Kind::kTimestampTz || k == Kind::kFloatWord || k == Kind::kTime;
}

// "HH:MM:SS" with an optional fraction.
bool LooksLikeTime(std::string_view t) {
  if (t.size() < 8 || !IsDigit(t[0]) || !IsDigit(t[1]) || t[2] != ':' || !IsDigit(t[3]) ||
      !IsDigit(t[4]) || t[5] != ':' || !IsDigit(t[6]) || !IsDigit(t[7]))
    return false;
  if (t.size() == 8) return true;
  if (t[8] != '.' || t.size() == 9) return false;
  for (size_t i = 9; i < t.size(); ++i)
    if (!IsDigit(t[i])) return false;
  return true;
}

}  // namespace

Inferred Inferred::Of(Kind kind, bool from_text) {
  Inferred out;
  out.kind = kind;
  out.from_text = from_text;
  return out;
}

Inferred InferText(std::string_view text) {
  const std::string_view t = Trim(text);
  if (t.empty()) return Inferred::Of(Kind::kString, true);
  if (AsciiEqualsIgnoreCase(t, "true") || AsciiEqualsIgnoreCase(t, "false"))
    return Inferred::Of(Kind::kBool, true);
  if (LooksLikeTime(t)) {
    int64_t v;
    return Inferred::Of(compute::ParseTime(t, TimeUnit::kMicro, &v) ? Kind::kTime : Kind::kString,
                        true);
  }
  const char first = t[0];
  // Digits with a leading zero ("007", zip codes, identifiers) stay text, as DuckDB infers them:
  // a number would drop the zeros.
  const size_t digits = (first == '-' || first == '+') ? 1 : 0;
  if (t.size() > digits + 1 && t[digits] == '0' && IsDigit(t[digits + 1]) && !LooksLikeDateStart(t))
    return Inferred::Of(Kind::kString, true);
  if (IsDigit(first) || first == '-' || first == '+' || first == '.' || first == 'i' ||
      first == 'I' || first == 'n' || first == 'N') {
    int64_t i;
    const char* begin = t.data() + (first == '+' ? 1 : 0);
    auto [end, ec] = std::from_chars(begin, t.data() + t.size(), i);
    if (ec == std::errc() && end == t.data() + t.size()) {
      Inferred out = Inferred::Of(Kind::kInt, true);
      out.negative = i < 0;
      return out;
    }
    if (LooksLikeDateStart(t)) {
      int32_t days;
      if (t.size() == 10 && compute::ParseDate32(t, &days)) return Inferred::Of(Kind::kDate, true);
      int64_t ts;
      if (compute::ParseTimestamp(t, TimeUnit::kMicro, &ts))
        return Inferred::Of(HasOffset(t) ? Kind::kTimestampTz : Kind::kTimestamp, true);
      return Inferred::Of(Kind::kString, true);
    }
    double d;
    if (compute::ParseDouble(t, &d)) return Inferred::Of(Kind::kFloat, true);
  }
  return Inferred::Of(Kind::kString, true);
}

Inferred InferJsonString(std::string_view t) {
  if (t == "NaN" || t == "Infinity" || t == "-Infinity")
    return Inferred::Of(Kind::kFloatWord, true);
  if (LooksLikeTime(t)) return InferText(t);
  if (LooksLikeDateStart(t)) {
    const Inferred in = InferText(t);
    if (in.kind == Kind::kDate || in.kind == Kind::kTimestamp || in.kind == Kind::kTimestampTz)
      return in;
  }
  return Inferred::Of(Kind::kString, true);
}

std::string KindName(const Inferred& in) {
  switch (in.kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int64";
    case Kind::kUInt:
      return "uint64";
    case Kind::kWideInt:
      return "decimal128(38, 0)";
    case Kind::kFloat:
    case Kind::kFloatWord:
      return "float64";
    case Kind::kString:
      return "string";
    case Kind::kDate:
      return "date32";
    case Kind::kTimestamp:
      return "timestamp[us]";
    case Kind::kTimestampTz:
      return "timestamp[us, tz=UTC]";
    case Kind::kTime:
      return "time64[us]";
    case Kind::kList:
      return "list<" + KindName(in.children[0]) + ">";
    case Kind::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < in.children.size(); ++i)
        out += (i ? ", " : "") + in.names[i] + ": " + KindName(in.children[i]);
      return out + ">";
    }
  }
  return "?";
}

Status Join(Inferred* into, const Inferred& other, const std::string& path) {
  if (other.kind == Kind::kNull) return Status::OK();
  if (into->kind == Kind::kNull) {
    *into = other;
    return Status::OK();
  }
  const Kind a = into->kind, b = other.kind;
  if (a == b) {
    into->from_text = into->from_text && other.from_text;
    into->negative = into->negative || other.negative;
    if (a == Kind::kList) return Join(&into->children[0], other.children[0], path + "[]");
    if (a == Kind::kStruct) {
      // Linear in the fields: rows usually repeat the same keys in the same order (checked
      // first); otherwise a map of the names, made on the first miss.
      std::unordered_map<std::string, size_t> index;
      bool indexed = false;
      for (size_t c = 0; c < other.children.size(); ++c) {
        const std::string& name = other.names[c];
        size_t at = into->names.size();
        if (c < into->names.size() && into->names[c] == name) {
          at = c;
        } else {
          if (!indexed) {
            for (size_t i = 0; i < into->names.size(); ++i)
              index.emplace(into->names[i], i);
            indexed = true;
          }
          auto it = index.find(name);
          if (it != index.end()) at = it->second;
        }
        if (at == into->names.size()) {
          into->names.push_back(name);
          into->children.push_back(other.children[c]);
          if (indexed) index.emplace(name, at);
        } else {
          FLOTILLA_RETURN_NOT_OK(Join(&into->children[at], other.children[c],
                                      path.empty() ? name : path + "." + name));
        }
      }
    }
    return Status::OK();
  }
  auto set = [&](Kind k, bool from_text) {
    into->kind = k;
    into->from_text = from_text;
    into->children.clear();
    into->names.clear();
    return Status::OK();
  };
  auto either = [&](Kind x, Kind y) { return (a == x && b == y) || (a == y && b == x); };
  const bool both_text = into->from_text && other.from_text;
  // Integers stay exact: past int64's range uint64 holds them while none is negative, and a
  // 38-digit decimal holds both signs.
  const bool negative = into->negative || other.negative;
  auto integral = [](Kind k) { return k == Kind::kInt || k == Kind::kUInt || k == Kind::kWideInt; };
  if (integral(a) && integral(b)) {
    const bool wide = a == Kind::kWideInt || b == Kind::kWideInt || negative;
    FLOTILLA_RETURN_NOT_OK(set(wide ? Kind::kWideInt : Kind::kUInt, both_text));
    into->negative = negative;
    return Status::OK();
  }
  // Numbers with a fraction widen to float: an int64 is exact as a float64 up to 2^53, as in
  // every engine that infers DOUBLE for a column of mixed integers and decimals.
  auto numeric = [&](Kind k) { return integral(k) || k == Kind::kFloat || k == Kind::kFloatWord; };
  if (numeric(a) && numeric(b)) return set(Kind::kFloat, both_text);
  if (either(Kind::kDate, Kind::kTimestamp)) return set(Kind::kTimestamp, true);
  // Text that parsed as different things is text.
  if (both_text || (IsTextKind(a) && IsTextKind(b))) return set(Kind::kString, true);
  return Status::TypeError("column '" + path + "' holds both " + KindName(*into) + " and " +
                           KindName(other) + " values");
}

TypePtr ToType(const Inferred& in) {
  switch (in.kind) {
    case Kind::kNull:
    case Kind::kString:
      return utf8();
    case Kind::kBool:
      return boolean();
    case Kind::kInt:
      return int64();
    case Kind::kUInt:
      return uint64();
    case Kind::kWideInt:
      return decimal128(38, 0);
    case Kind::kFloat:
    case Kind::kFloatWord:
      return float64();
    case Kind::kDate:
      return date32();
    case Kind::kTimestamp:
      return timestamp(TimeUnit::kMicro);
    case Kind::kTimestampTz:
      return timestamp(TimeUnit::kMicro, "UTC");
    case Kind::kTime:
      return time64(TimeUnit::kMicro);
    case Kind::kList:
      return list(ToType(in.children[0]));
    case Kind::kStruct: {
      std::vector<Field> fields;
      for (size_t c = 0; c < in.children.size(); ++c)
        fields.push_back({in.names[c], ToType(in.children[c])});
      return struct_(std::move(fields));
    }
  }
  return utf8();
}

Result<SchemaPtr> UnifySchemas(const std::vector<InferredSchema>& files, bool same_columns) {
  if (files.empty()) return Status::Invalid("no files to infer a schema from");
  std::vector<std::string> names = files[0].names;
  std::vector<Inferred> columns = files[0].columns;
  std::vector<std::string> first_seen(names.size(), files[0].file);
  for (size_t f = 1; f < files.size(); ++f) {
    const InferredSchema& file = files[f];
    if (same_columns && file.names != names) {
      auto join = [](const std::vector<std::string>& v) {
        std::string out;
        for (size_t i = 0; i < v.size(); ++i)
          out += (i ? ", " : "") + v[i];
        return out;
      };
      return Status::Invalid("files '" + files[0].file + "' and '" + file.file +
                             "' have different columns: (" + join(names) + ") and (" +
                             join(file.names) + ")");
    }
    for (size_t c = 0; c < file.names.size(); ++c) {
      const auto it = std::find(names.begin(), names.end(), file.names[c]);
      if (it == names.end()) {
        names.push_back(file.names[c]);
        columns.push_back(file.columns[c]);
        first_seen.push_back(file.file);
        continue;
      }
      const size_t at = static_cast<size_t>(it - names.begin());
      Status st = Join(&columns[at], file.columns[c], names[at]);
      if (!st.ok())
        return st.WithContext("inferring one schema for '" + first_seen[at] + "' and '" +
                              file.file + "' (pass a schema to read them together)");
    }
  }
  std::vector<Field> fields;
  for (size_t c = 0; c < names.size(); ++c)
    fields.push_back({names[c], ToType(columns[c])});
  return std::make_shared<Schema>(std::move(fields));
}

}  // namespace flotilla::io::text
