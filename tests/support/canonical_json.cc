#include "tests/support/canonical_json.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

namespace flotilla::testing {

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
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
      default:
        if (c < 0x20) {
          *out += fmt::format("\\u{:04x}", c);
        } else {
          out->push_back(ch);  // UTF-8 passes through
        }
    }
  }
  out->push_back('"');
}

namespace {

void AppendHex(std::string_view bytes, std::string* out) {
  static const char kDigits[] = "0123456789abcdef";
  out->push_back('"');
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    out->push_back(kDigits[c >> 4]);
    out->push_back(kDigits[c & 15]);
  }
  out->push_back('"');
}

std::string Int128Decimal(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  // Work on the magnitude as unsigned (handles the minimum value).
  unsigned __int128 u =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) digits.push_back('-');
  return {digits.rbegin(), digits.rend()};
}

template <typename T>
void AppendInt(const Array& a, int64_t i, std::string* out) {
  *out += '"';
  *out += std::to_string(a.values<T>()[i]);
  *out += '"';
}

void AppendValue(const Array& a, int64_t i, std::string* out);

void AppendArrayValues(const Array& a, std::string* out) {
  out->push_back('[');
  for (int64_t j = 0; j < a.length(); ++j) {
    if (j) out->push_back(',');
    AppendValue(a, j, out);
  }
  out->push_back(']');
}

void AppendValue(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    *out += "null";
    return;
  }
  const DataType& t = *a.type();
  switch (t.id()) {
    case TypeId::kNull:
      *out += "null";
      return;
    case TypeId::kBool:
      *out += a.BoolValue(i) ? "true" : "false";
      return;
    case TypeId::kInt8:
      return AppendInt<int8_t>(a, i, out);
    case TypeId::kInt16:
      return AppendInt<int16_t>(a, i, out);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return AppendInt<int32_t>(a, i, out);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      return AppendInt<int64_t>(a, i, out);
    case TypeId::kUInt8:
      return AppendInt<uint8_t>(a, i, out);
    case TypeId::kUInt16:
      return AppendInt<uint16_t>(a, i, out);
    case TypeId::kUInt32:
      return AppendInt<uint32_t>(a, i, out);
    case TypeId::kUInt64:
      return AppendInt<uint64_t>(a, i, out);
    case TypeId::kFloat32: {
      uint32_t bits;
      std::memcpy(&bits, a.values<float>() + i, sizeof(bits));
      *out += fmt::format("\"{:08x}\"", bits);
      return;
    }
    case TypeId::kFloat64: {
      uint64_t bits;
      std::memcpy(&bits, a.values<double>() + i, sizeof(bits));
      *out += fmt::format("\"{:016x}\"", bits);
      return;
    }
    case TypeId::kDecimal128: {
      std::string_view bytes = a.GetView(i);
      __int128 v;
      if (bytes.size() != sizeof(v)) throw std::runtime_error("decimal128 value is not 16 bytes");
      std::memcpy(&v, bytes.data(), sizeof(v));
      *out += '"' + Int128Decimal(v) + '"';
      return;
    }
    case TypeId::kString:
    case TypeId::kLargeString:
      return AppendJsonString(a.GetView(i), out);
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      return AppendHex(a.GetView(i), out);
    case TypeId::kList:
    case TypeId::kFixedSizeList:
      return AppendArrayValues(a.ListValues(i), out);
    case TypeId::kStruct: {
      out->push_back('[');
      for (int k = 0; k < a.num_children(); ++k) {
        if (k) out->push_back(',');
        AppendValue(a.field(k), i, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kDictionary: {
      Array dict = a.dictionary();
      int64_t index = a.DictionaryIndex(i);
      if (!dict.valid() || index < 0 || index >= dict.length()) {
        throw std::runtime_error(fmt::format("dictionary index {} out of range", index));
      }
      return AppendValue(dict, index, out);
    }
  }
  throw std::runtime_error("canonical JSON: unsupported type " + t.ToString());
}

}  // namespace

std::string CanonicalFieldString(const Field& field) {
  return field.name + ": " + CanonicalTypeString(*field.type) + (field.nullable ? "" : " not null");
}

std::string CanonicalTypeString(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBool:
      return "bool";
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kUInt8:
      return "uint8";
    case TypeId::kUInt16:
      return "uint16";
    case TypeId::kUInt32:
      return "uint32";
    case TypeId::kUInt64:
      return "uint64";
    case TypeId::kFloat32:
      return "float32";
    case TypeId::kFloat64:
      return "float64";
    case TypeId::kDecimal128:
      return fmt::format("decimal128({}, {})", t.precision(), t.scale());
    case TypeId::kDate32:
      return "date32";
    case TypeId::kTimestamp:
      return t.timezone().empty()
                 ? fmt::format("timestamp[{}]", TimeUnitName(t.unit()))
                 : fmt::format("timestamp[{}, tz={}]", TimeUnitName(t.unit()), t.timezone());
    case TypeId::kDuration:
      return fmt::format("duration[{}]", TimeUnitName(t.unit()));
    case TypeId::kTime64:
      return fmt::format("time64[{}]", TimeUnitName(t.unit()));
    case TypeId::kString:
      return "utf8";
    case TypeId::kLargeString:
      return "large_utf8";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kLargeBinary:
      return "large_binary";
    case TypeId::kFixedSizeBinary:
      return fmt::format("fixed_size_binary[{}]", t.fixed_size());
    case TypeId::kList:
      return "list<" + CanonicalFieldString(t.fields()[0]) + ">";
    case TypeId::kFixedSizeList:
      return fmt::format("fixed_size_list[{}]<{}>", t.fixed_size(),
                         CanonicalFieldString(t.fields()[0]));
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t k = 0; k < t.fields().size(); ++k) {
        if (k) s += ", ";
        s += CanonicalFieldString(t.fields()[k]);
      }
      return s + ">";
    }
    case TypeId::kDictionary:
      return "dictionary<" + CanonicalTypeString(*t.index_type()) + ", " +
             CanonicalTypeString(*t.value_type()) + ">";
  }
  throw std::runtime_error("canonical JSON: unsupported type " + t.ToString());
}

std::string CanonicalJson(const Schema& schema, const std::vector<RecordBatch>& batches) {
  std::string out = "{\"schema\":[";
  for (int f = 0; f < schema.num_fields(); ++f) {
    const Field& field = schema.field(f);
    if (f) out += ',';
    out += "{\"name\":";
    AppendJsonString(field.name, &out);
    out += ",\"type\":";
    AppendJsonString(CanonicalTypeString(*field.type), &out);
    out += field.nullable ? ",\"nullable\":true}" : ",\"nullable\":false}";
  }
  out += "],\"batches\":[";
  for (size_t b = 0; b < batches.size(); ++b) {
    const RecordBatch& batch = batches[b];
    if (b) out += ',';
    out += fmt::format("{{\"num_rows\":{},\"columns\":[", batch.num_rows());
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (c) out += ',';
      const Array& col = batch.column(c);
      if (col.length() != batch.num_rows()) {
        throw std::runtime_error(
            fmt::format("column {} has {} rows, batch {}", c, col.length(), batch.num_rows()));
      }
      AppendArrayValues(col, &out);
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

}  // namespace flotilla::testing

namespace flotilla::testing {

std::vector<std::string> CanonicalRows(const RecordBatch& batch) {
  std::vector<std::string> rows;
  rows.reserve(static_cast<size_t>(batch.num_rows()));
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row = "[";
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (c > 0) row += ",";
      AppendValue(batch.column(c), r, &row);
    }
    rows.push_back(row + "]");
  }
  return rows;
}

}  // namespace flotilla::testing
