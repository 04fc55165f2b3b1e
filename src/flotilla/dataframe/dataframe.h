#pragma once
// The C++ DataFrame API: an immutable, lazily evaluated query. Every method returns a new
// DataFrame whose plan is the old one with one more node (the same node types SQL builds, so
// equivalent SQL and DataFrame queries optimize to the same plan); nothing runs until Collect,
// CountRows, Write* or Explain(analyze).
//
//   auto df = DataFrame::ReadParquet({"data/lineitem/*.parquet"});
//   auto q = df->Where(expr::Less(expr::Column("l_quantity"), expr::Literal(24)))
//               ->GroupBy({expr::Column("l_returnflag")})
//               .Agg({expr::Alias(expr::Aggregate("sum", {expr::Column("l_quantity")}), "qty")});
//   auto rows = q->Collect();
//
// Errors (an unknown column, a type mismatch) come from the method that adds the node.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/io/csv/options.h"
#include "flotilla/io/dataset/dataset_writer.h"
#include "flotilla/io/json/options.h"
#include "flotilla/io/warc/options.h"

namespace flotilla {

class GroupedDataFrame;

struct SortBy {
  expr::ExprPtr key;
  bool descending = false;
  std::optional<bool> nulls_first;  // absent: nulls last ascending, first descending (SQL)
};

class DataFrame {
 public:
  explicit DataFrame(exec::PlanPtr plan) : plan_(std::move(plan)) {}

  // --- Sources ----------------------------------------------------------------------------
  /// Files, directories, globs or URLs (Hive `key=value` directories become columns).
  static Result<DataFrame> ReadParquet(const std::vector<std::string>& paths);
  static Result<DataFrame> ReadCsv(const std::vector<std::string>& paths,
                                   const io::csv::CsvReadOptions& options = {});
  static Result<DataFrame> ReadJson(const std::vector<std::string>& paths,
                                    const io::json::JsonReadOptions& options = {});
  /// WARC (and WET) files, plain or gzip: one row per record (io/warc/scan_task.h).
  static Result<DataFrame> ReadWarc(const std::vector<std::string>& paths,
                                    const io::warc::WarcReadOptions& options = {});
  static Result<DataFrame> FromBatches(SchemaPtr schema, std::vector<RecordBatch> batches);

  const exec::PlanPtr& plan() const { return plan_; }
  const SchemaPtr& schema() const { return plan_->schema(); }
  std::vector<std::string> column_names() const;

  // --- Transformations --------------------------------------------------------------------
  Result<DataFrame> Select(std::vector<expr::ExprPtr> columns) const;
  Result<DataFrame> Select(const std::vector<std::string>& names) const;
  /// Adds (or replaces, keeping its position) column `name`.
  Result<DataFrame> WithColumn(const std::string& name, expr::ExprPtr value) const;
  Result<DataFrame> WithColumns(std::vector<std::pair<std::string, expr::ExprPtr>> columns) const;
  Result<DataFrame> WithColumnRenamed(const std::string& from, const std::string& to) const;
  Result<DataFrame> Exclude(const std::vector<std::string>& names) const;
  Result<DataFrame> Where(expr::ExprPtr predicate) const;
  /// Aggregates over all rows: each expression holds aggregates (sum(x) / count(x) is fine).
  Result<DataFrame> Agg(std::vector<expr::ExprPtr> aggregates) const;
  GroupedDataFrame GroupBy(std::vector<expr::ExprPtr> keys) const;
  /// Equi-join on left_on[i] = right_on[i] ("inner", "left", "right", "outer"/"full", "semi",
  /// "anti", "cross"); strategy "hash" (default), "sort_merge" or "auto".
  Result<DataFrame> Join(const DataFrame& right, std::vector<expr::ExprPtr> left_on,
                         std::vector<expr::ExprPtr> right_on, const std::string& how = "inner",
                         const std::string& strategy = "auto") const;
  Result<DataFrame> CrossJoin(const DataFrame& right) const;
  Result<DataFrame> Sort(std::vector<SortBy> keys) const;
  Result<DataFrame> Limit(int64_t n) const;
  Result<DataFrame> Offset(int64_t n) const;
  /// Distinct rows over `columns` (all when empty).
  Result<DataFrame> Distinct(std::vector<std::string> columns = {}) const;
  Result<DataFrame> Explode(std::vector<std::string> columns) const;
  Result<DataFrame> Unpivot(std::vector<std::string> ids, std::vector<std::string> values,
                            std::string variable_name = "variable",
                            std::string value_name = "value") const;
  Result<DataFrame> Pivot(std::vector<expr::ExprPtr> group_by, expr::ExprPtr pivot_column,
                          expr::ExprPtr value_column, std::string function,
                          std::vector<std::string> names) const;
  Result<DataFrame> SampleFraction(double fraction, bool with_replacement = false,
                                   uint64_t seed = 0) const;
  Result<DataFrame> SampleSize(int64_t size, bool with_replacement = false,
                               uint64_t seed = 0) const;
  /// This frame's rows then `other`'s (same column names and types).
  Result<DataFrame> Concat(const DataFrame& other) const;
  /// Concat, then distinct rows.
  Result<DataFrame> Union(const DataFrame& other) const;
  Result<DataFrame> IntoPartitions(int n) const;
  /// By hash of `keys`, or at random when `keys` is empty. `n` 0 (by hash only): the runner
  /// picks the count, as for an aggregation's shuffle (locally, a partition per thread).
  Result<DataFrame> Repartition(int n, std::vector<expr::ExprPtr> keys = {}) const;
  Result<DataFrame> WithMonotonicId(const std::string& name = "id") const;
  /// Window functions (expr::Window) named by their aliases, over one PARTITION BY / ORDER BY.
  Result<DataFrame> WithWindow(std::vector<expr::ExprPtr> partition_by,
                               std::vector<SortBy> order_by,
                               std::vector<exec::WindowExpression> functions) const;

  // --- Actions ----------------------------------------------------------------------------
  /// The optimized plan.
  Result<exec::PlanPtr> OptimizedPlan() const;
  Result<exec::QueryResult> Collect(const exec::ExecOptions& options = {}) const;
  Result<RecordBatch> ToBatch(const exec::ExecOptions& options = {}) const;
  Result<int64_t> CountRows(const exec::ExecOptions& options = {}) const;
  /// The plan as built and as optimized (and, with `analyze`, the runtime statistics of a run).
  Result<std::string> Explain(bool analyze = false, const exec::ExecOptions& options = {}) const;
  /// Writes a dataset under directory `root`; returns the written files (dataset_writer.h).
  Result<RecordBatch> Write(const std::string& root, const io::DatasetWriteOptions& options,
                            const exec::ExecOptions& exec_options = {}) const;

 private:
  exec::PlanPtr plan_;
};

class GroupedDataFrame {
 public:
  GroupedDataFrame(DataFrame frame, std::vector<expr::ExprPtr> keys)
      : frame_(std::move(frame)), keys_(std::move(keys)) {}
  /// One row per group: the keys, then each expression (which holds aggregates).
  Result<DataFrame> Agg(std::vector<expr::ExprPtr> aggregates) const;

 private:
  DataFrame frame_;
  std::vector<expr::ExprPtr> keys_;
};

}  // namespace flotilla
