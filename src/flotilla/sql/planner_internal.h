#pragma once
// The SQL planner's internals, shared by its files. A Planner plans one query level (a
// subquery gets its own, which sees the enclosing level's scope for correlated references):
//   planner.cc           queries, WITH, and the helpers below
//   plan_from.cc         FROM: tables, views, paths, table functions, subqueries, joins
//   plan_expressions.cc  expressions: names, literals, operators, functions, windows
//   plan_subqueries.cc   scalar, IN, EXISTS and ANY/ALL subqueries, correlated or not
//   plan_select.cc       SELECT: grouping, windows, projection, ORDER BY, LIMIT, VALUES, set
//                        operations
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/sql/planner.h"

namespace flotilla::sql::internal {

using exec::PlanPtr;
using expr::ExprKind;
using expr::ExprPtr;

// A column of an enclosing query, as a correlated subquery sees it: the marker cannot start a
// column name read from a file or written in SQL.
constexpr char kOuterMarker = '\x1f';
inline std::string OuterName(const std::string& field) {
  return std::string(1, kOuterMarker) + field;
}
inline bool IsOuter(const std::string& name) {
  return !name.empty() && name[0] == kOuterMarker;
}

struct ScopeColumn {
  std::string table;    // the qualifier: alias or table name (may be empty)
  std::string name;     // the name SQL uses
  std::string field;    // the plan's field
  bool hidden = false;  // USING's second copy: not in *, not found without a qualifier
};

// A plan and what its columns are called: columns[i] describes plan->schema()->field(i).
struct Relation {
  PlanPtr plan;
  std::vector<ScopeColumn> columns;
};

/// Whether `q` reads the table (or common table expression) `name` anywhere.
bool MentionsTable(const Query& q, const std::string& name);
/// How many places of `q` read it.
int TableMentions(const Query& q, const std::string& name);

/// `plan`'s columns under their own names, qualified by `table`.
Relation FromPlan(PlanPtr plan, const std::string& table);

// A correlated WHERE condition of a subquery: its inner columns renamed to the names the
// subquery exposes them under, outer columns marked.
struct Correlation {
  ExprPtr predicate;
};

// How a subquery may refer to its enclosing query.
enum class CorrelationMode {
  kNone,    // not a subquery, or one that may not be correlated
  kExpose,  // EXISTS / IN: correlated columns are added to the output
  kGroup,   // scalar: the subquery is grouped by its correlated equality keys
};

struct WindowCall {
  std::string function;
  std::vector<ExprPtr> arguments;
  std::vector<ExprPtr> partition_by;
  std::vector<exec::SortSpec> order_by;
  std::optional<exec::WindowFrame> frame;
  std::string name;
};

bool IsAggregateName(const std::string& name);
/// The list function computing SQL aggregate `name` from the group's values collected as a
/// list (exact quantiles need every value), or null when `name` is an aggregate of its own.
const char* ListBackedAggregate(const std::string& name);
/// Whether an AST expression holds an aggregate call outside subqueries and window calls.
bool HasAggregate(const Node& n);
/// The value of an expression without columns, as a one-row array.
Result<Array> EvaluateConstant(const ExprPtr& e);

class Planner {
 public:
  Planner(const PlannerContext& context, std::map<std::string, Relation> ctes,
          const Relation* outer, CorrelationMode mode)
      : ctx_(context), ctes_(std::move(ctes)), outer_(outer), mode_(mode) {}

  const std::vector<Correlation>& correlations() const { return correlations_; }
  const std::vector<std::string>& exposed() const { return exposed_; }

  Result<Relation> PlanQuery(const Query& q);
  /// `items` with ORDER BY ALL (a `*` item) as the ordinals 1..outputs.
  static std::vector<OrderItem> ExpandOrderByAll(const std::vector<OrderItem>& items,
                                                 size_t outputs);
  /// `n` with unqualified names that are not columns of `scope` but are select-list aliases
  /// (keys lower case) replaced by the aliased expressions (QUALIFY's view of the select list).
  Result<NodePtr> WithAliases(const NodePtr& n, const std::map<std::string, NodePtr>& aliases,
                              const Relation& scope);

 private:
  Status ErrorNear(int64_t offset, const std::string& message,
                   StatusCode code = StatusCode::kInvalid) const;
  // A plan-building error (a type mismatch found by the binder) pointed at `offset`.
  Status Located(const Status& s, int64_t offset) const;

  std::string NewName(const std::string& prefix) { return prefix + std::to_string(next_id_++); }
  // The parameters of the lambdas being translated, innermost last: name -> internal column.
  std::vector<std::map<std::string, std::string>> lambda_params_;

  // --- FROM ---------------------------------------------------------------------------------

  Result<Relation> Renamed(Relation r, const std::vector<std::string>& aliases,
                           const std::string& table, int64_t offset);

  Result<Relation> PlanTableRef(const TableRef& t);
  Result<Relation> PlanUnsampledTableRef(const TableRef& t);
  Result<PlanPtr> Sampled(PlanPtr plan, const SampleAst& sample);

  // The scope of `left` joined with `right`: the join renames right fields that clash.
  static Relation Joined(const Relation& left, const Relation& right, PlanPtr plan);

  // Right field name -> its name in the joined output.
  static std::map<std::string, std::string> RightNames(const Schema& left, const Schema& right);

  // Splits `condition` (over the joined names) into equi-join keys and a residual.
  struct JoinKeys {
    std::vector<ExprPtr> left, right;
    std::vector<ExprPtr> residual;
  };
  static JoinKeys ExtractKeys(const std::vector<ExprPtr>& conjuncts, const Schema& left,
                              const Schema& right);

  static exec::JoinType ToJoinType(JoinKind kind);

  Result<Relation> PlanJoin(const TableRef& t);

  Result<size_t> FindUsing(const Relation& r, const std::string& name, const char* side,
                           int64_t offset);

  Result<Relation> PlanFrom(const std::vector<TableRefPtr>& from);

  // --- Expressions --------------------------------------------------------------------------

  struct ExprScope {
    const Relation* scope;
    bool aggregates;
    bool windows;
    Relation* relation;  // where subqueries attach their joins; null: not allowed here
    const char* clause;
  };

  Result<std::string> ResolveColumn(const Node& n, const Relation& scope, bool* found);

  Status UnknownColumn(const Node& n, const Relation& scope);

  Result<ExprPtr> Translate(const Node& n, ExprScope& es);

  Result<ExprPtr> Checked(ExprPtr e, int64_t offset);

  Result<ExprPtr> TranslateLiteral(const Node& n);

  // INTERVAL '3' DAY / '3 days' -> (count, unit).
  Result<std::pair<ExprPtr, std::string>> IntervalParts(const Node& n);

  // date ± INTERVAL is a timestamp, as in DuckDB and PostgreSQL (a timestamp stays one). A
  // comparison of a date column with the result at midnight is still a date comparison (the
  // binder casts such constants back).
  static ExprPtr OnTimeline(ExprPtr x) {
    return expr::Cast(std::move(x), timestamp(TimeUnit::kMicro));
  }

  Result<ExprPtr> TranslateBinary(const Node& n, ExprScope& es);

  Result<ExprPtr> TranslateLambdaCall(const Node& n, ExprScope& es);
  Result<ExprPtr> TranslateFunction(const Node& n, ExprScope& es);

  Result<ExprPtr> TranslateWindow(const Node& n, ExprScope& es);
  std::optional<ExprPtr> CurrentTime(const std::string& name) const;
  static bool KeepsNulls(const std::string& name);
  Result<ExprPtr> FilteredNullKeepingAggregate(const Node& n, const std::string& name,
                                               const ExprPtr& x, const ExprPtr& cond,
                                               ExprScope& es);
  Result<std::optional<ExprPtr>> OrderedAggregate(const Node& n, const std::string& name,
                                                  const std::vector<ExprPtr>& args, ExprScope& es);
  /// The specification `over` stands for once the named window it refines is filled in.
  Status AlignByName(Relation* left, Relation* right);
  Status PlanUnnest(Relation* rel, std::vector<ExprPtr>* project, int64_t offset);
  static std::string GroupingColumn(const std::string& key);
  Result<PlanPtr> PlanGroupingSets(const PlanPtr& input, const std::vector<ExprPtr>& keys,
                                   const std::vector<exec::AggregateSpec>& aggregates,
                                   const std::vector<std::set<std::string>>& sets);
  Result<WindowAst> ResolveWindow(const WindowAst& over, size_t depth = 0) const;

  Result<exec::FrameBound> Bound(const FrameBoundAst& b);

  Result<int64_t> ConstantInt(const Node& n, const char* what);

  // --- Subqueries ---------------------------------------------------------------------------

  Result<ExprPtr> ScalarSubquery(const Node& n, ExprScope& es);

  // Joins `sub` (planned with correlations) to `left`, with `extra` key pairs (left over
  // left's fields, right over the subquery's output).
  Result<Relation> JoinSubquery(const Relation& left, const Relation& right, const Planner& sub,
                                exec::JoinType type, std::vector<std::pair<ExprPtr, ExprPtr>> extra,
                                int64_t offset, bool allow_residual = true);

  // What an IN / EXISTS / = ANY / <> ALL test is, with the NOTs around it folded in.
  struct SubqueryTest {
    const Node* node = nullptr;
    bool exists = false;
    bool negated = false;
  };
  static std::optional<SubqueryTest> AsSubqueryTest(const Node& n);

  // The keys of `x IN (subquery)`: (outer expression, subquery output column) pairs.
  Result<std::vector<std::pair<ExprPtr, ExprPtr>>> InKeys(const Node& node, const Relation& sub,
                                                          size_t exposed, Relation* outer);

  // Counts of the subquery's rows and of its first column's non-null values, run now.
  Result<std::pair<int64_t, int64_t>> CountRowsAndValues(const Relation& r, int64_t offset);

  Result<bool> RunExists(const Relation& r, int64_t offset);

  Status FilterAll(Relation* relation);

  // A WHERE conjunct that is a subquery test, applied as a semi/anti join.
  Result<bool> ApplySubqueryFilter(const Node& n, Relation* relation);

  // A subquery test inside an expression (SELECT list, CASE, OR): a left join with the
  // subquery's distinct keys and a mark column, whose presence is the answer.
  Result<ExprPtr> MarkSubquery(const SubqueryTest& test, ExprScope& es);

  static void HideAfter(Relation* r, size_t first);

  // x op ANY|ALL (subquery) for the other operators: the subquery's min and max, run now.
  Result<ExprPtr> QuantifiedComparison(const Node& node, ExprScope& es);

  // --- SELECT -------------------------------------------------------------------------------

  struct Output {
    ExprPtr expr;       // over the relation before the projection (after aggregation)
    std::string name;   // the output column's name
    std::string table;  // for a plain column: its table
    int64_t offset;
  };

  Result<std::vector<Output>> ExpandSelectList(const SelectCore& s, const Relation& from,
                                               ExprScope& es);

  static bool IsInternal(const std::string& field) { return field.rfind("__", 0) == 0; }

  Result<Relation> PlanSelect(const SelectCore& written, const Query& q);
  Result<Relation> PlanSummarize(const Query& q);  // plan_summarize.cc
  // PIVOT / UNPIVOT (plan_pivot.cc).
  Result<Relation> PlanPivot(const Query& q);
  Result<Relation> PlanUnpivot(const Query& q);
  Result<std::vector<std::vector<std::string>>> PivotValues(const PivotAst& p, int64_t offset);
  // WITH RECURSIVE (plan_recursive.cc).
  Result<Relation> PlanRecursiveCte(const CommonTable& cte);
  /// `r`, the plan of `cte` of `query`, as its rows when it is grouped and read more than once
  /// (plan_cte.cc).
  Result<Relation> MaterializedIfReused(const CommonTable& cte, const Query& query, Relation r);

  // COLUMNS(...) (plan_columns.cc): `expanded` is set to `s` with every COLUMNS call written
  // out once per column it chooses from `from`; left empty when `s` has none.
  Status ExpandColumnsCalls(const SelectCore& s, const Relation& from,
                            std::optional<SelectCore>* expanded);
  struct ChosenColumn {
    NodePtr ref;       // a column reference to it
    std::string name;  // its name
  };
  Result<std::vector<ChosenColumn>> ColumnsChosen(const Node& call, const Relation& from);
  Result<NodePtr> WithColumn(const NodePtr& n, const Node& call, const NodePtr& column);

  static void SplitAst(const Node& n, std::vector<const Node*>* out);

  static bool HasOuter(const ExprPtr& e);

  // A correlated WHERE conjunct: its inner columns are exposed as outputs of this subquery.
  Status AddCorrelation(const ExprPtr& e, int64_t offset);

  Result<int> OrderOutput(const Node& n, const std::vector<Output>& outputs);

  Status PlanAggregate(const SelectCore& s, Relation* rel, std::vector<Output>* outputs,
                       ExprPtr* having, ExprPtr* qualify,
                       std::vector<std::pair<int, ExprPtr>>* order);

  static bool IsWindowName(const std::string& name) { return name.rfind("__w", 0) == 0; }
  static bool HasWindowRef(const ExprPtr& e);
  static std::string DisplayName(const std::string& field, const Relation& rel);

  Status PlanWindows(Relation* rel);

  Status ApplyLimit(Relation* r, const Query& q);

  // ORDER BY / LIMIT of VALUES and set operations: over the output columns only.
  Result<Relation> OrderAndLimit(Relation r, const Query& q);

  Result<Relation> PlanValues(const Query& q);

  Result<Relation> PlanSetOperation(const Query& q);

  const PlannerContext& ctx_;
  std::map<std::string, Relation> ctes_;
  const Relation* outer_;
  CorrelationMode mode_;
  // The planner of the query this subquery sits in (null at the top): its outer_ is the scope
  // two levels out, which correlated references may not reach yet.
  const Planner* parent_ = nullptr;
  std::vector<Correlation> correlations_;
  std::vector<std::string> exposed_;  // output names the correlation added
  std::vector<std::pair<std::string, std::string>> exposed_columns_;  // (inner field, name)
  std::vector<std::pair<ExprPtr, std::string>> group_keys_;           // kGroup's keys
  std::vector<WindowCall> windows_;
  // The WINDOW clause of the SELECT being planned (OVER w names one).
  const std::map<std::string, std::shared_ptr<const WindowAst>>* named_windows_ = nullptr;
  int next_id_ = 0;
};

}  // namespace flotilla::sql::internal
