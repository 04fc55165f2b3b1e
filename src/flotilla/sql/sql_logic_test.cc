// Runs the SQL corpus of tests/sql/*.test (sqllogictest style; expected rows recorded by DuckDB
// with tests/sql/record.mjs) against a Session, once with one thread and once with four.
//
//   statement ok | statement error     a statement that must succeed / fail
//   query rowsort | query nosort       a query, then "----", then its rows (values TAB-separated;
//                                      rowsort compares the rows sorted as strings)
// Values: NULL, true/false, numbers (compared with a relative tolerance of 1e-9 when both sides
// parse as numbers, so 3.50 equals 3.5; a decimal of ours also to half a unit of its last
// digit), (empty) for an empty string, anything else as text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "flotilla/sql/session.h"

namespace flotilla::sql {
namespace {

const std::filesystem::path& CorpusDir() {
  // This file is src/flotilla/sql/sql_logic_test.cc.
  static const std::filesystem::path dir =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path() /
      "tests" / "sql";
  return dir;
}

struct Record {
  enum Kind { kStatementOk, kStatementError, kQuery } kind;
  bool sort = false;
  std::string sql;
  std::vector<std::string> expected;
  int line = 0;
};

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::vector<Record> ReadRecords(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  const std::string data = (CorpusDir() / "data").string();
  std::vector<Record> records;
  for (size_t i = 0; i < lines.size();) {
    const std::string& head = lines[i];
    if (head.empty() || head[0] == '#') {
      ++i;
      continue;
    }
    Record r;
    r.line = static_cast<int>(i + 1);
    if (head.rfind("statement ok", 0) == 0) {
      r.kind = Record::kStatementOk;
    } else if (head.rfind("statement error", 0) == 0) {
      r.kind = Record::kStatementError;
    } else if (head.rfind("query", 0) == 0) {
      r.kind = Record::kQuery;
      r.sort = head.find("rowsort") != std::string::npos;
    } else {
      ADD_FAILURE() << file << ":" << i + 1 << ": unknown record '" << head << "'";
      ++i;
      continue;
    }
    ++i;
    while (i < lines.size() && !lines[i].empty() && lines[i] != "----") {
      r.sql += lines[i] + "\n";
      ++i;
    }
    if (r.kind == Record::kQuery && i < lines.size() && lines[i] == "----") {
      ++i;
      while (i < lines.size() && !lines[i].empty())
        r.expected.push_back(lines[i++]);
    }
    r.sql = Replace(r.sql, "__DATA__", data);
    records.push_back(std::move(r));
  }
  return records;
}

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

std::string Join(const std::vector<std::string>& rows) {
  std::string out;
  for (const std::string& r : rows)
    out += "  " + r + "\n";
  return out;
}

struct Param {
  std::string file;
  int threads;
};

class SqlLogicTest : public ::testing::TestWithParam<Param> {};

TEST_P(SqlLogicTest, MatchesRecordedResults) {
  const Param& p = GetParam();
  const std::filesystem::path file = CorpusDir() / p.file;
  Session session;
  ASSERT_TRUE(session.Set("threads", std::to_string(p.threads)).ok());
  const std::vector<Record> records = ReadRecords(file);
  ASSERT_FALSE(records.empty()) << file;
  for (const Record& r : records) {
    const std::string where = p.file + ":" + std::to_string(r.line);
    auto result = session.Execute(r.sql);
    if (r.kind == Record::kStatementError) {
      EXPECT_FALSE(result.ok()) << where << ": expected an error from\n" << r.sql;
      continue;
    }
    if (!result.ok()) {
      ADD_FAILURE() << where << ": " << result.status().ToString() << "\n" << r.sql;
      continue;
    }
    if (r.kind == Record::kStatementOk) continue;
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
    if (!SameRows(rows, r.expected, r.sort, scales)) {
      if (r.sort) std::sort(rows.begin(), rows.end());
      ADD_FAILURE() << where << ": wrong result for\n"
                    << r.sql << "expected (DuckDB):\n"
                    << Join(r.expected) << "actual:\n"
                    << Join(rows);
    }
  }
}

std::vector<Param> Params() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(CorpusDir(), ec))
    if (entry.path().extension() == ".test") files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  std::vector<Param> params;
  for (int threads : {1, 4})
    for (const std::string& f : files)
      params.push_back({f, threads});
  return params;
}

INSTANTIATE_TEST_SUITE_P(Corpus, SqlLogicTest, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           std::string name = info.param.file.substr(0, info.param.file.size() - 5);
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name + "_threads" + std::to_string(info.param.threads);
                         });

TEST(SqlLogicTest, CorpusIsLargeEnough) {
  int queries = 0;
  for (const Param& p : Params())
    if (p.threads == 1)
      for (const Record& r : ReadRecords(CorpusDir() / p.file))
        queries += r.kind == Record::kQuery;
  EXPECT_GE(queries, 300);
}

}  // namespace
}  // namespace flotilla::sql
