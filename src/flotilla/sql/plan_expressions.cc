#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "flotilla/columnar/builder.h"
#include "flotilla/common/ascii.h"
#include "flotilla/common/stack_depth.h"
#include "flotilla/common/suggest.h"
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

Result<std::string> Planner::ResolveColumn(const Node& n, const Relation& scope, bool* found) {
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
      if (!table.empty() ? c.table != table && AsciiLower(c.table) != AsciiLower(table) : c.hidden)
        continue;
      if (pass == 0 ? c.name == name : AsciiLower(c.name) == AsciiLower(name)) matches.push_back(i);
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

Status Planner::UnknownColumn(const Node& n, const Relation& scope) {
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

Result<ExprPtr> Planner::Translate(const Node& n, ExprScope& es) {
  FLOTILLA_RETURN_NOT_OK(CheckStackDepth("the query"));
  switch (n.kind) {
    case NodeKind::kColumnRef: {
      // A lambda's parameter hides columns of the same name, the innermost lambda's first.
      if (n.names.size() == 1) {
        for (auto it = lambda_params_.rbegin(); it != lambda_params_.rend(); ++it) {
          auto param = it->find(n.names[0]);
          if (param != it->end()) return expr::Column(param->second);
        }
      }
      bool found = false;
      FLOTILLA_ASSIGN_OR_RETURN(std::string field, ResolveColumn(n, *es.scope, &found));
      if (found) return expr::Column(field);
      if (outer_ != nullptr) {
        FLOTILLA_ASSIGN_OR_RETURN(field, ResolveColumn(n, *outer_, &found));
        if (found) {
          if (mode_ == CorrelationMode::kNone) {
            return ErrorNear(
                n.offset, "correlated reference to '" + n.names.back() + "' is not supported here",
                StatusCode::kNotImplemented);
          }
          return expr::Column(OuterName(field));
        }
      }
      for (const Planner* p = parent_; p != nullptr; p = p->parent_) {
        bool further = false;
        if (p->outer_ == nullptr || !ResolveColumn(n, *p->outer_, &further).ok() || !further) {
          continue;
        }
        const std::string shown =
            n.names.size() == 2 ? n.names[0] + "." + n.names[1] : n.names.back();
        return ErrorNear(n.offset,
                         "'" + shown +
                             "' belongs to a query two or more levels out: correlated "
                             "references past the next enclosing query are not supported yet",
                         StatusCode::kNotImplemented);
      }
      if (n.names.size() == 1) {
        auto now = CurrentTime(n.names[0]);
        if (now) return *now;
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
    case NodeKind::kLambda:
      return ErrorNear(n.offset,
                       "a lambda (x -> ...) is only allowed as the second argument of "
                       "list_transform or list_filter");
  }
  return Status::Internal("unknown expression");
}

Result<ExprPtr> Planner::Checked(ExprPtr e, int64_t offset) {
  auto value = EvaluateConstant(e);
  if (!value.ok()) return Located(value.status(), offset);
  return expr::Literal(*value);
}

Result<ExprPtr> Planner::TranslateLiteral(const Node& n) {
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

Result<std::pair<ExprPtr, std::string>> Planner::IntervalParts(const Node& n) {
  std::string quantity = n.text, unit = n.unit;
  if (unit.empty()) {
    const size_t space = quantity.find(' ');
    if (space == std::string::npos) {
      return ErrorNear(n.offset, "an INTERVAL needs a unit: INTERVAL '3' DAY");
    }
    unit = AsciiLower(quantity.substr(space + 1));
    quantity = quantity.substr(0, space);
  }
  char* end = nullptr;
  const long long count = std::strtoll(quantity.c_str(), &end, 10);
  if (quantity.empty() || *end != '\0') {
    return ErrorNear(n.offset,
                     "an INTERVAL's quantity must be a whole number, got '" + quantity + "'");
  }
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  return std::make_pair(expr::Literal(static_cast<int64_t>(count)), unit);
}

Result<ExprPtr> Planner::TranslateBinary(const Node& n, ExprScope& es) {
  const std::string& op = n.text;
  const Node& l = *n.args[0];
  const Node& r = *n.args[1];
  if ((op == "+" || op == "-") &&
      (r.kind == NodeKind::kInterval || l.kind == NodeKind::kInterval)) {
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
  if (op == "GLOB") return expr::Call("glob", {a, b});
  if (op == "SIMILAR TO") return expr::Call("regexp_full_match", {a, b});
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

Result<ExprPtr> Planner::TranslateFunction(const Node& n, ExprScope& es) {
  std::string name = n.names[0];
  const bool aggregate = IsAggregateName(name);
  if (n.over) return TranslateWindow(n, es);
  if (n.args.size() >= 2 && n.args[1]->kind == NodeKind::kLambda) return TranslateLambdaCall(n, es);
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
      } else if (KeepsNulls(name) && args.size() == 1) {
        return FilteredNullKeepingAggregate(n, name, args[0], cond, es);
      } else {
        // A row the filter rejects gives null values, which these aggregates skip. The first
        // argument is the aggregated value even when constant (max('z') FILTER ...); constant
        // arguments after it are parameters (a separator, a fraction) and stay as they are.
        for (size_t i = 0; i < args.size(); ++i) {
          if (i == 0 || args[i]->kind() != ExprKind::kLiteral)
            args[i] = expr::Case({{cond, args[i]}});
        }
      }
    }
    if (!n.order_by.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<ExprPtr> ordered,
                                OrderedAggregate(n, name, args, es));
      if (ordered) return *ordered;
    }
    if (const char* function = ListBackedAggregate(name)) {
      const size_t arity = name == "median" ? 1 : 2;
      if (args.size() != arity) {
        return ErrorNear(n.offset, name + "() takes " + std::to_string(arity) + " argument" +
                                       (arity == 1 ? "" : "s"));
      }
      ExprPtr values = expr::Aggregate("list", {args[0]});
      if (n.distinct) values = expr::Call("list_distinct", {values});
      args[0] = std::move(values);
      return expr::Call(function, std::move(args));
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
    return ErrorNear(n.offset, name +
                                   "() is not an aggregate function; * and DISTINCT "
                                   "belong to aggregates");
  }
  if (name == "coalesce" || name == "ifnull") return expr::Coalesce(std::move(args));
  // Replaced by the exploded column when the select list is projected (PlanUnnest).
  if (name == "unnest" && args.size() == 1) return expr::Call("unnest", std::move(args));
  if (args.empty()) {
    auto now = CurrentTime(name);
    if (now) return *now;
  }
  // Resolved against the group keys when the aggregation is planned.
  if (name == "grouping" || name == "grouping_id") return expr::Call("grouping", std::move(args));
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
  if (name == "char_length" || name == "character_length" || name == "strlen" || name == "len") {
    name = "length";
  }
  if (name == "dayofyear") name = "day_of_year";
  if (name == "struct_extract") name = "struct_get";
  if (name == "list_cat" || name == "array_concat" || name == "array_cat") name = "list_concat";
  if (name == "string_split" || name == "str_split" || name == "string_to_array") name = "split";
  if ((name == "monthname" || name == "dayname") && args.size() == 1) {
    return expr::Call("strftime", {args[0], expr::Literal(name == "monthname" ? "%B" : "%A")});
  }
  // SQL slices count from 1, both ends inclusive, as DuckDB's (the Python .list.slice, the
  // engine's list_slice, counts from 0 with an exclusive end).
  if (name == "list_slice") name = "array_slice";
  auto fn = expr::DefaultRegistry().Find(name);
  if (!fn.ok()) return ErrorNear(n.offset, fn.status().message(), StatusCode::kKeyError);
  return expr::Call(name, std::move(args));
}

// current_date / today(), current_timestamp / now() / get_current_timestamp(): the statement's
// one instant, in UTC (timestamps without a zone); nullopt for other names.
std::optional<ExprPtr> Planner::CurrentTime(const std::string& name) const {
  const bool date = name == "current_date" || name == "today";
  const bool stamp = name == "current_timestamp" || name == "now" ||
                     name == "get_current_timestamp" || name == "localtimestamp";
  if (!date && !stamp) return std::nullopt;
  if (!ctx_.statement_micros) {
    ctx_.statement_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
  }
  const int64_t micros = *ctx_.statement_micros;
  if (date) {
    NumericBuilder<int32_t> day(date32());
    const int64_t days = micros / 86'400'000'000 - (micros % 86'400'000'000 < 0 ? 1 : 0);
    if (!day.Append(static_cast<int32_t>(days)).ok()) return std::nullopt;
    return expr::Literal(day.Finish().ValueOrDie());
  }
  NumericBuilder<int64_t> stamp_value(timestamp(TimeUnit::kMicro));
  if (!stamp_value.Append(micros).ok()) return std::nullopt;
  return expr::Literal(stamp_value.Finish().ValueOrDie());
}

bool Planner::KeepsNulls(const std::string& name) {
  return name == "list" || name == "array_agg" || name == "agg_list" || name == "first" ||
         name == "last";
}

// list / first / last keep null values, so a filter cannot reject rows by nulling them: each row
// the filter keeps is collected as a one-value list, the others as null, and the nulls are
// dropped afterwards. No row kept gives null, as for a group without rows.
Result<ExprPtr> Planner::FilteredNullKeepingAggregate(const Node& n, const std::string& name,
                                                      const ExprPtr& x, const ExprPtr& cond,
                                                      ExprScope& es) {
  const ExprPtr wrapped = expr::Case({{cond, expr::Call("list_value", {x})}});
  FLOTILLA_ASSIGN_OR_RETURN(std::optional<ExprPtr> collected,
                            n.order_by.empty() ? Result<std::optional<ExprPtr>>(std::nullopt)
                                               : OrderedAggregate(n, "list", {wrapped}, es));
  if (!collected) collected = expr::Aggregate("list", {wrapped});
  const std::string element = "__lambda_filtered";  // a lambda parameter (IsLambdaParameter)
  const ExprPtr kept = expr::Call(
      "list_filter", {*collected, expr::IsNotNull(expr::Column(element)), expr::Literal(element)});
  const ExprPtr values = expr::Call(
      "list_transform",
      {kept, expr::Call("list_extract", {expr::Column(element), expr::Literal(int64_t{1})}),
       expr::Literal(element)});
  if (name == "first" || name == "last") {
    return expr::Call("list_extract", {values, expr::Literal(int64_t{name == "first" ? 1 : -1})});
  }
  return expr::Case({{expr::Binary(expr::BinaryOp::kEqual, expr::Call("list_length", {values}),
                                   expr::Literal(int64_t{0})),
                      expr::NullLiteral(null())}},
                    values);
}

// f(x ORDER BY k, ...) for the aggregates whose answer depends on the order of the rows: the
// group's (x, k, ...) rows as a list of structs, sorted by list_order_by. Other aggregates
// ignore the order (nullopt).
Result<std::optional<ExprPtr>> Planner::OrderedAggregate(const Node& n, const std::string& name,
                                                         const std::vector<ExprPtr>& args,
                                                         ExprScope& es) {
  const bool to_list = name == "list" || name == "array_agg" || name == "agg_list";
  const bool first = name == "first" || name == "any_value" || name == "arbitrary";
  const bool last = name == "last";
  if (!to_list && !first && !last && name != "string_agg") return std::optional<ExprPtr>();
  if (n.distinct) {
    return ErrorNear(n.offset, name + "(DISTINCT ... ORDER BY ...) is not supported yet",
                     StatusCode::kNotImplemented);
  }
  if (args.empty()) return ErrorNear(n.offset, name + "() needs a value to aggregate");
  std::vector<ExprPtr> fields = {expr::Literal("v"), args[0]};
  std::vector<ExprPtr> ordered;
  for (size_t i = 0; i < n.order_by.size(); ++i) {
    const OrderItem& o = n.order_by[i];
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr key, Translate(*o.expr, es));
    fields.push_back(expr::Literal("k" + std::to_string(i)));
    fields.push_back(std::move(key));
  }
  ordered.push_back(expr::Aggregate("list", {expr::Call("struct_pack", std::move(fields))}));
  for (const OrderItem& o : n.order_by) {
    ordered.push_back(expr::Literal(!o.ascending));
    ordered.push_back(expr::Literal(o.nulls_first.value_or(false)));
  }
  ExprPtr values = expr::Call("list_order_by", std::move(ordered));
  if (to_list) return std::optional<ExprPtr>(values);
  if (first || last) {
    return std::optional<ExprPtr>(
        expr::Call("list_extract", {values, expr::Literal(int64_t{first ? 1 : -1})}));
  }
  // string_agg: the non-null strings joined; null when there are none.
  ExprPtr joined =
      expr::Call("list_join", {values, args.size() > 1 ? args[1] : expr::Literal(",")});
  return std::optional<ExprPtr>(
      expr::Case({{expr::Binary(expr::BinaryOp::kGreater, expr::Aggregate("count", {args[0]}),
                                expr::Literal(int64_t{0})),
                   joined}}));
}

Result<ExprPtr> Planner::TranslateWindow(const Node& n, ExprScope& es) {
  if (!es.windows) {
    return ErrorNear(n.offset, std::string("window functions are not allowed in ") + es.clause);
  }
  WindowCall call;
  call.function = n.names[0];
  if (n.star) {
    if (call.function != "count") return ErrorNear(n.offset, "only count(*) takes *");
    call.function = "count_star";
  }
  if (n.distinct)
    return ErrorNear(n.offset, "DISTINCT in a window function is not supported",
                     StatusCode::kNotImplemented);
  if (!n.order_by.empty()) {
    return ErrorNear(n.offset,
                     "ORDER BY inside a window function's arguments is not supported; order "
                     "the window with OVER (ORDER BY ...)",
                     StatusCode::kNotImplemented);
  }
  ExprScope inner = es;
  inner.windows = false;
  inner.relation = nullptr;
  inner.clause = "a window function's arguments";
  for (const NodePtr& a : n.args) {
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*a, inner));
    call.arguments.push_back(std::move(e));
  }
  FLOTILLA_ASSIGN_OR_RETURN(const WindowAst over, ResolveWindow(*n.over));
  for (const NodePtr& p : over.partition_by) {
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*p, inner));
    call.partition_by.push_back(std::move(e));
  }
  for (const OrderItem& o : over.order_by) {
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(*o.expr, inner));
    call.order_by.push_back({e, o.ascending, o.nulls_first.value_or(false)});
  }
  if (over.has_frame) {
    exec::WindowFrame frame;
    frame.type = over.rows ? exec::WindowFrame::kRows : exec::WindowFrame::kRange;
    FLOTILLA_ASSIGN_OR_RETURN(frame.start, Bound(over.start));
    FLOTILLA_ASSIGN_OR_RETURN(frame.end, Bound(over.end));
    call.frame = frame;
  }
  call.name = NewName("__w");
  windows_.push_back(call);
  return expr::Column(call.name);
}

// Refining a named window, as DuckDB's: the refinement may add PARTITION BY, ORDER BY or a frame
// that the named window does not have, never override one it has.
Result<WindowAst> Planner::ResolveWindow(const WindowAst& over, size_t depth) const {
  if (over.base.empty()) return over;
  if (named_windows_ == nullptr || named_windows_->count(over.base) == 0) {
    return ErrorNear(over.offset, "window '" + over.base + "' is not defined (WINDOW " + over.base +
                                      " AS (...) after HAVING defines it)");
  }
  if (depth > named_windows_->size()) {
    return ErrorNear(over.offset, "window '" + over.base + "' is defined through itself");
  }
  WindowAst out = *named_windows_->at(over.base);
  if (!out.base.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(out, ResolveWindow(out, depth + 1));
  }
  if (!over.partition_by.empty()) {
    if (!out.partition_by.empty()) {
      return ErrorNear(over.offset, "window '" + over.base + "' already has PARTITION BY");
    }
    out.partition_by = over.partition_by;
  }
  if (!over.order_by.empty()) {
    if (!out.order_by.empty()) {
      return ErrorNear(over.offset, "window '" + over.base + "' already has ORDER BY");
    }
    out.order_by = over.order_by;
  }
  if (over.has_frame) {
    if (out.has_frame) {
      return ErrorNear(over.offset, "window '" + over.base + "' already has a frame");
    }
    out.has_frame = true;
    out.rows = over.rows;
    out.start = over.start;
    out.end = over.end;
  }
  out.base.clear();
  return out;
}

Result<exec::FrameBound> Planner::Bound(const FrameBoundAst& b) {
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

Result<int64_t> Planner::ConstantInt(const Node& n, const char* what) {
  static const Relation kNoColumns;
  ExprScope es{&kNoColumns, false, false, nullptr, what};
  FLOTILLA_ASSIGN_OR_RETURN(ExprPtr e, Translate(n, es));
  auto value = EvaluateConstant(expr::Cast(e, int64()));
  if (!value.ok() || value->IsNull(0)) {
    return ErrorNear(n.offset, std::string(what) + " must be a constant integer");
  }
  return value->values<int64_t>()[0];
}

// list_transform(l, x -> f(x)) / list_filter(l, x -> p(x)) with (x, i) -> ... for the
// element's 1-based position, and list_reduce(l, (acc, x[, i]) -> f[, initial]): the engine's
// call carries the body, whose parameters are columns named `__lambda<depth>_<k>` (never a
// real column's name: names starting "__" are internal), and the parameters' names:
// list_transform(l, body, '__lambda1_1'[, '__lambda1_2']); list_reduce_from(l, body, initial,
// names...) when an initial value is given.
Result<ExprPtr> Planner::TranslateLambdaCall(const Node& n, ExprScope& es) {
  static const std::map<std::string, std::string> kNames = {
      {"list_transform", "list_transform"},
      {"list_apply", "list_transform"},
      {"array_transform", "list_transform"},
      {"array_apply", "list_transform"},
      {"apply", "list_transform"},
      {"list_filter", "list_filter"},
      {"array_filter", "list_filter"},
      {"filter", "list_filter"},
      {"list_reduce", "list_reduce"},
      {"array_reduce", "list_reduce"},
      {"reduce", "list_reduce"},
  };
  auto function = kNames.find(n.names[0]);
  if (function == kNames.end()) {
    return ErrorNear(n.offset,
                     n.names[0] +
                         "() does not take a lambda; list_transform, "
                         "list_filter and list_reduce do",
                     StatusCode::kNotImplemented);
  }
  const bool reduce = function->second == "list_reduce";
  const Node& lambda = *n.args[1];
  const size_t min_params = reduce ? 2 : 1;
  if (lambda.names.size() < min_params || lambda.names.size() > min_params + 1 ||
      n.args.size() > (reduce ? 3u : 2u)) {
    return ErrorNear(lambda.offset,
                     reduce ? "list_reduce(l, (acc, x[, i]) -> ...[, initial]) takes a lambda of "
                              "two or three parameters"
                            : n.names[0] + "(l, x -> ...) takes a lambda of one or two parameters");
  }
  FLOTILLA_ASSIGN_OR_RETURN(ExprPtr list, Translate(*n.args[0], es));
  std::vector<ExprPtr> args = {list, nullptr};
  std::string name = function->second;
  if (n.args.size() == 3) {
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr initial, Translate(*n.args[2], es));
    args.push_back(initial);
    name = "list_reduce_from";
  }
  std::map<std::string, std::string> params;
  for (size_t k = 0; k < lambda.names.size(); ++k) {
    const std::string internal =
        "__lambda" + std::to_string(lambda_params_.size() + 1) + "_" + std::to_string(k + 1);
    params[lambda.names[k]] = internal;
    args.push_back(expr::Literal(internal));
  }
  lambda_params_.push_back(std::move(params));
  Result<ExprPtr> body = Translate(*lambda.args[0], es);
  lambda_params_.pop_back();
  FLOTILLA_RETURN_NOT_OK(body.status());
  const ExprPtr& b = *body;
  if (expr::Contains(b, ExprKind::kAggregate) || expr::Contains(b, ExprKind::kWindow)) {
    return ErrorNear(lambda.offset, "a lambda's body may not hold aggregates or window functions");
  }
  args[1] = b;
  return expr::Call(name, std::move(args));
}

}  // namespace flotilla::sql::internal
