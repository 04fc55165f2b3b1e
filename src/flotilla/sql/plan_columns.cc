// COLUMNS(...), DuckDB's column-set expressions: an expression written once over a set of
// columns, chosen by a regular expression (matched anywhere in the name), a list of names or *
// [EXCLUDE (...)]. In the select list each item becomes one item per column, named after the
// column (or after the alias, whose \1.. refer to the regular expression's groups); in WHERE
// each conjunct becomes the AND of its copies. Expanded on the syntax tree, before planning, so
// aggregates and windows over COLUMNS behave as if each column had been written out.

#include <re2/re2.h>

#include "flotilla/common/ascii.h"
#include "flotilla/sql/planner_internal.h"

namespace flotilla::sql::internal {
namespace {

bool IsColumnsCall(const Node& n) {
  return n.kind == NodeKind::kFunction && n.names.size() == 1 && n.names[0] == "columns";
}

// The first COLUMNS call under `n` (not inside subqueries, which have their own scope).
const Node* FindColumnsCall(const Node& n) {
  if (IsColumnsCall(n)) return &n;
  for (const NodePtr& a : n.args)
    if (a) {
      if (const Node* found = FindColumnsCall(*a)) return found;
    }
  for (const NodePtr* p : {&n.operand, &n.otherwise, &n.filter})
    if (*p) {
      if (const Node* found = FindColumnsCall(**p)) return found;
    }
  return nullptr;
}

// Whether two COLUMNS calls choose the same columns (as written).
bool SameSelection(const Node& a, const Node& b) {
  if (a.star != b.star || a.exclude != b.exclude || a.args.size() != b.args.size()) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    const Node& x = *a.args[i];
    const Node& y = *b.args[i];
    if (x.kind != y.kind || x.text != y.text || x.args.size() != y.args.size()) return false;
    for (size_t j = 0; j < x.args.size(); ++j)
      if (x.args[j]->text != y.args[j]->text) return false;
  }
  return true;
}

}  // namespace

Result<std::vector<Planner::ChosenColumn>> Planner::ColumnsChosen(const Node& call,
                                                                  const Relation& from) {
  std::vector<ChosenColumn> chosen;
  auto visible = [&](const ScopeColumn& c) { return !c.hidden; };
  auto ref = [](const ScopeColumn& c) {
    auto n = std::make_shared<Node>();
    n->kind = NodeKind::kColumnRef;
    n->names = c.table.empty() ? std::vector<std::string>{c.name}
                               : std::vector<std::string>{c.table, c.name};
    return n;
  };
  if (call.star) {
    if (!call.replace.empty()) {
      return ErrorNear(call.offset, "COLUMNS(* REPLACE ...) is not supported; use * REPLACE",
                       StatusCode::kNotImplemented);
    }
    std::vector<bool> used(call.exclude.size());
    for (const ScopeColumn& c : from.columns) {
      if (!visible(c)) continue;
      bool excluded = false;
      for (size_t k = 0; k < call.exclude.size(); ++k) {
        if (AsciiLower(call.exclude[k]) == AsciiLower(c.name)) excluded = used[k] = true;
      }
      if (!excluded) chosen.push_back({ref(c), c.name});
    }
    for (size_t k = 0; k < call.exclude.size(); ++k) {
      if (!used[k]) {
        return ErrorNear(call.offset, "column '" + call.exclude[k] + "' in EXCLUDE is not in *",
                         StatusCode::kKeyError);
      }
    }
  } else if (call.args.size() == 1 && call.args[0]->kind == NodeKind::kLiteral &&
             call.args[0]->literal == LiteralKind::kString) {
    const std::string& pattern = call.args[0]->text;
    RE2 re(pattern, RE2::Quiet);
    if (!re.ok()) {
      return ErrorNear(call.args[0]->offset,
                       "COLUMNS('" + pattern + "'): not a regular expression: " + re.error());
    }
    for (const ScopeColumn& c : from.columns)
      if (visible(c) && RE2::PartialMatch(c.name, re)) chosen.push_back({ref(c), c.name});
    if (chosen.empty()) {
      return ErrorNear(call.offset, "COLUMNS('" + pattern + "') matches no column",
                       StatusCode::kKeyError);
    }
  } else if (call.args.size() == 1 && call.args[0]->kind == NodeKind::kFunction &&
             call.args[0]->names[0] == "list_value") {
    for (const NodePtr& name : call.args[0]->args) {
      if (name->kind != NodeKind::kLiteral || name->literal != LiteralKind::kString) {
        return ErrorNear(name->offset, "COLUMNS([...]) takes column names as strings");
      }
      const ScopeColumn* found = nullptr;
      for (const ScopeColumn& c : from.columns)
        if (visible(c) && AsciiLower(c.name) == AsciiLower(name->text)) found = &c;
      if (found == nullptr) {
        return ErrorNear(name->offset, "COLUMNS: no column '" + name->text + "'",
                         StatusCode::kKeyError);
      }
      chosen.push_back({ref(*found), found->name});
    }
  } else {
    return ErrorNear(call.offset,
                     "COLUMNS takes a regular expression ('...'), a list of column names "
                     "(['a', 'b']) or * [EXCLUDE (...)]");
  }
  return chosen;
}

// `n` with every COLUMNS call replaced by `column`; a call choosing other columns is an error.
Result<NodePtr> Planner::WithColumn(const NodePtr& n, const Node& call, const NodePtr& column) {
  if (!n) return n;
  if (IsColumnsCall(*n)) {
    if (!SameSelection(*n, call)) {
      return ErrorNear(n->offset, "one expression may use only one COLUMNS(...) selection",
                       StatusCode::kNotImplemented);
    }
    return column;
  }
  auto copy = std::make_shared<Node>(*n);
  for (NodePtr& a : copy->args) {
    FLOTILLA_ASSIGN_OR_RETURN(a, WithColumn(a, call, column));
  }
  for (NodePtr* p : {&copy->operand, &copy->otherwise, &copy->filter}) {
    FLOTILLA_ASSIGN_OR_RETURN(*p, WithColumn(*p, call, column));
  }
  return NodePtr(copy);
}

Status Planner::ExpandColumnsCalls(const SelectCore& s, const Relation& from,
                                   std::optional<SelectCore>* expanded) {
  bool any = s.where && FindColumnsCall(*s.where);
  for (const SelectItem& item : s.items)
    any |= FindColumnsCall(*item.expr) != nullptr;
  if (!any) return Status::OK();
  SelectCore out = s;
  out.items.clear();
  for (const SelectItem& item : s.items) {
    const Node* call = FindColumnsCall(*item.expr);
    if (call == nullptr) {
      out.items.push_back(item);
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<ChosenColumn> chosen, ColumnsChosen(*call, from));
    const bool regex = !call->star && call->args[0]->kind == NodeKind::kLiteral;
    for (const ChosenColumn& c : chosen) {
      SelectItem copy;
      FLOTILLA_ASSIGN_OR_RETURN(copy.expr, WithColumn(item.expr, *call, c.ref));
      copy.alias = c.name;
      if (!item.alias.empty()) {
        copy.alias = item.alias;
        // AS '\1_x': the alias as a rewrite of the column's name by the regular expression.
        if (regex) {
          std::string name = c.name;
          if (RE2::Replace(&name, call->args[0]->text, item.alias)) copy.alias = name;
        }
      }
      copy.text = copy.alias;
      out.items.push_back(std::move(copy));
    }
  }
  if (s.where) {
    std::vector<const Node*> conjuncts;
    SplitAst(*s.where, &conjuncts);
    NodePtr where;
    auto add = [&](NodePtr c) {
      if (!where) {
        where = std::move(c);
        return;
      }
      auto both = std::make_shared<Node>();
      both->kind = NodeKind::kBinary;
      both->offset = c->offset;
      both->text = "AND";
      both->args = {where, std::move(c)};
      where = both;
    };
    for (const Node* c : conjuncts) {
      auto conjunct = std::make_shared<Node>(*c);
      const Node* call = FindColumnsCall(*c);
      if (call == nullptr) {
        add(conjunct);
        continue;
      }
      FLOTILLA_ASSIGN_OR_RETURN(std::vector<ChosenColumn> chosen, ColumnsChosen(*call, from));
      for (const ChosenColumn& column : chosen) {
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, WithColumn(conjunct, *call, column.ref));
        add(std::move(e));
      }
    }
    out.where = std::move(where);
  }
  *expanded = std::move(out);
  return Status::OK();
}

}  // namespace flotilla::sql::internal
