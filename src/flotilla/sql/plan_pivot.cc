// PIVOT and UNPIVOT, DuckDB's statements, written in terms of what the planner already has.
//
// PIVOT s ON k [IN (...)] USING agg GROUP BY g is the grouped query
//   SELECT g, agg FILTER (WHERE k = 'a') AS a, agg FILTER (WHERE k = 'b') AS b ... GROUP BY g
// with one column per value of k (and per aggregate when there are several): the values are
// those listed, else every non-NULL value in s, found by running a query while planning (as
// DuckDB does), in sorted order. Without GROUP BY the keys are every column that neither ON nor
// the aggregates use; without USING the aggregate is count(*).
//
// UNPIVOT s ON a, b [INTO NAME n VALUE v] folds the columns into (name, value) rows next to the
// other columns, cast to one type, leaving out NULL values.

#include <fmt/format.h>

#include <set>

#include "flotilla/common/ascii.h"
#include "flotilla/compute/cast.h"
#include "flotilla/sql/planner_internal.h"
#include "flotilla/types/coercion.h"

namespace flotilla::sql::internal {
namespace {

// Pivot columns a query may make before it is taken to be a mistake.
constexpr size_t kMaxPivotColumns = 10'000;

std::shared_ptr<Node> MakeNode(NodeKind kind, int64_t offset) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->offset = offset;
  return n;
}

NodePtr Binary(const char* op, NodePtr a, NodePtr b) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::kBinary;
  n->offset = a->offset;
  n->text = op;
  n->args = {std::move(a), std::move(b)};
  return n;
}

NodePtr StringLiteral(const std::string& text, int64_t offset) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::kLiteral;
  n->offset = offset;
  n->literal = LiteralKind::kString;
  n->text = text;
  return n;
}

NodePtr AsText(NodePtr e) {
  auto n = std::make_shared<Node>();
  n->kind = NodeKind::kCast;
  n->offset = e->offset;
  n->type = utf8();
  n->args = {std::move(e)};
  return n;
}

// The column names `n` reads (lower case), to leave them out of the default GROUP BY.
void ColumnsRead(const Node& n, std::set<std::string>* out) {
  if (n.kind == NodeKind::kColumnRef) out->insert(AsciiLower(n.names.back()));
  for (const NodePtr& a : n.args)
    if (a) ColumnsRead(*a, out);
  for (const NodePtr* p : {&n.operand, &n.otherwise, &n.filter})
    if (*p) ColumnsRead(**p, out);
}

// The text of a literal in IN (...): its value as written.
std::string LiteralName(const Node& n) {
  if (n.kind == NodeKind::kUnary && n.text == "-" && !n.args.empty()) {
    return "-" + LiteralName(*n.args[0]);
  }
  return n.text;
}

}  // namespace

// The pivot columns' values as text: every combination of each ON column's values (each
// column's sorted, the first column's varying slowest), as DuckDB makes them.
Result<std::vector<std::vector<std::string>>> Planner::PivotValues(const PivotAst& p,
                                                                   int64_t offset) {
  if (!p.in.empty()) {
    if (p.on.size() != 1) {
      return ErrorNear(offset, "PIVOT ... IN (...) takes one ON column",
                       StatusCode::kNotImplemented);
    }
    std::vector<std::vector<std::string>> values;
    for (const NodePtr& v : p.in)
      values.push_back({LiteralName(*v)});
    return values;
  }
  if (!ctx_.run) {
    return ErrorNear(offset, "PIVOT without IN (...) needs queries to run while planning",
                     StatusCode::kNotImplemented);
  }
  std::vector<std::vector<std::string>> combinations = {{}};
  for (const NodePtr& on : p.on) {
    // SELECT on FROM source WHERE on IS NOT NULL GROUP BY on ORDER BY on
    auto core = std::make_shared<SelectCore>();
    core->from = {p.source};
    core->items.push_back({on, "", ""});
    core->group_by.push_back(on);
    auto not_null = MakeNode(NodeKind::kIsNull, on->offset);
    not_null->flag = true;
    not_null->args = {on};
    core->where = not_null;
    Query query;
    query.offset = offset;
    query.select = core;
    query.order_by.push_back({on, true, std::nullopt});
    Planner planner(ctx_, ctes_, nullptr, CorrelationMode::kNone);
    FLOTILLA_ASSIGN_OR_RETURN(Relation r, planner.PlanQuery(query));
    auto ran = ctx_.run(r.plan);
    FLOTILLA_RETURN_NOT_OK(Located(ran.status(), offset));
    FLOTILLA_ASSIGN_OR_RETURN(Array text, compute::Cast(ran->column(0), utf8()));
    if (combinations.size() * static_cast<size_t>(text.length()) > kMaxPivotColumns) {
      return ErrorNear(offset, fmt::format("PIVOT would make more than {} columns; list the "
                                           "values with ON column IN (...)",
                                           kMaxPivotColumns));
    }
    std::vector<std::vector<std::string>> next;
    for (const std::vector<std::string>& prefix : combinations) {
      for (int64_t i = 0; i < text.length(); ++i) {
        next.push_back(prefix);
        next.back().emplace_back(text.GetView(i));
      }
    }
    combinations = std::move(next);
  }
  return combinations;
}

Result<Relation> Planner::PlanPivot(const Query& q) {
  const PivotAst& p = *q.pivot;
  FLOTILLA_ASSIGN_OR_RETURN(Relation source, PlanTableRef(*p.source));
  std::vector<SelectItem> aggregates = p.aggregates;
  if (aggregates.empty()) {
    auto count = MakeNode(NodeKind::kFunction, q.offset);
    count->names = {"count"};
    count->star = true;
    aggregates.push_back({count, "", "count(*)"});
  }
  for (const SelectItem& a : aggregates) {
    if (a.expr->kind != NodeKind::kFunction || !HasAggregate(*a.expr) || a.expr->over) {
      return ErrorNear(a.expr->offset, "PIVOT ... USING takes aggregates, such as sum(x)");
    }
  }
  auto core = std::make_shared<SelectCore>();
  core->from = {p.source};
  core->group_by = p.group_by;
  if (core->group_by.empty()) {
    std::set<std::string> used;
    for (const NodePtr& on : p.on)
      ColumnsRead(*on, &used);
    for (const SelectItem& a : aggregates)
      ColumnsRead(*a.expr, &used);
    for (const ScopeColumn& c : source.columns) {
      if (c.hidden || used.count(AsciiLower(c.name))) continue;
      auto ref = MakeNode(NodeKind::kColumnRef, q.offset);
      ref->names = {c.name};
      core->group_by.push_back(ref);
    }
  }
  for (size_t i = 0; i < core->group_by.size(); ++i) {
    const NodePtr& key = core->group_by[i];
    core->items.push_back(
        {key, "",
         key->kind == NodeKind::kColumnRef ? key->names.back() : fmt::format("key{}", i + 1)});
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto values, PivotValues(p, q.offset));
  for (size_t v = 0; v < values.size(); ++v) {
    const std::vector<std::string>& value = values[v];
    std::string name;
    NodePtr condition;
    for (size_t k = 0; k < p.on.size(); ++k) {
      if (k > 0) name += "_";
      name += value[k];
      // Listed values compare as values; values found compare as the text they were found as.
      NodePtr equal = p.in.empty() ? Binary("=", AsText(p.on[k]), StringLiteral(value[k], q.offset))
                                   : Binary("=", p.on[k], p.in[v]);
      condition = condition ? Binary("AND", condition, equal) : equal;
    }
    for (const SelectItem& a : aggregates) {
      auto cell = std::make_shared<Node>(*a.expr);
      cell->filter = cell->filter ? Binary("AND", cell->filter, condition) : condition;
      SelectItem item{cell, name, name};
      if (aggregates.size() > 1 || !a.alias.empty()) {
        item.alias = name + "_" + (a.alias.empty() ? a.text : a.alias);
      }
      core->items.push_back(std::move(item));
    }
  }
  Query select = q;
  select.kind = Query::kSelect;
  select.select = core;
  select.pivot = nullptr;
  select.with.clear();
  return PlanQuery(select);
}

Result<Relation> Planner::PlanUnpivot(const Query& q) {
  const PivotAst& p = *q.pivot;
  FLOTILLA_ASSIGN_OR_RETURN(Relation source, PlanTableRef(*p.source));
  // The folded columns, in ON order.
  std::vector<const ScopeColumn*> folded;
  for (const NodePtr& on : p.on) {
    std::vector<std::string> names;
    if (on->kind == NodeKind::kFunction && on->names[0] == "columns") {
      FLOTILLA_ASSIGN_OR_RETURN(auto chosen, ColumnsChosen(*on, source));
      for (const ChosenColumn& c : chosen)
        names.push_back(c.name);
    } else if (on->kind == NodeKind::kColumnRef) {
      names.push_back(on->names.back());
    } else {
      return ErrorNear(on->offset, "UNPIVOT ... ON takes columns (or COLUMNS(...))");
    }
    for (const std::string& name : names) {
      const ScopeColumn* found = nullptr;
      for (const ScopeColumn& c : source.columns)
        if (!c.hidden && AsciiLower(c.name) == AsciiLower(name)) found = &c;
      if (found == nullptr) {
        return ErrorNear(on->offset, "UNPIVOT: no column '" + name + "'", StatusCode::kKeyError);
      }
      folded.push_back(found);
    }
  }
  const Schema& schema = *source.plan->schema();
  auto type_of = [&](const ScopeColumn& c) {
    return schema.field(schema.GetFieldIndex(c.field)).type;
  };
  TypePtr type = type_of(*folded[0]);
  for (const ScopeColumn* c : folded) {
    const TypePtr t = type_of(*c);
    TypePtr common = t->Equals(*type) ? type : CommonType(type, t, CoercionPurpose::kUnify);
    if (!common) {
      return ErrorNear(q.offset, "UNPIVOT: column '" + c->name + "' is " + t->ToString() +
                                     ", which does not share a type with " + type->ToString());
    }
    type = common;
  }
  std::vector<ExprPtr> project;
  std::vector<std::string> ids, values;
  for (const ScopeColumn& c : source.columns) {
    if (c.hidden || std::find(folded.begin(), folded.end(), &c) != folded.end()) continue;
    project.push_back(expr::Alias(expr::Column(c.field), c.name));
    ids.push_back(c.name);
  }
  for (const ScopeColumn* c : folded) {
    ExprPtr e = expr::Column(c->field);
    if (!type_of(*c)->Equals(*type)) e = expr::Cast(e, type);
    project.push_back(expr::Alias(e, c->name));
    values.push_back(c->name);
  }
  auto plan = exec::MakeProject(source.plan, project);
  FLOTILLA_RETURN_NOT_OK(Located(plan.status(), q.offset));
  plan = exec::MakeUnpivot(*plan, ids, values, p.name_column, p.value_column);
  FLOTILLA_RETURN_NOT_OK(Located(plan.status(), q.offset));
  if (!p.include_nulls) {
    plan = exec::MakeFilter(*plan, expr::Not(expr::IsNull(expr::Column(p.value_column))));
    FLOTILLA_RETURN_NOT_OK(Located(plan.status(), q.offset));
  }
  return OrderAndLimit(FromPlan(*plan, ""), q);
}

}  // namespace flotilla::sql::internal
