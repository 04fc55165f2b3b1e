#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "flotilla/common/ascii.h"
#include "flotilla/common/suggest.h"
#include "flotilla/compute/cast.h"
#include "flotilla/compute/concat.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/plan_rewrite.h"
#include "flotilla/sql/planner_internal.h"
#include "flotilla/sql/source_error.h"
#include "flotilla/sql/table_functions.h"
#include "flotilla/types/coercion.h"

namespace flotilla::sql::internal {

std::vector<OrderItem> Planner::ExpandOrderByAll(const std::vector<OrderItem>& items,
                                                 size_t outputs) {
  std::vector<OrderItem> out;
  for (const OrderItem& o : items) {
    if (o.expr->kind != NodeKind::kStar) {
      out.push_back(o);
      continue;
    }
    for (size_t k = 1; k <= outputs; ++k) {
      auto ordinal = std::make_shared<Node>();
      ordinal->kind = NodeKind::kLiteral;
      ordinal->literal = LiteralKind::kInteger;
      ordinal->text = std::to_string(k);
      ordinal->offset = o.expr->offset;
      OrderItem item = o;
      item.expr = ordinal;
      out.push_back(std::move(item));
    }
  }
  return out;
}

Result<NodePtr> Planner::WithAliases(const NodePtr& n,
                                     const std::map<std::string, NodePtr>& aliases,
                                     const Relation& scope) {
  if (n == nullptr || aliases.empty()) return n;
  if (n->kind == NodeKind::kColumnRef && n->names.size() == 1) {
    bool found = false;
    FLOTILLA_RETURN_NOT_OK(ResolveColumn(*n, scope, &found).status());
    auto alias = aliases.find(AsciiLower(n->names[0]));
    return found || alias == aliases.end() ? n : alias->second;  // a column of the FROM first
  }
  // Operands and window specifications (DuckDB's `QUALIFY rank() OVER (ORDER BY alias)`);
  // subqueries keep their own names.
  auto copy = std::make_shared<Node>(*n);
  bool changed = false;
  if (copy->over != nullptr) {
    auto over = std::make_shared<WindowAst>(*copy->over);
    bool window_changed = false;
    for (NodePtr& p : over->partition_by) {
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr b, WithAliases(p, aliases, scope));
      window_changed |= b != p;
      p = std::move(b);
    }
    for (OrderItem& o : over->order_by) {
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr b, WithAliases(o.expr, aliases, scope));
      window_changed |= b != o.expr;
      o.expr = std::move(b);
    }
    if (window_changed) copy->over = std::move(over), changed = true;
  }
  for (NodePtr& a : copy->args) {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr b, WithAliases(a, aliases, scope));
    changed |= b != a;
    a = std::move(b);
  }
  for (NodePtr* p : {&copy->operand, &copy->otherwise}) {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr b, WithAliases(*p, aliases, scope));
    changed |= b != *p;
    *p = std::move(b);
  }
  return changed ? NodePtr(copy) : n;
}

Result<std::vector<Planner::Output>> Planner::ExpandSelectList(const SelectCore& s,
                                                               const Relation& from,
                                                               ExprScope& es) {
  std::vector<Output> out;
  for (const SelectItem& item : s.items) {
    const Node& n = *item.expr;
    if (n.kind == NodeKind::kStar) {
      const std::string table = n.names.empty() ? "" : n.names[0];
      bool any = false;
      // EXCLUDE and REPLACE name columns as written, whatever their case.
      auto named = [](const std::string& a, const std::string& b) {
        return AsciiLower(a) == AsciiLower(b);
      };
      std::vector<bool> used_exclude(n.exclude.size()), used_replace(n.replace.size());
      for (const ScopeColumn& c : from.columns) {
        if (c.hidden || (!table.empty() && c.table != table)) continue;
        any = true;
        bool excluded = false;
        for (size_t k = 0; k < n.exclude.size(); ++k) {
          if (named(n.exclude[k], c.name)) excluded = used_exclude[k] = true;
        }
        if (excluded) continue;
        ExprPtr value = expr::Column(c.field);
        for (size_t k = 0; k < n.replace.size(); ++k) {
          if (!named(n.replace[k].second, c.name)) continue;
          FLOTILLA_ASSIGN_OR_RETURN(value, Translate(*n.replace[k].first, es));
          used_replace[k] = true;
        }
        out.push_back({value, c.name, c.table, n.offset});
      }
      if (!any && !table.empty()) {
        return ErrorNear(n.offset, "table '" + table + "' is not in the FROM clause",
                         StatusCode::kKeyError);
      }
      for (size_t k = 0; k < n.exclude.size(); ++k) {
        if (!used_exclude[k]) {
          return ErrorNear(n.offset, "column '" + n.exclude[k] + "' in EXCLUDE is not in *",
                           StatusCode::kKeyError);
        }
      }
      for (size_t k = 0; k < n.replace.size(); ++k) {
        if (!used_replace[k]) {
          return ErrorNear(n.offset, "column '" + n.replace[k].second + "' in REPLACE is not in *",
                           StatusCode::kKeyError);
        }
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

Result<Relation> Planner::PlanSelect(const SelectCore& written, const Query& q) {
  named_windows_ = &written.windows;
  FLOTILLA_ASSIGN_OR_RETURN(Relation rel, PlanFrom(written.from));
  std::optional<SelectCore> expanded;
  FLOTILLA_RETURN_NOT_OK(ExpandColumnsCalls(written, rel, &expanded));
  const SelectCore& s = expanded ? *expanded : written;
  if (s.sample) {
    // As DuckDB's: the FROM clause's rows are sampled, before WHERE.
    FLOTILLA_ASSIGN_OR_RETURN(rel.plan, Sampled(rel.plan, *s.sample));
  }
  if (s.where) {
    std::vector<const Node*> conjuncts;
    SplitAst(*s.where, &conjuncts);
    std::vector<ExprPtr> filters;
    for (const Node* c : conjuncts) {
      FLOTILLA_ASSIGN_OR_RETURN(bool applied, ApplySubqueryFilter(*c, &rel));
      if (applied) continue;
      if (HasAggregate(*c))
        return ErrorNear(c->offset, "aggregates are not allowed in WHERE; use HAVING");
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
  // QUALIFY, like the select list, over the FROM scope (group keys and aggregates are mapped to
  // the aggregation's columns with the rest), and it may name the select list's aliases
  // (`... AS rn QUALIFY rn = 1`), as in DuckDB.
  ExprPtr qualify;
  if (s.qualify) {
    ExprScope qs{&rel, aggregated, true, nullptr, "QUALIFY"};
    std::map<std::string, NodePtr> aliases;
    for (const SelectItem& item : s.items)
      if (!item.alias.empty()) aliases.emplace(AsciiLower(item.alias), item.expr);
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr node, WithAliases(s.qualify, aliases, rel));
    FLOTILLA_ASSIGN_OR_RETURN(qualify, Translate(*node, qs));
  }
  // ORDER BY items: an output ordinal or name, else an expression over the FROM scope.
  const std::vector<OrderItem> order_by = ExpandOrderByAll(q.order_by, outputs.size());
  std::vector<std::pair<int, ExprPtr>> order;  // (output index or -1, expression)
  auto resolve = [&](const Node& n, const char* clause) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(int index, OrderOutput(n, outputs));
    if (index >= 0) {
      order.push_back({index, nullptr});
      return Status::OK();
    }
    ExprScope os{&rel, aggregated, true, nullptr, clause};
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(n, os));
    int same = -1;
    for (size_t i = 0; i < outputs.size(); ++i)
      if (outputs[i].expr->ToString() == e->ToString()) same = static_cast<int>(i);
    order.push_back({same, same >= 0 ? nullptr : e});
    return Status::OK();
  };
  if (q.kind == Query::kSelect) {
    for (const OrderItem& o : order_by)
      FLOTILLA_RETURN_NOT_OK(resolve(*o.expr, "ORDER BY"));
  }
  // DISTINCT ON keys are found as ORDER BY items are, and go through the aggregation with them
  // (after the ORDER BY items in `order`).
  const size_t num_order = order.size();
  for (const NodePtr& d : s.distinct_on)
    FLOTILLA_RETURN_NOT_OK(resolve(*d, "DISTINCT ON"));

  if (aggregated) {
    FLOTILLA_RETURN_NOT_OK(PlanAggregate(s, &rel, &outputs, &having, &qualify, &order));
    if (having) {
      auto plan = exec::MakeFilter(rel.plan, having);
      FLOTILLA_RETURN_NOT_OK(Located(plan.status(), s.having->offset));
      rel.plan = *plan;
    }
  }
  FLOTILLA_RETURN_NOT_OK(PlanWindows(&rel));
  if (qualify) {
    auto plan = exec::MakeFilter(rel.plan, qualify);
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
  for (size_t i = 0; i < num_order; ++i) {
    const OrderItem& o = order_by[i];
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
  std::vector<std::string> distinct_on;
  for (size_t i = num_order; i < order.size(); ++i) {
    if (order[i].first >= 0) {
      distinct_on.push_back(columns[order[i].first].field);
      continue;
    }
    distinct_on.push_back(NewName("__distinct"));
    project.push_back(expr::Alias(order[i].second, distinct_on.back()));
  }
  FLOTILLA_RETURN_NOT_OK(PlanUnnest(&rel, &project, q.offset));
  auto projected = exec::MakeProject(rel.plan, project);
  FLOTILLA_RETURN_NOT_OK(Located(projected.status(), q.offset));
  Relation out{*projected, columns};
  if (s.distinct) {
    FLOTILLA_ASSIGN_OR_RETURN(out.plan, exec::MakeDistinct(out.plan));
  }
  if (!distinct_on.empty()) {
    // The first row of each key in ORDER BY's order (any row without an ORDER BY), as DuckDB.
    if (!sort.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(out.plan, exec::MakeSort(out.plan, sort));
    }
    FLOTILLA_ASSIGN_OR_RETURN(out.plan, exec::MakeDistinct(out.plan, distinct_on));
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

// unnest(list) in the select list, as DuckDB's: one row per element, the row dropped when the
// list is empty or null. The list is computed beside the input's columns, rows with elements
// kept, and exploded; every unnest(list) of the projection then reads the element column.
Status Planner::PlanUnnest(Relation* rel, std::vector<ExprPtr>* project, int64_t offset) {
  ExprPtr list;
  const std::string element = NewName("__unnest");
  for (ExprPtr& e : *project) {
    FLOTILLA_ASSIGN_OR_RETURN(
        e, expr::Rewrite(e, [&](const ExprPtr& n) -> Result<ExprPtr> {
          if (n->kind() != ExprKind::kCall || n->name() != "unnest") return ExprPtr();
          const ExprPtr& arg = n->children()[0];
          if (list && list->ToString() != arg->ToString()) {
            return Status::NotImplemented(
                "unnest() of two different lists in one SELECT is not supported yet");
          }
          list = arg;
          return expr::Column(element);
        }));
  }
  if (!list) return Status::OK();
  std::vector<ExprPtr> columns;
  for (const Field& f : rel->plan->schema()->fields())
    columns.push_back(expr::Column(f.name));
  columns.push_back(expr::Alias(list, element));
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, exec::MakeProject(rel->plan, columns));
  FLOTILLA_ASSIGN_OR_RETURN(
      plan, exec::MakeFilter(plan, expr::Binary(expr::BinaryOp::kGreater,
                                                expr::Call("list_length", {expr::Column(element)}),
                                                expr::Literal(int64_t{0}))));
  auto exploded = exec::MakeExplode(plan, {element});
  FLOTILLA_RETURN_NOT_OK(Located(exploded.status(), offset));
  rel->plan = *exploded;
  return Status::OK();
}

void Planner::SplitAst(const Node& n, std::vector<const Node*>* out) {
  if (n.kind == NodeKind::kBinary && n.text == "AND") {
    SplitAst(*n.args[0], out);
    SplitAst(*n.args[1], out);
  } else {
    out->push_back(&n);
  }
}

bool Planner::HasOuter(const ExprPtr& e) {
  for (const std::string& c : expr::Columns(e))
    if (IsOuter(c)) return true;
  return false;
}

Status Planner::AddCorrelation(const ExprPtr& e, int64_t offset) {
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
      return ErrorNear(offset,
                       "a correlated condition must compare an inner expression with an "
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

Result<int> Planner::OrderOutput(const Node& n, const std::vector<Output>& outputs) {
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
  return -1;
}

Status Planner::PlanAggregate(const SelectCore& s, Relation* rel, std::vector<Output>* outputs,
                              ExprPtr* having, ExprPtr* qualify,
                              std::vector<std::pair<int, ExprPtr>>* order) {
  // Group keys: ordinals and output names refer to the select list.
  std::vector<ExprPtr> keys;
  if (s.group_by_all) {
    for (const Output& o : *outputs)
      if (!expr::Contains(o.expr, ExprKind::kAggregate) && !HasWindowRef(o.expr))
        keys.push_back(o.expr);
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
    std::string name = k->kind() == ExprKind::kAlias       ? k->name()
                       : bare->kind() == ExprKind::kColumn ? bare->name()
                                                           : NewName("__g");
    key_names[text] = name;
    const bool same = bare->kind() == ExprKind::kColumn && bare->name() == name;
    group_by.push_back(same ? bare : expr::Alias(bare, name));
  }
  // Grouping sets as the names of the keys each groups by (keys the planner adds, such as
  // correlation keys, belong to every set).
  std::vector<std::set<std::string>> sets;
  for (const std::vector<size_t>& positions : s.grouping_sets) {
    std::set<std::string> names;
    for (size_t i = 0; i < keys.size(); ++i) {
      const bool listed = i >= s.group_by.size() ||
                          std::find(positions.begin(), positions.end(), i) != positions.end();
      if (listed) names.insert(key_names[expr::Unaliased(keys[i])->ToString()]);
    }
    sets.push_back(std::move(names));
  }
  // Aggregates, found in every expression that runs after the aggregation.
  std::vector<exec::AggregateSpec> aggregates;
  std::map<std::string, std::string> agg_names;
  auto collect = [&](const ExprPtr& e) -> Result<ExprPtr> {
    return expr::Rewrite(e, [&](const ExprPtr& n) -> Result<ExprPtr> {
      if (n->kind() == ExprKind::kCall && n->name() == "grouping") {
        // GROUPING(a, b, ...): bit i (from the left, most significant first) is 1 when the
        // row's set does not group by argument i.
        ExprPtr out = expr::Literal(int64_t{0});
        for (const ExprPtr& arg : n->children()) {
          auto k = key_names.find(expr::Unaliased(arg)->ToString());
          if (k == key_names.end()) {
            return Status::Invalid("GROUPING() takes GROUP BY keys, got " + arg->ToString());
          }
          ExprPtr bit =
              sets.empty() ? expr::Literal(int64_t{0}) : expr::Column(GroupingColumn(k->second));
          out = expr::Add(expr::Binary(expr::BinaryOp::kMultiply, out, expr::Literal(int64_t{2})),
                          bit);
        }
        return out;
      }
      auto key = key_names.find(n->ToString());
      if (key != key_names.end() && n->kind() != ExprKind::kLiteral)
        return expr::Column(key->second);
      if (n->kind() == ExprKind::kAggregate) {
        const std::string text = n->ToString();
        auto it = agg_names.find(text);
        if (it != agg_names.end()) return expr::Column(it->second);
        const std::string name = NewName("__a");
        agg_names[text] = name;
        aggregates.push_back({n->name(), n->children(), name});
        return expr::Column(name);
      }
      if (n->kind() == ExprKind::kColumn && !IsWindowName(n->name()) && !IsOuter(n->name()) &&
          !expr::IsLambdaParameter(n->name())) {
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
  if (*qualify) {
    auto e = collect(*qualify);
    FLOTILLA_RETURN_NOT_OK(Located(e.status(), s.qualify->offset));
    *qualify = *e;
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
  auto plan = sets.empty() ? exec::MakeAggregate(rel->plan, group_by, aggregates)
                           : PlanGroupingSets(rel->plan, group_by, aggregates, sets);
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

std::string Planner::GroupingColumn(const std::string& key) {
  return "__grouping_" + key;
}

// One aggregation per grouping set over the same input, each with every key column (NULL where
// its set does not group by the key) and a 0/1 column per key saying so, all concatenated.
Result<PlanPtr> Planner::PlanGroupingSets(const PlanPtr& input, const std::vector<ExprPtr>& keys,
                                          const std::vector<exec::AggregateSpec>& aggregates,
                                          const std::vector<std::set<std::string>>& sets) {
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr all, exec::MakeAggregate(input, keys, aggregates));
  const Schema& schema = *all->schema();
  std::vector<PlanPtr> branches;
  for (const std::set<std::string>& set : sets) {
    std::vector<ExprPtr> grouped;
    for (const ExprPtr& k : keys)
      if (set.count(k->name())) grouped.push_back(k);
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr branch, exec::MakeAggregate(input, grouped, aggregates));
    std::vector<ExprPtr> columns;
    for (const Field& f : schema.fields()) {
      const bool key = static_cast<size_t>(schema.GetFieldIndex(f.name)) < keys.size();
      columns.push_back(key && !set.count(f.name)
                            ? expr::Alias(expr::Cast(expr::NullLiteral(null()), f.type), f.name)
                            : expr::Column(f.name));
    }
    for (const ExprPtr& k : keys) {
      columns.push_back(expr::Alias(expr::Literal(int64_t{set.count(k->name()) ? 0 : 1}),
                                    GroupingColumn(k->name())));
    }
    FLOTILLA_ASSIGN_OR_RETURN(branch, exec::MakeProject(branch, columns));
    branches.push_back(std::move(branch));
  }
  return exec::MakeConcat(std::move(branches));
}

bool Planner::HasWindowRef(const ExprPtr& e) {
  for (const std::string& c : expr::Columns(e))
    if (IsWindowName(c)) return true;
  return false;
}

std::string Planner::DisplayName(const std::string& field, const Relation& rel) {
  for (const ScopeColumn& c : rel.columns)
    if (c.field == field) return c.table.empty() ? c.name : c.table + "." + c.name;
  return field;
}

Status Planner::PlanWindows(Relation* rel) {
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

Status Planner::ApplyLimit(Relation* r, const Query& q) {
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

Result<Relation> Planner::OrderAndLimit(Relation r, const Query& q) {
  if (!q.order_by.empty()) {
    std::vector<exec::SortSpec> sort;
    size_t visible = 0;
    for (const ScopeColumn& c : r.columns)
      visible += !c.hidden;
    for (const OrderItem& o : ExpandOrderByAll(q.order_by, visible)) {
      std::vector<Output> outputs;
      for (const ScopeColumn& c : r.columns)
        outputs.push_back({expr::Column(c.field), c.name, "", 0});
      FLOTILLA_ASSIGN_OR_RETURN(int index, OrderOutput(*o.expr, outputs));
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

Result<Relation> Planner::PlanValues(const Query& q) {
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
      TypePtr common = CommonType(type, v.type(), CoercionPurpose::kUnify);
      if (!common) {
        return ErrorNear(q.values[0][c]->offset, "VALUES column " + std::to_string(c + 1) +
                                                     " mixes " + type->ToString() + " and " +
                                                     v.type()->ToString());
      }
      type = common;
    }
    for (Array& v : columns[c]) {
      if (!v.type()->Equals(*type)) {
        FLOTILLA_ASSIGN_OR_RETURN(v, compute::Cast(v, type));
      }
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array all, compute::Concat(columns[c]));
    fields.push_back(Field{"col" + std::to_string(c), type, true});
    arrays.push_back(std::move(all));
  }
  auto schema = std::make_shared<Schema>(fields);
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, RecordBatch::Make(schema, arrays));
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, exec::MakeInMemorySource(schema, {batch}));
  return FromPlan(plan, "");
}

// UNION BY NAME: both sides get the left's columns, then the right's columns the left lacks
// (names match ignoring case, as DuckDB's); a side without a column gives NULL there.
Status Planner::AlignByName(Relation* left, Relation* right) {
  std::vector<std::string> names;
  auto position = [&](const Relation& side, const std::string& name) -> int {
    for (size_t i = 0; i < side.columns.size(); ++i) {
      if (AsciiLower(side.columns[i].name) == AsciiLower(name)) return static_cast<int>(i);
    }
    return -1;
  };
  for (const ScopeColumn& c : left->columns)
    names.push_back(c.name);
  for (const ScopeColumn& c : right->columns) {
    if (position(*left, c.name) < 0) names.push_back(c.name);
  }
  for (Relation* side : {left, right}) {
    std::vector<ExprPtr> items;
    for (const std::string& name : names) {
      const int i = position(*side, name);
      items.push_back(expr::Alias(i < 0 ? expr::NullLiteral(null())
                                        : expr::Column(side->columns[static_cast<size_t>(i)].field),
                                  name));
    }
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, exec::MakeProject(side->plan, items));
    *side = FromPlan(std::move(plan), "");
  }
  return Status::OK();
}

Result<Relation> Planner::PlanSetOperation(const Query& q) {
  Planner left_planner(ctx_, ctes_, nullptr, CorrelationMode::kNone);
  Planner right_planner(ctx_, ctes_, nullptr, CorrelationMode::kNone);
  FLOTILLA_ASSIGN_OR_RETURN(Relation left, left_planner.PlanQuery(*q.left));
  FLOTILLA_ASSIGN_OR_RETURN(Relation right, right_planner.PlanQuery(*q.right));
  if (q.by_name) FLOTILLA_RETURN_NOT_OK(AlignByName(&left, &right));
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
    TypePtr type = a->Equals(*b) ? a : CommonType(a, b, CoercionPurpose::kUnify);
    if (!type) {
      return ErrorNear(q.offset, std::string(op) + ": column " + std::to_string(i + 1) + " is " +
                                     a->ToString() + " on the left and " + b->ToString() +
                                     " on the right");
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
    std::vector<ExprPtr> keys;
    for (const ScopeColumn& c : columns)
      keys.push_back(expr::Column(c.field));
    const exec::JoinType type =
        q.set_op == SetOpKind::kIntersect ? exec::JoinType::kSemi : exec::JoinType::kAnti;
    if (!q.all) {
      // Rows of the left side that are (not) on the right, NULL equal to NULL, once each.
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr distinct, exec::MakeDistinct(l));
      FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeHashJoin(distinct, r, keys, keys, type, nullptr,
                                                         std::vector<bool>(keys.size(), true)));
    } else {
      // ALL keeps multiplicities: the k-th copy of a row on the left matches the k-th copy on
      // the right, so each copy is numbered among its equals and the number joins too.
      const std::string copy = NewName("__copy");
      auto numbered = [&](const PlanPtr& side) {
        return exec::MakeWindow(side, keys, {}, {{"row_number", {}, std::nullopt, copy}});
      };
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr ln, numbered(l));
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr rn, numbered(r));
      std::vector<ExprPtr> with_copy = keys;
      with_copy.push_back(expr::Column(copy));
      FLOTILLA_ASSIGN_OR_RETURN(plan,
                                exec::MakeHashJoin(ln, rn, with_copy, with_copy, type, nullptr,
                                                   std::vector<bool>(with_copy.size(), true)));
      FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeProject(plan, keys));
    }
  }
  return Relation{plan, columns};
}

}  // namespace flotilla::sql::internal
