#pragma once
// SQL to plans: resolves the names of a parsed query against the catalog and its own FROM
// clause, checks the grouping rules, and builds the plan the optimizer then rewrites.
//
// What becomes what:
//  - FROM: tables and views of the catalog, WITH queries, subqueries, quoted paths and
//    read_parquet / read_csv / read_json (table_functions.h); comma joins are cross joins whose
//    conditions the optimizer turns into hash joins; JOIN ... ON keeps its equalities as keys
//    and the rest as a residual; USING and NATURAL join on the named columns.
//  - Aggregates (SELECT, HAVING, ORDER BY) become one Aggregate node over the GROUP BY keys;
//    window functions become Window nodes, one per distinct PARTITION BY / ORDER BY.
//  - Subqueries: IN and EXISTS become semi joins (NOT: anti joins, with SQL's NULL rules for
//    NOT IN); correlated ones join on their equality conditions with the outer query.
//    A correlated scalar subquery is grouped by its correlation keys and left-joined. An
//    uncorrelated scalar subquery is run once while planning and becomes a constant (so a
//    filter on it can prune files), with an error when it returns more than one row.
//  - INTERVAL arithmetic becomes date_add/date_sub, EXTRACT extract(), LIKE like().
//  - Integer literals are int32 (int64 when larger); literals with a decimal point are
//    decimals, as DuckDB, so `0.06 - 0.01` is exact.
// Errors point into the SQL text (line, column, caret).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/sql/ast.h"
#include "flotilla/sql/catalog.h"

namespace flotilla::sql {

struct PlannerContext {
  const Catalog* catalog = nullptr;
  /// The SQL text the AST was parsed from (errors quote it).
  std::string_view sql;
  /// Runs a plan to completion; used for uncorrelated scalar subqueries and NOT IN's NULL
  /// check. Null: such subqueries are an error.
  std::function<Result<RecordBatch>(const exec::PlanPtr&)> run;
  /// The common table expressions being planned (a reference to one from its own body is a
  /// recursive CTE, refused by name).
  mutable std::vector<std::string> defining_ctes;
  /// Microseconds since the epoch (UTC) when the statement first asked for the time: now(),
  /// current_date and current_timestamp read this one instant, as DuckDB's read the
  /// transaction's start.
  mutable std::optional<int64_t> statement_micros;
};

/// The plan of `query`; its schema's names are the query's output column names.
Result<exec::PlanPtr> PlanQuery(const Query& query, const PlannerContext& context);

}  // namespace flotilla::sql
