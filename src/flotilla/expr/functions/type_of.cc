// typeof(x): the name of x's type as DuckDB's SQL spells it (INTEGER, VARCHAR, DECIMAL(12,2),
// INTEGER[], STRUCT(a INTEGER), ...), so queries written against DuckDB read the same names.

#include <string>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

std::string SqlTypeName(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull: return "\"NULL\"";
    case TypeId::kBool: return "BOOLEAN";
    case TypeId::kInt8: return "TINYINT";
    case TypeId::kInt16: return "SMALLINT";
    case TypeId::kInt32: return "INTEGER";
    case TypeId::kInt64: return "BIGINT";
    case TypeId::kUInt8: return "UTINYINT";
    case TypeId::kUInt16: return "USMALLINT";
    case TypeId::kUInt32: return "UINTEGER";
    case TypeId::kUInt64: return "UBIGINT";
    case TypeId::kFloat32: return "FLOAT";
    case TypeId::kFloat64: return "DOUBLE";
    case TypeId::kDecimal128:
      return "DECIMAL(" + std::to_string(t.precision()) + "," + std::to_string(t.scale()) + ")";
    case TypeId::kDate32: return "DATE";
    case TypeId::kTimestamp: {
      std::string name = t.unit() == TimeUnit::kSecond  ? "TIMESTAMP_S"
                         : t.unit() == TimeUnit::kMilli ? "TIMESTAMP_MS"
                         : t.unit() == TimeUnit::kNano  ? "TIMESTAMP_NS"
                                                        : "TIMESTAMP";
      return t.timezone().empty() ? name : "TIMESTAMP WITH TIME ZONE";
    }
    case TypeId::kDuration: return "INTERVAL";
    case TypeId::kTime64: return "TIME";
    case TypeId::kString:
    case TypeId::kLargeString: return "VARCHAR";
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary: return "BLOB";
    case TypeId::kList: return SqlTypeName(*t.fields()[0].type) + "[]";
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
    case TypeId::kDictionary: return SqlTypeName(*t.value_type());
  }
  return t.ToString();
}

// Every row, null ones included, gets the name: the type is the column's, not the value's.
Result<Datum> TypeOfExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(utf8());
  const std::string name = SqlTypeName(*args[0].type());
  const int64_t n = OutputRows(args, num_rows);
  for (int64_t row = 0; row < n; ++row) FLOTILLA_RETURN_NOT_OK(builder.Append(name));
  FLOTILLA_ASSIGN_OR_RETURN(Array out, builder.Finish());
  return args[0].is_scalar() ? Datum::Scalar(std::move(out)) : Datum::Column(std::move(out));
}

}  // namespace

Status RegisterTypeOfFunction(FunctionRegistry* r) {
  return r->Add({"typeof",
                 "The name of the argument's type as DuckDB's SQL spells it (INTEGER, VARCHAR, "
                 "DECIMAL(12,2), INTEGER[], STRUCT(a INTEGER), ...), for every row.",
                 1, 1, [](const Types&) -> Result<TypePtr> { return utf8(); }, TypeOfExec});
}

}  // namespace flotilla::expr::functions
