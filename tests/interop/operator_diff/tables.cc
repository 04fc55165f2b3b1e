#include "tables.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "flotilla/columnar/builder.h"

namespace flotilla::opdiff {
namespace {

constexpr std::string_view kKeyWords[] = {"a", "b", "", "über", "x,y", "q\"t"};
constexpr std::string_view kWords[] = {"",    "a",    "A",    "abc", "Zed", "über",
                                       "ß",   "日本", "😀 ok", "a,b", "o'k", "say \"hi\"",
                                       " sp", "sp ",  "zzz",  "Ab"};

struct Rng {
  std::mt19937_64 engine;
  uint64_t Next() { return engine(); }
  bool Chance(int per_mille) { return static_cast<int>(Next() % 1000) < per_mille; }
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

std::string DuckType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kInt64:
      return "BIGINT";
    case TypeId::kFloat64:
      return "DOUBLE";
    case TypeId::kString:
      return "VARCHAR";
    case TypeId::kList:
      return DuckType(*type.value_type()) + "[]";
    default:
      return "UNSUPPORTED";
  }
}

void AppendQuoted(std::string_view s, std::string* out) {
  *out += '"';
  for (char c : s) {
    if (c == '"') *out += '"';
    *out += c;
  }
  *out += '"';
}

void AppendCsvCell(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) return;
  switch (a.type()->id()) {
    case TypeId::kInt64:
      *out += std::to_string(a.values<int64_t>()[i]);
      return;
    case TypeId::kFloat64: {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", a.values<double>()[i]);
      *out += buf;
      return;
    }
    case TypeId::kString:
      AppendQuoted(a.GetView(i), out);
      return;
    case TypeId::kList: {
      const Array values = a.ListValues(i);
      std::string text = "[";
      for (int64_t k = 0; k < values.length(); ++k) {
        if (k > 0) text += ", ";
        text += values.IsNull(k) ? "NULL" : std::to_string(values.values<int64_t>()[k]);
      }
      AppendQuoted(text + "]", out);
      return;
    }
    default:
      return;
  }
}

std::string SqlQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace

RecordBatch MakeTable(const TableSpec& spec) {
  Rng rng{std::mt19937_64(spec.seed)};
  const int64_t n = spec.rows;
  const std::string& p = spec.prefix;
  Int64Builder id(int64()), k(int64()), v(int64());
  DoubleBuilder d(float64());
  StringBuilder k2(utf8()), s(utf8());
  auto li_builder = MakeBuilder(list(int64())).ValueOrDie();
  auto* li = static_cast<ListBuilder*>(li_builder.get());
  std::vector<int64_t> permutation;
  if (spec.shape == KeyShape::kDistinct) {
    permutation.resize(static_cast<size_t>(n));
    std::iota(permutation.begin(), permutation.end(), int64_t{0});
    std::shuffle(permutation.begin(), permutation.end(), rng.engine);
  }
  for (int64_t i = 0; i < n; ++i) {
    id.Append(i).Check();
    switch (spec.shape) {
      case KeyShape::kUniform:
        if (rng.Chance(50)) {
          k.AppendNull().Check();
        } else {
          k.Append(rng.Uniform(0, spec.cardinality - 1)).Check();
        }
        break;
      case KeyShape::kSkewed:
        if (rng.Chance(50)) {
          k.AppendNull().Check();
        } else {
          k.Append(rng.Chance(500) ? 0 : rng.Uniform(1, spec.cardinality)).Check();
        }
        break;
      case KeyShape::kSingle:
        k.Append(7).Check();
        break;
      case KeyShape::kDistinct:
        if (rng.Chance(10)) {
          k.AppendNull().Check();
        } else {
          k.Append(permutation[static_cast<size_t>(i)] * 3 - n).Check();
        }
        break;
    }
    if (rng.Chance(100)) {
      v.AppendNull().Check();
    } else {
      v.Append(rng.Uniform(-1000, 1000)).Check();
    }
    if (rng.Chance(100)) {
      d.AppendNull().Check();
    } else {
      d.Append(static_cast<double>(rng.Uniform(-(1 << 20), 1 << 20)) / 64.0).Check();
    }
    if (spec.narrow) continue;
    if (rng.Chance(50)) {
      k2.AppendNull().Check();
    } else {
      k2.Append(kKeyWords[rng.Next() % std::size(kKeyWords)]).Check();
    }
    if (rng.Chance(100)) {
      s.AppendNull().Check();
    } else if (rng.Chance(500)) {
      s.Append("w" + std::to_string(rng.Uniform(0, 300))).Check();
    } else {
      s.Append(kWords[rng.Next() % std::size(kWords)]).Check();
    }
    if (!spec.lists) continue;
    if (rng.Chance(100)) {
      li->AppendNull().Check();
    } else {
      li->Append().Check();
      auto* items = static_cast<Int64Builder*>(li->value_builder());
      const int64_t length = rng.Uniform(0, 3);
      for (int64_t e = 0; e < length; ++e) {
        if (rng.Chance(100)) {
          items->AppendNull().Check();
        } else {
          items->Append(rng.Uniform(-5, 5)).Check();
        }
      }
    }
  }
  std::vector<std::pair<std::string, Array>> columns;
  columns.emplace_back(p + "id", id.Finish().ValueOrDie());
  columns.emplace_back(p + "k", k.Finish().ValueOrDie());
  if (!spec.narrow) columns.emplace_back(p + "k2", k2.Finish().ValueOrDie());
  columns.emplace_back(p + "v", v.Finish().ValueOrDie());
  columns.emplace_back(p + "d", d.Finish().ValueOrDie());
  if (!spec.narrow) columns.emplace_back(p + "s", s.Finish().ValueOrDie());
  if (spec.lists) columns.emplace_back(p + "li", li->Finish().ValueOrDie());
  return RecordBatch::FromColumns(std::move(columns)).ValueOrDie();
}

Result<std::string> WriteCsvForDuckDb(const RecordBatch& batch, const std::string& name,
                                      const std::string& path) {
  const Schema& schema = *batch.schema();
  const int num_columns = batch.num_columns();
  std::string text;
  for (int c = 0; c < num_columns; ++c) {
    if (c > 0) text += ',';
    text += schema.field(c).name;
  }
  text += '\n';
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    for (int c = 0; c < num_columns; ++c) {
      if (c > 0) text += ',';
      AppendCsvCell(batch.column(c), i, &text);
    }
    text += '\n';
  }
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) return Status::IOError("cannot write '" + path + "'");

  // Lists travel as text and are cast on the DuckDB side.
  std::string columns, select;
  for (int c = 0; c < num_columns; ++c) {
    const Field& field = schema.field(c);
    const bool is_list = field.type->id() == TypeId::kList;
    if (c > 0) {
      columns += ", ";
      select += ", ";
    }
    columns += SqlQuote(field.name) + ": '" + (is_list ? "VARCHAR" : DuckType(*field.type)) + "'";
    select += is_list ? "CAST(" + field.name + " AS " + DuckType(*field.type) + ") AS " + field.name
                      : field.name;
  }
  return "CREATE TABLE " + name + " AS SELECT " + select + " FROM read_csv(" + SqlQuote(path) +
         ", header = true, auto_detect = false, delim = ',', quote = '\"', escape = '\"', "
         "allow_quoted_nulls = false, columns = {" +
         columns + "})";
}

}  // namespace flotilla::opdiff
