#include "tests/support/sql_corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace flotilla::testing {
namespace {

std::string Render(const Array& column, int64_t row) {
  if (column.IsNull(row)) return "NULL";
  std::string v = column.ValueToString(row);
  if (column.type_id() == TypeId::kTimestamp) {
    // The recorder writes fractions of a second with six digits.
    const size_t dot = v.find('.');
    if (dot != std::string::npos && v.size() - dot - 1 < 6) v.append(6 - (v.size() - dot - 1), '0');
  }
  return v.empty() ? "(empty)" : v;
}

std::vector<std::string> Split(const std::string& row) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    const size_t tab = row.find('\t', start);
    cells.push_back(row.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return cells;
    start = tab + 1;
  }
}

// `scale`: the decimal scale of our column, -1 for other types. A decimal result may carry
// fewer digits than DuckDB's float64 (decimal division keeps scale 6 when the precision runs
// out, as Spark does), so it matches when DuckDB's value rounds to it.
bool SameCell(const std::string& a, const std::string& b, int scale) {
  if (a == b) return true;
  char* end_a = nullptr;
  char* end_b = nullptr;
  const double x = std::strtod(a.c_str(), &end_a);
  const double y = std::strtod(b.c_str(), &end_b);
  if (a.empty() || b.empty() || *end_a != '\0' || *end_b != '\0') return false;
  double tolerance = 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)});
  if (scale >= 0) tolerance = std::max(tolerance, 0.5 * std::pow(10.0, -scale) * (1 + 1e-9));
  return std::fabs(x - y) <= tolerance;
}

bool SameRows(std::vector<std::string> actual, std::vector<std::string> expected, bool sort,
              const std::vector<int>& scales) {
  if (actual.size() != expected.size()) return false;
  if (sort) {
    // Numbers that print differently (3.5 / 3.50) can sort differently: sort on the cells.
    std::sort(actual.begin(), actual.end());
    std::sort(expected.begin(), expected.end());
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    std::vector<std::string> a = Split(actual[i]), e = Split(expected[i]);
    if (a.size() != e.size()) return false;
    for (size_t c = 0; c < a.size(); ++c)
      if (!SameCell(a[c], e[c], c < scales.size() ? scales[c] : -1)) return false;
  }
  return true;
}

std::string Indented(const std::vector<std::string>& rows) {
  std::string out;
  for (const std::string& r : rows)
    out += "  " + r + "\n";
  return out;
}

}  // namespace

const std::filesystem::path& SqlCorpusDir() {
  // This file is tests/support/sql_corpus.cc.
  static const std::filesystem::path dir =
      std::filesystem::path(__FILE__).parent_path().parent_path() / "sql";
  return dir;
}

std::vector<std::string> SqlCorpusFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(SqlCorpusDir(), ec))
    if (entry.path().extension() == ".test") files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<SqlRecord> ReadSqlRecords(const std::string& file) {
  const std::filesystem::path path = SqlCorpusDir() / file;
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  const std::string data = (SqlCorpusDir() / "data").string();
  std::vector<SqlRecord> records;
  for (size_t i = 0; i < lines.size();) {
    const std::string& head = lines[i];
    if (head.empty() || head[0] == '#') {
      ++i;
      continue;
    }
    SqlRecord r;
    r.line = static_cast<int>(i + 1);
    if (head.rfind("statement ok", 0) == 0) {
      r.kind = SqlRecord::kStatementOk;
    } else if (head.rfind("statement error", 0) == 0) {
      r.kind = SqlRecord::kStatementError;
    } else if (head.rfind("query", 0) == 0) {
      r.kind = SqlRecord::kQuery;
      r.sort = head.find("rowsort") != std::string::npos;
      r.empty = head.find(" empty") != std::string::npos;
    } else {
      ADD_FAILURE() << path << ":" << i + 1 << ": unknown record '" << head << "'";
      ++i;
      continue;
    }
    ++i;
    while (i < lines.size() && !lines[i].empty() && lines[i] != "----") {
      r.sql += lines[i] + "\n";
      ++i;
    }
    if (r.kind == SqlRecord::kQuery && i < lines.size() && lines[i] == "----") {
      ++i;
      while (i < lines.size() && !lines[i].empty())
        r.expected.push_back(lines[i++]);
    }
    if (r.kind == SqlRecord::kQuery && r.expected.empty() != r.empty) {
      ADD_FAILURE() << path << ":" << r.line
                    << (r.empty ? ": marked empty but records rows"
                                : ": records no rows; a check of nothing against nothing proves "
                                  "nothing: change it, or mark it `empty` if that is the point");
    }
    r.sql = ReplaceAll(r.sql, "__DATA__", data);
    records.push_back(std::move(r));
  }
  return records;
}

SqlCheck CheckSqlRecord(sql::Session& session, const SqlRecord& r, const std::string& where) {
  auto result = session.Execute(r.sql);
  if (r.kind == SqlRecord::kStatementError) {
    if (!result.ok()) return {};
    return {SqlCheck::kUnexpectedSuccess, where + ": expected an error from\n" + r.sql};
  }
  if (!result.ok()) {
    return {SqlCheck::kFailed, where + ": " + result.status().ToString() + "\n" + r.sql};
  }
  if (r.kind == SqlRecord::kStatementOk) return {};
  std::vector<std::string> rows;
  const RecordBatch& batch = result->batch;
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    std::string row;
    for (int c = 0; c < batch.num_columns(); ++c)
      row += (c ? "\t" : "") + Render(batch.column(c), i);
    rows.push_back(std::move(row));
  }
  std::vector<int> scales;
  for (int c = 0; c < batch.num_columns(); ++c) {
    const DataType& t = *batch.column(c).type();
    scales.push_back(t.id() == TypeId::kDecimal128 ? t.scale() : -1);
  }
  if (SameRows(rows, r.expected, r.sort, scales)) return {};
  if (r.sort) std::sort(rows.begin(), rows.end());
  return {SqlCheck::kWrongRows, where + ": wrong result for\n" + r.sql + "expected (DuckDB):\n" +
                                    Indented(r.expected) + "actual:\n" + Indented(rows)};
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string OneLine(const std::string& sql) {
  std::string out;
  bool space = false;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace flotilla::testing
