// `flotilla tpch gen` writes the TPC-H tables of a scale factor; `flotilla tpch run` runs the 22
// queries on them through the local engine and prints each one's rows and seconds.
#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "flotilla/cli/commands.h"
#include "flotilla/columnar/builder.h"
#include "flotilla/sql/session.h"
#include "flotilla/tpch/generator.h"

namespace flotilla::cli {
namespace {

int Fail(const Status& s) {
  fmt::print(stderr, "Error: {}\n", s.message());
  return 1;
}

Result<std::vector<tpch::Table>> ParseTables(const std::vector<std::string>& names) {
  std::vector<tpch::Table> tables;
  for (const std::string& name : names) {
    bool found = false;
    for (tpch::Table t : tpch::kAllTables) {
      if (name == tpch::TableName(t)) {
        tables.push_back(t);
        found = true;
      }
    }
    if (!found) return Status::KeyError("no TPC-H table named '" + name + "'");
  }
  return tables;
}

struct QueryTiming {
  std::string name;
  int64_t rows = 0;
  double seconds = 0;
};

Result<RecordBatch> TimingTable(const std::vector<QueryTiming>& timings) {
  StringBuilder names(utf8());
  Int64Builder rows(int64());
  DoubleBuilder seconds(float64());
  double total = 0;
  for (const QueryTiming& t : timings) {
    FLOTILLA_RETURN_NOT_OK(names.Append(t.name));
    FLOTILLA_RETURN_NOT_OK(rows.Append(t.rows));
    FLOTILLA_RETURN_NOT_OK(seconds.Append(std::round(t.seconds * 1000) / 1000));
    total += t.seconds;
  }
  FLOTILLA_RETURN_NOT_OK(names.Append("total"));
  FLOTILLA_RETURN_NOT_OK(rows.AppendNull());
  FLOTILLA_RETURN_NOT_OK(seconds.Append(std::round(total * 1000) / 1000));
  FLOTILLA_ASSIGN_OR_RETURN(Array a, names.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array b, rows.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array c, seconds.Finish());
  return RecordBatch::FromColumns({{"query", a}, {"rows", b}, {"seconds", c}});
}

}  // namespace

int RunTpchGen(const TpchGenOptions& options) {
  tpch::GenerateOptions gen;
  gen.scale_factor = options.scale_factor;
  gen.out_dir = options.out_dir;
  gen.files_per_table = options.files_per_table;
  gen.threads = options.threads;
  if (options.row_group_rows > 0) gen.row_group_rows = options.row_group_rows;
  auto tables = ParseTables(options.tables);
  if (!tables.ok()) return Fail(tables.status());
  gen.tables = *tables;
  const auto start = std::chrono::steady_clock::now();
  auto written = tpch::GenerateTables(gen);
  if (!written.ok()) return Fail(written.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int64_t rows = 0;
  int64_t bytes = 0;
  fmt::print("{:<10} {:>12} {:>6} {:>10} {:>9} {:>12}\n", "table", "rows", "files", "MiB",
             "seconds", "rows/s");
  for (const tpch::GeneratedTable& t : *written) {
    fmt::print("{:<10} {:>12} {:>6} {:>10.1f} {:>9.2f} {:>12.0f}\n", tpch::TableName(t.table),
               t.rows, t.files, t.bytes / 1048576.0, t.seconds, t.rows / std::max(t.seconds, 1e-9));
    rows += t.rows;
    bytes += t.bytes;
  }
  fmt::print("{:<10} {:>12} {:>6} {:>10.1f} {:>9.2f} {:>12.0f}\n", "total", rows, "",
             bytes / 1048576.0, seconds, rows / std::max(seconds, 1e-9));
  return 0;
}

int RunTpchQueries(const TpchRunOptions& options) {
  sql::Session session;
  if (options.threads > 0) {
    if (auto s = session.Set("threads", std::to_string(options.threads)); !s.ok()) return Fail(s);
  }
  if (!options.memory_limit.empty()) {
    if (auto s = session.Set("memory_limit", options.memory_limit); !s.ok()) return Fail(s);
  }
  if (auto s = session.RegisterDirectory(options.tables_dir); !s.ok()) return Fail(s);
  std::vector<int> queries = options.queries;
  if (queries.empty()) {
    for (int q = 1; q <= 22; ++q)
      queries.push_back(q);
  }
  std::vector<QueryTiming> timings;
  for (int q : queries) {
    const std::string name = fmt::format("q{:02}", q);
    auto text = ReadTextFile(fmt::format("{}/{}.sql", options.queries_dir, name));
    if (!text.ok()) return Fail(text.status());
    const auto start = std::chrono::steady_clock::now();
    auto result = session.Execute(*text);
    if (!result.ok()) return Fail(result.status().WithContext(name));
    QueryTiming t{name, result->batch.num_rows(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    fmt::print(stderr, "{}: {} rows in {:.3f} s\n", name, t.rows, t.seconds);
    timings.push_back(t);
  }
  auto table = TimingTable(timings);
  if (!table.ok()) return Fail(table.status());
  TablePrintOptions print = options.table;
  print.max_rows = 100;
  fmt::print("{}\n", FormatTable(*table, print));
  return 0;
}

}  // namespace flotilla::cli
