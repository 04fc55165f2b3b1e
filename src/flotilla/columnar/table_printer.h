#pragma once
// Renders query results as a boxed text table: one column per field with its name and type in
// the header, values aligned (numbers right, text left), long values cut with "…", and the row
// count underneath. Used by the CLI and by result previews.

#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla {

struct TablePrintOptions {
  /// Values wider than this (in terminal cells) are cut and end in "…".
  int max_column_width = 32;
  /// Tables with more rows show the first and last max_rows/2 rows with a "…" row between.
  int64_t max_rows = 40;
  /// Total width budget in terminal cells (0 = unlimited). Columns that do not fit are left
  /// out, and the footer says how many.
  int max_width = 0;
  /// The batches are the first rows of a longer result (a preview): the footer says "first N
  /// rows" instead of "N rows".
  bool first_rows_only = false;
};

/// Formats `batches` (all with `schema`) as a table.
std::string FormatTable(const Schema& schema, const std::vector<RecordBatch>& batches,
                        const TablePrintOptions& options = {});
std::string FormatTable(const RecordBatch& batch, const TablePrintOptions& options = {});

/// Width of a UTF-8 string in terminal cells (East Asian wide characters and emoji count 2,
/// combining marks 0). Invalid bytes count 1 each.
int DisplayWidth(std::string_view text);

}  // namespace flotilla
