#include "generator.h"

#include <algorithm>
#include <map>
#include <utility>

#include "dataset.h"
#include "flotilla/expr/binder.h"

namespace flotilla::diff {
namespace {

using expr::ExprPtr;
using Args = std::vector<ExprPtr>;
using Maker = std::function<ExprPtr(const Args&)>;

constexpr Kind I = Kind::kInt, SI = Kind::kSignedInt, F = Kind::kFloat, F64 = Kind::kDouble,
               D = Kind::kDecimal, S = Kind::kString, B = Kind::kBool, DT = Kind::kDate,
               TS = Kind::kTimestamp, LI = Kind::kListInt, LS = Kind::kListString,
               ST = Kind::kStruct;

Maker Fn(std::string name) {
  return [name](const Args& a) { return expr::Call(name, a); };
}
Maker Op(expr::BinaryOp op) {
  return [op](const Args& a) { return expr::Binary(op, a[0], a[1]); };
}
Maker CastTo(TypePtr type, bool safe = true) {
  return [type, safe](const Args& a) {
    return safe ? expr::Cast(a[0], type) : expr::TryCast(a[0], type);
  };
}

Arg A(Kind k) {
  return Arg{k, {}, false};
}
Arg Lit(Kind k) {
  return Arg{k, {}, true};
}
/// Integer constants written the same way in both engines.
Arg Ints(std::vector<int> values) {
  Arg arg{Kind::kConst, {}, false};
  for (int v : values)
    arg.constants.push_back({expr::Literal(v), std::to_string(v)});
  return arg;
}
/// Integer constants whose DuckDB spelling differs (1-based indices): {ours, duckdb}.
Arg IntsMapped(std::vector<std::pair<int, int>> values) {
  Arg arg{Kind::kConst, {}, false};
  for (auto [ours, duck] : values)
    arg.constants.push_back({expr::Literal(ours), std::to_string(duck)});
  return arg;
}
Arg Strings(std::vector<std::string> values) {
  Arg arg{Kind::kConst, {}, false};
  for (auto& v : values)
    arg.constants.push_back({expr::Literal(v), SqlQuote(v)});
  return arg;
}
Arg Bools(std::vector<bool> values) {
  Arg arg{Kind::kConst, {}, false};
  for (bool v : values)
    arg.constants.push_back({expr::Literal(v), v ? "TRUE" : "FALSE"});
  return arg;
}

const std::vector<std::string> kColumns[] = {
    /*kInt*/ {"i8", "i16", "i32", "i64", "u8", "u32"},
    /*kSignedInt*/ {"i8", "i16", "i32", "i64"},
    /*kFloat*/ {"f32", "f64"},
    /*kDouble*/ {"f64"},
    /*kDecimal*/ {"d1", "d2"},
    /*kString*/ {"s1", "s2"},
    /*kBool*/ {"b1", "b2"},
    /*kDate*/ {"dt"},
    /*kTimestamp*/ {"ts"},
    /*kListInt*/ {"li"},
    /*kListString*/ {"ls"},
    /*kStruct*/ {"st"},
};

TypePtr LiteralType(Kind kind) {
  switch (kind) {
    case Kind::kInt:
    case Kind::kSignedInt:
      return int32();
    case Kind::kFloat:
    case Kind::kDouble:
      return float64();
    case Kind::kDecimal:
      return decimal128(9, 2);
    case Kind::kString:
      return utf8();
    case Kind::kBool:
      return boolean();
    case Kind::kDate:
      return date32();
    case Kind::kTimestamp:
      return timestamp(TimeUnit::kMicro);
    case Kind::kListInt:
      return list(int64());
    case Kind::kListString:
      return list(utf8());
    case Kind::kStruct:
      return struct_({Field{"a", int64()}, Field{"b", utf8()}});
    case Kind::kConst:
      break;
  }
  return null();
}

std::vector<Template> MakeTemplates() {
  using expr::BinaryOp;
  std::vector<Template> t;
  auto add = [&](const char* family, Kind result, std::vector<Arg> args, Maker ours,
                 std::string sql) {
    t.push_back(Template{family, result, std::move(args), std::move(ours), std::move(sql)});
  };

  // --- arithmetic -------------------------------------------------------------------------
  const std::pair<BinaryOp, const char*> plus_minus_times[] = {
      {BinaryOp::kAdd, "+"}, {BinaryOp::kSubtract, "-"}, {BinaryOp::kMultiply, "*"}};
  for (auto [op, sym] : plus_minus_times) {
    const std::string sql = std::string("({0} ") + sym + " {1})";
    add("arithmetic", I, {A(I), A(I)}, Op(op), sql);
    add("arithmetic", F, {A(F), A(F)}, Op(op), sql);
    add("arithmetic", D, {A(D), A(D)}, Op(op), sql);
    add("arithmetic", D, {A(D), A(I)}, Op(op), sql);
    if (op == BinaryOp::kMultiply) {
      // DuckDB multiplies decimals of up to 18 digits in 64 bits and reports an overflow where
      // the exact product needs more; a left operand of 19+ digits (same scale) makes it use
      // 128 bits, as we do.
      for (size_t k : {t.size() - 2, t.size() - 1}) {
        t[k].sql_for_types = [](const std::vector<TypePtr>& types,
                                const std::vector<std::string>& sql) {
          if (types[0] == nullptr || types[0]->id() != TypeId::kDecimal128) {
            return "(" + sql[0] + " * " + sql[1] + ")";
          }
          return "(CAST(" + sql[0] + " AS DECIMAL(" +
                 std::to_string(std::max(types[0]->precision(), 19)) + "," +
                 std::to_string(types[0]->scale()) + ")) * " + sql[1] + ")";
        };
      }
    }
    add("arithmetic", F, {A(I), A(F)}, Op(op), sql);
    add("arithmetic", F, {A(D), A(F64)}, Op(op), sql);
  }
  add("arithmetic", F, {A(I), A(I)}, Op(BinaryOp::kDivide), "({0} / {1})");
  add("arithmetic", F, {A(F), A(F)}, Op(BinaryOp::kDivide), "({0} / {1})");
  add("arithmetic", F, {A(F), A(I)}, Op(BinaryOp::kDivide), "({0} / {1})");
  // Our decimal division stays decimal, DuckDB's is DOUBLE: compared as numbers. A zero
  // divisor is kept out (NULL for us, a float result there).
  add(
      "arithmetic", D, {A(D), A(D)},
      [](const Args& a) {
        return expr::Divide(a[0], expr::Case({{expr::Equal(a[1], expr::Literal(0)),
                                               expr::NullLiteral(decimal128(18, 4))}},
                                             a[1]));
      },
      "({0} / (CASE WHEN {1} = 0 THEN NULL ELSE {1} END))");
  t.back().inexact = true;
  add("arithmetic", I, {A(I), A(I)}, Op(BinaryOp::kIntDiv), "({0} // {1})");
  add("arithmetic", I, {A(I), A(I)}, Op(BinaryOp::kMod), "({0} % {1})");
  add("arithmetic", F, {A(F), A(F)}, Op(BinaryOp::kMod), "({0} % {1})");
  add(
      "arithmetic", I, {A(SI)}, [](const Args& a) { return expr::Negate(a[0]); }, "(- {0})");
  add(
      "arithmetic", F, {A(F)}, [](const Args& a) { return expr::Negate(a[0]); }, "(- {0})");
  add(
      "arithmetic", D, {A(D)}, [](const Args& a) { return expr::Negate(a[0]); }, "(- {0})");
  add("arithmetic", I, {A(DT), A(DT)}, Op(BinaryOp::kSubtract), "({0} - {1})");

  // --- comparison and logic ---------------------------------------------------------------
  const std::pair<BinaryOp, const char*> comparisons[] = {
      {BinaryOp::kEqual, "="},      {BinaryOp::kNotEqual, "<>"}, {BinaryOp::kLess, "<"},
      {BinaryOp::kLessEqual, "<="}, {BinaryOp::kGreater, ">"},   {BinaryOp::kGreaterEqual, ">="}};
  for (auto [op, sym] : comparisons) {
    const std::string sql = std::string("({0} ") + sym + " {1})";
    for (Kind k : {I, F, D, S, B, DT, TS})
      add("comparison", B, {A(k), A(k)}, Op(op), sql);
    add("comparison", B, {A(I), A(D)}, Op(op), sql);
    add("comparison", B, {A(I), A(F)}, Op(op), sql);
    add("comparison", B, {A(DT), A(TS)}, Op(op), sql);
  }
  add("logic", B, {A(B), A(B)}, Op(BinaryOp::kAnd), "({0} AND {1})");
  add("logic", B, {A(B), A(B)}, Op(BinaryOp::kOr), "({0} OR {1})");
  add(
      "logic", B, {A(B)}, [](const Args& a) { return expr::Not(a[0]); }, "(NOT {0})");
  for (Kind k : {I, S, LI, F}) {
    add(
        "logic", B, {A(k)}, [](const Args& a) { return expr::IsNull(a[0]); }, "({0} IS NULL)");
    add(
        "logic", B, {A(k)}, [](const Args& a) { return expr::IsNotNull(a[0]); },
        "({0} IS NOT NULL)");
  }

  // --- conditional: CASE, IF, COALESCE, IN, BETWEEN ---------------------------------------
  for (Kind k : {I, F, D, S, DT}) {
    add(
        "conditional", k, {A(B), A(k), A(k)},
        [](const Args& a) { return expr::IfElse(a[0], a[1], a[2]); },
        "(CASE WHEN {0} THEN {1} ELSE {2} END)");
    add(
        "conditional", k, {A(B), A(k), A(B), A(k), A(k)},
        [](const Args& a) {
          return expr::Case({{a[0], a[1]}, {a[2], a[3]}}, a[4]);
        },
        "(CASE WHEN {0} THEN {1} WHEN {2} THEN {3} ELSE {4} END)");
    add(
        "conditional", k, {A(B), A(k)},
        [](const Args& a) {
          return expr::Case({{a[0], a[1]}});
        },
        "(CASE WHEN {0} THEN {1} END)");
    add(
        "conditional", k, {A(k), A(k)}, [](const Args& a) { return expr::Coalesce(a); },
        "coalesce({0}, {1})");
    add(
        "conditional", k, {A(k), A(k), A(k)}, [](const Args& a) { return expr::Coalesce(a); },
        "coalesce({0}, {1}, {2})");
    add(
        "conditional", B, {A(k), Lit(k), Lit(k), Lit(k)},
        [](const Args& a) {
          return expr::IsIn(a[0], {a[1], a[2], a[3]});
        },
        "({0} IN ({1}, {2}, {3}))");
    add(
        "conditional", B, {A(k), Lit(k), Lit(k)},
        [](const Args& a) {
          return expr::IsIn(a[0], {a[1], a[2]}, /*negated=*/true);
        },
        "({0} NOT IN ({1}, {2}))");
    add(
        "conditional", B, {A(k), A(k), A(k)},
        [](const Args& a) { return expr::Between(a[0], a[1], a[2]); }, "({0} BETWEEN {1} AND {2})");
  }
  add(
      "conditional", B, {A(I), A(I), A(I)},
      [](const Args& a) { return expr::Between(a[0], a[1], a[2], /*negated=*/true); },
      "({0} NOT BETWEEN {1} AND {2})");

  // --- casts ------------------------------------------------------------------------------
  add("cast", S, {A(I)}, CastTo(utf8()), "CAST({0} AS VARCHAR)");
  add("cast", S, {A(D)}, CastTo(utf8()), "CAST({0} AS VARCHAR)");
  add("cast", S, {A(DT)}, CastTo(utf8()), "CAST({0} AS VARCHAR)");
  add("cast", S, {A(B)}, CastTo(utf8()), "CAST({0} AS VARCHAR)");
  add("cast", S, {A(TS)}, CastTo(utf8()), "CAST({0} AS VARCHAR)");
  add("cast", I, {A(S)}, CastTo(int64(), false), "TRY_CAST({0} AS BIGINT)");
  add("cast", I, {A(S)}, CastTo(int32()), "CAST({0} AS INTEGER)");
  add("cast", F, {A(S)}, CastTo(float64(), false), "TRY_CAST({0} AS DOUBLE)");
  // DuckDB also reads a date off text with anything after it ('2024-02-29 lead'); ours takes a
  // date, optionally with a time of day.
  add("cast", DT, {A(S)}, CastTo(date32(), false),
      "TRY_CAST(CASE WHEN regexp_full_match(trim({0}), "
      "'[+-]?\\d+-\\d\\d?-\\d\\d?([ T]\\d\\d?:\\d\\d(:\\d\\d(\\.\\d+)?)?)?') "
      "THEN {0} END AS DATE)");
  add("cast", D, {A(S)}, CastTo(decimal128(12, 3), false), "TRY_CAST({0} AS DECIMAL(12,3))");
  add("cast", I, {A(F)}, CastTo(int64()), "CAST({0} AS BIGINT)");
  add("cast", I, {A(F)}, CastTo(int16(), false), "TRY_CAST({0} AS SMALLINT)");
  add("cast", I, {A(D)}, CastTo(int32()), "CAST({0} AS INTEGER)");
  add("cast", D, {A(I)}, CastTo(decimal128(18, 2)), "CAST({0} AS DECIMAL(18,2))");
  add("cast", D, {A(F)}, CastTo(decimal128(12, 2), false), "TRY_CAST({0} AS DECIMAL(12,2))");
  add("cast", D, {A(D)}, CastTo(decimal128(10, 1), false), "TRY_CAST({0} AS DECIMAL(10,1))");
  add("cast", F, {A(I)}, CastTo(float64()), "CAST({0} AS DOUBLE)");
  add("cast", F, {A(D)}, CastTo(float64()), "CAST({0} AS DOUBLE)");
  add("cast", TS, {A(DT)}, CastTo(timestamp(TimeUnit::kMicro)), "CAST({0} AS TIMESTAMP)");
  add("cast", DT, {A(TS)}, CastTo(date32()), "CAST({0} AS DATE)");
  add("cast", B, {A(I)}, CastTo(boolean()), "CAST({0} AS BOOLEAN)");
  add("cast", I, {A(B)}, CastTo(int32()), "CAST({0} AS INTEGER)");
  add("cast", I, {A(I)}, CastTo(int8(), false), "TRY_CAST({0} AS TINYINT)");

  // --- math -------------------------------------------------------------------------------
  for (Kind k : {I, F, D})
    add("math", k, {A(k)}, Fn("abs"), "abs({0})");
  for (const char* f : {"floor", "ceil", "trunc", "round"}) {
    add("math", F, {A(F)}, Fn(f), std::string(f) + "({0})");
    add("math", D, {A(D)}, Fn(f), std::string(f) + "({0})");
  }
  // IEEE: infinities and NaN round to themselves (DuckDB's round(NaN, -1) is 0).
  add("math", F, {A(F), Ints({-1, 0, 1, 2})}, Fn("round"),
      "(CASE WHEN isinf({0}) OR isnan({0}) THEN {0} ELSE round({0}, {1}) END)");
  add("math", D, {A(D), Ints({-1, 0, 1, 3})}, Fn("round"), "round({0}, {1})");
  for (const char* f : {"sqrt", "exp", "ln", "log10", "log2"}) {
    add("math", F, {A(F)}, Fn(f), std::string(f) + "({0})");
  }
  // IEEE: sin/cos/tan of an infinity is NaN; DuckDB rejects infinite input.
  for (const char* f : {"sin", "cos", "tan"}) {
    add("math", F, {A(F)}, Fn(f),
        std::string("(CASE WHEN isinf({0}) THEN CAST('NaN' AS DOUBLE) ELSE ") + f + "({0}) END)");
  }
  add("math", F, {A(I)}, Fn("sqrt"), "sqrt({0})");
  add("math", F, {A(F), A(F)}, Fn("pow"), "pow({0}, {1})");
  add("math", F, {A(F), Ints({0, 1, 2, 3, -1})}, Fn("pow"), "pow({0}, {1})");
  add("math", F, {Ints({2, 10}), A(F)}, Fn("log"), "log({0}, {1})");
  add("math", I, {A(I)}, Fn("sign"), "sign({0})");
  // Ours keeps NaN (and -0.0) for floats; DuckDB's sign(NaN) is 0.
  add("math", F, {A(F)}, Fn("sign"), "(CASE WHEN isnan({0}) THEN {0} ELSE sign({0}) END)");
  // clip: null when any argument is null (DuckDB's greatest/least skip nulls instead).
  for (Kind k : {I, D}) {
    add("math", k, {A(k), Ints({-10, 0, 5}), Ints({5, 20, 100})}, Fn("clip"),
        "(CASE WHEN {0} IS NULL THEN NULL ELSE greatest(least({0}, {2}), {1}) END)");
  }
  for (Kind k : {I, F, D, S, DT}) {
    add("math", k, {A(k), A(k)}, Fn("greatest"), "greatest({0}, {1})");
    add("math", k, {A(k), A(k), A(k)}, Fn("least"), "least({0}, {1}, {2})");
  }

  // --- strings ----------------------------------------------------------------------------
  const std::pair<const char*, const char*> unary_strings[] = {
      {"lower", "lower"}, {"upper", "upper"},  {"trim", "trim"},    {"ltrim", "ltrim"},
      {"rtrim", "rtrim"}, {"lstrip", "ltrim"}, {"rstrip", "rtrim"}, {"reverse", "reverse"}};
  for (auto [ours, duck] : unary_strings) {
    add("string", S, {A(S)}, Fn(ours), std::string(duck) + "({0})");
  }
  add("string", I, {A(S)}, Fn("length"), "length({0})");
  add("string", I, {A(S)}, Fn("octet_length"), "strlen({0})");
  add("string", S, {A(S), Strings({"a", " ", "lo", "x ", "é"})}, Fn("trim"), "trim({0}, {1})");
  add("string", S, {A(S), Strings({"a", " ", "lo"})}, Fn("ltrim"), "ltrim({0}, {1})");
  add("string", S, {A(S), Strings({"a", " ", "lo"})}, Fn("rtrim"), "rtrim({0}, {1})");
  add("string", S, {A(S), Ints({-3, -1, 0, 1, 2, 5}), Ints({0, 1, 2, 10})}, Fn("substr"),
      "substr({0}, {1}, {2})");
  add("string", S, {A(S), Ints({1, 2, 4, -2})}, Fn("substr"), "substr({0}, {1})");
  add("string", S, {A(S), Ints({-2, 0, 1, 3, 20})}, Fn("left"), "left({0}, {1})");
  add("string", S, {A(S), Ints({-2, 0, 1, 3, 20})}, Fn("right"), "right({0}, {1})");
  add("string", S, {A(S), A(S)}, Fn("concat"), "({0} || {1})");
  add("string", S, {A(S), A(S), A(S)}, Fn("concat"), "({0} || {1} || {2})");
  add("string", S, {Strings({",", " - ", ""}), A(S), A(S)}, Fn("concat_ws"),
      "concat_ws({0}, {1}, {2})");
  add("string", B, {A(S), Strings({"a", "lo", "", "é", " "})}, Fn("contains"),
      "contains({0}, {1})");
  add("string", B, {A(S), A(S)}, Fn("contains"), "contains({0}, {1})");
  add("string", B, {A(S), Strings({"a", "H", "", "ü", "1"})}, Fn("starts_with"),
      "starts_with({0}, {1})");
  add("string", B, {A(S), Strings({"c", "d", "", "é", "x"})}, Fn("ends_with"),
      "ends_with({0}, {1})");
  const std::vector<std::string> like_patterns = {"%a%", "h%", "%o",  "_e%", "%l_o%",
                                                  "",    "%",  "a%c", "%é%", "___"};
  add("string", B, {A(S), Strings(like_patterns)}, Fn("like"), "({0} LIKE {1})");
  add("string", B, {A(S), Strings(like_patterns)}, Fn("ilike"), "({0} ILIKE {1})");
  add("string", B, {A(S), Strings({"%!%%", "abc!_def!%", "%!_%"}), Strings({"!"})}, Fn("like"),
      "({0} LIKE {1} ESCAPE {2})");
  const std::vector<std::string> regexes = {"[a-z]+", "\\d+", "l+",        "^h",      "o$",
                                            "\\s+",   ".",    "(?i)HELLO", "[^a-z ]", "a|e"};
  add("string", B, {A(S), Strings(regexes)}, Fn("regexp_matches"), "regexp_matches({0}, {1})");
  // Ours: null when nothing matches; DuckDB: an empty string.
  add("string", S, {A(S), Strings(regexes)}, Fn("regexp_extract"),
      "(CASE WHEN regexp_matches({0}, {1}) THEN regexp_extract({0}, {1}) END)");
  add("string", S, {A(S), Strings({"([a-z])([a-z])", "(\\d)(\\d*)"}), Ints({1, 2})},
      Fn("regexp_extract"),
      "(CASE WHEN regexp_matches({0}, {1}) THEN regexp_extract({0}, {1}, {2}) END)");
  add("string", S, {A(S), Strings(regexes), Strings({"X", "", "<\\0>"})}, Fn("regexp_replace"),
      "regexp_replace({0}, {1}, {2})");
  add("string", S, {A(S), Strings(regexes), Strings({"X", "-"}), Strings({"g"})},
      Fn("regexp_replace"), "regexp_replace({0}, {1}, {2}, {3})");
  add("string", LS, {A(S), Strings({"[a-z]+", "\\d", "l"})}, Fn("regexp_extract_all"),
      "regexp_extract_all({0}, {1})");
  add("string", LS, {A(S), Strings({",", " ", "l+"})}, Fn("regexp_split"),
      "regexp_split_to_array({0}, {1})");
  add("string", LS, {A(S), Strings({",", " ", "l", "", "lo"})}, Fn("split"),
      "string_split({0}, {1})");
  add("string", S, {A(S), Strings({"l", "a", " ", "lo"}), Strings({"L", "", "__"})}, Fn("replace"),
      "replace({0}, {1}, {2})");
  add("string", S, {A(S), Ints({-1, 0, 1, 3})}, Fn("repeat"), "repeat({0}, {1})");
  add("string", S, {A(S), Ints({0, 3, 8}), Strings({"*", "ab", "é"})}, Fn("lpad"),
      "lpad({0}, {1}, {2})");
  add("string", S, {A(S), Ints({0, 3, 8}), Strings({"*", "ab", "é"})}, Fn("rpad"),
      "rpad({0}, {1}, {2})");
  add("string", S, {A(S)}, Fn("normalize"), "nfc_normalize({0})");

  // --- temporal ---------------------------------------------------------------------------
  const std::pair<const char*, const char*> fields[] = {{"year", "year"},
                                                        {"month", "month"},
                                                        {"day", "day"},
                                                        {"dayofweek", "dayofweek"},
                                                        {"day_of_year", "dayofyear"},
                                                        {"isodow", "isodow"},
                                                        {"quarter", "quarter"},
                                                        {"week", "week"},
                                                        {"isoyear", "isoyear"}};
  // Daft's day_of_week counts from Monday = 0.
  add("temporal", I, {A(DT)}, Fn("day_of_week"), "(isodow({0}) - 1)");
  add("temporal", I, {A(TS)}, Fn("day_of_week"), "(isodow({0}) - 1)");
  for (auto [ours, duck] : fields) {
    add("temporal", I, {A(DT)}, Fn(ours), std::string(duck) + "({0})");
    add("temporal", I, {A(TS)}, Fn(ours), std::string(duck) + "({0})");
  }
  for (const char* f : {"hour", "minute", "second", "millisecond", "microsecond"}) {
    add("temporal", I, {A(TS)}, Fn(f), std::string(f) + "({0})");
  }
  const std::vector<std::string> parts = {"year",   "quarter", "month", "day",    "dow",
                                          "isodow", "doy",     "week",  "isoyear"};
  add("temporal", I, {Strings(parts), A(DT)}, Fn("extract"), "date_part({0}, {1})");
  add("temporal", I, {Strings({"hour", "minute", "second", "year", "doy"}), A(TS)}, Fn("date_part"),
      "date_part({0}, {1})");
  const std::vector<std::string> date_units = {"year", "quarter", "month", "week", "day"};
  // DuckDB moves and truncates dates as TIMESTAMPs; ours stay dates, so cast back for nesting.
  add("temporal", DT, {Strings(date_units), A(DT)}, Fn("date_trunc"),
      "CAST(date_trunc({0}, {1}) AS DATE)");
  add("temporal", TS,
      {Strings({"year", "month", "week", "day", "hour", "minute", "second"}), A(TS)},
      Fn("date_trunc"), "date_trunc({0}, {1})");
  for (const char* unit : {"day", "month", "year"}) {
    const std::string u = unit;
    const std::string interval = std::string(" INTERVAL ({1}) ") + unit;
    auto count = Ints({-13, -1, 0, 1, 2, 12, 400});
    add(
        "temporal", DT, {A(DT), count},
        [u](const Args& a) {
          return expr::Call("date_add", {a[0], a[1], expr::Literal(u)});
        },
        "CAST({0} +" + interval + " AS DATE)");
    add(
        "temporal", DT, {A(DT), count},
        [u](const Args& a) {
          return expr::Call("date_sub", {a[0], a[1], expr::Literal(u)});
        },
        "CAST({0} -" + interval + " AS DATE)");
    add(
        "temporal", TS, {A(TS), count},
        [u](const Args& a) {
          return expr::Call("date_add", {a[0], a[1], expr::Literal(u)});
        },
        "({0} +" + interval + ")");
  }
  add(
      "temporal", TS, {A(TS), Ints({-25, 1, 36})},
      [](const Args& a) {
        return expr::Call("date_add", {a[0], a[1], expr::Literal("hour")});
      },
      "({0} + INTERVAL ({1}) HOUR)");
  add("temporal", I, {Strings({"year", "quarter", "month", "week", "day"}), A(DT), A(DT)},
      Fn("date_diff"), "date_diff({0}, {1}, {2})");
  add("temporal", I, {Strings({"day", "hour", "minute", "second"}), A(TS), A(TS)}, Fn("date_diff"),
      "date_diff({0}, {1}, {2})");
  const std::vector<std::string> formats = {"%Y-%m-%d", "%d/%m/%y", "%j",    "%b %d %Y",
                                            "%A",       "%a %B",    "%Y%m%d"};
  add("temporal", S, {A(DT), Strings(formats)}, Fn("strftime"), "strftime({0}, {1})");
  add("temporal", S, {A(TS), Strings({"%Y-%m-%d %H:%M:%S", "%I %p", "%H%M", "%S.%f", "%T"})},
      Fn("strftime"), "strftime({0}, {1})");
  add(
      "temporal", TS, {A(TS)},
      [](const Args& a) {
        return expr::Call("strptime",
                          {expr::Call("strftime", {a[0], expr::Literal("%d.%m.%Y %H:%M:%S")}),
                           expr::Literal("%d.%m.%Y %H:%M:%S")});
      },
      "strptime(strftime({0}, '%d.%m.%Y %H:%M:%S'), '%d.%m.%Y %H:%M:%S')");
  add(
      "temporal", DT, {A(DT)},
      [](const Args& a) {
        return expr::Call("to_date", {expr::Call("strftime", {a[0], expr::Literal("%Y-%m-%d")})});
      },
      "CAST(strftime({0}, '%Y-%m-%d') AS DATE)");
  add("temporal", DT, {A(DT)}, Fn("last_day"), "last_day({0})");
  add(
      "temporal", DT, {A(DT)},
      [](const Args& a) {
        return expr::Call("make_date", {expr::Call("year", {a[0]}), expr::Call("month", {a[0]}),
                                        expr::Literal(1)});
      },
      "make_date(year({0}), month({0}), 1)");

  // --- lists and structs ------------------------------------------------------------------
  add("list", I, {A(LI)}, Fn("list_length"), "len({0})");
  add("list", I, {A(LS)}, Fn("list_length"), "len({0})");
  // Our indices are 0-based (negative from the end), DuckDB's 1-based.
  const auto index = IntsMapped({{0, 1}, {1, 2}, {3, 4}, {-1, -1}, {-2, -2}, {7, 8}});
  add("list", I, {A(LI), index}, Fn("list_get"), "list_extract({0}, {1})");
  add("list", S, {A(LS), index}, Fn("list_get"), "list_extract({0}, {1})");
  add("list", LI, {A(LI), IntsMapped({{0, 1}, {1, 2}, {2, 3}}), Ints({0, 2, 3, 9})},
      Fn("list_slice"), "list_slice({0}, {1}, {2})");
  // DuckDB joins a list of only nulls to NULL; ours skips nulls alike and gives ''.
  add("list", S, {A(LS), Strings({",", "", " | "})}, Fn("list_join"),
      "array_to_string(list_filter({0}, x -> x IS NOT NULL), {1})");
  add("list", B, {A(LI), A(I)}, Fn("list_contains"), "list_contains({0}, {1})");
  add("list", B, {A(LS), A(S)}, Fn("list_contains"), "list_contains({0}, {1})");
  add("list", I, {A(LI)}, Fn("list_sum"), "list_sum({0})");
  add("list", F, {A(LI)}, Fn("list_mean"), "list_avg({0})");
  add("list", I, {A(LI)}, Fn("list_min"), "list_min({0})");
  add("list", I, {A(LI)}, Fn("list_max"), "list_max({0})");
  add("list", S, {A(LS)}, Fn("list_min"), "list_min({0})");
  add("list", LI, {A(LI)}, Fn("list_sort"), "list_sort({0}, 'ASC', 'NULLS LAST')");
  add("list", LS, {A(LS)}, Fn("list_sort"), "list_sort({0}, 'ASC', 'NULLS LAST')");
  add("list", LI, {A(LI), Bools({true})}, Fn("list_sort"), "list_sort({0}, 'DESC', 'NULLS LAST')");
  // Both leave nulls out; DuckDB's order is its hash table's, so both are sorted.
  add(
      "list", LI, {A(LI)},
      [](const Args& a) { return expr::Call("list_sort", {expr::Call("list_distinct", a)}); },
      "list_sort(list_distinct({0}), 'ASC', 'NULLS LAST')");
  add(
      "list", I, {A(ST)},
      [](const Args& a) {
        return expr::Call("struct_get", {a[0], expr::Literal("a")});
      },
      "struct_extract({0}, 'a')");
  add(
      "list", S, {A(ST)},
      [](const Args& a) {
        return expr::Call("struct_get", {a[0], expr::Literal("b")});
      },
      "struct_extract({0}, 'b')");
  return t;
}

std::string Substitute(const std::string& format, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '{' && i + 2 < format.size() && format[i + 2] == '}' && format[i + 1] >= '0' &&
        format[i + 1] <= '9') {
      out += args[format[i + 1] - '0'];
      i += 2;
    } else {
      out += format[i];
    }
  }
  return out;
}

}  // namespace

ExprGenerator::ExprGenerator(std::mt19937_64* rng) : rng_(rng), templates_(MakeTemplates()) {}

std::vector<std::string> ExprGenerator::Families() const {
  std::vector<std::string> out;
  for (const Template& t : templates_) {
    if (std::find(out.begin(), out.end(), t.family) == out.end()) out.push_back(t.family);
  }
  return out;
}

GeneratedExpr ExprGenerator::Generate(const std::string& family, int depth, const Schema& schema) {
  schema_ = &schema;
  std::vector<const Template*> candidates;
  for (const Template& t : templates_) {
    if (t.family == family) candidates.push_back(&t);
  }
  return Build(*candidates[(*rng_)() % candidates.size()], depth);
}

GeneratedExpr ExprGenerator::Build(const Template& t, int depth) {
  std::vector<ExprPtr> ours;
  std::vector<std::string> sql;
  bool inexact = t.inexact;
  for (const Arg& arg : t.args) {
    if (arg.kind == Kind::kConst) {
      const Constant& c = arg.constants[(*rng_)() % arg.constants.size()];
      ours.push_back(c.ours);
      sql.push_back(c.sql);
      continue;
    }
    GeneratedExpr e = arg.literal ? Leaf(arg.kind, true) : Gen(arg.kind, depth - 1);
    inexact = inexact || e.inexact;
    ours.push_back(std::move(e.ours));
    sql.push_back(std::move(e.sql));
  }
  if (t.sql_for_types) {
    std::vector<TypePtr> types;
    for (const ExprPtr& e : ours) {
      Result<expr::BoundExpression> bound = expr::Bind(e, *schema_);
      types.push_back(bound.ok() ? bound->type() : nullptr);
    }
    return GeneratedExpr{t.family, t.ours(ours), t.sql_for_types(types, sql), inexact};
  }
  return GeneratedExpr{t.family, t.ours(ours), Substitute(t.sql, sql), inexact};
}

GeneratedExpr ExprGenerator::Gen(Kind kind, int depth) {
  if (depth > 0 && Chance(45)) {
    std::vector<const Template*> candidates;
    for (const Template& t : templates_) {
      if (t.result == kind) candidates.push_back(&t);
    }
    if (!candidates.empty()) return Build(*candidates[(*rng_)() % candidates.size()], depth);
  }
  return Leaf(kind, Chance(15));
}

GeneratedExpr ExprGenerator::Leaf(Kind kind, bool literal) {
  if (!literal) {
    const auto& names = kColumns[static_cast<int>(kind)];
    const std::string& name = names[(*rng_)() % names.size()];
    return GeneratedExpr{"", expr::Column(name), name};
  }
  const TypePtr type = LiteralType(kind);
  if (Chance(8)) {
    return GeneratedExpr{"", expr::NullLiteral(type), "CAST(NULL AS " + DuckType(*type) + ")"};
  }
  Array value = RandomValue(type, rng_);
  std::string sql = SqlLiteral(value, 0);
  return GeneratedExpr{"", expr::Literal(std::move(value)), std::move(sql)};
}

}  // namespace flotilla::diff
