#include <algorithm>
#include <array>
#include <string>

#include "flotilla/common/ascii.h"
#include "flotilla/sql/parser_internal.h"
#include "flotilla/sql/source_error.h"

namespace flotilla::sql::internal {

Result<int64_t> Parser::IntegerToken() {
  const Token& t = Peek();
  if (t.kind != TokenKind::kInteger) return Error(t, "expected an integer");
  return std::stoll(Next().text);
}

Result<TypePtr> Parser::TypeName() {
  const Token& t = Peek();
  if (t.kind != TokenKind::kIdentifier && t.kind != TokenKind::kQuotedIdentifier) {
    return Error(t, "expected a type name");
  }
  const std::string name = AsciiLower(Next().text);
  TypePtr type;
  if (name == "boolean" || name == "bool") {
    type = boolean();
  } else if (name == "tinyint" || name == "int1") {
    type = int8();
  } else if (name == "smallint" || name == "int2" || name == "short") {
    type = int16();
  } else if (name == "integer" || name == "int" || name == "int4" || name == "signed") {
    type = int32();
  } else if (name == "bigint" || name == "int8" || name == "long") {
    type = int64();
  } else if (name == "utinyint" || name == "uint8") {
    type = uint8();
  } else if (name == "usmallint" || name == "uint16") {
    type = uint16();
  } else if (name == "uinteger" || name == "uint32") {
    type = uint32();
  } else if (name == "ubigint" || name == "uint64") {
    type = uint64();
  } else if (name == "real" || name == "float4" || name == "float") {
    type = name == "float" ? float64() : float32();
    if (name == "float" && Operator("(")) {  // FLOAT(p): p <= 24 is single precision
      FLOTILLA_ASSIGN_OR_RETURN(int64_t p, IntegerToken());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      type = p <= 24 ? float32() : float64();
    }
  } else if (name == "double" || name == "float8") {
    Keyword("precision");
    type = float64();
  } else if (name == "decimal" || name == "numeric" || name == "dec") {
    int64_t precision = 18, scale = 3;  // DuckDB's default
    if (Operator("(")) {
      FLOTILLA_ASSIGN_OR_RETURN(precision, IntegerToken());
      scale = 0;
      if (Operator(",")) {
        FLOTILLA_ASSIGN_OR_RETURN(scale, IntegerToken());
      }
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    }
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
      return ErrorAt(sql_, t.offset,
                     "a decimal's precision must be 1..38 and its scale 0..precision, got (" +
                         std::to_string(precision) + ", " + std::to_string(scale) + ")");
    }
    type = decimal128(static_cast<int32_t>(precision), static_cast<int32_t>(scale));
  } else if (name == "varchar" || name == "text" || name == "string" || name == "char" ||
             name == "bpchar" || name == "character") {
    Keyword("varying");
    if (Operator("(")) {  // the length is accepted and not enforced, as DuckDB
      FLOTILLA_RETURN_NOT_OK(IntegerToken().status());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    }
    type = utf8();
  } else if (name == "blob" || name == "bytea" || name == "binary" || name == "varbinary") {
    type = binary();
  } else if (name == "date") {
    type = date32();
  } else if (name == "timestamp" || name == "datetime" || name == "timestamptz") {
    std::string tz;
    if (name == "timestamptz") tz = "UTC";
    if (Keyword("with")) {
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("time"));
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("zone"));
      tz = "UTC";
    } else if (Keyword("without")) {
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("time"));
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("zone"));
    }
    type = timestamp(TimeUnit::kMicro, tz);
  } else if (name == "timestamp_s") {
    type = timestamp(TimeUnit::kSecond);
  } else if (name == "timestamp_ms") {
    type = timestamp(TimeUnit::kMilli);
  } else if (name == "timestamp_ns") {
    type = timestamp(TimeUnit::kNano);
  } else if (name == "time") {
    type = time64(TimeUnit::kMicro);
  } else if (name == "interval") {
    type = duration(TimeUnit::kMicro);
  } else {
    return ErrorAt(sql_, t.offset, "unknown type '" + name + "'", StatusCode::kTypeError);
  }
  while (Peek().IsOperator("[") && Peek(1).IsOperator("]")) {
    Next();
    Next();
    type = list(type);
  }
  return type;
}

}  // namespace flotilla::sql::internal
