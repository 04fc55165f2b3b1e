#include "flotilla/types/data_type.h"

#include <fmt/format.h>

namespace flotilla {

const char* TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return "s";
    case TimeUnit::kMilli:
      return "ms";
    case TimeUnit::kMicro:
      return "us";
    case TimeUnit::kNano:
      return "ns";
  }
  return "?";
}

bool Field::Equals(const Field& other) const {
  return name == other.name && nullable == other.nullable && type->Equals(*other.type);
}

std::string Field::ToString() const {
  return name + ": " + type->ToString() + (nullable ? "" : " not null");
}

struct TypeFactory {
  static TypePtr Make(TypeId id, DataType::Params params = {}) {
    return TypePtr(new DataType(id, std::move(params)));
  }
};

int DataType::bit_width() const {
  switch (id_) {
    case TypeId::kBool:
      return 1;
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 8;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 16;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
      return 32;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      return 64;
    case TypeId::kDecimal128:
      return 128;
    case TypeId::kFixedSizeBinary:
      return fixed_size_ * 8;
    default:
      return -1;
  }
}

const TypePtr& DataType::value_type() const {
  if (id_ == TypeId::kDictionary) return value_type_;
  static const TypePtr kNone;
  return fields_.empty() ? kNone : fields_[0].type;
}

bool DataType::Equals(const DataType& other) const {
  if (this == &other) return true;
  if (id_ != other.id_ || fixed_size_ != other.fixed_size_ || precision_ != other.precision_ ||
      scale_ != other.scale_ || unit_ != other.unit_ || timezone_ != other.timezone_ ||
      fields_.size() != other.fields_.size()) {
    return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  if (id_ == TypeId::kDictionary) {
    return index_type_->Equals(*other.index_type_) && value_type_->Equals(*other.value_type_);
  }
  return true;
}

std::string DataType::ToString() const {
  switch (id_) {
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
      return fmt::format("decimal128({}, {})", precision_, scale_);
    case TypeId::kDate32:
      return "date32";
    case TypeId::kTimestamp:
      return timezone_.empty()
                 ? fmt::format("timestamp[{}]", TimeUnitName(unit_))
                 : fmt::format("timestamp[{}, tz={}]", TimeUnitName(unit_), timezone_);
    case TypeId::kDuration:
      return fmt::format("duration[{}]", TimeUnitName(unit_));
    case TypeId::kTime64:
      return fmt::format("time64[{}]", TimeUnitName(unit_));
    case TypeId::kString:
      return "string";
    case TypeId::kLargeString:
      return "large_string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kLargeBinary:
      return "large_binary";
    case TypeId::kFixedSizeBinary:
      return fmt::format("fixed_size_binary[{}]", fixed_size_);
    case TypeId::kList:
      return "list<" + fields_[0].type->ToString() + ">";
    case TypeId::kFixedSizeList:
      return fmt::format("fixed_size_list<{}>[{}]", fields_[0].type->ToString(), fixed_size_);
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i) out += ", ";
        out += fields_[i].ToString();
      }
      return out + ">";
    }
    case TypeId::kDictionary:
      return "dictionary<values=" + value_type_->ToString() +
             ", indices=" + index_type_->ToString() + ">";
  }
  return "?";
}

#define FLOTILLA_SINGLETON_TYPE(fn, id)                         \
  TypePtr fn() {                                                \
    static const TypePtr kType = TypeFactory::Make(TypeId::id); \
    return kType;                                               \
  }
FLOTILLA_SINGLETON_TYPE(null, kNull)
FLOTILLA_SINGLETON_TYPE(boolean, kBool)
FLOTILLA_SINGLETON_TYPE(int8, kInt8)
FLOTILLA_SINGLETON_TYPE(int16, kInt16)
FLOTILLA_SINGLETON_TYPE(int32, kInt32)
FLOTILLA_SINGLETON_TYPE(int64, kInt64)
FLOTILLA_SINGLETON_TYPE(uint8, kUInt8)
FLOTILLA_SINGLETON_TYPE(uint16, kUInt16)
FLOTILLA_SINGLETON_TYPE(uint32, kUInt32)
FLOTILLA_SINGLETON_TYPE(uint64, kUInt64)
FLOTILLA_SINGLETON_TYPE(float32, kFloat32)
FLOTILLA_SINGLETON_TYPE(float64, kFloat64)
FLOTILLA_SINGLETON_TYPE(date32, kDate32)
FLOTILLA_SINGLETON_TYPE(utf8, kString)
FLOTILLA_SINGLETON_TYPE(large_utf8, kLargeString)
FLOTILLA_SINGLETON_TYPE(binary, kBinary)
FLOTILLA_SINGLETON_TYPE(large_binary, kLargeBinary)
#undef FLOTILLA_SINGLETON_TYPE

TypePtr decimal128(int32_t precision, int32_t scale) {
  return TypeFactory::Make(TypeId::kDecimal128, {.precision = precision, .scale = scale});
}

TypePtr timestamp(TimeUnit unit, std::string timezone) {
  return TypeFactory::Make(TypeId::kTimestamp, {.unit = unit, .timezone = std::move(timezone)});
}

TypePtr duration(TimeUnit unit) {
  return TypeFactory::Make(TypeId::kDuration, {.unit = unit});
}

TypePtr time64(TimeUnit unit) {
  return TypeFactory::Make(TypeId::kTime64, {.unit = unit});
}

TypePtr fixed_size_binary(int32_t byte_width) {
  return TypeFactory::Make(TypeId::kFixedSizeBinary, {.fixed_size = byte_width});
}

TypePtr list(Field element) {
  return TypeFactory::Make(TypeId::kList, {.fields = {std::move(element)}});
}
TypePtr list(TypePtr element) {
  return list(Field{"item", std::move(element), true});
}

TypePtr fixed_size_list(Field element, int32_t list_size) {
  return TypeFactory::Make(TypeId::kFixedSizeList,
                           {.fixed_size = list_size, .fields = {std::move(element)}});
}
TypePtr fixed_size_list(TypePtr element, int32_t list_size) {
  return fixed_size_list(Field{"item", std::move(element), true}, list_size);
}

TypePtr struct_(std::vector<Field> fields) {
  return TypeFactory::Make(TypeId::kStruct, {.fields = std::move(fields)});
}

TypePtr dictionary(TypePtr index_type, TypePtr value_type) {
  return TypeFactory::Make(TypeId::kDictionary, {.index_type = std::move(index_type),
                                                 .value_type = std::move(value_type)});
}

std::vector<TypePtr> AllTypesForTesting() {
  return {null(),
          boolean(),
          int8(),
          int16(),
          int32(),
          int64(),
          uint8(),
          uint16(),
          uint32(),
          uint64(),
          float32(),
          float64(),
          decimal128(15, 2),
          decimal128(38, 10),
          date32(),
          timestamp(TimeUnit::kSecond),
          timestamp(TimeUnit::kMilli, "UTC"),
          timestamp(TimeUnit::kMicro, "America/New_York"),
          timestamp(TimeUnit::kNano),
          duration(TimeUnit::kMicro),
          duration(TimeUnit::kNano),
          utf8(),
          large_utf8(),
          binary(),
          large_binary(),
          fixed_size_binary(5),
          list(int32()),
          list(utf8()),
          list(list(int16())),
          fixed_size_list(float32(), 4),
          struct_({Field{"a", int64()}, Field{"b", utf8()}, Field{"c", list(boolean())}}),
          dictionary(int32(), utf8())};
}

}  // namespace flotilla
