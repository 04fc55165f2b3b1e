#pragma once
// The subcommands of the `flotilla` program. Each returns a process exit code and prints its
// own errors.

#include <string>
#include <vector>

#include "flotilla/columnar/table_printer.h"
#include "flotilla/common/result.h"

namespace flotilla::cli {

struct CatOptions {
  std::vector<std::string> paths;
  TablePrintOptions table;
  bool schema_only = false;
};

struct SqlOptions {
  std::string query;  // empty: read -f FILE, or open the shell
  std::string file;
  std::string format = "table";     // table | csv | json
  std::string output;               // empty: stdout
  std::vector<std::string> tables;  // directories whose files become tables
  int threads = 0;
  std::string memory_limit;
  std::vector<std::string> settings;  // name=value
  bool timer = false;                 // print each statement's time on stderr
  std::string runner = "local";       // local | dask | dask=ADDRESS
  int workers = 0;                    // dask: the new local cluster's workers (0: its default)
  TablePrintOptions table;
};

struct TpchGenOptions {
  double scale_factor = 1;
  std::string out_dir;
  int files_per_table = 1;
  int threads = 0;
  int64_t row_group_rows = 0;       // 0: the generator's default
  std::vector<std::string> tables;  // empty: all eight
};

struct TpchRunOptions {
  std::string tables_dir;
  std::string queries_dir = "tpch/queries";
  std::vector<int> queries;  // empty: 1..22
  int threads = 0;
  std::string memory_limit;
  TablePrintOptions table;
};

/// `flotilla tpch gen`: writes the TPC-H tables of a scale factor as Parquet.
int RunTpchGen(const TpchGenOptions& options);

/// `flotilla tpch run`: runs the TPC-H queries on a directory of tables and prints a table of
/// query, rows and seconds.
int RunTpchQueries(const TpchRunOptions& options);

/// `flotilla sql`: runs every statement and prints the last one's rows.
int RunSql(const SqlOptions& options);

/// `flotilla demo`: builds a small table, writes it as a compressed Arrow IPC file, maps it back
/// and prints it.
int RunDemo(const std::string& dir, const TablePrintOptions& table);

/// `flotilla cat FILE...`: prints Arrow IPC files (file or stream format) as tables.
int RunCat(const CatOptions& options);

/// The whole file at `path`, or an IOError naming it.
Result<std::string> ReadTextFile(const std::string& path);

/// Terminal width of stdout, or 0 when it is not a terminal.
int TerminalWidth();

}  // namespace flotilla::cli
