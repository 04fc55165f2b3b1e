#include "flotilla/dataframe/dataframe.h"

#include <map>
#include <set>

#include "flotilla/expr/rewrite.h"
#include "flotilla/io/csv/scan_task.h"
#include "flotilla/io/json/scan_task.h"
#include "flotilla/io/parquet/scan_task.h"
#include "flotilla/io/warc/scan_task.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla {
namespace {

using expr::ExprKind;
using expr::ExprPtr;

Result<DataFrame> Scan(Result<io::FileScan> scan) {
  if (!scan.ok()) return scan.status();
  FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr plan,
                            exec::MakeScan(scan->schema, std::move(scan->tasks)));
  return DataFrame(plan);
}

Result<DataFrame> Wrap(Result<exec::PlanPtr> plan) {
  if (!plan.ok()) return plan.status();
  return DataFrame(*plan);
}

std::string OutputName(const ExprPtr& e) {
  if (e->kind() == ExprKind::kAlias || e->kind() == ExprKind::kColumn) return e->name();
  return e->ToString();
}

std::vector<exec::SortSpec> SortSpecs(const std::vector<SortBy>& keys) {
  std::vector<exec::SortSpec> specs;
  for (const SortBy& k : keys)
    specs.push_back({k.key, !k.descending, k.nulls_first.value_or(k.descending)});
  return specs;
}

// Aggregate of `input` by `keys` computing `outputs`: an output that is one aggregate names it
// directly; others are computed by a projection over internal names.
Result<exec::PlanPtr> PlanAggregation(const exec::PlanPtr& input, std::vector<ExprPtr> keys,
                                      std::vector<ExprPtr> outputs) {
  std::vector<exec::AggregateSpec> specs;
  std::map<std::string, std::string> key_names;  // key text -> output column
  for (const ExprPtr& k : keys)
    key_names[expr::Unaliased(k)->ToString()] = OutputName(k);
  bool needs_project = false;
  std::vector<ExprPtr> projected;
  for (const ExprPtr& k : keys)
    projected.push_back(expr::Column(OutputName(k)));
  int next = 0;
  for (const ExprPtr& out : outputs) {
    const ExprPtr& bare = expr::Unaliased(out);
    if (bare->kind() == ExprKind::kAggregate) {
      specs.push_back({bare->name(), bare->children(), OutputName(out)});
      projected.push_back(expr::Column(OutputName(out)));
      continue;
    }
    needs_project = true;
    FLOTILLA_ASSIGN_OR_RETURN(
        ExprPtr rewritten, expr::Rewrite(bare, [&](const ExprPtr& n) -> Result<ExprPtr> {
          auto key = key_names.find(n->ToString());
          if (key != key_names.end() && n->kind() != ExprKind::kLiteral)
            return expr::Column(key->second);
          if (n->kind() == ExprKind::kAggregate) {
            const std::string name = "__a" + std::to_string(next++);
            specs.push_back({n->name(), n->children(), name});
            return expr::Column(name);
          }
          if (n->kind() == ExprKind::kColumn) {
            return Status::Invalid("agg: column '" + n->name() +
                                   "' is neither a group key nor inside an aggregate in `" +
                                   out->ToString() + "`");
          }
          return ExprPtr();
        }));
    projected.push_back(expr::Alias(rewritten, OutputName(out)));
  }
  FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr plan, exec::MakeAggregate(input, keys, specs));
  if (!needs_project) return plan;
  return exec::MakeProject(plan, projected);
}

}  // namespace

Result<DataFrame> DataFrame::ReadParquet(const std::vector<std::string>& paths) {
  return Scan(io::parquet::PlanParquetScan(paths));
}
Result<DataFrame> DataFrame::ReadCsv(const std::vector<std::string>& paths,
                                     const io::csv::CsvReadOptions& options) {
  return Scan(io::csv::PlanCsvScan(paths, options));
}
Result<DataFrame> DataFrame::ReadJson(const std::vector<std::string>& paths,
                                      const io::json::JsonReadOptions& options) {
  return Scan(io::json::PlanJsonScan(paths, options));
}
Result<DataFrame> DataFrame::ReadWarc(const std::vector<std::string>& paths,
                                      const io::warc::WarcReadOptions& options) {
  return Scan(io::warc::PlanWarcScan(paths, options));
}
Result<DataFrame> DataFrame::FromBatches(SchemaPtr schema, std::vector<RecordBatch> batches) {
  return Wrap(exec::MakeInMemorySource(std::move(schema), std::move(batches)));
}

std::vector<std::string> DataFrame::column_names() const {
  return schema()->field_names();
}

Result<DataFrame> DataFrame::Select(std::vector<ExprPtr> columns) const {
  return Wrap(exec::MakeProject(plan_, std::move(columns)));
}

Result<DataFrame> DataFrame::Select(const std::vector<std::string>& names) const {
  std::vector<ExprPtr> columns;
  for (const std::string& n : names)
    columns.push_back(expr::Column(n));
  return Select(std::move(columns));
}

Result<DataFrame> DataFrame::WithColumns(
    std::vector<std::pair<std::string, ExprPtr>> columns) const {
  std::vector<ExprPtr> out;
  std::set<std::string> replaced;
  for (const Field& f : schema()->fields()) {
    auto it = std::find_if(columns.begin(), columns.end(),
                           [&](const auto& c) { return c.first == f.name; });
    if (it != columns.end()) {
      out.push_back(expr::Alias(it->second, f.name));
      replaced.insert(f.name);
    } else {
      out.push_back(expr::Column(f.name));
    }
  }
  for (auto& [name, value] : columns)
    if (!replaced.count(name)) out.push_back(expr::Alias(value, name));
  return Select(std::move(out));
}

Result<DataFrame> DataFrame::WithColumn(const std::string& name, ExprPtr value) const {
  return WithColumns({{name, std::move(value)}});
}

Result<DataFrame> DataFrame::WithColumnRenamed(const std::string& from,
                                               const std::string& to) const {
  if (schema()->GetFieldIndex(from) < 0) {
    return Status::KeyError("with_column_renamed: no column '" + from + "'");
  }
  std::vector<ExprPtr> out;
  for (const Field& f : schema()->fields())
    out.push_back(f.name == from ? expr::Alias(expr::Column(f.name), to) : expr::Column(f.name));
  return Select(std::move(out));
}

Result<DataFrame> DataFrame::Exclude(const std::vector<std::string>& names) const {
  std::set<std::string> drop(names.begin(), names.end());
  for (const std::string& n : names)
    if (schema()->GetFieldIndex(n) < 0) return Status::KeyError("exclude: no column '" + n + "'");
  std::vector<ExprPtr> out;
  for (const Field& f : schema()->fields())
    if (!drop.count(f.name)) out.push_back(expr::Column(f.name));
  return Select(std::move(out));
}

Result<DataFrame> DataFrame::Where(ExprPtr predicate) const {
  return Wrap(exec::MakeFilter(plan_, std::move(predicate)));
}

Result<DataFrame> DataFrame::Agg(std::vector<ExprPtr> aggregates) const {
  return Wrap(PlanAggregation(plan_, {}, std::move(aggregates)));
}

GroupedDataFrame DataFrame::GroupBy(std::vector<ExprPtr> keys) const {
  return GroupedDataFrame(*this, std::move(keys));
}

Result<DataFrame> GroupedDataFrame::Agg(std::vector<ExprPtr> aggregates) const {
  return Wrap(PlanAggregation(frame_.plan(), keys_, std::move(aggregates)));
}

Result<DataFrame> DataFrame::Join(const DataFrame& right, std::vector<ExprPtr> left_on,
                                  std::vector<ExprPtr> right_on, const std::string& how,
                                  const std::string& strategy) const {
  if (how == "cross") return CrossJoin(right);
  exec::JoinType type;
  if (how == "inner") {
    type = exec::JoinType::kInner;
  } else if (how == "left") {
    type = exec::JoinType::kLeft;
  } else if (how == "right") {
    type = exec::JoinType::kRight;
  } else if (how == "outer" || how == "full") {
    type = exec::JoinType::kFull;
  } else if (how == "semi") {
    type = exec::JoinType::kSemi;
  } else if (how == "anti") {
    type = exec::JoinType::kAnti;
  } else {
    return Status::Invalid(
        "join: how must be inner, left, right, outer, semi, anti or cross, got '" + how + "'");
  }
  if (left_on.size() != right_on.size() || left_on.empty()) {
    return Status::Invalid(
        "join: left_on and right_on must name the same number of keys (at least one)");
  }
  FLOTILLA_RETURN_NOT_OK(
      optimizer::CoerceJoinKeys(*schema(), *right.schema(), &left_on, &right_on));
  if (strategy == "sort_merge") {
    return Wrap(exec::MakeSortMergeJoin(plan_, right.plan_, left_on, right_on, type));
  }
  if (strategy != "hash" && strategy != "auto" && strategy != "broadcast") {
    return Status::Invalid("join: strategy must be hash, sort_merge, broadcast or auto, got '" +
                           strategy + "'");
  }
  const exec::JoinStrategy hint = strategy == "broadcast" ? exec::JoinStrategy::kBroadcast
                                  : strategy == "hash"    ? exec::JoinStrategy::kShuffle
                                                          : exec::JoinStrategy::kAuto;
  return Wrap(exec::MakeHashJoin(plan_, right.plan_, left_on, right_on, type, nullptr, {}, hint));
}

Result<DataFrame> DataFrame::CrossJoin(const DataFrame& right) const {
  return Wrap(exec::MakeCrossJoin(plan_, right.plan_));
}

Result<DataFrame> DataFrame::Sort(std::vector<SortBy> keys) const {
  return Wrap(exec::MakeSort(plan_, SortSpecs(keys)));
}

Result<DataFrame> DataFrame::Limit(int64_t n) const {
  if (n < 0) return Status::Invalid("limit must not be negative");
  return Wrap(exec::MakeLimit(plan_, n));
}

Result<DataFrame> DataFrame::Offset(int64_t n) const {
  return Wrap(exec::MakeLimit(plan_, -1, n));
}

Result<DataFrame> DataFrame::Distinct(std::vector<std::string> columns) const {
  return Wrap(exec::MakeDistinct(plan_, std::move(columns)));
}

Result<DataFrame> DataFrame::Explode(std::vector<std::string> columns) const {
  return Wrap(exec::MakeExplode(plan_, std::move(columns)));
}

Result<DataFrame> DataFrame::Unpivot(std::vector<std::string> ids, std::vector<std::string> values,
                                     std::string variable_name, std::string value_name) const {
  return Wrap(exec::MakeUnpivot(plan_, std::move(ids), std::move(values), std::move(variable_name),
                                std::move(value_name)));
}

Result<DataFrame> DataFrame::Pivot(std::vector<ExprPtr> group_by, ExprPtr pivot_column,
                                   ExprPtr value_column, std::string function,
                                   std::vector<std::string> names) const {
  return Wrap(exec::MakePivot(plan_, std::move(group_by), std::move(pivot_column),
                              std::move(value_column), std::move(function), std::move(names)));
}

Result<DataFrame> DataFrame::SampleFraction(double fraction, bool with_replacement,
                                            uint64_t seed) const {
  return Wrap(exec::MakeSampleFraction(plan_, fraction, with_replacement, seed));
}

Result<DataFrame> DataFrame::SampleSize(int64_t size, bool with_replacement, uint64_t seed) const {
  return Wrap(exec::MakeSampleSize(plan_, size, with_replacement, seed));
}

Result<DataFrame> DataFrame::Concat(const DataFrame& other) const {
  return Wrap(exec::MakeConcat({plan_, other.plan_}));
}

Result<DataFrame> DataFrame::Union(const DataFrame& other) const {
  FLOTILLA_ASSIGN_OR_RETURN(DataFrame all, Concat(other));
  return all.Distinct();
}

Result<DataFrame> DataFrame::IntoPartitions(int n) const {
  return Wrap(exec::MakeIntoPartitions(plan_, n));
}

Result<DataFrame> DataFrame::Repartition(int n, std::vector<ExprPtr> keys) const {
  if (keys.empty()) return Wrap(exec::MakeRepartitionRandom(plan_, n));
  return Wrap(exec::MakeRepartitionByHash(plan_, n, std::move(keys)));
}

Result<DataFrame> DataFrame::WithMonotonicId(const std::string& name) const {
  return Wrap(exec::MakeMonotonicId(plan_, name));
}

Result<DataFrame> DataFrame::WithWindow(std::vector<ExprPtr> partition_by,
                                        std::vector<SortBy> order_by,
                                        std::vector<exec::WindowExpression> functions) const {
  return Wrap(
      exec::MakeWindow(plan_, std::move(partition_by), SortSpecs(order_by), std::move(functions)));
}

Result<exec::PlanPtr> DataFrame::OptimizedPlan() const {
  return optimizer::Optimize(plan_);
}

Result<exec::QueryResult> DataFrame::Collect(const exec::ExecOptions& options) const {
  FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr plan, OptimizedPlan());
  return exec::Run(plan, options);
}

Result<RecordBatch> DataFrame::ToBatch(const exec::ExecOptions& options) const {
  FLOTILLA_ASSIGN_OR_RETURN(exec::QueryResult result, Collect(options));
  return result.ToBatch();
}

Result<int64_t> DataFrame::CountRows(const exec::ExecOptions& options) const {
  FLOTILLA_ASSIGN_OR_RETURN(DataFrame counted,
                            Agg({expr::Alias(expr::Aggregate("count_star", {}), "count")}));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, counted.ToBatch(options));
  return batch.column(0).values<int64_t>()[0];
}

Result<std::string> DataFrame::Explain(bool analyze, const exec::ExecOptions& options) const {
  FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr optimized, OptimizedPlan());
  std::string out = "== Logical plan ==\n" + exec::PlanToString(*plan_) + "== Optimized plan ==\n" +
                    exec::PlanToString(*optimized);
  FLOTILLA_ASSIGN_OR_RETURN(std::string pipelines, exec::ExplainPipelines(optimized, options));
  out += "== Physical plan (pipelines, in run order) ==\n" + pipelines;
  if (analyze) {
    FLOTILLA_ASSIGN_OR_RETURN(std::string stats, exec::ExplainAnalyze(optimized, options));
    out += "== Runtime statistics ==\n" + stats;
  }
  return out;
}

Result<RecordBatch> DataFrame::Write(const std::string& root,
                                     const io::DatasetWriteOptions& options,
                                     const exec::ExecOptions& exec_options) const {
  FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr plan, OptimizedPlan());
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, io::DatasetWriter::Open(root, plan->schema(), options));
  FLOTILLA_ASSIGN_OR_RETURN(auto stream, exec::Execute(plan, exec_options));
  while (true) {
    auto morsel = stream->Next();
    if (!morsel.ok()) {
      writer->Abort();
      return morsel.status();
    }
    if (!*morsel) break;
    if (auto s = writer->Write((*morsel)->batch); !s.ok()) {
      writer->Abort();
      return s;
    }
  }
  return writer->Finish();
}

}  // namespace flotilla
