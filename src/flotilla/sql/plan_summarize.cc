// SUMMARIZE: a row of statistics per column of a table or query, as DuckDB's: column_name,
// column_type (DuckDB's spelling), min and max (as text), approx_unique, avg, std, q25, q50,
// q75 (as text, for numbers), count and null_percentage. Each column's row is one aggregation
// over the input, written as SQL and planned here; the rows are concatenated in column order.
// Quartiles are exact (quantile_disc of whole numbers, else quantile_cont) where DuckDB's are
// approximate; avg, std and the quartiles
// of dates and other non-numbers are NULL.

#include <fmt/format.h>

#include "flotilla/sql/parser.h"
#include "flotilla/sql/planner_internal.h"
#include "flotilla/types/sql_type_name.h"

namespace flotilla::sql::internal {
namespace {

constexpr const char* kSummarized = "__summarized";

std::string Quoted(const std::string& s, char quote) {
  std::string out(1, quote);
  for (char c : s) {
    if (c == quote) out.push_back(quote);
    out.push_back(c);
  }
  out.push_back(quote);
  return out;
}

bool IsNested(const DataType& t) {
  return t.id() == TypeId::kList || t.id() == TypeId::kFixedSizeList || t.id() == TypeId::kStruct;
}

// One column's row of the summary, over the table kSummarized.
std::string SummaryQuery(const std::string& name, const std::string& field, const DataType& t,
                         size_t position) {
  const std::string c = Quoted(field, '"');
  const bool number = t.is_numeric() || t.id() == TypeId::kDecimal128;
  const bool ordered = !IsNested(t) && t.id() != TypeId::kNull;
  auto text = [](const std::string& e) { return "CAST(" + e + " AS VARCHAR)"; };
  const std::string none = "CAST(NULL AS VARCHAR)";
  // Whole numbers keep to values of the column, as DuckDB's approximate quartiles do.
  auto quartile = [&](const char* q) {
    const char* f = t.is_integer() ? "quantile_disc" : "quantile_cont";
    return number ? text(fmt::format("{}({}, {})", f, c, q)) : none;
  };
  return fmt::format(
      "SELECT {} AS column_name, {} AS column_type, {} AS min, {} AS max, {} AS approx_unique, "
      "{} AS avg, {} AS std, {} AS q25, {} AS q50, {} AS q75, count(*) AS count, "
      "CASE WHEN count(*) = 0 THEN NULL ELSE "
      "CAST(100.0 - 100.0 * count({}) / count(*) AS DECIMAL(9,2)) END AS null_percentage, "
      "{} AS __position FROM {}",
      Quoted(name, '\''), Quoted(SqlTypeName(t), '\''), ordered ? text("min(" + c + ")") : none,
      ordered ? text("max(" + c + ")") : none,
      ordered ? "approx_count_distinct(" + c + ")" : "CAST(NULL AS BIGINT)",
      number ? text("avg(" + c + ")") : none, number ? text("stddev_samp(" + c + ")") : none,
      quartile("0.25"), quartile("0.5"), quartile("0.75"), c, position, kSummarized);
}

}  // namespace

Result<Relation> Planner::PlanSummarize(const Query& q) {
  Planner source(ctx_, ctes_, nullptr, CorrelationMode::kNone);
  FLOTILLA_ASSIGN_OR_RETURN(Relation input, source.PlanQuery(*q.left));
  // The summarized rows under their plan's (unique) field names, so that two columns of the
  // same name (from a join) are each summarized.
  Relation fields;
  fields.plan = input.plan;
  const Schema& schema = *input.plan->schema();
  for (int i = 0; i < schema.num_fields(); ++i) {
    fields.columns.push_back({kSummarized, schema.field(i).name, schema.field(i).name});
  }
  std::vector<PlanPtr> rows;
  for (size_t i = 0; i < input.columns.size(); ++i) {
    const ScopeColumn& column = input.columns[i];
    if (column.hidden) continue;
    const std::string sql =
        SummaryQuery(column.name, column.field, *schema.field(static_cast<int>(i)).type, i);
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<Statement> statements, Parse(sql));
    PlannerContext context = ctx_;
    context.sql = sql;
    Planner row(context, {{kSummarized, fields}}, nullptr, CorrelationMode::kNone);
    Result<Relation> planned = row.PlanQuery(*statements[0].query);
    if (!planned.ok()) {
      return ErrorNear(
          q.offset,
          "SUMMARIZE cannot summarize column '" + column.name + "': " + planned.status().message(),
          planned.status().code());
    }
    rows.push_back(planned->plan);
  }
  if (rows.empty()) return ErrorNear(q.offset, "SUMMARIZE: the input has no columns");
  // The rows in column order whatever order the concatenation yields them in.
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, rows.size() == 1 ? Result<PlanPtr>(rows[0])
                                                           : exec::MakeConcat(std::move(rows)));
  FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeSort(plan, {{expr::Column("__position")}}));
  std::vector<ExprPtr> columns;
  for (const Field& f : plan->schema()->fields()) {
    if (f.name != "__position") columns.push_back(expr::Column(f.name));
  }
  FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeProject(plan, std::move(columns)));
  return FromPlan(plan, "");
}

}  // namespace flotilla::sql::internal
