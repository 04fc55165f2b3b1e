#include "flotilla/sql/planner.h"

#include <algorithm>
#include <map>
#include <set>

#include "flotilla/common/suggest.h"
#include "flotilla/compute/cast.h"
#include "flotilla/compute/concat.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/coercion.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/plan_rewrite.h"
#include "flotilla/sql/source_error.h"
#include "flotilla/sql/table_functions.h"

namespace flotilla::sql {
namespace {

using exec::PlanPtr;
using expr::ExprKind;
using expr::ExprPtr;

// A column of an enclosing query, as a correlated subquery sees it: the marker cannot start a
// column name read from a file or written in SQL.
constexpr char kOuterMarker = '\x1f';
std::string OuterName(const std::string& field) { return std::string(1, kOuterMarker) + field; }
bool IsOuter(const std::string& name) { return !name.empty() && name[0] == kOuterMarker; }

std::string Lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

struct ScopeColumn {
  std::string table;  // the qualifier: alias or table name (may be empty)
  std::string name;   // the name SQL uses
  std::string field;  // the plan's field
  bool hidden = false;  // USING's second copy: not in *, not found without a qualifier
};

// A plan and what its columns are called: columns[i] describes plan->schema()->field(i).
struct Relation {
  PlanPtr plan;
  std::vector<ScopeColumn> columns;
};

Relation FromPlan(PlanPtr plan, const std::string& table) {
  Relation r;
  for (const Field& f : plan->schema()->fields())
    r.columns.push_back({table, f.name, f.name});
  r.plan = std::move(plan);
  return r;
}

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

bool IsAggregateName(const std::string& name) {
  return name == "count" || expr::DefaultAggregateRegistry().Find(name).ok();
}

// Whether an AST expression holds an aggregate call outside subqueries and window calls.
bool HasAggregate(const Node& n) {
  if (n.kind == NodeKind::kFunction && !n.over && IsAggregateName(n.names[0])) return true;
  if (n.kind == NodeKind::kFunction && n.over) return false;
  for (const NodePtr& a : n.args)
    if (a && HasAggregate(*a)) return true;
  for (const NodePtr& a : {n.operand, n.otherwise})
    if (a && HasAggregate(*a)) return true;
  return false;
}

Result<Array> EvaluateConstant(const ExprPtr& e) {
  static const auto kEmpty = std::make_shared<Schema>(std::vector<Field>{});
  FLOTILLA_ASSIGN_OR_RETURN(expr::BoundExpression bound, expr::Bind(e, *kEmpty));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch one, RecordBatch::Make(kEmpty, {}, 1));
  FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(bound, one));
  return d.array().Slice(d.index(0), 1);
}

class Planner {
 public:
  Planner(const PlannerContext& context, std::map<std::string, Relation> ctes,
          const Relation* outer, CorrelationMode mode)
      : ctx_(context), ctes_(std::move(ctes)), outer_(outer), mode_(mode) {}

  const std::vector<Correlation>& correlations() const { return correlations_; }
  const std::vector<std::string>& exposed() const { return exposed_; }

  Result<Relation> PlanQuery(const Query& q) {
    for (const CommonTable& cte : q.with) {
      Planner sub(ctx_, ctes_, nullptr, CorrelationMode::kNone);
      FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*cte.query));
      FLOTILLA_ASSIGN_OR_RETURN(r, Renamed(std::move(r), cte.column_aliases, cte.name, cte.offset));
      ctes_[cte.name] = std::move(r);
    }
    switch (q.kind) {
      case Query::kSelect:
        return PlanSelect(*q.select, q);
      case Query::kValues: {
        FLOTILLA_ASSIGN_OR_RETURN(Relation r, PlanValues(q));
        return OrderAndLimit(std::move(r), q);
      }
      case Query::kSetOp: {
        FLOTILLA_ASSIGN_OR_RETURN(Relation r, PlanSetOperation(q));
        return OrderAndLimit(std::move(r), q);
      }
    }
    return Status::Internal("unknown query kind");
  }

 private:
  Status ErrorNear(int64_t offset, const std::string& message,
                   StatusCode code = StatusCode::kInvalid) const {
    return ErrorAt(ctx_.sql, offset, message, code);
  }
  // A plan-building error (a type mismatch found by the binder) pointed at `offset`.
  Status Located(const Status& s, int64_t offset) const {
    if (s.ok()) return s;
    return ErrorAt(ctx_.sql, offset, s.message(), s.code());
  }

  std::string NewName(const std::string& prefix) { return prefix + std::to_string(next_id_++); }

  // --- FROM ---------------------------------------------------------------------------------

  Result<Relation> Renamed(Relation r, const std::vector<std::string>& aliases,
                           const std::string& table, int64_t offset) {
    if (aliases.size() > r.columns.size()) {
      return ErrorNear(offset, "'" + table + "' has " + std::to_string(r.columns.size()) +
                                   " columns but " + std::to_string(aliases.size()) +
                                   " names were given");
    }
    std::vector<ExprPtr> project;
    std::vector<ScopeColumn> columns;
    bool rename = false;
    for (size_t i = 0; i < r.columns.size(); ++i) {
      ScopeColumn c = r.columns[i];
      c.table = table;
      if (i < aliases.size()) {
        rename |= aliases[i] != c.field;
        c.name = aliases[i];
      }
      columns.push_back(c);
    }
    if (rename) {
      std::set<std::string> taken;
      for (size_t i = 0; i < columns.size(); ++i) {
        std::string field = i < aliases.size() ? aliases[i] : r.columns[i].field;
        while (taken.count(field))
          field += "_";
        taken.insert(field);
        project.push_back(expr::Alias(expr::Column(r.columns[i].field), field));
        columns[i].field = field;
      }
      FLOTILLA_ASSIGN_OR_RETURN(r.plan, exec::MakeProject(r.plan, project));
    }
    r.columns = std::move(columns);
    return r;
  }

  Result<Relation> PlanTableRef(const TableRef& t) {
    switch (t.kind) {
      case TableRef::kNamed: {
        std::string qualifier = t.alias.empty() ? t.name : t.alias;
        auto cte = ctes_.find(t.name);
        if (cte != ctes_.end()) return Renamed(cte->second, t.column_aliases, qualifier, t.offset);
        const Catalog::Entry* entry = ctx_.catalog ? ctx_.catalog->Find(t.name) : nullptr;
        if (entry == nullptr) {
          std::vector<std::string> names = ctx_.catalog ? ctx_.catalog->Names()
                                                        : std::vector<std::string>{};
          for (const auto& [name, r] : ctes_)
            names.push_back(name);
          std::string message = NotFoundMessage("table", t.name, names);
          if (names.empty()) message += " (no tables are registered; FROM 'file.parquet' reads a file)";
          return ErrorNear(t.offset, message, StatusCode::kKeyError);
        }
        if (entry->query) {
          // A view: planned again, against its own text (so its errors point into it).
          PlannerContext view_ctx = ctx_;
          view_ctx.sql = *entry->sql;
          Planner view(view_ctx, {}, nullptr, CorrelationMode::kNone);
          FLOTILLA_ASSIGN_OR_RETURN(Relation r, view.PlanQuery(*entry->query));
          FLOTILLA_ASSIGN_OR_RETURN(r, Renamed(std::move(r), entry->column_aliases, qualifier, t.offset));
          return Renamed(std::move(r), t.column_aliases, qualifier, t.offset);
        }
        return Renamed(FromPlan(entry->plan, qualifier), t.column_aliases, qualifier, t.offset);
      }
      case TableRef::kPath: {
        FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, PlanPathScan(t.name, ctx_.sql, t.offset));
        std::string qualifier = t.alias.empty() ? TableNameOfPath(t.name) : t.alias;
        return Renamed(FromPlan(plan, qualifier), t.column_aliases, qualifier, t.offset);
      }
      case TableRef::kFunction: {
        FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, PlanTableFunction(t, ctx_.sql));
        std::string qualifier = t.alias.empty() ? t.name : t.alias;
        return Renamed(FromPlan(plan, qualifier), t.column_aliases, qualifier, t.offset);
      }
      case TableRef::kSubquery: {
        Planner sub(ctx_, ctes_, nullptr, CorrelationMode::kNone);
        FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*t.subquery));
        return Renamed(std::move(r), t.column_aliases, t.alias, t.offset);
      }
      case TableRef::kJoin:
        return PlanJoin(t);
    }
    return Status::Internal("unknown table reference");
  }

  // The scope of `left` joined with `right`: the join renames right fields that clash.
  static Relation Joined(const Relation& left, const Relation& right, PlanPtr plan) {
    Relation r;
    r.plan = std::move(plan);
    r.columns = left.columns;
    const Schema& schema = *r.plan->schema();
    for (size_t i = 0; i < right.columns.size(); ++i) {
      ScopeColumn c = right.columns[i];
      if (left.columns.size() + i < static_cast<size_t>(schema.num_fields())) {
        c.field = schema.field(static_cast<int>(left.columns.size() + i)).name;
      }
      r.columns.push_back(c);
    }
    return r;
  }

  // Right field name -> its name in the joined output.
  static std::map<std::string, std::string> RightNames(const Schema& left, const Schema& right) {
    SchemaPtr joined = exec::JoinOutputSchema(left, right, exec::JoinType::kInner);
    std::map<std::string, std::string> names;
    for (int i = 0; i < right.num_fields(); ++i)
      names[right.field(i).name] = joined->field(left.num_fields() + i).name;
    return names;
  }

  // Splits `condition` (over the joined names) into equi-join keys and a residual.
  struct JoinKeys {
    std::vector<ExprPtr> left, right;
    std::vector<ExprPtr> residual;
  };
  static JoinKeys ExtractKeys(const std::vector<ExprPtr>& conjuncts, const Schema& left,
                              const Schema& right) {
    std::set<std::string> left_names, right_joined;
    for (const Field& f : left.fields())
      left_names.insert(f.name);
    std::map<std::string, std::string> back;  // joined name -> right name
    for (const auto& [name, joined] : RightNames(left, right)) {
      right_joined.insert(joined);
      back[joined] = name;
    }
    auto side = [&](const ExprPtr& e) {
      std::set<std::string> cols = expr::Columns(e);
      if (cols.empty()) return 0;
      bool all_left = true, all_right = true;
      for (const std::string& c : cols) {
        all_left &= left_names.count(c) > 0;
        all_right &= right_joined.count(c) > 0;
      }
      return all_left ? 1 : all_right ? 2 : 0;
    };
    JoinKeys keys;
    for (const ExprPtr& c : conjuncts) {
      if (c->kind() == ExprKind::kBinary && c->binary_op() == expr::BinaryOp::kEqual) {
        const ExprPtr& a = c->children()[0];
        const ExprPtr& b = c->children()[1];
        const int sa = side(a), sb = side(b);
        if (sa == 1 && sb == 2) {
          keys.left.push_back(a);
          keys.right.push_back(expr::RenameColumns(b, back));
          continue;
        }
        if (sa == 2 && sb == 1) {
          keys.left.push_back(b);
          keys.right.push_back(expr::RenameColumns(a, back));
          continue;
        }
      }
      keys.residual.push_back(c);
    }
    return keys;
  }

  static exec::JoinType ToJoinType(JoinKind kind) {
    switch (kind) {
      case JoinKind::kLeft:
        return exec::JoinType::kLeft;
      case JoinKind::kRight:
        return exec::JoinType::kRight;
      case JoinKind::kFull:
        return exec::JoinType::kFull;
      case JoinKind::kSemi:
        return exec::JoinType::kSemi;
      case JoinKind::kAnti:
        return exec::JoinType::kAnti;
      default:
        return exec::JoinType::kInner;
    }
  }

  Result<Relation> PlanJoin(const TableRef& t) {
    FLOTILLA_ASSIGN_OR_RETURN(Relation left, PlanTableRef(*t.left));
    FLOTILLA_ASSIGN_OR_RETURN(Relation right, PlanTableRef(*t.right));
    if (t.join == JoinKind::kCross) {
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, exec::MakeCrossJoin(left.plan, right.plan));
      return Joined(left, right, plan);
    }
    const exec::JoinType type = ToJoinType(t.join);
    // The condition is written over both sides: resolve it in their joined scope.
    SchemaPtr joined_schema =
        exec::JoinOutputSchema(*left.plan->schema(), *right.plan->schema(), exec::JoinType::kInner);
    Relation both = left;
    for (size_t i = 0; i < right.columns.size(); ++i) {
      ScopeColumn c = right.columns[i];
      c.field = joined_schema->field(static_cast<int>(left.columns.size() + i)).name;
      both.columns.push_back(c);
    }
    std::vector<ExprPtr> conjuncts;
    std::vector<std::string> using_columns = t.using_columns;
    if (t.natural) {
      for (const ScopeColumn& l : left.columns) {
        if (l.hidden) continue;
        for (const ScopeColumn& r : right.columns)
          if (!r.hidden && r.name == l.name) using_columns.push_back(l.name);
      }
      if (using_columns.empty()) {
        return ErrorNear(t.offset, "NATURAL JOIN: the two sides have no column name in common");
      }
    }
    std::vector<std::pair<size_t, size_t>> using_pairs;  // (left index, right index)
    for (const std::string& name : using_columns) {
      FLOTILLA_ASSIGN_OR_RETURN(size_t li, FindUsing(left, name, "left", t.offset));
      FLOTILLA_ASSIGN_OR_RETURN(size_t ri, FindUsing(right, name, "right", t.offset));
      using_pairs.push_back({li, ri});
      conjuncts.push_back(expr::Equal(expr::Column(both.columns[li].field),
                                      expr::Column(both.columns[left.columns.size() + ri].field)));
    }
    if (t.on) {
      ExprScope es{&both, false, false, nullptr, "JOIN ... ON"};
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr on, Translate(*t.on, es));
      expr::SplitConjuncts(on, &conjuncts);
    }
    JoinKeys keys = ExtractKeys(conjuncts, *left.plan->schema(), *right.plan->schema());
    PlanPtr plan;
    if (keys.left.empty()) {
      if (type != exec::JoinType::kInner) {
        return ErrorNear(t.offset,
                         std::string(exec::JoinTypeName(type)) +
                             " join needs at least one equality between the two sides (a = b); "
                             "other conditions are not supported for it yet",
                         StatusCode::kNotImplemented);
      }
      FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeCrossJoin(left.plan, right.plan));
      if (!keys.residual.empty()) {
        auto filtered = exec::MakeFilter(plan, expr::JoinConjuncts(keys.residual));
        FLOTILLA_RETURN_NOT_OK(Located(filtered.status(), t.offset));
        plan = *filtered;
      }
    } else {
      FLOTILLA_RETURN_NOT_OK(optimizer::CoerceJoinKeys(*left.plan->schema(), *right.plan->schema(),
                                                       &keys.left, &keys.right));
      auto made = exec::MakeHashJoin(left.plan, right.plan, keys.left, keys.right, type,
                                     expr::JoinConjuncts(keys.residual));
      FLOTILLA_RETURN_NOT_OK(Located(made.status(), t.offset));
      plan = *made;
    }
    if (type == exec::JoinType::kSemi || type == exec::JoinType::kAnti) {
      Relation r = left;
      r.plan = plan;
      return r;
    }
    Relation r = Joined(left, right, plan);
    // USING: one visible copy of each column (the side that is never null; COALESCE for FULL).
    std::vector<ExprPtr> coalesced;
    for (auto [li, ri] : using_pairs) {
      const size_t rpos = left.columns.size() + ri;
      if (type == exec::JoinType::kRight) {
        r.columns[li].hidden = true;
      } else if (type == exec::JoinType::kFull) {
        r.columns[li].hidden = true;
        r.columns[rpos].hidden = true;
        const std::string name = NewName("__using");
        coalesced.push_back(expr::Alias(
            expr::Coalesce({expr::Column(r.columns[li].field), expr::Column(r.columns[rpos].field)}),
            name));
        r.columns.push_back({"", left.columns[li].name, name});
      } else {
        r.columns[rpos].hidden = true;
      }
    }
    if (!coalesced.empty()) {
      std::vector<ExprPtr> project;
      for (const Field& f : plan->schema()->fields())
        project.push_back(expr::Column(f.name));
      for (ExprPtr& e : coalesced)
        project.push_back(std::move(e));
      FLOTILLA_ASSIGN_OR_RETURN(r.plan, exec::MakeProject(plan, project));
    }
    return r;
  }

  Result<size_t> FindUsing(const Relation& r, const std::string& name, const char* side,
                           int64_t offset) {
    for (size_t i = 0; i < r.columns.size(); ++i)
      if (!r.columns[i].hidden && r.columns[i].name == name) return i;
    return ErrorNear(offset,
                     std::string("USING column '") + name + "' is not in the " + side + " side",
                     StatusCode::kKeyError);
  }

  Result<Relation> PlanFrom(const std::vector<TableRefPtr>& from) {
    if (from.empty()) {
      // SELECT without FROM: one row without columns.
      static const auto kEmpty = std::make_shared<Schema>(std::vector<Field>{});
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch one, RecordBatch::Make(kEmpty, {}, 1));
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, exec::MakeInMemorySource(kEmpty, {one}));
      return FromPlan(plan, "");
    }
    FLOTILLA_ASSIGN_OR_RETURN(Relation r, PlanTableRef(*from[0]));
    for (size_t i = 1; i < from.size(); ++i) {
      FLOTILLA_ASSIGN_OR_RETURN(Relation next, PlanTableRef(*from[i]));
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, exec::MakeCrossJoin(r.plan, next.plan));
      r = Joined(r, next, plan);
    }
    return r;
  }

  // --- Expressions --------------------------------------------------------------------------

  struct ExprScope {
    const Relation* scope;
    bool aggregates;
    bool windows;
    Relation* relation;  // where subqueries attach their joins; null: not allowed here
    const char* clause;
  };

  Result<std::string> ResolveColumn(const Node& n, const Relation& scope, bool* found) {
    *found = false;
    const std::string table = n.names.size() == 2 ? n.names[0] : "";
    const std::string& name = n.names.back();
    if (n.names.size() > 2) {
      return ErrorNear(n.offset, "column references have at most two parts (table.column)");
    }
    std::vector<size_t> matches;
    for (int pass = 0; pass < 2 && matches.empty(); ++pass) {
      for (size_t i = 0; i < scope.columns.size(); ++i) {
        const ScopeColumn& c = scope.columns[i];
        if (!table.empty() ? c.table != table && Lower(c.table) != Lower(table) : c.hidden) continue;
        if (pass == 0 ? c.name == name : Lower(c.name) == Lower(name)) matches.push_back(i);
      }
    }
    if (matches.size() > 1) {
      return ErrorNear(n.offset,
                       "column reference '" + name + "' is ambiguous: it is in " +
                           (scope.columns[matches[0]].table.empty()
                                ? std::string("several tables")
                                : "'" + scope.columns[matches[0]].table + "' and '" +
                                      scope.columns[matches[1]].table + "'") +
                           "; qualify it (table.column)",
                       StatusCode::kKeyError);
    }
    if (matches.empty()) return std::string();
    *found = true;
    return scope.columns[matches[0]].field;
  }

  Status UnknownColumn(const Node& n, const Relation& scope) {
    std::vector<std::string> names;
    for (const ScopeColumn& c : scope.columns)
      if (!c.hidden) names.push_back(c.name);
    std::string shown = n.names.size() == 2 ? n.names[0] + "." + n.names[1] : n.names[0];
    if (n.names.size() == 2) {
      bool table_known = false;
      for (const ScopeColumn& c : scope.columns)
        table_known |= c.table == n.names[0];
      if (!table_known) {
        return ErrorNear(n.offset, "table '" + n.names[0] + "' is not in the FROM clause",
                         StatusCode::kKeyError);
      }
    }
    return ErrorNear(n.offset, NotFoundMessage("column", shown, names), StatusCode::kKeyError);
  }

  Result<ExprPtr> Translate(const Node& n, ExprScope& es) {
    switch (n.kind) {
      case NodeKind::kColumnRef: {
        bool found = false;
        FLOTILLA_ASSIGN_OR_RETURN(std::string field, ResolveColumn(n, *es.scope, &found));
        if (found) return expr::Column(field);
        if (outer_ != nullptr) {
          FLOTILLA_ASSIGN_OR_RETURN(field, ResolveColumn(n, *outer_, &found));
          if (found) {
            if (mode_ == CorrelationMode::kNone) {
              return ErrorNear(n.offset, "correlated reference to '" + n.names.back() +
                                             "' is not supported here",
                               StatusCode::kNotImplemented);
            }
            return expr::Column(OuterName(field));
          }
        }
        return UnknownColumn(n, *es.scope);
      }
      case NodeKind::kStar:
        return ErrorNear(n.offset, "* is only allowed in the SELECT list and count(*)");
      case NodeKind::kLiteral:
        return TranslateLiteral(n);
      case NodeKind::kTypedLiteral:
        return Checked(expr::Cast(expr::Literal(n.text), n.type), n.offset);
      case NodeKind::kInterval:
        return ErrorNear(n.offset,
                         "an INTERVAL can only be added to or subtracted from a date or timestamp");
      case NodeKind::kParameter:
        return ErrorNear(n.offset, "parameters ($1, ?) need values bound to them",
                         StatusCode::kNotImplemented);
      case NodeKind::kUnary: {
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr a, Translate(*n.args[0], es));
        return n.text == "NOT" ? expr::Not(a) : expr::Negate(a);
      }
      case NodeKind::kBinary:
        return TranslateBinary(n, es);
      case NodeKind::kFunction:
        return TranslateFunction(n, es);
      case NodeKind::kCast: {
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr a, Translate(*n.args[0], es));
        return n.flag ? expr::TryCast(a, n.type) : expr::Cast(a, n.type);
      }
      case NodeKind::kCase: {
        std::vector<std::pair<ExprPtr, ExprPtr>> whens;
        ExprPtr operand;
        if (n.operand) {
          FLOTILLA_ASSIGN_OR_RETURN(operand, Translate(*n.operand, es));
        }
        for (size_t i = 0; i + 1 < n.args.size(); i += 2) {
          FLOTILLA_ASSIGN_OR_RETURN(ExprPtr w, Translate(*n.args[i], es));
          FLOTILLA_ASSIGN_OR_RETURN(ExprPtr t, Translate(*n.args[i + 1], es));
          whens.push_back({operand ? expr::Equal(operand, w) : w, t});
        }
        ExprPtr otherwise;
        if (n.otherwise) {
          FLOTILLA_ASSIGN_OR_RETURN(otherwise, Translate(*n.otherwise, es));
        }
        return expr::Case(std::move(whens), otherwise);
      }
      case NodeKind::kInList: {
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*n.args[0], es));
        std::vector<ExprPtr> values;
        bool all_literal = true;
        for (size_t i = 1; i < n.args.size(); ++i) {
          FLOTILLA_ASSIGN_OR_RETURN(ExprPtr v, Translate(*n.args[i], es));
          all_literal &= expr::Columns(v).empty() && !expr::Contains(v, ExprKind::kAggregate);
          values.push_back(std::move(v));
        }
        if (all_literal) {
          // Constant lists are folded so IsIn sees literals.
          for (ExprPtr& v : values) {
            if (v->kind() == ExprKind::kLiteral) continue;
            auto value = EvaluateConstant(v);
            if (!value.ok()) return Located(value.status(), n.offset);
            v = expr::Literal(*value);
          }
          return expr::IsIn(x, std::move(values), n.flag);
        }
        ExprPtr any;
        for (const ExprPtr& v : values)
          any = any ? expr::Or(any, expr::Equal(x, v)) : expr::Equal(x, v);
        return n.flag ? expr::Not(any) : any;
      }
      case NodeKind::kBetween: {
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*n.args[0], es));
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr lo, Translate(*n.args[1], es));
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr hi, Translate(*n.args[2], es));
        return expr::Between(x, lo, hi, n.flag);
      }
      case NodeKind::kIsNull: {
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*n.args[0], es));
        return n.flag ? expr::IsNotNull(x) : expr::IsNull(x);
      }
      case NodeKind::kExtract: {
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*n.args[0], es));
        return expr::Call("extract", {expr::Literal(n.text), x});
      }
      case NodeKind::kSubquery:
        return ScalarSubquery(n, es);
      case NodeKind::kInSubquery:
      case NodeKind::kExists:
      case NodeKind::kQuantified: {
        std::optional<SubqueryTest> test = AsSubqueryTest(n);
        if (test) return MarkSubquery(*test, es);
        return QuantifiedComparison(n, es);
      }
      case NodeKind::kRow:
        return ErrorNear(n.offset, "row values (a, b) are only supported before IN (subquery)",
                         StatusCode::kNotImplemented);
    }
    return Status::Internal("unknown expression");
  }

  Result<ExprPtr> Checked(ExprPtr e, int64_t offset) {
    auto value = EvaluateConstant(e);
    if (!value.ok()) return Located(value.status(), offset);
    return expr::Literal(*value);
  }

  Result<ExprPtr> TranslateLiteral(const Node& n) {
    switch (n.literal) {
      case LiteralKind::kNull:
        return expr::NullLiteral(null());
      case LiteralKind::kBool:
        return expr::Literal(n.text == "true");
      case LiteralKind::kString:
        return expr::Literal(n.text);
      case LiteralKind::kInteger: {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(n.text.c_str(), &end, 10);
        if (errno == 0 && *end == '\0') {
          if (v >= INT32_MIN && v <= INT32_MAX) return expr::Literal(static_cast<int32_t>(v));
          return expr::Literal(static_cast<int64_t>(v));
        }
        auto d = expr::DecimalLiteral(n.text);
        if (!d.ok()) return ErrorNear(n.offset, "integer literal out of range: " + n.text);
        return *d;
      }
      case LiteralKind::kFloat: {
        const bool exponent = n.text.find_first_of("eE") != std::string::npos;
        if (!exponent) {
          auto d = expr::DecimalLiteral(n.text);
          if (d.ok()) return *d;
        }
        return expr::Literal(std::strtod(n.text.c_str(), nullptr));
      }
    }
    return Status::Internal("unknown literal");
  }

  // INTERVAL '3' DAY / '3 days' -> (count, unit).
  Result<std::pair<ExprPtr, std::string>> IntervalParts(const Node& n) {
    std::string quantity = n.text, unit = n.unit;
    if (unit.empty()) {
      const size_t space = quantity.find(' ');
      if (space == std::string::npos) {
        return ErrorNear(n.offset, "an INTERVAL needs a unit: INTERVAL '3' DAY");
      }
      unit = Lower(quantity.substr(space + 1));
      quantity = quantity.substr(0, space);
    }
    char* end = nullptr;
    const long long count = std::strtoll(quantity.c_str(), &end, 10);
    if (quantity.empty() || *end != '\0') {
      return ErrorNear(n.offset, "an INTERVAL's quantity must be a whole number, got '" +
                                     quantity + "'");
    }
    if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
    return std::make_pair(expr::Literal(static_cast<int64_t>(count)), unit);
  }

  // date ± INTERVAL is a timestamp, as in DuckDB and PostgreSQL (a timestamp stays one). A
  // comparison of a date column with the result at midnight is still a date comparison (the
  // binder casts such constants back).
  static ExprPtr OnTimeline(ExprPtr x) { return expr::Cast(std::move(x), timestamp(TimeUnit::kMicro)); }

  Result<ExprPtr> TranslateBinary(const Node& n, ExprScope& es) {
    const std::string& op = n.text;
    const Node& l = *n.args[0];
    const Node& r = *n.args[1];
    if ((op == "+" || op == "-") && (r.kind == NodeKind::kInterval || l.kind == NodeKind::kInterval)) {
      const bool interval_left = l.kind == NodeKind::kInterval;
      if (interval_left && op == "-") {
        return ErrorNear(n.offset, "an INTERVAL cannot be subtracted from; write date - INTERVAL");
      }
      FLOTILLA_ASSIGN_OR_RETURN(auto parts, IntervalParts(interval_left ? l : r));
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(interval_left ? r : l, es));
      return expr::Call(op == "+" ? "date_add" : "date_sub",
                        {OnTimeline(x), parts.first, expr::Literal(parts.second)});
    }
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr a, Translate(l, es));
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr b, Translate(r, es));
    using expr::BinaryOp;
    static const std::map<std::string, BinaryOp> kOps = {
        {"+", BinaryOp::kAdd},        {"-", BinaryOp::kSubtract},  {"*", BinaryOp::kMultiply},
        {"/", BinaryOp::kDivide},     {"//", BinaryOp::kIntDiv},   {"%", BinaryOp::kMod},
        {"=", BinaryOp::kEqual},      {"<>", BinaryOp::kNotEqual}, {"<", BinaryOp::kLess},
        {"<=", BinaryOp::kLessEqual}, {">", BinaryOp::kGreater},   {">=", BinaryOp::kGreaterEqual},
        {"AND", BinaryOp::kAnd},      {"OR", BinaryOp::kOr},
    };
    auto it = kOps.find(op);
    if (it != kOps.end()) return expr::Binary(it->second, a, b);
    if (op == "LIKE") return expr::Call("like", {a, b});
    if (op == "ILIKE") return expr::Call("ilike", {a, b});
    if (op == "~") return expr::Call("regexp_matches", {a, b});
    if (op == "!~") return expr::Not(expr::Call("regexp_matches", {a, b}));
    if (op == "||") return expr::Call("concat", {a, b});
    if (op == "^") return expr::Call("pow", {a, b});
    if (op == "IS NOT DISTINCT FROM" || op == "IS DISTINCT FROM") {
      // Both null, or both non-null and equal.
      ExprPtr same = expr::Case({{expr::And(expr::IsNull(a), expr::IsNull(b)), expr::Literal(true)},
                                 {expr::Or(expr::IsNull(a), expr::IsNull(b)), expr::Literal(false)}},
                                expr::Equal(a, b));
      return op == "IS DISTINCT FROM" ? expr::Not(same) : same;
    }
    return ErrorNear(n.offset, "operator " + op + " is not supported", StatusCode::kNotImplemented);
  }

  Result<ExprPtr> TranslateFunction(const Node& n, ExprScope& es) {
    std::string name = n.names[0];
    const bool aggregate = IsAggregateName(name);
    if (n.over) return TranslateWindow(n, es);
    if ((name == "date_add" || name == "date_sub") && n.args.size() == 2 &&
        n.args[1]->kind == NodeKind::kInterval) {
      FLOTILLA_ASSIGN_OR_RETURN(auto parts, IntervalParts(*n.args[1]));
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*n.args[0], es));
      return expr::Call(name, {OnTimeline(x), parts.first, expr::Literal(parts.second)});
    }
    std::vector<ExprPtr> args;
    for (const NodePtr& a : n.args) {
      if (a->kind == NodeKind::kStar) {
        return ErrorNear(a->offset, "* is only allowed as count(*)");
      }
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*a, es));
      args.push_back(std::move(e));
    }
    if (aggregate) {
      if (!es.aggregates) {
        return ErrorNear(n.offset, std::string("aggregate function ") + name +
                                       "() is not allowed in " + es.clause);
      }
      for (const ExprPtr& a : args) {
        if (expr::Contains(a, ExprKind::kAggregate)) {
          return ErrorNear(n.offset, "aggregate calls cannot be nested: " + name + "(...)");
        }
      }
      if (n.star) {
        if (name != "count") return ErrorNear(n.offset, name + "(*) is not a function; count(*) is");
        name = "count_star";
      }
      if (n.filter) {
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr cond, Translate(*n.filter, es));
        if (name == "count_star") {
          name = "count";
          args = {expr::Case({{cond, expr::Literal(int32_t{1})}})};
        } else {
          for (ExprPtr& a : args)
            a = expr::Case({{cond, a}});
        }
      }
      if (n.distinct && (name == "sum" || name == "avg" || name == "mean") && args.size() == 1) {
        // Over the distinct non-null values of the group.
        ExprPtr values = expr::Call("list_distinct", {expr::Aggregate("list", args)});
        return expr::Call(name == "sum" ? "list_sum" : "list_mean", {values});
      }
      if (n.distinct) {
        if (name == "count") {
          name = "count_distinct";
        } else if (name != "min" && name != "max" && name != "count_distinct" &&
                   name != "approx_count_distinct" && name != "bool_and" && name != "bool_or") {
          return ErrorNear(n.offset, name + "(DISTINCT ...) is not supported yet",
                           StatusCode::kNotImplemented);
        }
      }
      return expr::Aggregate(name, std::move(args));
    }
    if (n.star || n.distinct) {
      return ErrorNear(n.offset, name + "() is not an aggregate function; * and DISTINCT "
                                        "belong to aggregates");
    }
    if (name == "coalesce" || name == "ifnull") return expr::Coalesce(std::move(args));
    if ((name == "nullif") && args.size() == 2) {
      return expr::Case({{expr::Equal(args[0], args[1]), expr::NullLiteral(null())}}, args[0]);
    }
    if ((name == "if" || name == "iff") && args.size() == 3) {
      return expr::IfElse(args[0], args[1], args[2]);
    }
    if (name == "substring") name = "substr";
    if (name == "ceiling") name = "ceil";
    if (name == "position" && args.size() == 2) {
      name = "strpos";
      std::swap(args[0], args[1]);
    }
    if (name == "concat") {
      // SQL's concat() skips NULLs (|| does not).
      args.insert(args.begin(), expr::Literal(""));
      name = "concat_ws";
    }
    if (name == "date_trunc" && args.size() == 2) {
      return expr::Call(name, {args[0], OnTimeline(args[1])});
    }
    if (name == "char_length" || name == "character_length" || name == "strlen") name = "length";
    if (name == "list_value") {
      return ErrorNear(n.offset, "list literals [...] are only supported as table function "
                                 "arguments yet",
                       StatusCode::kNotImplemented);
    }
    auto fn = expr::DefaultRegistry().Find(name);
    if (!fn.ok()) return ErrorNear(n.offset, fn.status().message(), StatusCode::kKeyError);
    return expr::Call(name, std::move(args));
  }

  Result<ExprPtr> TranslateWindow(const Node& n, ExprScope& es) {
    if (!es.windows) {
      return ErrorNear(n.offset, std::string("window functions are not allowed in ") + es.clause);
    }
    WindowCall call;
    call.function = n.names[0];
    if (n.star) {
      if (call.function != "count") return ErrorNear(n.offset, "only count(*) takes *");
      call.function = "count_star";
    }
    if (n.distinct) return ErrorNear(n.offset, "DISTINCT in a window function is not supported", StatusCode::kNotImplemented);
    ExprScope inner = es;
    inner.windows = false;
    inner.relation = nullptr;
    inner.clause = "a window function's arguments";
    for (const NodePtr& a : n.args) {
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*a, inner));
      call.arguments.push_back(std::move(e));
    }
    for (const NodePtr& p : n.over->partition_by) {
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*p, inner));
      call.partition_by.push_back(std::move(e));
    }
    for (const OrderItem& o : n.over->order_by) {
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*o.expr, inner));
      call.order_by.push_back({e, o.ascending, o.nulls_first.value_or(false)});
    }
    if (n.over->has_frame) {
      exec::WindowFrame frame;
      frame.type = n.over->rows ? exec::WindowFrame::kRows : exec::WindowFrame::kRange;
      FLOTILLA_ASSIGN_OR_RETURN(frame.start, Bound(n.over->start));
      FLOTILLA_ASSIGN_OR_RETURN(frame.end, Bound(n.over->end));
      call.frame = frame;
    }
    call.name = NewName("__w");
    windows_.push_back(call);
    return expr::Column(call.name);
  }

  Result<exec::FrameBound> Bound(const FrameBoundAst& b) {
    exec::FrameBound out{exec::FrameBound::kCurrentRow};
    switch (b.kind) {
      case FrameBoundAst::kUnboundedPreceding:
        out.kind = exec::FrameBound::kUnboundedPreceding;
        return out;
      case FrameBoundAst::kUnboundedFollowing:
        out.kind = exec::FrameBound::kUnboundedFollowing;
        return out;
      case FrameBoundAst::kCurrentRow:
        out.kind = exec::FrameBound::kCurrentRow;
        return out;
      case FrameBoundAst::kPreceding:
      case FrameBoundAst::kFollowing: {
        out.kind = b.kind == FrameBoundAst::kPreceding ? exec::FrameBound::kPreceding
                                                       : exec::FrameBound::kFollowing;
        FLOTILLA_ASSIGN_OR_RETURN(int64_t v, ConstantInt(*b.offset, "a frame offset"));
        if (v < 0) return ErrorNear(b.offset->offset, "a frame offset must not be negative");
        out.offset = v;
        return out;
      }
    }
    return out;
  }

  Result<int64_t> ConstantInt(const Node& n, const char* what) {
    static const Relation kNoColumns;
    ExprScope es{&kNoColumns, false, false, nullptr, what};
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(n, es));
    auto value = EvaluateConstant(expr::Cast(e, int64()));
    if (!value.ok() || value->IsNull(0)) {
      return ErrorNear(n.offset, std::string(what) + " must be a constant integer");
    }
    return value->values<int64_t>()[0];
  }

  // --- Subqueries ---------------------------------------------------------------------------

  Result<ExprPtr> ScalarSubquery(const Node& n, ExprScope& es) {
    Planner sub(ctx_, ctes_, es.scope, CorrelationMode::kGroup);
    FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*n.subquery));
    const size_t outputs = r.columns.size() - sub.exposed().size();
    if (outputs != 1) {
      return ErrorNear(n.offset, "a scalar subquery must return one column, this one returns " +
                                     std::to_string(outputs));
    }
    if (sub.correlations().empty()) {
      if (!ctx_.run) {
        return ErrorNear(n.offset, "scalar subqueries cannot run here", StatusCode::kNotImplemented);
      }
      // Uncorrelated: run once, use the value as a constant.
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr limited, exec::MakeLimit(r.plan, 2));
      auto batch = ctx_.run(limited);
      if (!batch.ok()) return Located(batch.status(), n.offset);
      if (batch->num_rows() > 1) {
        return ErrorNear(n.offset, "a scalar subquery returned more than one row");
      }
      if (batch->num_rows() == 0) return expr::NullLiteral(r.plan->schema()->field(0).type);
      return expr::Literal(batch->column(0).Slice(0, 1));
    }
    if (es.relation == nullptr) {
      return ErrorNear(n.offset, std::string("correlated subqueries are not supported in ") +
                                     es.clause,
                       StatusCode::kNotImplemented);
    }
    // Correlated: grouped by the correlation keys (the subquery did that), left-joined on them.
    FLOTILLA_ASSIGN_OR_RETURN(Relation joined,
                              JoinSubquery(*es.relation, r, sub, exec::JoinType::kLeft, {}, n.offset));
    const std::string value = joined.columns[es.relation->columns.size()].field;
    for (size_t i = es.relation->columns.size(); i < joined.columns.size(); ++i)
      joined.columns[i].hidden = true, joined.columns[i].table = "";
    *es.relation = std::move(joined);
    ExprPtr out = expr::Column(value);
    // count over no rows is 0, not the NULL an unmatched left join gives.
    const Query* q = n.subquery.get();
    if (q->kind == Query::kSelect && q->select->items.size() == 1) {
      const Node& item = *q->select->items[0].expr;
      if (item.kind == NodeKind::kFunction && item.names[0] == "count" && !item.over) {
        out = expr::Coalesce({out, expr::Literal(int64_t{0})});
      }
    }
    return out;
  }

  // Joins `sub` (planned with correlations) to `left`, with `extra` key pairs (left over
  // left's fields, right over the subquery's output).
  Result<Relation> JoinSubquery(const Relation& left, const Relation& right, const Planner& sub,
                                exec::JoinType type,
                                std::vector<std::pair<ExprPtr, ExprPtr>> extra, int64_t offset,
                                bool allow_residual = true) {
    std::map<std::string, std::string> right_names =
        RightNames(*left.plan->schema(), *right.plan->schema());
    std::vector<ExprPtr> conjuncts;
    for (const Correlation& c : sub.correlations()) {
      // Outer marks -> left fields; the subquery's exposed names -> joined names.
      ExprPtr p = expr::Rewrite(c.predicate, [&](const ExprPtr& e) -> Result<ExprPtr> {
                    if (e->kind() != ExprKind::kColumn) return ExprPtr();
                    if (IsOuter(e->name())) return expr::Column(e->name().substr(1));
                    return expr::Column(right_names.at(e->name()));
                  }).ValueOrDie();
      conjuncts.push_back(p);
    }
    for (auto& [l, r] : extra)
      conjuncts.push_back(expr::Equal(l, expr::RenameColumns(r, right_names)));
    JoinKeys keys = ExtractKeys(conjuncts, *left.plan->schema(), *right.plan->schema());
    if (keys.left.empty()) {
      return ErrorNear(offset,
                       "a correlated subquery needs an equality between an inner and an outer "
                       "column (inner.x = outer.y) among its WHERE conditions",
                       StatusCode::kNotImplemented);
    }
    if (!allow_residual && !keys.residual.empty()) {
      return ErrorNear(offset,
                       "a correlated EXISTS inside an expression supports only equality conditions "
                       "with the outer query yet",
                       StatusCode::kNotImplemented);
    }
    FLOTILLA_RETURN_NOT_OK(optimizer::CoerceJoinKeys(*left.plan->schema(), *right.plan->schema(),
                                                     &keys.left, &keys.right));
    auto plan = exec::MakeHashJoin(left.plan, right.plan, keys.left, keys.right, type,
                                   expr::JoinConjuncts(keys.residual));
    FLOTILLA_RETURN_NOT_OK(Located(plan.status(), offset));
    if (type == exec::JoinType::kSemi || type == exec::JoinType::kAnti) {
      Relation r = left;
      r.plan = *plan;
      return r;
    }
    return Joined(left, right, *plan);
  }

  // What an IN / EXISTS / = ANY / <> ALL test is, with the NOTs around it folded in.
  struct SubqueryTest {
    const Node* node = nullptr;
    bool exists = false;
    bool negated = false;
  };
  static std::optional<SubqueryTest> AsSubqueryTest(const Node& n) {
    SubqueryTest t;
    const Node* node = &n;
    while (node->kind == NodeKind::kUnary && node->text == "NOT") {
      t.negated = !t.negated;
      node = node->args[0].get();
    }
    t.node = node;
    if (node->kind == NodeKind::kExists) {
      t.exists = true;
      t.negated ^= node->flag;
      return t;
    }
    if (node->kind == NodeKind::kInSubquery) {
      t.negated ^= node->flag;
      return t;
    }
    if (node->kind == NodeKind::kQuantified && node->text == "=" && !node->flag) return t;
    if (node->kind == NodeKind::kQuantified && node->text == "<>" && node->flag) {
      t.negated = !t.negated;
      return t;
    }
    return std::nullopt;
  }

  // The keys of `x IN (subquery)`: (outer expression, subquery output column) pairs.
  Result<std::vector<std::pair<ExprPtr, ExprPtr>>> InKeys(const Node& node, const Relation& sub,
                                                          size_t exposed, Relation* outer) {
    const Node& subject = *node.args[0];
    std::vector<const Node*> elements;
    if (subject.kind == NodeKind::kRow) {
      for (const NodePtr& e : subject.args)
        elements.push_back(e.get());
    } else {
      elements.push_back(&subject);
    }
    if (sub.columns.size() - exposed != elements.size()) {
      return ErrorNear(node.offset, "the subquery of IN must return " +
                                        std::to_string(elements.size()) + " column(s), it returns " +
                                        std::to_string(sub.columns.size() - exposed));
    }
    std::vector<std::pair<ExprPtr, ExprPtr>> keys;
    for (size_t i = 0; i < elements.size(); ++i) {
      ExprScope es{outer, false, false, nullptr, "IN"};
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*elements[i], es));
      keys.push_back({x, expr::Column(sub.plan->schema()->field(static_cast<int>(i)).name)});
    }
    return keys;
  }

  // Counts of the subquery's rows and of its first column's non-null values, run now.
  Result<std::pair<int64_t, int64_t>> CountRowsAndValues(const Relation& r, int64_t offset) {
    if (!ctx_.run) return ErrorNear(offset, "this subquery cannot run here");
    const std::string y = r.plan->schema()->field(0).name;
    FLOTILLA_ASSIGN_OR_RETURN(
        PlanPtr counts,
        exec::MakeAggregate(r.plan, {},
                            {{"count_star", {}, "rows"}, {"count", {expr::Column(y)}, "values"}}));
    auto batch = ctx_.run(counts);
    if (!batch.ok()) return Located(batch.status(), offset);
    return std::make_pair(batch->column(0).values<int64_t>()[0], batch->column(1).values<int64_t>()[0]);
  }

  Result<bool> RunExists(const Relation& r, int64_t offset) {
    if (!ctx_.run) return ErrorNear(offset, "EXISTS cannot run here");
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr one, exec::MakeLimit(r.plan, 1));
    auto batch = ctx_.run(one);
    if (!batch.ok()) return Located(batch.status(), offset);
    return batch->num_rows() > 0;
  }

  Status FilterAll(Relation* relation) {
    FLOTILLA_ASSIGN_OR_RETURN(relation->plan, exec::MakeFilter(relation->plan, expr::Literal(false)));
    return Status::OK();
  }

  // A WHERE conjunct that is a subquery test, applied as a semi/anti join.
  Result<bool> ApplySubqueryFilter(const Node& n, Relation* relation) {
    std::optional<SubqueryTest> test = AsSubqueryTest(n);
    if (!test) return false;
    const Node* node = test->node;
    const bool negated = test->negated;
    Planner sub(ctx_, ctes_, relation, CorrelationMode::kExpose);
    FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*node->subquery));
    std::vector<std::pair<ExprPtr, ExprPtr>> extra;
    if (!test->exists) {
      FLOTILLA_ASSIGN_OR_RETURN(extra, InKeys(*node, r, sub.exposed().size(), relation));
    }
    if (sub.correlations().empty() && test->exists) {
      // Uncorrelated EXISTS: one row or none, decided once.
      FLOTILLA_ASSIGN_OR_RETURN(bool any, RunExists(r, node->offset));
      if (any == negated) FLOTILLA_RETURN_NOT_OK(FilterAll(relation));
      return true;
    }
    if (negated && !test->exists) {
      // x NOT IN (s): false/unknown for every row when s holds a NULL; unknown when x is NULL
      // and s is not empty; true when s is empty.
      if (!sub.correlations().empty() || extra.size() != 1) {
        return ErrorNear(node->offset,
                         "NOT IN with a correlated or multi-column subquery is not supported yet; "
                         "use NOT EXISTS",
                         StatusCode::kNotImplemented);
      }
      FLOTILLA_ASSIGN_OR_RETURN(auto counts, CountRowsAndValues(r, node->offset));
      if (counts.first == 0) return true;
      if (counts.second < counts.first) {
        FLOTILLA_RETURN_NOT_OK(FilterAll(relation));
        return true;
      }
      const ExprPtr x = extra[0].first;
      FLOTILLA_ASSIGN_OR_RETURN(*relation, JoinSubquery(*relation, r, sub, exec::JoinType::kAnti,
                                                        extra, node->offset));
      FLOTILLA_ASSIGN_OR_RETURN(relation->plan, exec::MakeFilter(relation->plan, expr::IsNotNull(x)));
      return true;
    }
    FLOTILLA_ASSIGN_OR_RETURN(
        *relation, JoinSubquery(*relation, r, sub,
                                negated ? exec::JoinType::kAnti : exec::JoinType::kSemi, extra,
                                node->offset));
    return true;
  }

  // A subquery test inside an expression (SELECT list, CASE, OR): a left join with the
  // subquery's distinct keys and a mark column, whose presence is the answer.
  Result<ExprPtr> MarkSubquery(const SubqueryTest& test, ExprScope& es) {
    const Node& node = *test.node;
    if (es.relation == nullptr) {
      return ErrorNear(node.offset, std::string("subqueries are not supported in ") + es.clause,
                       StatusCode::kNotImplemented);
    }
    Planner sub(ctx_, ctes_, es.scope, CorrelationMode::kExpose);
    FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*node.subquery));
    const std::string mark = NewName("__mark");
    auto result = [&](ExprPtr e) { return test.negated ? expr::Not(e) : e; };
    if (test.exists) {
      if (sub.correlations().empty()) {
        FLOTILLA_ASSIGN_OR_RETURN(bool any, RunExists(r, node.offset));
        return expr::Literal(any != test.negated);
      }
      std::vector<ExprPtr> keep;
      for (const std::string& name : sub.exposed())
        keep.push_back(expr::Column(name));
      keep.push_back(expr::Alias(expr::Literal(true), mark));
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr marked, exec::MakeProject(r.plan, keep));
      FLOTILLA_ASSIGN_OR_RETURN(marked, exec::MakeDistinct(marked));
      Relation right = FromPlan(marked, "");
      FLOTILLA_ASSIGN_OR_RETURN(Relation joined, JoinSubquery(*es.relation, right, sub,
                                                              exec::JoinType::kLeft, {}, node.offset,
                                                              /*allow_residual=*/false));
      const std::string field = joined.columns.back().field;
      HideAfter(&joined, es.relation->columns.size());
      *es.relation = std::move(joined);
      return result(expr::IsNotNull(expr::Column(field)));
    }
    if (!sub.correlations().empty()) {
      return ErrorNear(node.offset,
                       "a correlated IN (subquery) is supported only as a WHERE condition yet",
                       StatusCode::kNotImplemented);
    }
    FLOTILLA_ASSIGN_OR_RETURN(auto keys, InKeys(node, r, 0, es.relation));
    if (keys.size() != 1) {
      return ErrorNear(node.offset, "row values IN (subquery) are supported only as a WHERE condition",
                       StatusCode::kNotImplemented);
    }
    FLOTILLA_ASSIGN_OR_RETURN(auto counts, CountRowsAndValues(r, node.offset));
    if (counts.first == 0) return expr::Literal(test.negated);
    const ExprPtr x = keys[0].first;
    const std::string value = NewName("__in");
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr right, exec::MakeFilter(r.plan, expr::IsNotNull(keys[0].second)));
    FLOTILLA_ASSIGN_OR_RETURN(right, exec::MakeProject(right, {expr::Alias(keys[0].second, value),
                                                              expr::Alias(expr::Literal(true), mark)}));
    FLOTILLA_ASSIGN_OR_RETURN(right, exec::MakeDistinct(right));
    std::vector<ExprPtr> lk = {x}, rk = {expr::Column(value)};
    FLOTILLA_RETURN_NOT_OK(optimizer::CoerceJoinKeys(*es.relation->plan->schema(), *right->schema(), &lk, &rk));
    auto joined_plan = exec::MakeHashJoin(es.relation->plan, right, lk, rk, exec::JoinType::kLeft);
    FLOTILLA_RETURN_NOT_OK(Located(joined_plan.status(), node.offset));
    Relation joined = Joined(*es.relation, FromPlan(right, ""), *joined_plan);
    const std::string field = joined.columns.back().field;
    HideAfter(&joined, es.relation->columns.size());
    *es.relation = std::move(joined);
    // Found: true. Not found: NULL when x is NULL or the subquery held a NULL, else false.
    const ExprPtr unknown = expr::NullLiteral(boolean());
    ExprPtr not_found = counts.second < counts.first
                            ? unknown
                            : expr::IfElse(expr::IsNull(x), unknown, expr::Literal(false));
    return result(expr::IfElse(expr::IsNotNull(expr::Column(field)), expr::Literal(true), not_found));
  }

  static void HideAfter(Relation* r, size_t first) {
    for (size_t i = first; i < r->columns.size(); ++i) {
      r->columns[i].hidden = true;
      r->columns[i].table.clear();
    }
  }

  // x op ANY|ALL (subquery) for the other operators: the subquery's min and max, run now.
  Result<ExprPtr> QuantifiedComparison(const Node& node, ExprScope& es) {
    Planner sub(ctx_, ctes_, nullptr, CorrelationMode::kNone);
    FLOTILLA_ASSIGN_OR_RETURN(Relation r, sub.PlanQuery(*node.subquery));
    if (r.columns.size() != 1) return ErrorNear(node.offset, "the subquery of ANY/ALL must return one column");
    if (!ctx_.run) return ErrorNear(node.offset, "ANY/ALL cannot run here");
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr x, Translate(*node.args[0], es));
    const ExprPtr y = expr::Column(r.plan->schema()->field(0).name);
    FLOTILLA_ASSIGN_OR_RETURN(
        PlanPtr stats, exec::MakeAggregate(r.plan, {},
                                           {{"min", {y}, "lo"}, {"max", {y}, "hi"},
                                            {"count_star", {}, "rows"}, {"count", {y}, "values"}}));
    auto batch = ctx_.run(stats);
    if (!batch.ok()) return Located(batch.status(), node.offset);
    const int64_t rows = batch->column(2).values<int64_t>()[0];
    const int64_t values = batch->column(3).values<int64_t>()[0];
    const bool all = node.flag;
    if (rows == 0) return expr::Literal(all);
    const ExprPtr lo = expr::Literal(batch->column(0).Slice(0, 1));
    const ExprPtr hi = expr::Literal(batch->column(1).Slice(0, 1));
    const std::string& op = node.text;
    ExprPtr cmp;
    if (op == ">") cmp = expr::Greater(x, all ? hi : lo);
    else if (op == ">=") cmp = expr::GreaterEqual(x, all ? hi : lo);
    else if (op == "<") cmp = expr::Less(x, all ? lo : hi);
    else if (op == "<=") cmp = expr::LessEqual(x, all ? lo : hi);
    else if (op == "=") cmp = expr::And(expr::Equal(lo, hi), expr::Equal(x, lo));          // = ALL
    else if (op == "<>") cmp = expr::Or(expr::NotEqual(lo, hi), expr::NotEqual(x, lo));   // <> ANY
    else return ErrorNear(node.offset, "ANY/ALL takes =, <>, <, <=, > or >=");
    if (values == rows) return cmp;
    // With NULLs in the subquery: ALL is never true (unknown at best), ANY never false.
    const ExprPtr unknown = expr::NullLiteral(boolean());
    return all ? expr::IfElse(cmp, unknown, expr::Literal(false))
               : expr::IfElse(cmp, expr::Literal(true), unknown);
  }

  // --- SELECT -------------------------------------------------------------------------------

  struct Output {
    ExprPtr expr;       // over the relation before the projection (after aggregation)
    std::string name;   // the output column's name
    std::string table;  // for a plain column: its table
    int64_t offset;
  };

  Result<std::vector<Output>> ExpandSelectList(const SelectCore& s, const Relation& from,
                                               ExprScope& es) {
    std::vector<Output> out;
    for (const SelectItem& item : s.items) {
      const Node& n = *item.expr;
      if (n.kind == NodeKind::kStar) {
        const std::string table = n.names.empty() ? "" : n.names[0];
        bool any = false;
        for (const ScopeColumn& c : from.columns) {
          if (c.hidden || (!table.empty() && c.table != table)) continue;
          out.push_back({expr::Column(c.field), c.name, c.table, n.offset});
          any = true;
        }
        if (!any && !table.empty()) {
          return ErrorNear(n.offset, "table '" + table + "' is not in the FROM clause",
                           StatusCode::kKeyError);
        }
        continue;
      }
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(n, es));
      std::string name = item.alias;
      std::string table;
      if (name.empty()) {
        if (n.kind == NodeKind::kColumnRef) {
          name = n.names.back();
          for (const ScopeColumn& c : from.columns)
            if (c.field == e->name()) name = c.name, table = c.table;
        } else {
          name = item.text;
        }
      }
      out.push_back({e, name, table, n.offset});
    }
    return out;
  }

  static bool IsInternal(const std::string& field) { return field.rfind("__", 0) == 0; }

  Result<Relation> PlanSelect(const SelectCore& s, const Query& q) {
    FLOTILLA_ASSIGN_OR_RETURN(Relation rel, PlanFrom(s.from));
    if (s.where) {
      std::vector<const Node*> conjuncts;
      SplitAst(*s.where, &conjuncts);
      std::vector<ExprPtr> filters;
      for (const Node* c : conjuncts) {
        FLOTILLA_ASSIGN_OR_RETURN(bool applied, ApplySubqueryFilter(*c, &rel));
        if (applied) continue;
        if (HasAggregate(*c)) return ErrorNear(c->offset, "aggregates are not allowed in WHERE; use HAVING");
        ExprScope es{&rel, false, false, &rel, "WHERE"};
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*c, es));
        if (HasOuter(e)) {
          FLOTILLA_RETURN_NOT_OK(AddCorrelation(e, c->offset));
          continue;
        }
        filters.push_back(e);
      }
      if (!filters.empty()) {
        auto plan = exec::MakeFilter(rel.plan, expr::JoinConjuncts(filters));
        FLOTILLA_RETURN_NOT_OK(Located(plan.status(), s.where->offset));
        rel.plan = *plan;
      }
    }

    bool aggregated = !s.group_by.empty() || s.group_by_all || s.having != nullptr;
    for (const SelectItem& item : s.items)
      aggregated |= HasAggregate(*item.expr);
    for (const OrderItem& o : q.order_by)
      aggregated |= HasAggregate(*o.expr);
    if (mode_ == CorrelationMode::kGroup && !correlations_.empty() && !aggregated) {
      return ErrorNear(q.offset,
                       "a correlated scalar subquery must aggregate (e.g. SELECT max(x) ...) so "
                       "that it returns one row per outer row",
                       StatusCode::kNotImplemented);
    }

    ExprScope es{&rel, aggregated, true, aggregated ? nullptr : &rel, "SELECT"};
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<Output> outputs, ExpandSelectList(s, rel, es));
    if (outputs.empty()) return ErrorNear(q.offset, "SELECT needs at least one column");

    ExprPtr having;
    if (s.having) {
      ExprScope hs{&rel, true, false, nullptr, "HAVING"};
      FLOTILLA_ASSIGN_OR_RETURN(having, Translate(*s.having, hs));
    }
    // ORDER BY items: an output ordinal or name, else an expression over the FROM scope.
    std::vector<std::pair<int, ExprPtr>> order;  // (output index or -1, expression)
    if (q.kind == Query::kSelect) {
      for (const OrderItem& o : q.order_by) {
        FLOTILLA_ASSIGN_OR_RETURN(int index, OrderOutput(*o.expr, outputs, rel));
        if (index >= 0) {
          order.push_back({index, nullptr});
          continue;
        }
        ExprScope os{&rel, aggregated, true, nullptr, "ORDER BY"};
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*o.expr, os));
        int same = -1;
        for (size_t i = 0; i < outputs.size(); ++i)
          if (outputs[i].expr->ToString() == e->ToString()) same = static_cast<int>(i);
        order.push_back({same, same >= 0 ? nullptr : e});
      }
    }

    if (aggregated) {
      FLOTILLA_RETURN_NOT_OK(PlanAggregate(s, &rel, &outputs, &having, &order));
      if (having) {
        auto plan = exec::MakeFilter(rel.plan, having);
        FLOTILLA_RETURN_NOT_OK(Located(plan.status(), s.having->offset));
        rel.plan = *plan;
      }
    }
    FLOTILLA_RETURN_NOT_OK(PlanWindows(&rel));
    if (s.qualify) {
      ExprScope qs{&rel, false, true, nullptr, "QUALIFY"};
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*s.qualify, qs));
      FLOTILLA_RETURN_NOT_OK(PlanWindows(&rel));
      auto plan = exec::MakeFilter(rel.plan, e);
      FLOTILLA_RETURN_NOT_OK(Located(plan.status(), s.qualify->offset));
      rel.plan = *plan;
    }

    // The projection: outputs, then what the correlation exposes, then hidden sort keys.
    std::vector<ExprPtr> project;
    std::vector<ScopeColumn> columns;
    std::set<std::string> taken;
    for (const Output& o : outputs) {
      std::string field = o.name;
      for (int k = 1; taken.count(field); ++k)
        field = o.name + "_" + std::to_string(k);
      taken.insert(field);
      const bool same = o.expr->kind() == ExprKind::kColumn && o.expr->name() == field;
      project.push_back(same ? o.expr : expr::Alias(o.expr, field));
      columns.push_back({o.table, field, field});
    }
    for (const auto& [inner, name] : exposed_columns_) {
      project.push_back(expr::Alias(expr::Column(inner), name));
      columns.push_back({"", name, name, true});
    }
    for (const auto& [key, name] : group_keys_) {
      project.push_back(expr::Column(name));
      columns.push_back({"", name, name, true});
    }
    std::vector<exec::SortSpec> sort;
    for (size_t i = 0; i < order.size(); ++i) {
      const OrderItem& o = q.order_by[i];
      const bool nulls_first = o.nulls_first.value_or(false);
      if (order[i].first >= 0) {
        sort.push_back({expr::Column(columns[order[i].first].field), o.ascending, nulls_first});
        continue;
      }
      if (s.distinct) {
        return ErrorNear(o.expr->offset,
                         "with SELECT DISTINCT, ORDER BY expressions must appear in the select list");
      }
      const std::string name = NewName("__order");
      project.push_back(expr::Alias(order[i].second, name));
      sort.push_back({expr::Column(name), o.ascending, nulls_first});
    }
    auto projected = exec::MakeProject(rel.plan, project);
    FLOTILLA_RETURN_NOT_OK(Located(projected.status(), q.offset));
    Relation out{*projected, columns};
    if (s.distinct) {
      FLOTILLA_ASSIGN_OR_RETURN(out.plan, exec::MakeDistinct(out.plan));
    }
    if (!sort.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(out.plan, exec::MakeSort(out.plan, sort));
    }
    FLOTILLA_RETURN_NOT_OK(ApplyLimit(&out, q));
    if (static_cast<int>(columns.size()) != out.plan->schema()->num_fields()) {
      std::vector<ExprPtr> keep;
      for (const ScopeColumn& c : columns)
        keep.push_back(expr::Column(c.field));
      FLOTILLA_ASSIGN_OR_RETURN(out.plan, exec::MakeProject(out.plan, keep));
    }
    return out;
  }

  static void SplitAst(const Node& n, std::vector<const Node*>* out) {
    if (n.kind == NodeKind::kBinary && n.text == "AND") {
      SplitAst(*n.args[0], out);
      SplitAst(*n.args[1], out);
    } else {
      out->push_back(&n);
    }
  }

  static bool HasOuter(const ExprPtr& e) {
    for (const std::string& c : expr::Columns(e))
      if (IsOuter(c)) return true;
    return false;
  }

  // A correlated WHERE conjunct: its inner columns are exposed as outputs of this subquery.
  Status AddCorrelation(const ExprPtr& e, int64_t offset) {
    if (mode_ == CorrelationMode::kGroup) {
      // Scalar subqueries group by the inner side of `inner = outer`.
      if (!(e->kind() == ExprKind::kBinary && e->binary_op() == expr::BinaryOp::kEqual)) {
        return ErrorNear(offset,
                         "a correlated scalar subquery supports only equality conditions with the "
                         "outer query (inner.x = outer.y)",
                         StatusCode::kNotImplemented);
      }
      ExprPtr a = e->children()[0], b = e->children()[1];
      if (HasOuter(a)) std::swap(a, b);
      bool inner_pure = !HasOuter(a);
      bool outer_pure = true;
      for (const std::string& c : expr::Columns(b))
        outer_pure &= IsOuter(c);
      if (!inner_pure || !outer_pure) {
        return ErrorNear(offset, "a correlated condition must compare an inner expression with an "
                                 "outer one",
                         StatusCode::kNotImplemented);
      }
      const std::string name = NewName("__corr");
      group_keys_.push_back({a, name});
      exposed_.push_back(name);
      correlations_.push_back({expr::Equal(expr::Column(name), b)});
      return Status::OK();
    }
    std::map<std::string, std::string> renames;
    for (const std::string& c : expr::Columns(e)) {
      if (IsOuter(c)) continue;
      auto it = std::find_if(exposed_columns_.begin(), exposed_columns_.end(),
                             [&](const auto& p) { return p.first == c; });
      if (it == exposed_columns_.end()) {
        const std::string name = NewName("__corr");
        exposed_columns_.push_back({c, name});
        exposed_.push_back(name);
        renames[c] = name;
      } else {
        renames[c] = it->second;
      }
    }
    correlations_.push_back({expr::RenameColumns(e, renames)});
    return Status::OK();
  }

  Result<int> OrderOutput(const Node& n, const std::vector<Output>& outputs, const Relation& rel) {
    if (n.kind == NodeKind::kLiteral && n.literal == LiteralKind::kInteger) {
      const long long k = std::stoll(n.text);
      if (k < 1 || k > static_cast<long long>(outputs.size())) {
        return ErrorNear(n.offset, "ORDER BY position " + n.text + " is not in the select list (1.." +
                                       std::to_string(outputs.size()) + ")");
      }
      return static_cast<int>(k - 1);
    }
    if (n.kind == NodeKind::kColumnRef && n.names.size() == 1) {
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (outputs[i].name != n.names[0]) continue;
        // An output name wins over an input column of the same name, as PostgreSQL.
        return static_cast<int>(i);
      }
    }
    (void)rel;
    return -1;
  }

  Status PlanAggregate(const SelectCore& s, Relation* rel, std::vector<Output>* outputs,
                       ExprPtr* having, std::vector<std::pair<int, ExprPtr>>* order) {
    // Group keys: ordinals and output names refer to the select list.
    std::vector<ExprPtr> keys;
    if (s.group_by_all) {
      for (const Output& o : *outputs)
        if (!expr::Contains(o.expr, ExprKind::kAggregate) && !HasWindowRef(o.expr)) keys.push_back(o.expr);
    }
    for (const NodePtr& g : s.group_by) {
      if (g->kind == NodeKind::kLiteral && g->literal == LiteralKind::kInteger) {
        const long long k = std::stoll(g->text);
        if (k < 1 || k > static_cast<long long>(outputs->size())) {
          return ErrorNear(g->offset, "GROUP BY position " + g->text + " is not in the select list");
        }
        keys.push_back((*outputs)[k - 1].expr);
        continue;
      }
      if (g->kind == NodeKind::kColumnRef && g->names.size() == 1) {
        // A name that is not an input column may be an output alias.
        bool is_column = false;
        FLOTILLA_RETURN_NOT_OK(ResolveColumn(*g, *rel, &is_column).status());
        auto alias = std::find_if(outputs->begin(), outputs->end(),
                                  [&](const Output& o) { return o.name == g->names[0]; });
        if (!is_column && alias != outputs->end()) {
          keys.push_back(alias->expr);
          continue;
        }
      }
      ExprScope es{rel, false, false, nullptr, "GROUP BY"};
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*g, es));
      keys.push_back(e);
    }
    for (const auto& [e, name] : group_keys_)
      keys.push_back(expr::Alias(e, name));
    for (const ExprPtr& k : keys) {
      if (expr::Contains(k, ExprKind::kAggregate)) {
        return ErrorNear(s.group_by.empty() ? 0 : s.group_by[0]->offset,
                         "GROUP BY cannot hold an aggregate: " + k->ToString());
      }
    }
    // Name every key: a column keeps its name, anything else gets an internal one.
    std::map<std::string, std::string> key_names;  // key text -> output field
    std::vector<ExprPtr> group_by;
    for (const ExprPtr& k : keys) {
      const ExprPtr& bare = expr::Unaliased(k);
      const std::string text = bare->ToString();
      if (key_names.count(text)) continue;
      std::string name = k->kind() == ExprKind::kAlias ? k->name()
                         : bare->kind() == ExprKind::kColumn ? bare->name()
                                                             : NewName("__g");
      key_names[text] = name;
      const bool same = bare->kind() == ExprKind::kColumn && bare->name() == name;
      group_by.push_back(same ? bare : expr::Alias(bare, name));
    }
    // Aggregates, found in every expression that runs after the aggregation.
    std::vector<exec::AggregateSpec> aggregates;
    std::map<std::string, std::string> agg_names;
    auto collect = [&](const ExprPtr& e) -> Result<ExprPtr> {
      return expr::Rewrite(e, [&](const ExprPtr& n) -> Result<ExprPtr> {
        auto key = key_names.find(n->ToString());
        if (key != key_names.end() && n->kind() != ExprKind::kLiteral) return expr::Column(key->second);
        if (n->kind() == ExprKind::kAggregate) {
          const std::string text = n->ToString();
          auto it = agg_names.find(text);
          if (it != agg_names.end()) return expr::Column(it->second);
          const std::string name = NewName("__a");
          agg_names[text] = name;
          aggregates.push_back({n->name(), n->children(), name});
          return expr::Column(name);
        }
        if (n->kind() == ExprKind::kColumn && !IsWindowName(n->name()) && !IsOuter(n->name())) {
          return Status::Invalid("column '" + DisplayName(n->name(), *rel) +
                                 "' must appear in the GROUP BY clause or be used in an aggregate "
                                 "function");
        }
        return ExprPtr();
      });
    };
    for (Output& o : *outputs) {
      auto e = collect(o.expr);
      FLOTILLA_RETURN_NOT_OK(Located(e.status(), o.offset));
      o.expr = *e;
    }
    if (*having) {
      auto e = collect(*having);
      FLOTILLA_RETURN_NOT_OK(Located(e.status(), s.having->offset));
      *having = *e;
    }
    for (auto& [index, e] : *order) {
      if (!e) continue;
      auto r = collect(e);
      FLOTILLA_RETURN_NOT_OK(Located(r.status(), s.items[0].expr->offset));
      e = *r;
    }
    for (WindowCall& w : windows_) {
      for (auto* list : {&w.arguments, &w.partition_by}) {
        for (ExprPtr& e : *list) {
          FLOTILLA_ASSIGN_OR_RETURN(e, collect(e));
        }
      }
      for (exec::SortSpec& k : w.order_by) {
        FLOTILLA_ASSIGN_OR_RETURN(k.key, collect(k.key));
      }
    }
    auto plan = exec::MakeAggregate(rel->plan, group_by, aggregates);
    FLOTILLA_RETURN_NOT_OK(Located(plan.status(), s.items[0].expr->offset));
    Relation out;
    out.plan = *plan;
    for (const Field& f : out.plan->schema()->fields()) {
      ScopeColumn c{"", f.name, f.name, IsInternal(f.name)};
      for (const ScopeColumn& in : rel->columns)
        if (in.field == f.name) c = in;
      out.columns.push_back(c);
    }
    *rel = std::move(out);
    return Status::OK();
  }

  static bool IsWindowName(const std::string& name) { return name.rfind("__w", 0) == 0; }
  static bool HasWindowRef(const ExprPtr& e) {
    for (const std::string& c : expr::Columns(e))
      if (IsWindowName(c)) return true;
    return false;
  }
  static std::string DisplayName(const std::string& field, const Relation& rel) {
    for (const ScopeColumn& c : rel.columns)
      if (c.field == field) return c.table.empty() ? c.name : c.table + "." + c.name;
    return field;
  }

  Status PlanWindows(Relation* rel) {
    // One Window node per distinct PARTITION BY / ORDER BY, in first-use order.
    while (!windows_.empty()) {
      auto spec = [](const WindowCall& w) {
        std::string key;
        for (const ExprPtr& p : w.partition_by)
          key += p->ToString() + ",";
        key += "|" + exec::SortSpecsToString(w.order_by);
        return key;
      };
      const std::string key = spec(windows_[0]);
      std::vector<exec::WindowExpression> functions;
      std::vector<WindowCall> rest;
      for (WindowCall& w : windows_) {
        if (spec(w) == key) {
          functions.push_back({w.function, w.arguments, w.frame, w.name});
        } else {
          rest.push_back(std::move(w));
        }
      }
      const WindowCall& first = windows_[0];
      auto plan = exec::MakeWindow(rel->plan, first.partition_by, first.order_by, functions);
      if (!plan.ok()) return plan.status();
      rel->plan = *plan;
      for (const exec::WindowExpression& f : functions)
        rel->columns.push_back({"", f.output_name, f.output_name, true});
      windows_ = std::move(rest);
    }
    return Status::OK();
  }

  Status ApplyLimit(Relation* r, const Query& q) {
    if (!q.limit && !q.offset_rows) return Status::OK();
    int64_t limit = -1, offset = 0;
    if (q.limit) {
      FLOTILLA_ASSIGN_OR_RETURN(limit, ConstantInt(*q.limit, "LIMIT"));
      if (limit < 0) return ErrorNear(q.limit->offset, "LIMIT must not be negative");
    }
    if (q.offset_rows) {
      FLOTILLA_ASSIGN_OR_RETURN(offset, ConstantInt(*q.offset_rows, "OFFSET"));
      if (offset < 0) return ErrorNear(q.offset_rows->offset, "OFFSET must not be negative");
    }
    FLOTILLA_ASSIGN_OR_RETURN(r->plan, exec::MakeLimit(r->plan, limit, offset));
    return Status::OK();
  }

  // ORDER BY / LIMIT of VALUES and set operations: over the output columns only.
  Result<Relation> OrderAndLimit(Relation r, const Query& q) {
    if (!q.order_by.empty()) {
      std::vector<exec::SortSpec> sort;
      for (const OrderItem& o : q.order_by) {
        std::vector<Output> outputs;
        for (const ScopeColumn& c : r.columns)
          outputs.push_back({expr::Column(c.field), c.name, "", 0});
        FLOTILLA_ASSIGN_OR_RETURN(int index, OrderOutput(*o.expr, outputs, r));
        ExprPtr key;
        if (index >= 0) {
          key = expr::Column(r.columns[index].field);
        } else {
          ExprScope es{&r, false, false, nullptr, "ORDER BY"};
          FLOTILLA_ASSIGN_OR_RETURN(key, Translate(*o.expr, es));
        }
        sort.push_back({key, o.ascending, o.nulls_first.value_or(false)});
      }
      FLOTILLA_ASSIGN_OR_RETURN(r.plan, exec::MakeSort(r.plan, sort));
    }
    FLOTILLA_RETURN_NOT_OK(ApplyLimit(&r, q));
    return r;
  }

  Result<Relation> PlanValues(const Query& q) {
    const size_t width = q.values[0].size();
    std::vector<std::vector<Array>> columns(width);
    static const Relation kNoColumns;
    for (const auto& row : q.values) {
      if (row.size() != width) {
        return ErrorNear(row.empty() ? q.offset : row[0]->offset,
                         "every VALUES row must have " + std::to_string(width) + " values");
      }
      for (size_t c = 0; c < width; ++c) {
        ExprScope es{&kNoColumns, false, false, nullptr, "VALUES"};
        FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*row[c], es));
        auto value = EvaluateConstant(e);
        if (!value.ok()) return Located(value.status(), row[c]->offset);
        columns[c].push_back(*value);
      }
    }
    std::vector<Field> fields;
    std::vector<Array> arrays;
    for (size_t c = 0; c < width; ++c) {
      TypePtr type = null();
      for (const Array& v : columns[c]) {
        if (v.type()->id() == TypeId::kNull) continue;
        if (type->id() == TypeId::kNull) {
          type = v.type();
          continue;
        }
        TypePtr common = expr::CommonType(type, v.type(), expr::CoercionPurpose::kUnify);
        if (!common) {
          return ErrorNear(q.values[0][c]->offset,
                           "VALUES column " + std::to_string(c + 1) + " mixes " +
                               type->ToString() + " and " + v.type()->ToString());
        }
        type = common;
      }
      for (Array& v : columns[c]) {
        if (!v.type()->Equals(*type)) {
          FLOTILLA_ASSIGN_OR_RETURN(v, compute::Cast(v, type));
        }
      }
      FLOTILLA_ASSIGN_OR_RETURN(Array all, Concat(columns[c]));
      fields.push_back(Field{"col" + std::to_string(c), type, true});
      arrays.push_back(std::move(all));
    }
    auto schema = std::make_shared<Schema>(fields);
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, RecordBatch::Make(schema, arrays));
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, exec::MakeInMemorySource(schema, {batch}));
    return FromPlan(plan, "");
  }

  Result<Relation> PlanSetOperation(const Query& q) {
    Planner left_planner(ctx_, ctes_, nullptr, CorrelationMode::kNone);
    Planner right_planner(ctx_, ctes_, nullptr, CorrelationMode::kNone);
    FLOTILLA_ASSIGN_OR_RETURN(Relation left, left_planner.PlanQuery(*q.left));
    FLOTILLA_ASSIGN_OR_RETURN(Relation right, right_planner.PlanQuery(*q.right));
    const Schema& ls = *left.plan->schema();
    const Schema& rs = *right.plan->schema();
    const char* op = q.set_op == SetOpKind::kUnion       ? "UNION"
                     : q.set_op == SetOpKind::kIntersect ? "INTERSECT"
                                                         : "EXCEPT";
    if (ls.num_fields() != rs.num_fields()) {
      return ErrorNear(q.offset, std::string(op) + ": the two sides have " +
                                     std::to_string(ls.num_fields()) + " and " +
                                     std::to_string(rs.num_fields()) + " columns");
    }
    // Both sides cast to common types and named as the left side.
    std::vector<ExprPtr> lp, rp;
    std::vector<ScopeColumn> columns;
    for (int i = 0; i < ls.num_fields(); ++i) {
      const TypePtr& a = ls.field(i).type;
      const TypePtr& b = rs.field(i).type;
      TypePtr type = a->Equals(*b) ? a : expr::CommonType(a, b, expr::CoercionPurpose::kUnify);
      if (!type) {
        return ErrorNear(q.offset, std::string(op) + ": column " + std::to_string(i + 1) +
                                       " is " + a->ToString() + " on the left and " +
                                       b->ToString() + " on the right");
      }
      const std::string name = ls.field(i).name;
      auto side = [&](const std::string& field, const TypePtr& t) {
        ExprPtr c = expr::Column(field);
        return expr::Alias(t->Equals(*type) ? c : expr::Cast(c, type), name);
      };
      lp.push_back(side(ls.field(i).name, a));
      rp.push_back(side(rs.field(i).name, b));
      columns.push_back({"", left.columns[i].name, name});
    }
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr l, exec::MakeProject(left.plan, lp));
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr r, exec::MakeProject(right.plan, rp));
    PlanPtr plan;
    if (q.set_op == SetOpKind::kUnion) {
      FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeConcat({l, r}));
      if (!q.all) {
        FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeDistinct(plan));
      }
    } else {
      if (q.all) {
        return ErrorNear(q.offset, std::string(op) + " ALL is not supported yet",
                         StatusCode::kNotImplemented);
      }
      // Rows of the left side that are (not) on the right, NULL equal to NULL, once each.
      std::vector<ExprPtr> keys;
      for (const ScopeColumn& c : columns)
        keys.push_back(expr::Column(c.field));
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr distinct, exec::MakeDistinct(l));
      FLOTILLA_ASSIGN_OR_RETURN(
          plan, exec::MakeHashJoin(distinct, r, keys, keys,
                                   q.set_op == SetOpKind::kIntersect ? exec::JoinType::kSemi
                                                                     : exec::JoinType::kAnti,
                                   nullptr, std::vector<bool>(keys.size(), true)));
    }
    return Relation{plan, columns};
  }

  const PlannerContext& ctx_;
  std::map<std::string, Relation> ctes_;
  const Relation* outer_;
  CorrelationMode mode_;
  std::vector<Correlation> correlations_;
  std::vector<std::string> exposed_;  // output names the correlation added
  std::vector<std::pair<std::string, std::string>> exposed_columns_;  // (inner field, name)
  std::vector<std::pair<ExprPtr, std::string>> group_keys_;          // kGroup's keys
  std::vector<WindowCall> windows_;
  int next_id_ = 0;
};

}  // namespace

Result<exec::PlanPtr> PlanQuery(const Query& query, const PlannerContext& context) {
  Planner planner(context, {}, nullptr, CorrelationMode::kNone);
  FLOTILLA_ASSIGN_OR_RETURN(Relation r, planner.PlanQuery(query));
  return r.plan;
}

}  // namespace flotilla::sql
