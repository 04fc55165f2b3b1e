#include "flotilla/io/text/value_parse.h"

#include <charconv>
#include <limits>

#include "flotilla/compute/parse.h"

namespace flotilla::io::text {

namespace {

std::string_view Trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
    t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t'))
    t.remove_suffix(1);
  return t;
}

template <typename T>
Result<bool> AppendInteger(ArrayBuilder* builder, std::string_view text) {
  const std::string_view t = Trim(text);
  T value;
  const char* begin = t.data() + (!t.empty() && t[0] == '+' ? 1 : 0);
  auto [end, ec] = std::from_chars(begin, t.data() + t.size(), value);
  if (ec == std::errc() && end == t.data() + t.size() && end != begin) {
    FLOTILLA_RETURN_NOT_OK(static_cast<NumericBuilder<T>*>(builder)->Append(value));
    return true;
  }
  // "2.5" and "1e3" cast to integers as in compute::Cast: rounded, range-checked.
  Int128 wide;
  if (!compute::ParseInteger(t, &wide)) {
    double d;
    if (!compute::ParseDouble(t, &d) || !(d == d) || d > 1.8e19 || d < -9.3e18) return false;
    wide = static_cast<Int128>(d < 0 ? d - 0.5 : d + 0.5);
  }
  if (wide < static_cast<Int128>(std::numeric_limits<T>::min()) ||
      wide > static_cast<Int128>(std::numeric_limits<T>::max()))
    return false;
  FLOTILLA_RETURN_NOT_OK(static_cast<NumericBuilder<T>*>(builder)->Append(static_cast<T>(wide)));
  return true;
}

template <typename T>
Result<bool> AppendFloat(ArrayBuilder* builder, std::string_view text) {
  double d;
  if (!compute::ParseDouble(text, &d)) return false;
  T value = static_cast<T>(d);
  if constexpr (std::is_same_v<T, float>) {
    // Straight to float: rounding through double could land on the other neighbour.
    const std::string_view t = Trim(text);
    const char* begin = t.data() + (!t.empty() && t[0] == '+' ? 1 : 0);
    float f;
    auto [end, ec] = std::from_chars(begin, t.data() + t.size(), f);
    if (ec == std::errc() && end == t.data() + t.size()) value = f;
  }
  FLOTILLA_RETURN_NOT_OK(static_cast<NumericBuilder<T>*>(builder)->Append(value));
  return true;
}

}  // namespace

bool IsTextParsable(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal128:
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return true;
    case TypeId::kDictionary:
      return type.value_type()->id() == TypeId::kString;
    default:
      return false;
  }
}

Result<bool> AppendParsed(ArrayBuilder* builder, std::string_view text) {
  const DataType& type = *builder->type();
  switch (type.id()) {
    case TypeId::kBool: {
      bool v;
      if (!compute::ParseBool(text, &v)) return false;
      FLOTILLA_RETURN_NOT_OK(static_cast<BooleanBuilder*>(builder)->Append(v));
      return true;
    }
    case TypeId::kInt8:
      return AppendInteger<int8_t>(builder, text);
    case TypeId::kInt16:
      return AppendInteger<int16_t>(builder, text);
    case TypeId::kInt32:
      return AppendInteger<int32_t>(builder, text);
    case TypeId::kInt64:
    case TypeId::kDuration:
      return AppendInteger<int64_t>(builder, text);
    case TypeId::kUInt8:
      return AppendInteger<uint8_t>(builder, text);
    case TypeId::kUInt16:
      return AppendInteger<uint16_t>(builder, text);
    case TypeId::kUInt32:
      return AppendInteger<uint32_t>(builder, text);
    case TypeId::kUInt64:
      return AppendInteger<uint64_t>(builder, text);
    case TypeId::kFloat32:
      return AppendFloat<float>(builder, text);
    case TypeId::kFloat64:
      return AppendFloat<double>(builder, text);
    case TypeId::kDecimal128: {
      Int128 v;
      if (!compute::ParseDecimal(text, type.precision(), type.scale(), &v)) return false;
      FLOTILLA_RETURN_NOT_OK(static_cast<FixedSizeBinaryBuilder*>(builder)->AppendDecimal(v));
      return true;
    }
    case TypeId::kDate32: {
      int32_t v;
      if (!compute::ParseDate32(text, &v)) return false;
      FLOTILLA_RETURN_NOT_OK(static_cast<Int32Builder*>(builder)->Append(v));
      return true;
    }
    case TypeId::kTimestamp: {
      int64_t v;
      if (!compute::ParseTimestamp(text, type.unit(), &v)) return false;
      FLOTILLA_RETURN_NOT_OK(static_cast<Int64Builder*>(builder)->Append(v));
      return true;
    }
    case TypeId::kTime64: {
      int64_t v;
      if (!compute::ParseTime(text, type.unit(), &v)) return false;
      FLOTILLA_RETURN_NOT_OK(static_cast<Int64Builder*>(builder)->Append(v));
      return true;
    }
    case TypeId::kString:
    case TypeId::kBinary:
      FLOTILLA_RETURN_NOT_OK(static_cast<StringBuilder*>(builder)->Append(text));
      return true;
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      FLOTILLA_RETURN_NOT_OK(static_cast<LargeStringBuilder*>(builder)->Append(text));
      return true;
    case TypeId::kDictionary:
      if (type.value_type()->id() != TypeId::kString) return false;
      FLOTILLA_RETURN_NOT_OK(static_cast<DictionaryBuilder*>(builder)->Append(text));
      return true;
    default:
      return false;
  }
}

}  // namespace flotilla::io::text
