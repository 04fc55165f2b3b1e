#pragma once
// The subcommands of the `flotilla` program. Each returns a process exit code and prints its
// own errors.

#include <string>
#include <vector>

#include "flotilla/columnar/table_printer.h"

namespace flotilla::cli {

struct CatOptions {
  std::vector<std::string> paths;
  TablePrintOptions table;
  bool schema_only = false;
};

/// `flotilla demo`: builds a small table, writes it as a compressed Arrow IPC file, maps it back
/// and prints it.
int RunDemo(const std::string& dir, const TablePrintOptions& table);

/// `flotilla cat FILE...`: prints Arrow IPC files (file or stream format) as tables.
int RunCat(const CatOptions& options);

/// Terminal width of stdout, or 0 when it is not a terminal.
int TerminalWidth();

}  // namespace flotilla::cli
