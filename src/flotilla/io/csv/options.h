#pragma once
// Options of the CSV reader and writer (the defaults read RFC 4180 files with a header).
#include <cstdint>
#include <string>
#include <vector>

#include "flotilla/types/schema.h"

namespace flotilla::io::csv {

struct CsvParseOptions {
  char delimiter = ',';
  /// Fields may be quoted with this character; '\0' turns quoting off.
  char quote = '"';
  /// Inside quotes, this character makes the next one literal. '\0': only a doubled quote stands
  /// for a quote (RFC 4180). Both are always accepted.
  char escape = '\0';
  bool has_header = true;
  /// Lines skipped before the header (or the first row).
  int64_t skip_rows = 0;
  /// Unquoted fields equal to one of these are null. A quoted field is never null.
  std::vector<std::string> null_values = {""};
};

struct CsvReadOptions {
  CsvParseOptions parse;
  /// Column names and types; when set nothing is inferred and every row must have exactly these
  /// columns (a header row, if any, is skipped).
  SchemaPtr schema;
  /// Rows of each file sampled to infer the column types.
  int64_t sample_rows = 20480;
  /// Files larger than this are read as several scan tasks of about this many bytes.
  int64_t chunk_bytes = int64_t{16} << 20;
};

struct CsvWriteOptions {
  char delimiter = ',';
  char quote = '"';
  bool header = true;
  /// How nulls are written (an empty string written as text is quoted: "").
  std::string null_string;
};

}  // namespace flotilla::io::csv
