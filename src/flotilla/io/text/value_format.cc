#include "flotilla/io/text/value_format.h"

#include <charconv>
#include <cmath>

#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/cast.h"

namespace flotilla::io::text {

namespace {

template <typename T>
void AppendNumber(T v, std::string* out) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, end);
}

template <typename T>
void AppendFloat(T v, TextStyle style, std::string* out) {
  if (std::isnan(v)) {
    *out += style == TextStyle::kJson ? "\"NaN\"" : "nan";
  } else if (std::isinf(v)) {
    if (style == TextStyle::kJson)
      *out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    else
      *out += v > 0 ? "inf" : "-inf";
  } else {
    AppendNumber(v, out);
  }
}

Status Unsupported(const DataType& type, TextStyle style, const std::string& name) {
  return Status::TypeError(std::string("column '") + name + "' of type " + type.ToString() +
                           " cannot be written as " + (style == TextStyle::kJson ? "JSON" : "CSV") +
                           (type.is_nested() ? "" : "; cast it to string first"));
}

// One non-null value; nested values recurse (JSON only).
Status AppendValue(const Array& a, int64_t i, TextStyle style, const std::string& name,
                   std::string* out) {
  const bool json = style == TextStyle::kJson;
  if (a.IsNull(i)) {
    if (json) *out += "null";
    return Status::OK();
  }
  const DataType& t = *a.type();
  switch (t.id()) {
    case TypeId::kNull:
      break;
    case TypeId::kBool:
      *out += a.BoolValue(i) ? "true" : "false";
      break;
    case TypeId::kInt8:
      AppendNumber(a.values<int8_t>()[i], out);
      break;
    case TypeId::kInt16:
      AppendNumber(a.values<int16_t>()[i], out);
      break;
    case TypeId::kInt32:
      AppendNumber(a.values<int32_t>()[i], out);
      break;
    case TypeId::kInt64:
      AppendNumber(a.values<int64_t>()[i], out);
      break;
    case TypeId::kUInt8:
      AppendNumber(a.values<uint8_t>()[i], out);
      break;
    case TypeId::kUInt16:
      AppendNumber(a.values<uint16_t>()[i], out);
      break;
    case TypeId::kUInt32:
      AppendNumber(a.values<uint32_t>()[i], out);
      break;
    case TypeId::kUInt64:
      AppendNumber(a.values<uint64_t>()[i], out);
      break;
    case TypeId::kDuration:
      AppendNumber(a.values<int64_t>()[i], out);
      break;
    case TypeId::kFloat32:
      AppendFloat(a.values<float>()[i], style, out);
      break;
    case TypeId::kFloat64:
      AppendFloat(a.values<double>()[i], style, out);
      break;
    case TypeId::kDecimal128: {
      // A double holds 15 significant digits exactly: wider decimals are JSON strings, so that
      // readers parsing numbers as doubles lose no digit.
      const bool quote = json && t.precision() > 15;
      if (quote) *out += '"';
      *out += DecimalToString(a.values<Int128>()[i], t.scale());
      if (quote) *out += '"';
      break;
    }
    case TypeId::kDate32:
      if (json) *out += '"';
      *out += FormatDate32(a.values<int32_t>()[i]);
      if (json) *out += '"';
      break;
    case TypeId::kTimestamp:
      if (json) *out += '"';
      *out += FormatTimestamp(a.values<int64_t>()[i], t.unit(), t.timezone());
      if (json) *out += '"';
      break;
    case TypeId::kTime64:
      if (json) *out += '"';
      *out += FormatTime64(a.values<int64_t>()[i], t.unit());
      if (json) *out += '"';
      break;
    case TypeId::kString:
    case TypeId::kLargeString:
      if (json)
        AppendJsonString(a.GetView(i), out);
      else
        *out += a.GetView(i);
      break;
    case TypeId::kDictionary:
      return AppendValue(a.dictionary(), a.DictionaryIndex(i), style, name, out);
    case TypeId::kList:
    case TypeId::kFixedSizeList: {
      if (!json) return Unsupported(t, style, name);
      Array values;
      int64_t begin = 0, n = 0;
      if (t.id() == TypeId::kList) {
        values = a.ListValues(i);
        n = values.length();
      } else {
        values = a.child(0);
        n = t.fixed_size();
        begin = (a.offset() + i) * n;
      }
      *out += '[';
      for (int64_t k = 0; k < n; ++k) {
        if (k) *out += ',';
        FLOTILLA_RETURN_NOT_OK(AppendValue(values, begin + k, style, name, out));
      }
      *out += ']';
      break;
    }
    case TypeId::kStruct: {
      if (!json) return Unsupported(t, style, name);
      *out += '{';
      for (size_t f = 0; f < t.fields().size(); ++f) {
        if (f) *out += ',';
        AppendJsonString(t.fields()[f].name, out);
        *out += ':';
        FLOTILLA_RETURN_NOT_OK(AppendValue(a.field(static_cast<int>(f)), i, style, name, out));
      }
      *out += '}';
      break;
    }
    default:
      return Unsupported(t, style, name);
  }
  return Status::OK();
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  static const char* hex = "0123456789abcdef";
  *out += '"';
  size_t run = 0;  // start of the pending run of bytes needing no escape
  for (size_t k = 0; k < s.size(); ++k) {
    const unsigned char c = static_cast<unsigned char>(s[k]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, k - run);
    run = k + 1;
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\f':
        *out += "\\f";
        break;
      default:
        *out += "\\u00";
        *out += hex[c >> 4];
        *out += hex[c & 15];
    }
  }
  out->append(s.data() + run, s.size() - run);
  *out += '"';
}

Status FormatColumn(const Array& column, TextStyle style, const std::string& name,
                    ColumnText* out) {
  if (style == TextStyle::kCsv && column.type()->is_nested()) {
    // As DuckDB writes them: [1, 2, NULL] and {'a': 1} (the cast to text's form).
    FLOTILLA_ASSIGN_OR_RETURN(Array text, compute::Cast(column, utf8()));
    return FormatColumn(text, style, name, out);
  }
  out->bytes.clear();
  out->offsets.assign(1, 0);
  out->offsets.reserve(static_cast<size_t>(column.length()) + 1);
  if (column.type_id() == TypeId::kDictionary) {
    // Each distinct value is formatted once.
    ColumnText dict;
    FLOTILLA_RETURN_NOT_OK(FormatColumn(column.dictionary(), style, name, &dict));
    for (int64_t i = 0; i < column.length(); ++i) {
      if (column.IsNull(i)) {
        if (style == TextStyle::kJson) out->bytes += "null";
      } else {
        out->bytes += dict.at(column.DictionaryIndex(i));
      }
      out->offsets.push_back(static_cast<int64_t>(out->bytes.size()));
    }
    return Status::OK();
  }
  for (int64_t i = 0; i < column.length(); ++i) {
    FLOTILLA_RETURN_NOT_OK(AppendValue(column, i, style, name, &out->bytes));
    out->offsets.push_back(static_cast<int64_t>(out->bytes.size()));
  }
  return Status::OK();
}

}  // namespace flotilla::io::text
