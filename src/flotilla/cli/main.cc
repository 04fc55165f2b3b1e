// flotilla: the command-line program.

#include <CLI/CLI.hpp>

#include "flotilla/cli/commands.h"

int main(int argc, char** argv) {
  using namespace flotilla;
  CLI::App app{"Flotilla: a distributed dataframe and SQL engine."};
  app.require_subcommand(0, 1);  // none: the SQL shell
  app.set_version_flag("--version", std::string("flotilla 0.1.0"));

  TablePrintOptions table;
  table.max_width = cli::TerminalWidth();
  app.add_option("--max-rows", table.max_rows, "Rows shown before eliding the middle")
      ->default_val(40);
  app.add_option("--max-column-width", table.max_column_width, "Cut values wider than this")
      ->default_val(32);

  std::string demo_dir = "/tmp";
  auto* demo = app.add_subcommand("demo", "Write a small table as Arrow IPC, read it back, print it");
  demo->add_option("--dir", demo_dir, "Where the demo writes its file")->default_val("/tmp");

  cli::CatOptions cat;
  auto* cat_cmd = app.add_subcommand("cat", "Print Arrow IPC files (file or stream format)");
  cat_cmd->add_option("files", cat.paths, "Arrow IPC files")->required();
  cat_cmd->add_flag("--schema", cat.schema_only, "Print only the schema");

  cli::SqlOptions sql;
  auto* sql_cmd = app.add_subcommand("sql", "Run SQL: a query, a file of statements, or a shell");
  sql_cmd->add_option("query", sql.query, "The SQL to run (all statements; the last one's rows are printed)");
  sql_cmd->add_option("-f,--file", sql.file, "Read the SQL from this file");
  sql_cmd->add_option("--format", sql.format, "Output format: table, csv (with a header) or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  sql_cmd->add_option("-o,--output", sql.output, "Write the rows to this file instead of stdout");
  sql_cmd->add_option("--tables", sql.tables,
                      "Register DIR/NAME.parquet|csv|json (and DIR/NAME/) as table NAME")
      ->allow_extra_args(false);
  sql_cmd->add_option("--threads", sql.threads, "Worker threads (default: one per core)");
  sql_cmd->add_option("--memory-limit", sql.memory_limit, "Memory budget, e.g. 8GiB (default: 80% of RAM)");
  sql_cmd->add_flag("--timer", sql.timer, "Print each statement's time on stderr");
  sql_cmd->add_option("--set", sql.settings, "A setting as name=value (see SET)")
      ->allow_extra_args(false);

  CLI11_PARSE(app, argc, argv);
  if (*sql_cmd) {
    sql.table = table;
    return cli::RunSql(sql);
  }
  if (*demo) return cli::RunDemo(demo_dir, table);
  cat.table = table;
  if (*cat_cmd) return cli::RunCat(cat);
  sql.table = table;
  return cli::RunSql(sql);  // `flotilla` alone opens the shell
}
