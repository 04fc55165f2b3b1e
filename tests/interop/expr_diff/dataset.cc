#include "dataset.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/columnar/decimal.h"

namespace flotilla::diff {
namespace {

// Text that exercises case mapping, combining marks, wide characters, digits that parse as
// numbers or dates, LIKE metacharacters and separators.
constexpr std::string_view kWords[] = {
    "",
    "a",
    "A",
    "abc",
    "Hello",
    "hello world",
    "  padded  ",
    " lead",
    "trail ",
    "über",
    "ÀÉÎ",
    "naïve café",
    "日本語テキスト",
    "😀 smile",
    "123",
    "-45",
    "3.14",
    "1e3",
    "2024-02-29",
    "2023-13-01",
    "abc_def%",
    "50% off",
    "x,y,z",
    "a,,b",
    "aaa",
    "MiXeD CaSe",
    "The quick brown fox",
    "ß",
    "e\xcc\x81te",
    "back\\slash",
    "o'clock",
    "lol lol lol",
};

struct Gen {
  std::mt19937_64* rng;
  bool edges;  // whether type limits and special floats appear

  uint64_t Next() { return (*rng)(); }
  bool Chance(int percent) { return static_cast<int>(Next() % 100) < percent; }
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

  template <typename T>
  T Int() {
    using L = std::numeric_limits<T>;
    if (edges && Chance(6)) {
      const T choices[] = {L::min(), L::max(), T(0), T(1), static_cast<T>(L::max() - 1)};
      return choices[Next() % 5];
    }
    if (Chance(75)) {
      return static_cast<T>(L::is_signed ? Uniform(-50, 50) : Uniform(0, 100));
    }
    // Wider values, still far from the limits of the wide types.
    const int64_t lo = L::is_signed ? std::max<int64_t>(L::min(), -100000) : 0;
    const int64_t hi = static_cast<int64_t>(std::min<uint64_t>(L::max(), 100000));
    return static_cast<T>(Uniform(lo, hi));
  }

  double Float() {
    // No infinities or huge values: DuckDB rejects infinite input to exp/sin/cos and overflowing
    // variances where we follow IEEE (unit tests pin ours).
    if (edges && Chance(8)) {
      const double choices[] = {std::nan(""), -0.0, 0.0, 1e-300};
      return choices[Next() % 4];
    }
    return static_cast<double>(Uniform(-100000, 100000)) / 100.0;
  }

  // No values near the precision limit: DuckDB computes decimal(18) arithmetic in 64 bits and
  // reports an overflow where the exact result still fits ours (unit tests cover the limits).
  Int128 Decimal() { return static_cast<Int128>(Uniform(-1000000, 1000000)); }

  std::string_view Word() { return kWords[Next() % std::size(kWords)]; }

  int32_t Date() {
    if (Chance(25)) {
      const int32_t choices[] = {DaysFromCivil(2024, 2, 29), DaysFromCivil(2023, 12, 31),
                                 DaysFromCivil(2024, 1, 31), DaysFromCivil(1970, 1, 1),
                                 DaysFromCivil(2000, 2, 29), DaysFromCivil(1900, 3, 1),
                                 DaysFromCivil(2021, 1, 3),  DaysFromCivil(2023, 3, 31)};
      return choices[Next() % std::size(choices)];
    }
    return static_cast<int32_t>(Uniform(DaysFromCivil(1950, 1, 1), DaysFromCivil(2050, 12, 31)));
  }

  int64_t Timestamp() {
    const int64_t day = static_cast<int64_t>(Date()) * 86400000000LL;
    if (Chance(20)) return day;  // midnight
    if (Chance(30)) return day + Uniform(0, 86399) * 1000000LL;
    return day + Uniform(0, 86400000000LL - 1);
  }
};

Status AppendRandom(ArrayBuilder* builder, const DataType& type, Gen* gen) {
  switch (type.id()) {
    case TypeId::kInt8:
      return static_cast<Int8Builder*>(builder)->Append(gen->Int<int8_t>());
    case TypeId::kInt16:
      return static_cast<Int16Builder*>(builder)->Append(gen->Int<int16_t>());
    case TypeId::kInt32:
      return static_cast<Int32Builder*>(builder)->Append(gen->Int<int32_t>());
    case TypeId::kInt64:
      return static_cast<Int64Builder*>(builder)->Append(gen->Int<int64_t>());
    case TypeId::kUInt8:
      return static_cast<UInt8Builder*>(builder)->Append(gen->Int<uint8_t>());
    case TypeId::kUInt32:
      return static_cast<UInt32Builder*>(builder)->Append(gen->Int<uint32_t>());
    case TypeId::kFloat32:
      return static_cast<FloatBuilder*>(builder)->Append(static_cast<float>(gen->Float()));
    case TypeId::kFloat64:
      return static_cast<DoubleBuilder*>(builder)->Append(gen->Float());
    case TypeId::kDecimal128:
      return static_cast<FixedSizeBinaryBuilder*>(builder)->AppendDecimal(gen->Decimal());
    case TypeId::kString:
      return static_cast<StringBuilder*>(builder)->Append(gen->Word());
    case TypeId::kBool:
      return static_cast<BooleanBuilder*>(builder)->Append(gen->Chance(50));
    case TypeId::kDate32:
      return static_cast<Int32Builder*>(builder)->Append(gen->Date());
    case TypeId::kTimestamp:
      return static_cast<Int64Builder*>(builder)->Append(gen->Timestamp());
    case TypeId::kList: {
      auto* list = static_cast<ListBuilder*>(builder);
      FLOTILLA_RETURN_NOT_OK(list->Append());
      const int64_t n = gen->Uniform(0, 5);
      for (int64_t k = 0; k < n; ++k) {
        if (gen->Chance(10)) {
          FLOTILLA_RETURN_NOT_OK(list->value_builder()->AppendNull());
        } else if (type.value_type()->id() == TypeId::kInt64) {
          // Small values so that duplicates (distinct, contains) are common.
          FLOTILLA_RETURN_NOT_OK(
              static_cast<Int64Builder*>(list->value_builder())->Append(gen->Uniform(-5, 5)));
        } else {
          FLOTILLA_RETURN_NOT_OK(AppendRandom(list->value_builder(), *type.value_type(), gen));
        }
      }
      return Status::OK();
    }
    case TypeId::kStruct: {
      auto* s = static_cast<StructBuilder*>(builder);
      FLOTILLA_RETURN_NOT_OK(s->Append());
      for (int f = 0; f < static_cast<int>(type.fields().size()); ++f) {
        if (gen->Chance(10)) {
          FLOTILLA_RETURN_NOT_OK(s->field_builder(f)->AppendNull());
        } else {
          FLOTILLA_RETURN_NOT_OK(AppendRandom(s->field_builder(f), *type.fields()[f].type, gen));
        }
      }
      return Status::OK();
    }
    default:
      return Status::NotImplemented("expr_diff: no random values for " + type.ToString());
  }
}

Array RandomColumn(const TypePtr& type, int64_t rows, Gen* gen) {
  auto builder = MakeBuilder(type).ValueOrDie();
  for (int64_t i = 0; i < rows; ++i) {
    if (gen->Chance(12)) {
      builder->AppendNull().Check();
    } else {
      AppendRandom(builder.get(), *type, gen).Check();
    }
  }
  return builder->Finish().ValueOrDie();
}

std::string FloatLiteral(double d, bool single) {
  std::string text;
  if (std::isnan(d)) {
    text = "NaN";
  } else if (std::isinf(d)) {
    text = d > 0 ? "Infinity" : "-Infinity";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof(buf), single ? "%.9g" : "%.17g", d);
    text = buf;
  }
  return "CAST('" + text + "' AS " + (single ? "FLOAT" : "DOUBLE") + ")";
}

template <typename T>
std::string IntText(const Array& a, int64_t i) {
  return std::to_string(a.values<T>()[i]);
}

}  // namespace

std::string SqlQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string DuckType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return "INTEGER";
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
      return "DECIMAL(" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) +
             ")";
    case TypeId::kString:
    case TypeId::kLargeString:
      return "VARCHAR";
    case TypeId::kDate32:
      return "DATE";
    case TypeId::kTimestamp:
      switch (type.unit()) {
        case TimeUnit::kSecond:
          return "TIMESTAMP_S";
        case TimeUnit::kMilli:
          return "TIMESTAMP_MS";
        case TimeUnit::kMicro:
          return "TIMESTAMP";
        case TimeUnit::kNano:
          return "TIMESTAMP_NS";
      }
      return "TIMESTAMP";
    case TypeId::kList:
      return DuckType(*type.value_type()) + "[]";
    case TypeId::kFixedSizeList:
      return DuckType(*type.value_type()) + "[" + std::to_string(type.fixed_size()) + "]";
    case TypeId::kStruct: {
      std::string out = "STRUCT(";
      for (size_t f = 0; f < type.fields().size(); ++f) {
        if (f > 0) out += ", ";
        out += "\"" + type.fields()[f].name + "\" " + DuckType(*type.fields()[f].type);
      }
      return out + ")";
    }
    default:
      return "UNSUPPORTED<" + type.ToString() + ">";
  }
}

std::string SqlLiteral(const Array& a, int64_t i) {
  const DataType& type = *a.type();
  if (a.IsNull(i)) return "CAST(NULL AS " + DuckType(type) + ")";
  auto cast = [&](const std::string& text) {
    return "CAST(" + text + " AS " + DuckType(type) + ")";
  };
  switch (type.id()) {
    case TypeId::kBool:
      return a.BoolValue(i) ? "TRUE" : "FALSE";
    case TypeId::kInt8:
      return cast(IntText<int8_t>(a, i));
    case TypeId::kInt16:
      return cast(IntText<int16_t>(a, i));
    case TypeId::kInt32:
      return cast(IntText<int32_t>(a, i));
    case TypeId::kInt64:
      return cast(IntText<int64_t>(a, i));
    case TypeId::kUInt8:
      return cast(IntText<uint8_t>(a, i));
    case TypeId::kUInt16:
      return cast(IntText<uint16_t>(a, i));
    case TypeId::kUInt32:
      return cast(IntText<uint32_t>(a, i));
    case TypeId::kUInt64:
      return cast(IntText<uint64_t>(a, i));
    case TypeId::kFloat32:
      return FloatLiteral(a.values<float>()[i], true);
    case TypeId::kFloat64:
      return FloatLiteral(a.values<double>()[i], false);
    case TypeId::kDecimal128:
      return cast(SqlQuote(a.ValueToString(i)));
    case TypeId::kString:
    case TypeId::kLargeString:
      return SqlQuote(a.GetView(i));
    case TypeId::kDate32:
      return "DATE " + SqlQuote(a.ValueToString(i));
    case TypeId::kTimestamp:
      return "make_timestamp(CAST(" + IntText<int64_t>(a, i) + " AS BIGINT))";
    case TypeId::kList:
    case TypeId::kFixedSizeList: {
      const Array values = a.ListValues(i);
      std::string out = "[";
      for (int64_t k = 0; k < values.length(); ++k) {
        if (k > 0) out += ", ";
        out += SqlLiteral(values, k);
      }
      return cast(out + "]");
    }
    case TypeId::kStruct: {
      std::string out = "{";
      for (size_t f = 0; f < type.fields().size(); ++f) {
        if (f > 0) out += ", ";
        out += SqlQuote(type.fields()[f].name) + ": " + SqlLiteral(a.field(static_cast<int>(f)), i);
      }
      return out + "}";
    }
    default:
      return "UNSUPPORTED";
  }
}

Array RandomValue(const TypePtr& type, std::mt19937_64* rng) {
  Gen gen{rng, false};
  auto builder = MakeBuilder(type).ValueOrDie();
  AppendRandom(builder.get(), *type, &gen).Check();
  return builder->Finish().ValueOrDie();
}

Dataset MakeDataset(std::string name, int64_t rows, std::mt19937_64* rng) {
  Gen gen{rng, (*rng)() % 2 == 0};
  std::vector<std::pair<std::string, TypePtr>> columns = {
      {"i8", int8()},
      {"i16", int16()},
      {"i32", int32()},
      {"i64", int64()},
      {"u8", uint8()},
      {"u32", uint32()},
      {"f32", float32()},
      {"f64", float64()},
      {"d1", decimal128(9, 2)},
      {"d2", decimal128(18, 4)},
      {"s1", utf8()},
      {"s2", utf8()},
      {"b1", boolean()},
      {"b2", boolean()},
      {"dt", date32()},
      {"ts", timestamp(TimeUnit::kMicro)},
      {"li", list(int64())},
      {"ls", list(utf8())},
      {"st", struct_({Field{"a", int64()}, Field{"b", utf8()}})},
  };
  std::vector<std::pair<std::string, Array>> arrays;
  Int32Builder rid(int32()), group(int32());
  for (int64_t i = 0; i < rows; ++i) {
    rid.Append(static_cast<int32_t>(i)).Check();
    group.Append(static_cast<int32_t>(i % 4)).Check();
  }
  arrays.emplace_back("rid", rid.Finish().ValueOrDie());
  arrays.emplace_back("g", group.Finish().ValueOrDie());
  for (auto& [column, type] : columns)
    arrays.emplace_back(column, RandomColumn(type, rows, &gen));

  Dataset out;
  out.name = std::move(name);
  out.batch = RecordBatch::FromColumns(arrays).ValueOrDie();
  out.sql = "CREATE TABLE " + out.name + " (";
  for (size_t c = 0; c < arrays.size(); ++c) {
    if (c > 0) out.sql += ", ";
    out.sql += arrays[c].first + " " + DuckType(*arrays[c].second.type());
  }
  out.sql += ");\nINSERT INTO " + out.name + " VALUES\n";
  for (int64_t i = 0; i < rows; ++i) {
    out.sql += i > 0 ? ",\n(" : "(";
    for (size_t c = 0; c < arrays.size(); ++c) {
      if (c > 0) out.sql += ", ";
      out.sql += SqlLiteral(arrays[c].second, i);
    }
    out.sql += ")";
  }
  out.sql += ";";
  return out;
}

}  // namespace flotilla::diff
