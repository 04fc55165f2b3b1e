// Our half of the expression differential test against DuckDB (tests/interop/expr_diff.mjs).
//
//   expr_diff_tool OUT.json [--seed N] [--datasets N] [--rows N] [--cases N] [--aggregates N]
//
// Makes random tables (dataset.h) and, per table, random expressions from every function
// family (generator.h) and random grouped aggregates; evaluates them with our binder,
// evaluator and accumulators (aggregates two-phase: two partial states merged, as across
// workers); and writes one JSON document with the tables as DuckDB SQL and, per case, the SQL
// DuckDB must run and our result (values or the error). expr_diff.mjs runs the SQL and compares
// value by value.

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "dataset.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"
#include "generator.h"
#include "tests/support/canonical_json.h"

namespace flotilla::diff {
namespace {

using testing::AppendJsonString;

// How expr_diff.mjs reads a value of this type: {"t": "int" | "float" | "decimal" | "string" |
// "bool" | "date" | "timestamp" | "list" (with "item") | "null" | "other"}.
std::string TypeJson(const DataType& type) {
  if (type.is_integer()) return R"({"t":"int"})";
  if (type.is_floating()) return R"({"t":"float"})";
  switch (type.id()) {
    case TypeId::kDecimal128:
      return R"({"t":"decimal"})";
    case TypeId::kString:
    case TypeId::kLargeString:
      return R"({"t":"string"})";
    case TypeId::kBool:
      return R"({"t":"bool"})";
    case TypeId::kDate32:
      return R"({"t":"date"})";
    case TypeId::kTimestamp:
      return R"({"t":"timestamp"})";
    case TypeId::kNull:
      return R"({"t":"null"})";
    case TypeId::kList:
    case TypeId::kFixedSizeList:
      return R"({"t":"list","item":)" + TypeJson(*type.value_type()) + "}";
    default:
      return R"({"t":"other"})";
  }
}

int64_t ToMicros(int64_t v, TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return v * 1000000;
    case TimeUnit::kMilli:
      return v * 1000;
    case TimeUnit::kMicro:
      return v;
    case TimeUnit::kNano:
      return v / 1000;  // finer than DuckDB's TIMESTAMP
  }
  return v;
}

void AppendValue(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    *out += "null";
    return;
  }
  const DataType& type = *a.type();
  switch (type.id()) {
    case TypeId::kBool:
      *out += a.BoolValue(i) ? "true" : "false";
      return;
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      const double d = type.id() == TypeId::kFloat32 ? a.values<float>()[i] : a.values<double>()[i];
      if (std::isnan(d)) {
        *out += "\"NaN\"";
      } else if (std::isinf(d)) {
        *out += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
      } else {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "\"%.17g\"", d);
        *out += buf;
      }
      return;
    }
    case TypeId::kString:
    case TypeId::kLargeString:
      AppendJsonString(a.GetView(i), out);
      return;
    case TypeId::kTimestamp:
      *out += '"' + std::to_string(ToMicros(a.values<int64_t>()[i], type.unit())) + '"';
      return;
    case TypeId::kList:
    case TypeId::kFixedSizeList: {
      const Array values = a.ListValues(i);
      *out += '[';
      for (int64_t k = 0; k < values.length(); ++k) {
        if (k > 0) *out += ',';
        AppendValue(values, k, out);
      }
      *out += ']';
      return;
    }
    default:
      // Integers, decimals ("12.50") and dates ("2024-02-29") as their text.
      AppendJsonString(a.ValueToString(i), out);
  }
}

// Our result type decides how DuckDB's value is brought to a comparable form: temporal values
// become DATE or epoch microseconds whichever type DuckDB gave them.
std::string WrapForType(const std::string& sql, const DataType& type) {
  if (type.id() == TypeId::kTimestamp) return "epoch_us(CAST(" + sql + " AS TIMESTAMP))";
  if (type.id() == TypeId::kDate32) return "CAST(" + sql + " AS DATE)";
  return sql;
}

struct Outcome {
  bool ok = false;
  std::string error;
  TypePtr type;
  Array values;
};

Outcome EvaluateExpression(const expr::ExprPtr& e, const RecordBatch& batch) {
  Outcome out;
  Result<expr::BoundExpression> bound = expr::Bind(e, *batch.schema());
  if (!bound.ok()) {
    out.error = "bind: " + bound.status().ToString();
    return out;
  }
  out.type = bound->type();
  Result<expr::Datum> datum = expr::Evaluate(*bound, batch);
  if (!datum.ok()) {
    out.error = datum.status().ToString();
    return out;
  }
  Result<Array> column = datum->ToColumn(batch.num_rows());
  if (!column.ok()) {
    out.error = column.status().ToString();
    return out;
  }
  out.ok = true;
  out.values = std::move(*column);
  return out;
}

// A grouped aggregate over `arg_column` with groups from column g (0..3), run two-phase: the
// first and second halves of the rows fold into separate accumulators whose serialized partial
// states are merged into a third, which finalizes.
Status RunAggregate(const std::string& name, const std::vector<Array>& columns,
                    const std::vector<Array>& constants, const Array& groups, Array* result) {
  FLOTILLA_ASSIGN_OR_RETURN(const expr::AggregateFunction* f,
                            expr::DefaultAggregateRegistry().Find(name));
  const int64_t n = groups.length(), half = n / 2;
  // Constant arguments go to the factory and, repeated, into the argument columns.
  std::vector<Array> args = columns;
  std::vector<Array> constant_args(columns.size());
  for (const Array& c : constants) {
    FLOTILLA_ASSIGN_OR_RETURN(Array repeated, expr::Datum::Scalar(c).ToColumn(n));
    args.push_back(std::move(repeated));
    constant_args.push_back(c);
  }
  std::vector<TypePtr> types;
  for (const Array& a : args)
    types.push_back(a.type());
  std::vector<uint32_t> ids(n);
  for (int64_t i = 0; i < n; ++i)
    ids[i] = static_cast<uint32_t>(groups.values<int32_t>()[i]);
  FLOTILLA_ASSIGN_OR_RETURN(auto final_acc, f->MakeAccumulator(types, constant_args));
  FLOTILLA_RETURN_NOT_OK(final_acc->Resize(4));
  const uint32_t identity[4] = {0, 1, 2, 3};
  for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, half}, {half, n}}) {
    FLOTILLA_ASSIGN_OR_RETURN(auto part, f->MakeAccumulator(types, constant_args));
    FLOTILLA_RETURN_NOT_OK(part->Resize(4));
    std::vector<Array> slices;
    for (const Array& a : args)
      slices.push_back(a.Slice(begin, end - begin));
    FLOTILLA_RETURN_NOT_OK(part->Update(slices, ids.data() + begin, end - begin));
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> state, part->SerializePartial());
    FLOTILLA_RETURN_NOT_OK(final_acc->MergePartial(state, identity, 4));
  }
  FLOTILLA_ASSIGN_OR_RETURN(*result, final_acc->Finalize());
  return Status::OK();
}

struct AggregateTemplate {
  const char* ours;
  std::string sql;  // {0}: the argument column
  std::vector<const char*> columns;
  const char* constant_ours = nullptr;  // a string or float constant argument
  double constant_value = 0;
};

// DuckDB rejects a NaN variance ("out of range") where ours is NaN: spell ours out in SQL.
std::string NaNGuarded(const char* aggregate) {
  return std::string("CASE WHEN bool_or(isnan({0})) THEN CAST('NaN' AS DOUBLE) ELSE ") + aggregate +
         "({0}) FILTER (WHERE NOT isnan({0})) END";
}

const std::vector<AggregateTemplate>& AggregateTemplates() {
  static const std::vector<AggregateTemplate> t = {
      {"count", "count({0})", {"i32", "s1", "li", "f64", "dt"}},
      {"count_star", "count(*)", {}},
      {"count_distinct", "count(DISTINCT {0})", {"i8", "s1", "d1", "dt", "f64"}},
      {"approx_count_distinct", "count(DISTINCT {0})", {"i16", "s1", "i64"}},
      {"sum", "sum({0})", {"i8", "i16", "i32", "u8", "f64", "d1", "d2"}},
      {"mean", "avg({0})", {"i32", "f64", "d1", "u32"}},
      {"avg", "avg({0})", {"i16", "d2"}},
      {"min", "min({0})", {"i64", "f64", "d1", "s1", "dt", "ts", "b1"}},
      {"max", "max({0})", {"i64", "f32", "d2", "s2", "dt", "ts", "b2"}},
      {"first", "first({0} ORDER BY rid)", {"i32", "s1", "dt"}},
      {"last", "last({0} ORDER BY rid)", {"i32", "s2", "d1"}},
      {"variance", NaNGuarded("var_samp"), {"i32", "f64", "d1"}},
      {"var_pop", NaNGuarded("var_pop"), {"i16", "f64"}},
      {"stddev", NaNGuarded("stddev_samp"), {"i32", "d2", "f64"}},
      {"stddev_pop", NaNGuarded("stddev_pop"), {"i8", "f64"}},
      {"bool_and", "bool_and({0})", {"b1", "b2"}},
      {"bool_or", "bool_or({0})", {"b1", "b2"}},
      {"list", "list({0} ORDER BY rid)", {"i32", "s1"}},
      {"string_agg", "string_agg({0}, ', ' ORDER BY rid)", {"s1", "s2"}, "str", 0},
      {"approx_percentile", "quantile_disc({0}, 0.5)", {"i32", "f64"}, "f64", 0.5},
  };
  return t;
}

struct Options {
  std::string out;
  uint64_t seed = 20261202;
  int datasets = 12;
  int64_t rows = 40;
  int cases = 48;
  int aggregates = 8;
};

int Main(const Options& o) {
  std::mt19937_64 rng(o.seed);
  ExprGenerator generator(&rng);
  const std::vector<std::string> families = generator.Families();
  std::string json = "{\"seed\":" + std::to_string(o.seed) + ",\"datasets\":[";
  std::string cases;
  int id = 0;
  for (int d = 0; d < o.datasets; ++d) {
    Dataset data = MakeDataset("t" + std::to_string(d), o.rows, &rng);
    if (d > 0) json += ',';
    json += "{\"name\":\"" + data.name + "\",\"sql\":";
    AppendJsonString(data.sql, &json);
    json += '}';
    auto add_case = [&](const std::string& family, const std::string& text,
                        const std::string& select, const Outcome& r, bool grouped, bool inexact) {
      if (!cases.empty()) cases += ",\n";
      cases += "{\"id\":" + std::to_string(id++) + ",\"family\":\"" + family + "\",\"dataset\":\"" +
               data.name + "\",\"inexact\":" + (inexact ? "true" : "false") + ",\"expr\":";
      AppendJsonString(text, &cases);
      std::string sql = "SELECT " + (r.ok ? WrapForType(select, *r.type) : select) + " AS r FROM " +
                        data.name + (grouped ? " GROUP BY g ORDER BY g" : " ORDER BY rid");
      cases += ",\"sql\":";
      AppendJsonString(sql, &cases);
      if (r.ok) {
        cases += ",\"ok\":true,\"type\":" + TypeJson(*r.type) + ",\"values\":[";
        for (int64_t i = 0; i < r.values.length(); ++i) {
          if (i > 0) cases += ',';
          AppendValue(r.values, i, &cases);
        }
        cases += "]}";
      } else {
        cases += ",\"ok\":false,\"error\":";
        AppendJsonString(r.error, &cases);
        cases += '}';
      }
    };
    for (int c = 0; c < o.cases; ++c) {
      const std::string& family = families[c % families.size()];
      GeneratedExpr e =
          generator.Generate(family, 1 + static_cast<int>(rng() % 3), *data.batch.schema());
      add_case(family, e.ours->ToString(), e.sql, EvaluateExpression(e.ours, data.batch), false,
               e.inexact);
    }
    const auto& aggregates = AggregateTemplates();
    const Array& groups = data.batch.column(data.batch.schema()->GetFieldIndex("g"));
    for (int c = 0; c < o.aggregates; ++c) {
      const AggregateTemplate& t = aggregates[rng() % aggregates.size()];
      std::vector<Array> args;
      std::string column;
      if (!t.columns.empty()) {
        column = t.columns[rng() % t.columns.size()];
        args.push_back(data.batch.column(data.batch.schema()->GetFieldIndex(column)));
      }
      std::vector<Array> constants;
      if (t.constant_ours != nullptr) {
        if (std::strcmp(t.constant_ours, "str") == 0) {
          constants.push_back(expr::Literal(", ")->literal());
        } else {
          constants.push_back(expr::Literal(t.constant_value)->literal());
        }
      }
      Outcome r;
      Status st = RunAggregate(t.ours, args, constants, groups, &r.values);
      r.ok = st.ok();
      if (r.ok) {
        r.type = r.values.type();
      } else {
        r.error = st.ToString();
      }
      std::string select = t.sql;
      for (auto pos = select.find("{0}"); pos != std::string::npos; pos = select.find("{0}"))
        select.replace(pos, 3, column);
      add_case("aggregate", std::string(t.ours) + "(" + column + ") GROUP BY g", select, r, true,
               false);
    }
  }
  json += "],\"cases\":[\n" + cases + "\n]}\n";
  std::ofstream file(o.out, std::ios::binary);
  file << json;
  if (!file) {
    std::cerr << "expr_diff_tool: cannot write " << o.out << "\n";
    return 2;
  }
  std::cout << id << " cases over " << o.datasets << " tables of " << o.rows << " rows\n";
  return 0;
}

}  // namespace
}  // namespace flotilla::diff

int main(int argc, char** argv) {
  flotilla::diff::Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "expr_diff_tool: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--seed") {
      o.seed = std::stoull(value());
    } else if (arg == "--datasets") {
      o.datasets = std::stoi(value());
    } else if (arg == "--rows") {
      o.rows = std::stoll(value());
    } else if (arg == "--cases") {
      o.cases = std::stoi(value());
    } else if (arg == "--aggregates") {
      o.aggregates = std::stoi(value());
    } else if (!arg.empty() && arg[0] != '-' && o.out.empty()) {
      o.out = arg;
    } else {
      std::cerr << "usage: expr_diff_tool OUT.json [--seed N] [--datasets N] [--rows N] "
                   "[--cases N] [--aggregates N]\n";
      return 2;
    }
  }
  if (o.out.empty()) {
    std::cerr << "usage: expr_diff_tool OUT.json [options]\n";
    return 2;
  }
  return flotilla::diff::Main(o);
}
