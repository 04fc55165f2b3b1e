// Common table expressions read more than once. A CTE is planned as a subtree at each place that
// reads it, which recomputes it at each: TPC-H Q15 aggregates three months of lineitem twice,
// once for its revenue per supplier and once for the maximum of that revenue. A grouped CTE
// (GROUP BY, an aggregate, DISTINCT: costly to compute, usually small) read more than once is
// computed once while planning (PlannerContext::run, as uncorrelated scalar subqueries are)
// and read as rows in memory, unless it has more than kMaxMaterializedRows rows. Other CTEs keep
// their subtrees, so each reference still gets its own filters and projections pushed into the
// scan beneath.

#include <algorithm>

#include "flotilla/sql/planner_internal.h"

namespace flotilla::sql::internal {
namespace {

// A grouped CTE of more rows is planned at each reference instead: rows in memory do not spill.
constexpr int64_t kMaxMaterializedRows = 1'000'000;
constexpr int64_t kSliceRows = 64 * 1024;

int Mentions(const Node& n, const std::string& name);

int Mentions(const TableRef& t, const std::string& name) {
  switch (t.kind) {
    case TableRef::kNamed:
      return t.name == name ? 1 : 0;
    case TableRef::kPath:
      return 0;
    case TableRef::kFunction: {
      int count = 0;
      for (const NamedArg& a : t.args)
        count += Mentions(*a.value, name);
      return count;
    }
    case TableRef::kSubquery:
      return TableMentions(*t.subquery, name);
    case TableRef::kJoin:
      return Mentions(*t.left, name) + Mentions(*t.right, name) +
             (t.on ? Mentions(*t.on, name) : 0);
  }
  return 0;
}

int Mentions(const Node& n, const std::string& name) {
  int count = n.subquery ? TableMentions(*n.subquery, name) : 0;
  for (const NodePtr& a : n.args)
    if (a) count += Mentions(*a, name);
  for (const NodePtr* p : {&n.operand, &n.otherwise, &n.filter})
    if (*p) count += Mentions(**p, name);
  return count;
}

bool Grouped(const Query& q) {
  if (q.kind != Query::kSelect) return false;
  const SelectCore& s = *q.select;
  if (s.distinct || !s.group_by.empty() || s.group_by_all) return true;
  for (const SelectItem& item : s.items)
    if (HasAggregate(*item.expr)) return true;
  return false;
}

}  // namespace

int TableMentions(const Query& q, const std::string& name) {
  int count = 0;
  for (const CommonTable& cte : q.with)
    count += TableMentions(*cte.query, name);
  switch (q.kind) {
    case Query::kSelect: {
      const SelectCore& s = *q.select;
      for (const TableRefPtr& t : s.from)
        count += Mentions(*t, name);
      for (const SelectItem& item : s.items)
        count += Mentions(*item.expr, name);
      for (const NodePtr& n : {s.where, s.having, s.qualify})
        if (n) count += Mentions(*n, name);
      return count;
    }
    case Query::kSetOp:
      return count + TableMentions(*q.left, name) + TableMentions(*q.right, name);
    case Query::kSummarize:
      return count + TableMentions(*q.left, name);
    case Query::kPivot:
    case Query::kUnpivot:
      return count + Mentions(*q.pivot->source, name);
    case Query::kValues:
      for (const auto& row : q.values)
        for (const NodePtr& v : row)
          count += Mentions(*v, name);
      return count;
  }
  return count;
}

bool MentionsTable(const Query& q, const std::string& name) {
  return TableMentions(q, name) > 0;
}

Result<Relation> Planner::MaterializedIfReused(const CommonTable& cte, const Query& query,
                                               Relation r) {
  // `query` holds the CTE: its own body does not read it (it is not recursive).
  if (!ctx_.run || !Grouped(*cte.query) || TableMentions(query, cte.name) < 2) return r;
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr limited, exec::MakeLimit(r.plan, kMaxMaterializedRows + 1));
  Result<RecordBatch> rows = ctx_.run(limited);
  // One that fails or is too large is left to each reference, where it fails (or not, if a
  // reference never reads it) as it would have.
  if (!rows.ok() || rows->num_rows() > kMaxMaterializedRows) return r;
  // In slices, so that what reads them runs on several threads.
  std::vector<RecordBatch> slices;
  for (int64_t at = 0; at < rows->num_rows(); at += kSliceRows)
    slices.push_back(rows->Slice(at, std::min(kSliceRows, rows->num_rows() - at)));
  FLOTILLA_ASSIGN_OR_RETURN(r.plan, exec::MakeInMemorySource(r.plan->schema(), std::move(slices)));
  return r;
}

}  // namespace flotilla::sql::internal
