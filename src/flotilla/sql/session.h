#pragma once
// A SQL session: a catalog of tables and views, settings, and the statements that change them.
// Queries are parsed, planned, optimized and run on the local engine.
//
// Statements: queries; EXPLAIN [ANALYZE] (the plan before and after optimization, and with
// ANALYZE the per-operator statistics of a run); CREATE [OR REPLACE] [TEMP] VIEW; CREATE TABLE
// AS (the rows are computed once and kept in memory); DROP VIEW|TABLE; COPY ... TO 'path'
// (FORMAT parquet|csv|json); SET name = value; SHOW TABLES; DESCRIBE query-or-table.
//
// Settings (SET, `--set`): threads, memory_limit ('8GiB'), maintain_order, morsel_size,
// progress, optimizer (false turns the rewrite rules off).
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/common/thread_pool.h"
#include "flotilla/exec/memory/memory_manager.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/sql/ast.h"
#include "flotilla/sql/catalog.h"

namespace flotilla::sql {

struct PlannerContext;  // planner.h

struct StatementResult {
  /// The statement's rows (a query's result; EXPLAIN's plan as one text column; a one-row
  /// summary for COPY and CREATE TABLE).
  RecordBatch batch;
  /// What happened, for statements without rows of their own ("CREATE VIEW", "SET").
  std::string message;
  /// The rows are lines of text to print as they are (EXPLAIN).
  bool text = false;
};

class Session {
 public:
  Session();
  ~Session();

  Catalog& catalog() { return catalog_; }
  const exec::ExecOptions& options() const { return options_; }

  /// Runs every statement of `sql` in order and returns the last one's result (an error stops
  /// at the statement that failed and names it when there are several).
  Result<StatementResult> Execute(std::string_view sql);
  /// Like Execute, calling `done` after each statement with its result and its seconds (from
  /// planning to the last row).
  using StatementDone = std::function<void(const StatementResult& result, double seconds)>;
  /// Where a streamed query's rows go: `begin` gets the schema, then `batch` each batch as it
  /// is produced (nothing is kept, so the output may be larger than memory).
  struct RowConsumer {
    std::function<Status(const SchemaPtr&)> begin;
    std::function<Status(const RecordBatch&)> batch;
  };
  /// With `stream_last`, a last statement that is a query streams its rows there instead of
  /// returning them.
  Result<StatementResult> Execute(std::string_view sql, const StatementDone& done,
                                  const RowConsumer* stream_last = nullptr);

  /// The optimized plan of one query (a SELECT, VALUES, WITH ...).
  Result<exec::PlanPtr> PlanSql(std::string_view sql);

  /// SET name = value.
  Status Set(const std::string& name, const std::string& value);

  /// Registers the file, directory or glob `path` as table `name`.
  Status RegisterPath(const std::string& name, const std::string& path);
  /// Registers each DIR/NAME.parquet|csv|json (and directory DIR/NAME/ of such files) as NAME.
  Status RegisterDirectory(const std::string& dir);

  /// Runs a plan to completion: on the plan runner, or locally with the session's settings.
  Result<RecordBatch> Run(const exec::PlanPtr& plan);

  /// What runs the session's plans: its queries' and those the planner needs answered while
  /// planning (uncorrelated scalar subqueries, NOT IN's NULL check). By default the local
  /// engine; a distributed runner sets its own, so they all run on the cluster.
  using PlanRunner = std::function<Result<RecordBatch>(const exec::PlanPtr&)>;
  void SetPlanRunner(PlanRunner run) { plan_runner_ = std::move(run); }

 private:
  PlannerContext PlanningContext(std::string_view sql);
  Result<StatementResult> ExecuteStatement(const Statement& s, std::string_view sql);
  Result<StatementResult> StreamQuery(const Statement& s, std::string_view sql,
                                      const RowConsumer& consumer);
  Result<exec::PlanPtr> PlanStatementQuery(const Query& q, std::string_view sql);
  Result<StatementResult> Copy(const Statement& s, std::string_view sql);
  Result<StatementResult> Insert(const Statement& s, std::string_view sql);

  Catalog catalog_;
  exec::ExecOptions options_;
  bool optimize_ = true;
  PlanRunner plan_runner_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<exec::MemoryManager> memory_;
};

}  // namespace flotilla::sql
