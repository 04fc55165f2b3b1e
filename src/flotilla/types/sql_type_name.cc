#include "flotilla/types/sql_type_name.h"

namespace flotilla {

std::string SqlTypeName(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull:
      return "\"NULL\"";
    case TypeId::kBool:
      return "BOOLEAN";
    case TypeId::kInt8:
      return "TINYINT";
    case TypeId::kInt16:
      return "SMALLINT";
    case TypeId::kInt32:
      return "INTEGER";
    case TypeId::kInt64:
      return "BIGINT";
    case TypeId::kUInt8:
      return "UTINYINT";
    case TypeId::kUInt16:
      return "USMALLINT";
    case TypeId::kUInt32:
      return "UINTEGER";
    case TypeId::kUInt64:
      return "UBIGINT";
    case TypeId::kFloat32:
      return "FLOAT";
    case TypeId::kFloat64:
      return "DOUBLE";
    case TypeId::kDecimal128:
      return "DECIMAL(" + std::to_string(t.precision()) + "," + std::to_string(t.scale()) + ")";
    case TypeId::kDate32:
      return "DATE";
    case TypeId::kTimestamp: {
      std::string name = t.unit() == TimeUnit::kSecond  ? "TIMESTAMP_S"
                         : t.unit() == TimeUnit::kMilli ? "TIMESTAMP_MS"
                         : t.unit() == TimeUnit::kNano  ? "TIMESTAMP_NS"
                                                        : "TIMESTAMP";
      return t.timezone().empty() ? name : "TIMESTAMP WITH TIME ZONE";
    }
    case TypeId::kDuration:
      return "INTERVAL";
    case TypeId::kTime64:
      return "TIME";
    case TypeId::kString:
    case TypeId::kLargeString:
      return "VARCHAR";
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      return "BLOB";
    case TypeId::kList:
      return SqlTypeName(*t.fields()[0].type) + "[]";
    case TypeId::kFixedSizeList:
      return SqlTypeName(*t.fields()[0].type) + "[" + std::to_string(t.fixed_size()) + "]";
    case TypeId::kStruct: {
      std::string out = "STRUCT(";
      for (size_t i = 0; i < t.fields().size(); ++i) {
        if (i > 0) out += ", ";
        out += t.fields()[i].name + " " + SqlTypeName(*t.fields()[i].type);
      }
      return out + ")";
    }
    case TypeId::kDictionary:
      return SqlTypeName(*t.value_type());
  }
  return t.ToString();
}

}  // namespace flotilla
