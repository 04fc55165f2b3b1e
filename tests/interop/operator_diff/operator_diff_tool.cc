// Our half of the operator differential test against DuckDB (tests/interop/operator_diff.mjs).
//
//   operator_diff_tool OUT_DIR [--seed N] [--only SUBSTRING] [--big-rows N]
//
// Makes deterministic tables (tables.h) and writes each as CSV with the DuckDB statement that
// loads it; runs every case's physical plan with exec::Run under several thread counts, morsel
// sizes and order modes (the operators that hold rows — aggregate, distinct, pivot, sort, hash
// join, window — also under a 256 KiB memory budget; the cases whose state is well over it must
// spill there, or the case fails), checks that every run gives the same rows, and writes
// OUT_DIR/cases.json
// (tables, and per case the SQL DuckDB must run, our column kinds, whether order matters, any
// disagreement between our own runs) and OUT_DIR/rows/<case>.json (our rows of the first run).
// operator_diff.mjs runs the SQL and compares rows.
//
// Cases are the table-driven list in BuildCases(); adding one is a call to an Add* helper or a
// Case literal with a plan, its SQL, and whether the SQL's ORDER BY fixes the row order.

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flotilla/common/thread_pool.h"
#include "flotilla/exec/memory/memory_manager.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/expr/expression.h"
#include "tables.h"
#include "tests/support/canonical_json.h"

namespace flotilla::opdiff {
namespace {

using exec::AggregateMode;
using exec::AggregateSpec;
using exec::JoinType;
using exec::PlanPtr;
using exec::SortSpec;
using exec::WindowExpression;
using exec::WindowFrame;
using expr::Column;
using expr::Literal;
using testing::AppendJsonString;

struct Table {
  RecordBatch batch;
  PlanPtr source;
};
using Tables = std::map<std::string, Table>;

/// One differential case: a plan of ours and the SQL that must give the same rows in DuckDB.
struct Case {
  std::string name;
  std::string sql;
  std::function<Result<PlanPtr>()> plan;
  /// The SQL's ORDER BY fixes the row order completely: rows compare in order.
  bool ordered = false;
  /// Run again under the small memory budget (an operator that holds rows).
  bool budget = false;
  /// ... and that run must spill (the case's state is well over the budget).
  bool must_spill = false;
  /// Output columns compared to a relative tolerance of 1e-9 (mean / avg).
  std::vector<std::string> approx;
};

std::string Join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::vector<expr::ExprPtr> Columns(const std::vector<std::string>& names) {
  std::vector<expr::ExprPtr> out;
  for (const std::string& n : names)
    out.push_back(Column(n));
  return out;
}

// --- Aggregates ---------------------------------------------------------------------------------

struct Agg {
  std::string function;  // ours
  std::string column;    // empty for count_star
  std::string Name() const { return column.empty() ? function : function + "_" + column; }
  std::string Sql() const {
    if (function == "count_star") return "count(*)";
    if (function == "mean") return "avg(" + column + ")";
    if (function == "count_distinct") return "count(DISTINCT " + column + ")";
    return function + "(" + column + ")";
  }
};

const std::vector<Agg> kWideAggregates = {
    {"sum", "v"},
    {"count", "v"},
    {"count_star", ""},
    {"min", "v"},
    {"max", "v"},
    {"mean", "v"},
    {"count_distinct", "v"},
    {"min", "s"},
    {"max", "s"},
    {"sum", "d"},
    {"mean", "d"},
    {"max", "d"},
    {"count_distinct", "k2"},
};
const std::vector<Agg> kNarrowAggregates = {
    {"sum", "v"}, {"count_star", ""}, {"min", "d"}, {"mean", "v"}, {"count", "d"}};

void AddAggregate(std::vector<Case>* cases, const Tables& tables, const std::string& table,
                  const std::vector<std::string>& group_by, const std::vector<Agg>& aggs,
                  bool two_phase, bool must_spill) {
  std::vector<std::string> select = group_by;
  std::vector<AggregateSpec> specs;
  std::vector<std::string> approx;
  for (const Agg& a : aggs) {
    select.push_back(a.Sql() + " AS " + a.Name());
    specs.push_back({a.function,
                     a.column.empty() ? std::vector<expr::ExprPtr>{} : Columns({a.column}),
                     a.Name()});
    if (a.function == "mean") approx.push_back(a.Name());
  }
  Case c;
  c.name = std::string("aggregate/") + (two_phase ? "two_phase" : "single") + "/" + table + "/by(" +
           Join(group_by, ",") + ")";
  c.sql = "SELECT " + Join(select, ", ") + " FROM " + table +
          (group_by.empty() ? "" : " GROUP BY " + Join(group_by, ", "));
  PlanPtr source = tables.at(table).source;
  c.plan = [source, group_by, specs, two_phase]() -> Result<PlanPtr> {
    if (!two_phase) return exec::MakeAggregate(source, Columns(group_by), specs);
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr partial, exec::MakeAggregate(source, Columns(group_by), specs,
                                                                   AggregateMode::kPartial));
    return exec::MakeFinalAggregate(partial, static_cast<const exec::AggregateNode&>(*partial));
  };
  c.budget = true;
  c.must_spill = must_spill;
  c.approx = approx;
  cases->push_back(std::move(c));
}

// --- Joins --------------------------------------------------------------------------------------

struct JoinOn {
  std::string label;
  std::vector<std::pair<std::string, std::string>> keys;  // left column, right column
  bool null_equal = false;
  bool residual = false;  // v < rv
};

const char* JoinLabel(JoinType type) {
  switch (type) {
    case JoinType::kInner:
      return "inner";
    case JoinType::kLeft:
      return "left";
    case JoinType::kRight:
      return "right";
    case JoinType::kFull:
      return "full";
    case JoinType::kSemi:
      return "semi";
    case JoinType::kAnti:
      return "anti";
    case JoinType::kRightSemi:
      return "right_semi";
    case JoinType::kRightAnti:
      return "right_anti";
  }
  return "?";
}

enum class JoinStrategy { kHash, kSortMerge };

void AddJoin(std::vector<Case>* cases, const Tables& tables, const std::string& left,
             const std::string& right, JoinType type, const JoinOn& on,
             JoinStrategy strategy = JoinStrategy::kHash, bool must_spill = false) {
  std::vector<std::string> conditions, left_keys, right_keys;
  for (const auto& [l, r] : on.keys) {
    conditions.push_back("l." + l + (on.null_equal ? " IS NOT DISTINCT FROM r." : " = r.") + r);
    left_keys.push_back(l);
    right_keys.push_back(r);
  }
  if (on.residual) conditions.push_back("l.v < r.rv");
  const std::string cond = Join(conditions, " AND ");
  const std::string from = left + " AS l";
  std::string sql;
  switch (type) {
    case JoinType::kInner:
      sql = "SELECT l.*, r.* FROM " + from + " JOIN " + right + " AS r ON " + cond;
      break;
    case JoinType::kLeft:
      sql = "SELECT l.*, r.* FROM " + from + " LEFT JOIN " + right + " AS r ON " + cond;
      break;
    case JoinType::kRight:
      sql = "SELECT l.*, r.* FROM " + from + " RIGHT JOIN " + right + " AS r ON " + cond;
      break;
    case JoinType::kFull:
      sql = "SELECT l.*, r.* FROM " + from + " FULL OUTER JOIN " + right + " AS r ON " + cond;
      break;
    case JoinType::kSemi:
      sql = "SELECT l.* FROM " + from + " WHERE EXISTS (SELECT 1 FROM " + right + " AS r WHERE " +
            cond + ")";
      break;
    case JoinType::kAnti:
      sql = "SELECT l.* FROM " + from + " WHERE NOT EXISTS (SELECT 1 FROM " + right +
            " AS r WHERE " + cond + ")";
      break;
    case JoinType::kRightSemi:
      sql = "SELECT r.* FROM " + right + " AS r WHERE EXISTS (SELECT 1 FROM " + from + " WHERE " +
            cond + ")";
      break;
    case JoinType::kRightAnti:
      sql = "SELECT r.* FROM " + right + " AS r WHERE NOT EXISTS (SELECT 1 FROM " + from +
            " WHERE " + cond + ")";
      break;
  }
  Case c;
  c.name = std::string(strategy == JoinStrategy::kHash ? "join/" : "sort_merge_join/") +
           JoinLabel(type) + "/" + left + "x" + right + "/" + on.label;
  c.sql = sql;
  PlanPtr l = tables.at(left).source, r = tables.at(right).source;
  const bool residual = on.residual;
  const std::vector<bool> null_equal(on.keys.size(), on.null_equal);
  c.plan = [=]() {
    if (strategy == JoinStrategy::kSortMerge) {
      return exec::MakeSortMergeJoin(l, r, Columns(left_keys), Columns(right_keys), type,
                                     null_equal);
    }
    return exec::MakeHashJoin(l, r, Columns(left_keys), Columns(right_keys), type,
                              residual ? expr::Less(Column("v"), Column("rv")) : nullptr,
                              null_equal);
  };
  c.budget = strategy == JoinStrategy::kHash;
  c.must_spill = must_spill;
  cases->push_back(std::move(c));
}

void AddCrossJoin(std::vector<Case>* cases, const Tables& tables, const std::string& left,
                  const std::string& right) {
  Case c;
  c.name = "cross_join/" + left + "x" + right;
  c.sql = "SELECT l.*, r.* FROM " + left + " AS l CROSS JOIN " + right + " AS r";
  PlanPtr l = tables.at(left).source, r = tables.at(right).source;
  c.plan = [=]() { return exec::MakeCrossJoin(l, r); };
  cases->push_back(std::move(c));
}

// --- Sorting ------------------------------------------------------------------------------------

struct Key {
  std::string column;
  bool ascending;
  bool nulls_first;
};

std::string OrderBySql(const std::vector<Key>& keys) {
  std::vector<std::string> parts;
  for (const Key& k : keys) {
    parts.push_back(k.column + (k.ascending ? " ASC" : " DESC") +
                    (k.nulls_first ? " NULLS FIRST" : " NULLS LAST"));
  }
  return Join(parts, ", ");
}

std::vector<SortSpec> SortSpecs(const std::vector<Key>& keys) {
  std::vector<SortSpec> out;
  for (const Key& k : keys)
    out.push_back({Column(k.column), k.ascending, k.nulls_first});
  return out;
}

std::string KeysLabel(const std::vector<Key>& keys) {
  std::vector<std::string> parts;
  for (const Key& k : keys)
    parts.push_back(k.column + (k.ascending ? "+" : "-") + (k.nulls_first ? "nf" : "nl"));
  return Join(parts, ",");
}

// Every key list ends with the unique id, so the SQL fixes the order completely.
const std::vector<Key> kSortA = {
    {"k2", true, true}, {"k", false, false}, {"d", true, false}, {"id", true, false}};
const std::vector<Key> kSortB = {{"s", false, true}, {"v", true, true}, {"id", false, false}};

enum class SortKind { kSort, kTopN, kSortThenLimit };

void AddSort(std::vector<Case>* cases, const Tables& tables, const std::string& table,
             const std::vector<Key>& keys, SortKind kind, int64_t limit = -1, int64_t offset = 0) {
  Case c;
  const char* label = kind == SortKind::kSort   ? "sort"
                      : kind == SortKind::kTopN ? "top_n"
                                                : "sort_limit";
  c.name = std::string(label) + "/" + table + "/" + KeysLabel(keys);
  c.sql = "SELECT * FROM " + table + " ORDER BY " + OrderBySql(keys);
  if (kind != SortKind::kSort) {
    c.name += "/limit" + std::to_string(limit) + "offset" + std::to_string(offset);
    c.sql += " LIMIT " + std::to_string(limit) + " OFFSET " + std::to_string(offset);
  }
  PlanPtr source = tables.at(table).source;
  const std::vector<SortSpec> specs = SortSpecs(keys);
  c.plan = [=]() -> Result<PlanPtr> {
    if (kind == SortKind::kTopN) return exec::MakeTopN(source, specs, limit, offset);
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr sorted, exec::MakeSort(source, specs));
    if (kind == SortKind::kSort) return sorted;
    return exec::MakeLimit(sorted, limit, offset);
  };
  c.ordered = true;
  c.budget = kind != SortKind::kTopN;
  c.must_spill = c.budget && (table == "skew" || table == "huge");
  cases->push_back(std::move(c));
}

// --- Windows ------------------------------------------------------------------------------------

struct WindowFn {
  WindowExpression ours;
  std::string sql;  // the call before OVER; {frame} is appended inside OVER when given
  std::string frame_sql;
};

void AddWindow(std::vector<Case>* cases, const Tables& tables, const std::string& table,
               const std::string& label, const std::vector<std::string>& partition_by,
               const std::vector<Key>& order_by, const std::vector<WindowFn>& functions,
               bool must_spill = false) {
  std::string over = partition_by.empty() ? "" : "PARTITION BY " + Join(partition_by, ", ");
  if (!order_by.empty()) over += (over.empty() ? "" : " ") + ("ORDER BY " + OrderBySql(order_by));
  std::vector<std::string> select = {"*"};
  std::vector<WindowExpression> ours;
  for (const WindowFn& f : functions) {
    select.push_back(f.sql + " OVER (" + over + (f.frame_sql.empty() ? "" : " " + f.frame_sql) +
                     ") AS " + f.ours.output_name);
    ours.push_back(f.ours);
  }
  Case c;
  c.name = "window/" + label + "/" + table;
  c.sql = "SELECT " + Join(select, ", ") + " FROM " + table;
  PlanPtr source = tables.at(table).source;
  const std::vector<SortSpec> specs = SortSpecs(order_by);
  c.plan = [=]() { return exec::MakeWindow(source, Columns(partition_by), specs, ours); };
  c.budget = true;
  c.must_spill = must_spill;
  cases->push_back(std::move(c));
}

std::vector<std::pair<std::string, std::vector<WindowFn>>> WindowSets() {
  const WindowFrame rows_2_preceding{
      WindowFrame::kRows, {exec::FrameBound::kPreceding, 2}, {exec::FrameBound::kCurrentRow}};
  const std::string rows_sql = "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW";
  // Navigation and row frames need a total order (the id last); rank, dense_rank and the
  // default RANGE frame are defined on ties too, so they also run over a non-unique order.
  std::vector<WindowFn> total = {
      {{"row_number", {}, std::nullopt, "rn"}, "row_number()", ""},
      {{"lag", {Column("v")}, std::nullopt, "lag_v"}, "lag(v)", ""},
      {{"lead", {Column("v"), Literal(int64_t{2}), Literal(int64_t{-1})}, std::nullopt, "lead_v"},
       "lead(v, 2, -1)",
       ""},
      {{"sum", {Column("v")}, rows_2_preceding, "sum3_v"}, "sum(v)", rows_sql},
      {{"sum", {Column("v")}, std::nullopt, "running_v"}, "sum(v)", ""},
      {{"rank", {}, std::nullopt, "rk"}, "rank()", ""},
  };
  std::vector<WindowFn> ties = {
      {{"rank", {}, std::nullopt, "rk"}, "rank()", ""},
      {{"dense_rank", {}, std::nullopt, "drk"}, "dense_rank()", ""},
      {{"sum", {Column("v")}, std::nullopt, "running_v"}, "sum(v)", ""},
      {{"count_star", {}, std::nullopt, "running_n"}, "count(*)", ""},
      {{"min", {Column("s")}, std::nullopt, "running_min_s"}, "min(s)", ""},
  };
  return {{"total", total}, {"ties", ties}};
}

// --- Reshaping ----------------------------------------------------------------------------------

void AddExplode(std::vector<Case>* cases, const Tables& tables, const std::string& table) {
  Case c;
  c.name = "explode/" + table;
  // Ours keeps a row with a null element for a null or empty list (Polars); UNNEST drops it.
  c.sql =
      "SELECT id, k, k2, v, d, s, UNNEST(CASE WHEN li IS NULL OR len(li) = 0 THEN "
      "[CAST(NULL AS BIGINT)] ELSE li END) AS li FROM " +
      table;
  PlanPtr source = tables.at(table).source;
  c.plan = [=]() { return exec::MakeExplode(source, {"li"}); };
  cases->push_back(std::move(c));
}

void AddUnpivot(std::vector<Case>* cases, const Tables& tables, const std::string& table) {
  Case c;
  c.name = "unpivot/" + table;
  c.sql = "SELECT * FROM (SELECT id, k2, k, v FROM " + table +
          ") UNPIVOT INCLUDE NULLS (value FOR variable IN (k, v))";
  PlanPtr source = tables.at(table).source;
  c.plan = [=]() {
    return exec::MakeUnpivot(source, {"id", "k2"}, {"k", "v"}, "variable", "value");
  };
  cases->push_back(std::move(c));
}

// Pivot k2 into columns of sum(v) per k; DuckDB computes each cell with a FILTER clause.
void AddPivot(std::vector<Case>* cases, const Tables& tables, const std::string& table,
              const std::string& function) {
  // Every k2 value but one, and one that never occurs.
  const std::vector<std::string> names = {"a", "", "über", "x,y", "q\"t", "never"};
  std::vector<std::string> select = {"k"};
  for (size_t i = 0; i < names.size(); ++i) {
    std::string quoted = "'";
    for (char ch : names[i])
      quoted += ch == '\'' ? std::string("''") : std::string(1, ch);
    quoted += "'";
    select.push_back(function + "(v) FILTER (WHERE k2 = " + quoted + ") AS c" + std::to_string(i));
  }
  Case c;
  c.name = "pivot/" + function + "/" + table;
  c.sql = "SELECT " + Join(select, ", ") + " FROM " + table + " GROUP BY k";
  PlanPtr source = tables.at(table).source;
  c.plan = [=]() {
    return exec::MakePivot(source, {Column("k")}, Column("k2"), Column("v"), function, names);
  };
  c.budget = true;
  cases->push_back(std::move(c));
}

void AddConcat(std::vector<Case>* cases, const Tables& tables,
               const std::vector<std::string>& inputs) {
  std::vector<std::string> selects;
  std::vector<PlanPtr> plans;
  for (const std::string& t : inputs) {
    selects.push_back("SELECT * FROM " + t);
    plans.push_back(tables.at(t).source);
  }
  Case c;
  c.name = "concat/" + Join(inputs, "+");
  c.sql = Join(selects, " UNION ALL ");
  c.plan = [=]() { return exec::MakeConcat(plans); };
  cases->push_back(std::move(c));
}

void AddDistinct(std::vector<Case>* cases, const Tables& tables, const std::string& table,
                 bool must_spill) {
  PlanPtr source = tables.at(table).source;
  Case all;
  all.name = "distinct/(k,k2)/" + table;
  all.sql = "SELECT DISTINCT k, k2 FROM " + table;
  all.plan = [=]() -> Result<PlanPtr> {
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr keys, exec::MakeProject(source, Columns({"k", "k2"})));
    return exec::MakeDistinct(keys);
  };
  all.budget = true;
  all.must_spill = must_spill;
  cases->push_back(std::move(all));
  // "First row wins": the first in input order, which id numbers; nested columns too.
  const bool lists = source->schema()->GetFieldIndex("li") >= 0;
  const std::string li = lists ? ", li" : "";
  Case on;
  on.name = "distinct_on/(k2)/" + table;
  on.sql =
      "SELECT DISTINCT ON (k2) id, k, k2, v, d, s" + li + " FROM " + table + " ORDER BY k2, id";
  on.plan = [=]() -> Result<PlanPtr> {
    std::vector<std::string> columns = {"id", "k", "k2", "v", "d", "s"};
    if (lists) columns.push_back("li");
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr flat, exec::MakeProject(source, Columns(columns)));
    return exec::MakeDistinct(flat, {"k2"});
  };
  on.budget = true;
  on.must_spill = must_spill;
  cases->push_back(std::move(on));
}

// --- The case list ------------------------------------------------------------------------------

std::vector<TableSpec> TableSpecs(uint64_t seed, int64_t big_rows) {
  return {
      {"small", "", 1000, KeyShape::kUniform, 50, true, false, seed + 1},
      {"empty", "", 0, KeyShape::kUniform, 50, true, false, seed + 2},
      {"one", "", 1, KeyShape::kUniform, 1, true, false, seed + 3},
      {"skew", "", 30000, KeyShape::kSkewed, 1000, false, false, seed + 4},
      {"huge", "", 30000, KeyShape::kSingle, 1, false, false, seed + 5},
      {"many", "", big_rows, KeyShape::kDistinct, 0, false, true, seed + 6},
      {"dup", "", 2000, KeyShape::kUniform, 20, false, false, seed + 7},
      {"tiny", "", 30, KeyShape::kUniform, 5, false, false, seed + 8},
      {"rsmall", "r", 800, KeyShape::kUniform, 60, false, false, seed + 11},
      {"rempty", "r", 0, KeyShape::kUniform, 60, false, false, seed + 12},
      {"rone", "r", 1, KeyShape::kUniform, 1, false, false, seed + 13},
      {"rdup", "r", 2000, KeyShape::kUniform, 20, false, false, seed + 14},
      {"rkeys", "r", 1200, KeyShape::kDistinct, 0, false, false, seed + 15},
      {"rtiny", "r", 20, KeyShape::kUniform, 5, false, false, seed + 16},
      {"rbig", "r", 30000, KeyShape::kDistinct, 0, false, false, seed + 17},
  };
}

std::vector<Case> BuildCases(const Tables& tables) {
  std::vector<Case> cases;
  for (bool two_phase : {false, true}) {
    for (const char* table : {"small", "empty", "one", "skew", "huge", "dup"}) {
      for (const std::vector<std::string>& by :
           {std::vector<std::string>{}, {"k"}, {"k", "k2"}, {"s"}}) {
        // Hundreds of groups or more over 30,000 rows (huge has one k but hundreds of s).
        const std::string t = table;
        const bool many_groups =
            !by.empty() && (t == "skew" || (t == "huge" && by == std::vector<std::string>{"s"}));
        AddAggregate(&cases, tables, table, by, kWideAggregates, two_phase, many_groups);
      }
    }
  }
  // ~1,000,000 groups of one row (and the null group).
  AddAggregate(&cases, tables, "many", {"k"}, kNarrowAggregates, true, true);
  for (const char* table : {"small", "empty", "one", "skew", "huge"})
    AddDistinct(&cases, tables, table, false);
  AddDistinct(&cases, tables, "many", true);

  const std::vector<JoinOn> ons = {
      {"k=rk", {{"k", "rk"}}, false, false},
      {"k=rk,k2=rk2", {{"k", "rk"}, {"k2", "rk2"}}, false, false},
      {"k<=>rk", {{"k", "rk"}}, true, false},
      {"k=rk&v<rv", {{"k", "rk"}}, false, true},
      {"k<=>rk,k2<=>rk2&v<rv", {{"k", "rk"}, {"k2", "rk2"}}, true, true},
  };
  for (JoinType type :
       {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull, JoinType::kSemi,
        JoinType::kAnti, JoinType::kRightSemi, JoinType::kRightAnti}) {
    for (const JoinOn& on : ons)
      AddJoin(&cases, tables, "small", "rsmall", type, on);
    AddJoin(&cases, tables, "small", "rempty", type, ons[0]);
    AddJoin(&cases, tables, "empty", "rsmall", type, ons[0]);
    AddJoin(&cases, tables, "one", "rone", type, ons[2]);
    AddJoin(&cases, tables, "dup", "rdup", type, ons[0]);
    AddJoin(&cases, tables, "dup", "rdup", type, ons[4]);
    AddJoin(&cases, tables, "skew", "rkeys", type, ons[0]);
    // A build side of 30,000 rows, well over the budget: the grace join spills both sides.
    AddJoin(&cases, tables, "skew", "rbig", type, ons[0], JoinStrategy::kHash, true);
    AddJoin(&cases, tables, "skew", "rbig", type, ons[3], JoinStrategy::kHash, true);
  }
  for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull}) {
    for (size_t on : {0, 1, 2})
      AddJoin(&cases, tables, "small", "rsmall", type, ons[on], JoinStrategy::kSortMerge);
    AddJoin(&cases, tables, "small", "rempty", type, ons[0], JoinStrategy::kSortMerge);
    AddJoin(&cases, tables, "empty", "rsmall", type, ons[0], JoinStrategy::kSortMerge);
    AddJoin(&cases, tables, "dup", "rdup", type, ons[0], JoinStrategy::kSortMerge);
    AddJoin(&cases, tables, "skew", "rkeys", type, ons[0], JoinStrategy::kSortMerge);
  }
  AddCrossJoin(&cases, tables, "tiny", "rtiny");
  AddCrossJoin(&cases, tables, "tiny", "rempty");
  AddCrossJoin(&cases, tables, "empty", "rtiny");

  for (const char* table : {"small", "empty", "one", "skew", "huge"}) {
    AddSort(&cases, tables, table, kSortA, SortKind::kSort);
    AddSort(&cases, tables, table, kSortB, SortKind::kSort);
  }
  for (const char* table : {"small", "empty", "one", "skew"}) {
    for (auto [limit, offset] :
         std::vector<std::pair<int64_t, int64_t>>{{10, 0}, {50, 25}, {0, 0}, {5, 200000}}) {
      AddSort(&cases, tables, table, kSortA, SortKind::kTopN, limit, offset);
      AddSort(&cases, tables, table, kSortB, SortKind::kTopN, limit, offset);
    }
    AddSort(&cases, tables, table, kSortB, SortKind::kSortThenLimit, 100, 37);
    AddSort(&cases, tables, table, kSortA, SortKind::kSortThenLimit, 7, 0);
  }

  for (const auto& [label, functions] : WindowSets()) {
    const bool total = label == "total";
    const std::vector<Key> order = total ? std::vector<Key>{{"v", true, true}, {"id", true, false}}
                                         : std::vector<Key>{{"v", true, false}};
    for (const char* table : {"small", "empty", "one", "skew"}) {
      // 30,000 rows are well over the budget whatever the partitions.
      const bool big = std::string(table) == "skew";
      AddWindow(&cases, tables, table, label + "/by(k)", {"k"}, order, functions, big);
      AddWindow(&cases, tables, table, label + "/by(k2)", {"k2"}, order, functions, big);
    }
    AddWindow(&cases, tables, "small", label + "/unpartitioned", {}, order, functions);
    AddWindow(&cases, tables, "huge", label + "/by(k)", {"k"}, order, functions, true);
  }

  for (const char* table : {"small", "empty", "one"}) {
    AddExplode(&cases, tables, table);
    AddUnpivot(&cases, tables, table);
  }
  for (const char* table : {"small", "empty", "one", "skew", "huge"}) {
    AddPivot(&cases, tables, table, "sum");
    AddPivot(&cases, tables, table, "count");
  }
  AddPivot(&cases, tables, "small", "max");
  AddConcat(&cases, tables, {"small", "empty", "one", "small"});
  AddConcat(&cases, tables, {"empty", "empty"});
  return cases;
}

// --- Running and recording ----------------------------------------------------------------------

struct RunMode {
  int threads;
  int64_t morsel_size;
  bool maintain_order;
  bool budget;
  std::string ToString() const {
    return std::to_string(threads) + " thread(s), morsels of " + std::to_string(morsel_size) +
           (maintain_order ? ", ordered" : ", unordered") + (budget ? ", 256 KiB memory" : "");
  }
};

std::vector<RunMode> ModesFor(const Case& c) {
  std::vector<RunMode> modes = {
      {1, 131072, true, false}, {4, 1000, true, false}, {3, 1000, false, false}};
  if (c.budget) modes.push_back({3, 1000, false, true});
  return modes;
}

flotilla::ThreadPool* PoolOf(int threads) {
  static std::map<int, std::unique_ptr<flotilla::ThreadPool>> pools;
  auto& pool = pools[threads];
  if (pool == nullptr) pool = std::make_unique<flotilla::ThreadPool>(threads);
  return pool.get();
}

// How operator_diff.mjs reads a column's values.
const char* KindOf(const DataType& type) {
  if (type.is_integer()) return "int";
  if (type.is_floating()) return "float";
  switch (type.id()) {
    case TypeId::kString:
    case TypeId::kLargeString:
      return "string";
    case TypeId::kBool:
      return "bool";
    case TypeId::kList:
      return "list";
    default:
      return "other";
  }
}

// One value as JSON: integers and floats as strings (exact; JSON numbers lose int64 digits),
// lists as arrays.
void AppendCell(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) {
    *out += "null";
    return;
  }
  const DataType& type = *a.type();
  if (type.is_floating()) {
    const double d = type.id() == TypeId::kFloat32 ? a.values<float>()[i] : a.values<double>()[i];
    char buf[40];
    std::snprintf(buf, sizeof(buf), "\"%.17g\"", d);
    *out += buf;
    return;
  }
  switch (type.id()) {
    case TypeId::kBool:
      *out += a.BoolValue(i) ? "true" : "false";
      return;
    case TypeId::kString:
    case TypeId::kLargeString:
      AppendJsonString(a.GetView(i), out);
      return;
    case TypeId::kList: {
      const Array values = a.ListValues(i);
      *out += '[';
      for (int64_t k = 0; k < values.length(); ++k) {
        if (k > 0) *out += ',';
        AppendCell(values, k, out);
      }
      *out += ']';
      return;
    }
    default:
      AppendJsonString(a.ValueToString(i), out);
  }
}

struct Row {
  std::string json;
  std::string exact;           // the cells compared exactly; empty when all are (json is)
  std::vector<double> approx;  // the approximate cells (NaN for null)
  const std::string& Exact() const { return approx.empty() ? json : exact; }
  bool operator<(const Row& o) const {
    if (Exact() != o.Exact()) return Exact() < o.Exact();
    return approx < o.approx;
  }
};

std::vector<Row> RowsOf(const RecordBatch& batch, const std::vector<bool>& approx) {
  const bool any_approx = std::find(approx.begin(), approx.end(), true) != approx.end();
  std::vector<Row> rows(static_cast<size_t>(batch.num_rows()));
  std::string cell;
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    Row& row = rows[static_cast<size_t>(i)];
    row.json = "[";
    for (int c = 0; c < batch.num_columns(); ++c) {
      const Array& column = batch.column(c);
      cell.clear();
      AppendCell(column, i, &cell);
      if (c > 0) row.json += ',';
      row.json += cell;
      if (!any_approx) continue;
      if (approx[static_cast<size_t>(c)]) {
        const bool null = column.IsNull(i);
        row.exact += null ? "n|" : "v|";
        row.approx.push_back(null ? std::nan("") : std::strtod(cell.c_str() + 1, nullptr));
      } else {
        row.exact += cell + "|";
      }
    }
    row.json += ']';
  }
  return rows;
}

bool Close(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b || std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

bool SameRow(const Row& a, const Row& b) {
  if (a.Exact() != b.Exact() || a.approx.size() != b.approx.size()) return false;
  for (size_t i = 0; i < a.approx.size(); ++i) {
    if (!Close(a.approx[i], b.approx[i])) return false;
  }
  return true;
}

// Empty when `actual` holds the rows of `expected` (in order when `ordered`; else `expected`
// is sorted already).
std::string CompareRows(const std::vector<Row>& expected, std::vector<Row> actual, bool ordered) {
  if (!ordered) std::sort(actual.begin(), actual.end());
  size_t i = 0;
  while (i < expected.size() && i < actual.size() && SameRow(expected[i], actual[i]))
    ++i;
  if (i == expected.size() && i == actual.size()) return "";
  return std::to_string(actual.size()) + " rows vs " + std::to_string(expected.size()) +
         " in the first run; first difference at " + (ordered ? "row " : "sorted row ") +
         std::to_string(i) + ": " + (i < actual.size() ? actual[i].json : "(none)") +
         " vs first run " + (i < expected.size() ? expected[i].json : "(none)");
}

struct Outcome {
  std::string error;  // empty when the case ran
  std::vector<std::string> mode_differences;
  SchemaPtr schema;
  std::vector<Row> rows;  // the first run's, in its order
  int64_t spilled_bytes = 0;
  int runs = 0;
};

Outcome RunCase(const Case& c, const std::string& spill_dir) {
  Outcome out;
  Result<PlanPtr> plan = c.plan();
  if (!plan.ok()) {
    out.error = "plan: " + plan.status().ToString();
    return out;
  }
  std::vector<bool> approx;
  for (const Field& f : (*plan)->schema()->fields()) {
    approx.push_back(std::find(c.approx.begin(), c.approx.end(), f.name) != c.approx.end());
  }
  bool first = true;
  for (const RunMode& mode : ModesFor(c)) {
    exec::MemoryManager small(256 << 10);
    exec::ExecOptions options;
    options.pool = PoolOf(mode.threads);
    options.morsel_size = mode.morsel_size;
    options.maintain_order = mode.maintain_order;
    options.progress = 0;
    if (mode.budget) {
      options.memory = &small;
      options.spill_dirs = {spill_dir};
    }
    ++out.runs;
    const auto run_start = std::chrono::steady_clock::now();
    Result<exec::QueryResult> result = exec::Run(*plan, options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
    if (seconds > 2) {
      std::cerr << "operator_diff_tool: " << c.name << " took " << seconds << " s with "
                << mode.ToString() << "\n";
    }
    Result<RecordBatch> batch =
        result.ok() ? result->ToBatch() : Result<RecordBatch>(result.status());
    if (mode.budget && result.ok()) {
      for (const auto& s : result->stats->operators())
        out.spilled_bytes += s->spilled_bytes.load();
      if (c.must_spill && out.spilled_bytes == 0) {
        out.mode_differences.push_back(mode.ToString() + ": nothing spilled, and this case's " +
                                       "state is well over the budget");
      }
      std::error_code ec;
      if (!std::filesystem::is_empty(spill_dir, ec)) {
        out.mode_differences.push_back(mode.ToString() + ": spill files left in " + spill_dir);
        std::filesystem::remove_all(spill_dir, ec);
        std::filesystem::create_directories(spill_dir, ec);
      }
    }
    if (first) {
      first = false;
      if (!batch.ok()) {
        out.error = batch.status().ToString();
        return out;
      }
      out.schema = batch->schema();
      out.rows = RowsOf(*batch, approx);
      if (!c.ordered) std::sort(out.rows.begin(), out.rows.end());
      continue;
    }
    if (!batch.ok()) {
      out.mode_differences.push_back(mode.ToString() + ": fails: " + batch.status().ToString());
      continue;
    }
    std::string difference = CompareRows(out.rows, RowsOf(*batch, approx), c.ordered);
    if (!difference.empty()) out.mode_differences.push_back(mode.ToString() + ": " + difference);
  }
  return out;
}

struct Options {
  std::string out_dir;
  uint64_t seed = 20261203;
  std::string only;
  int64_t big_rows = 1000000;
};

std::string FileName(const std::string& case_name) {
  std::string out;
  for (char ch : case_name)
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return out;
}

int Main(const Options& o) {
  namespace fs = std::filesystem;
  const auto start = std::chrono::steady_clock::now();
  const fs::path dir(o.out_dir);
  fs::create_directories(dir / "tables");
  fs::create_directories(dir / "rows");
  fs::create_directories(dir / "spill");
  const std::string spill_dir = (dir / "spill").string();

  std::string json = "{\"seed\":" + std::to_string(o.seed) + ",\"tables\":[";
  Tables tables;
  bool first_table = true;
  for (const TableSpec& spec : TableSpecs(o.seed, o.big_rows)) {
    RecordBatch batch = MakeTable(spec);
    // Several batches, so morsels and threads see more than one.
    std::vector<RecordBatch> chunks;
    for (int64_t offset = 0; offset < batch.num_rows(); offset += 7919)
      chunks.push_back(batch.Slice(offset, std::min<int64_t>(7919, batch.num_rows() - offset)));
    if (chunks.empty()) chunks.push_back(batch);
    PlanPtr source = exec::MakeInMemorySource(batch.schema(), chunks).ValueOrDie();
    const std::string csv = fs::absolute(dir / "tables" / (spec.name + ".csv")).string();
    Result<std::string> sql = WriteCsvForDuckDb(batch, spec.name, csv);
    if (!sql.ok()) {
      std::cerr << "operator_diff_tool: " << sql.status().ToString() << "\n";
      return 2;
    }
    if (!first_table) json += ',';
    first_table = false;
    json += "{\"name\":";
    AppendJsonString(spec.name, &json);
    json += ",\"rows\":" + std::to_string(batch.num_rows()) + ",\"sql\":";
    AppendJsonString(*sql, &json);
    json += '}';
    tables[spec.name] = {std::move(batch), std::move(source)};
  }
  json += "],\"cases\":[\n";

  const std::vector<Case> cases = BuildCases(tables);
  int written = 0, failed_here = 0;
  for (const Case& c : cases) {
    if (!o.only.empty() && c.name.find(o.only) == std::string::npos) continue;
    const auto case_start = std::chrono::steady_clock::now();
    Outcome r = RunCase(c, spill_dir);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - case_start)
            .count();
    const std::string rows_file =
        "rows/" + std::to_string(written) + "_" + FileName(c.name) + ".json";
    if (written > 0) json += ",\n";
    ++written;
    json += "{\"name\":";
    AppendJsonString(c.name, &json);
    json += ",\"sql\":";
    AppendJsonString(c.sql, &json);
    json += std::string(",\"ordered\":") + (c.ordered ? "true" : "false") +
            ",\"runs\":" + std::to_string(r.runs) + ",\"budget\":" + (c.budget ? "true" : "false") +
            ",\"must_spill\":" + (c.must_spill ? "true" : "false") +
            ",\"spilled_bytes\":" + std::to_string(r.spilled_bytes) +
            ",\"ms\":" + std::to_string(static_cast<int64_t>(ms));
    json += ",\"mode_differences\":[";
    for (size_t i = 0; i < r.mode_differences.size(); ++i) {
      if (i > 0) json += ',';
      AppendJsonString(r.mode_differences[i], &json);
    }
    json += ']';
    if (!r.mode_differences.empty()) ++failed_here;
    if (!r.error.empty()) {
      json += ",\"error\":";
      AppendJsonString(r.error, &json);
      json += '}';
      continue;
    }
    json += ",\"columns\":[";
    std::string kinds, approx;
    for (int f = 0; f < r.schema->num_fields(); ++f) {
      const Field& field = r.schema->field(f);
      if (f > 0) {
        json += ',';
        kinds += ',';
      }
      AppendJsonString(field.name, &json);
      kinds += std::string("\"") + KindOf(*field.type) + "\"";
      if (std::find(c.approx.begin(), c.approx.end(), field.name) != c.approx.end()) {
        if (!approx.empty()) approx += ',';
        approx += std::to_string(f);
      }
    }
    json += "],\"kinds\":[" + kinds + "],\"approx\":[" + approx +
            "],\"num_rows\":" + std::to_string(r.rows.size()) + ",\"rows_file\":";
    AppendJsonString(rows_file, &json);
    json += '}';
    std::string rows_text = "[";
    for (size_t i = 0; i < r.rows.size(); ++i) {
      rows_text += i > 0 ? ",\n" : "\n";
      rows_text += r.rows[i].json;
    }
    rows_text += "\n]\n";
    std::ofstream file(dir / rows_file, std::ios::binary);
    file << rows_text;
    if (!file) {
      std::cerr << "operator_diff_tool: cannot write " << (dir / rows_file).string() << "\n";
      return 2;
    }
  }
  json += "\n]}\n";
  std::ofstream file(dir / "cases.json", std::ios::binary);
  file << json;
  if (!file) {
    std::cerr << "operator_diff_tool: cannot write cases.json\n";
    return 2;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "operator_diff_tool: " << written << " cases, " << failed_here
            << " with differences between our own runs, in " << seconds << " s\n";
  return 0;
}

}  // namespace
}  // namespace flotilla::opdiff

int main(int argc, char** argv) {
  flotilla::opdiff::Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "operator_diff_tool: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--seed") {
      o.seed = std::stoull(value());
    } else if (arg == "--only") {
      o.only = value();
    } else if (arg == "--big-rows") {
      o.big_rows = std::stoll(value());
    } else if (!arg.empty() && arg[0] != '-' && o.out_dir.empty()) {
      o.out_dir = arg;
    } else {
      std::cerr << "usage: operator_diff_tool OUT_DIR [--seed N] [--only SUBSTRING] "
                   "[--big-rows N]\n";
      return 2;
    }
  }
  if (o.out_dir.empty()) {
    std::cerr << "usage: operator_diff_tool OUT_DIR [options]\n";
    return 2;
  }
  return flotilla::opdiff::Main(o);
}
