// flotilla: the command-line program.

#include <CLI/CLI.hpp>

#include "flotilla/cli/commands.h"
#include "flotilla/cli/signals.h"
#include "flotilla/common/thread_pool.h"

int main(int argc, char** argv) {
  using namespace flotilla;
  cli::CleanUpOnSignals();
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
  auto* demo =
      app.add_subcommand("demo", "Write a small table as Arrow IPC, read it back, print it");
  demo->add_option("--dir", demo_dir, "Where the demo writes its file")->default_val("/tmp");

  cli::CatOptions cat;
  auto* cat_cmd = app.add_subcommand("cat", "Print Arrow IPC files (file or stream format)");
  cat_cmd->add_option("files", cat.paths, "Arrow IPC files")->required();
  cat_cmd->add_flag("--schema", cat.schema_only, "Print only the schema");

  cli::SqlOptions sql;
  // The one rule SET threads applies too.
  const CLI::Validator threads_check(
      [](std::string& value) {
        const Status st = flotilla::CheckThreadCount(value);
        return st.ok() ? std::string() : st.message();
      },
      "1..1024");
  auto* sql_cmd = app.add_subcommand("sql", "Run SQL: a query, a file of statements, or a shell");
  sql_cmd->add_option("query", sql.query,
                      "The SQL to run (all statements; the last one's rows are printed)");
  sql_cmd->add_option("-f,--file", sql.file, "Read the SQL from this file");
  sql_cmd->add_option("--format", sql.format, "Output format: table, csv (with a header) or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  sql_cmd->add_option("-o,--output", sql.output, "Write the rows to this file instead of stdout");
  sql_cmd
      ->add_option("--tables", sql.tables,
                   "Register DIR/NAME.parquet|csv|json (and DIR/NAME/) as table NAME")
      ->allow_extra_args(false);
  sql_cmd->add_option("--threads", sql.threads, "Worker threads (default: one per core)")
      ->check(threads_check);
  sql_cmd->add_option("--memory-limit", sql.memory_limit,
                      "Memory budget, e.g. 8GiB (default: 80% of RAM)");
  sql_cmd->add_flag("--timer", sql.timer, "Print each statement's time on stderr");
  sql_cmd->add_option("--runner", sql.runner,
                      "local (default), dask[=ADDRESS]: run on a Dask cluster (a new local one "
                      "without an address), or session=PATH: on the Dask runner another process "
                      "serves (runner.serve(PATH)); FLOTILLA_RUNNER sets the default");
  sql_cmd->add_option("--workers", sql.workers,
                      "With --runner dask: the new local cluster's worker processes (default 2)");
  sql_cmd->add_option("--set", sql.settings, "A setting as name=value (see SET)")
      ->allow_extra_args(false);

  auto* tpch_cmd = app.add_subcommand("tpch", "TPC-H: generate the tables, run the 22 queries");
  tpch_cmd->require_subcommand(1);
  cli::TpchGenOptions gen;
  auto* gen_cmd = tpch_cmd->add_subcommand("gen", "Write the eight TPC-H tables as Parquet");
  gen_cmd->add_option("--sf", gen.scale_factor, "Scale factor (1 is about 1 GB of raw data)")
      ->default_val(1);
  gen_cmd->add_option("--out", gen.out_dir, "Directory to write NAME.parquet (or NAME/) into")
      ->required();
  gen_cmd
      ->add_option("--files-per-table", gen.files_per_table,
                   "Files per table; above 1 each table is a directory NAME/part-K.parquet")
      ->default_val(1);
  gen_cmd->add_option("--threads", gen.threads, "Threads (default: one per core)")
      ->check(threads_check);
  gen_cmd->add_option("--row-group-rows", gen.row_group_rows, "Rows per Parquet row group");
  gen_cmd->add_option("--table", gen.tables, "Only this table (repeatable)")
      ->allow_extra_args(false);
  cli::TpchRunOptions run;
  auto* run_cmd =
      tpch_cmd->add_subcommand("run", "Run the 22 TPC-H queries, print rows and seconds");
  run_cmd->add_option("--tables", run.tables_dir, "Directory of the eight tables")->required();
  run_cmd->add_option("--queries", run.queries_dir, "Directory of q01.sql .. q22.sql")
      ->default_val("tpch/queries");
  run_cmd->add_option("--query", run.queries, "Only this query number (repeatable)")
      ->allow_extra_args(false);
  run_cmd->add_option("--threads", run.threads, "Worker threads (default: one per core)")
      ->check(threads_check);
  run_cmd->add_option("--memory-limit", run.memory_limit, "Memory budget, e.g. 8GiB");

  CLI11_PARSE(app, argc, argv);
  if (*gen_cmd) return cli::RunTpchGen(gen);
  if (*run_cmd) {
    run.table = table;
    return cli::RunTpchQueries(run);
  }
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
