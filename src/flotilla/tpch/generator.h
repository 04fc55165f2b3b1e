#pragma once
// `flotilla tpch gen`: the eight TPC-H tables of a scale factor written as Parquet files, rows
// generated on several threads while the previous rows are encoded.
#include <cstdint>
#include <string>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/tpch/tables.h"

namespace flotilla::tpch {

struct GenerateOptions {
  double scale_factor = 1;
  std::string out_dir;
  /// 1: DIR/NAME.parquet. More: DIR/NAME/part-K.parquet, each holding a contiguous key range
  /// (tables with fewer rows get fewer files).
  int files_per_table = 1;
  /// Threads generating rows (0: one per hardware thread); Parquet encoding uses as many.
  int threads = 0;
  /// Tables to write; empty: all eight.
  std::vector<Table> tables;
  int64_t row_group_rows = 131072;  // a morsel: row groups are the scan's unit of work
};

struct GeneratedTable {
  Table table;
  int64_t rows = 0;
  int64_t bytes = 0;  // on disk
  int files = 0;
  double seconds = 0;
};

/// Writes the tables; every file is written under a temporary name and renamed when complete.
/// Refuses to write a table whose other layout (a file where a directory of files is asked for,
/// or the reverse) is already in the directory, since a reader would see both.
Result<std::vector<GeneratedTable>> GenerateTables(const GenerateOptions& options);

}  // namespace flotilla::tpch
