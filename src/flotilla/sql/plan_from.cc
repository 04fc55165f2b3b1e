#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "flotilla/common/ascii.h"
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

Result<Relation> Planner::Renamed(Relation r, const std::vector<std::string>& aliases,
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

Result<PlanPtr> Planner::Sampled(PlanPtr plan, const SampleAst& sample) {
  const uint64_t seed = sample.seed.value_or(std::random_device{}());
  auto sampled = sample.percent
                     ? exec::MakeSampleFraction(plan, sample.amount / 100.0, false, seed)
                     : exec::MakeSampleSize(plan, static_cast<int64_t>(sample.amount), false, seed);
  FLOTILLA_RETURN_NOT_OK(Located(sampled.status(), sample.offset));
  return sampled;
}

Result<Relation> Planner::PlanTableRef(const TableRef& t) {
  FLOTILLA_ASSIGN_OR_RETURN(Relation r, PlanUnsampledTableRef(t));
  if (t.sample) {
    FLOTILLA_ASSIGN_OR_RETURN(r.plan, Sampled(r.plan, *t.sample));
  }
  return r;
}

Result<Relation> Planner::PlanUnsampledTableRef(const TableRef& t) {
  switch (t.kind) {
    case TableRef::kNamed: {
      std::string qualifier = t.alias.empty() ? t.name : t.alias;
      auto cte = ctes_.find(t.name);
      if (cte != ctes_.end()) return Renamed(cte->second, t.column_aliases, qualifier, t.offset);
      const Catalog::Entry* entry = ctx_.catalog ? ctx_.catalog->Find(t.name) : nullptr;
      if (entry == nullptr) {
        const auto& defining = ctx_.defining_ctes;
        if (std::find(defining.begin(), defining.end(), t.name) != defining.end()) {
          return ErrorNear(t.offset, "the common table expression '" + t.name +
                                         "' refers to itself: write WITH RECURSIVE");
        }
        std::vector<std::string> names =
            ctx_.catalog ? ctx_.catalog->Names() : std::vector<std::string>{};
        for (const auto& [name, r] : ctes_)
          names.push_back(name);
        std::string message = NotFoundMessage("table", t.name, names);
        if (names.empty())
          message += " (no tables are registered; FROM 'file.parquet' reads a file)";
        return ErrorNear(t.offset, message, StatusCode::kKeyError);
      }
      if (entry->query) {
        // A view: planned again, against its own text (so its errors point into it).
        PlannerContext view_ctx = ctx_;
        view_ctx.sql = *entry->sql;
        Planner view(view_ctx, {}, nullptr, CorrelationMode::kNone);
        FLOTILLA_ASSIGN_OR_RETURN(Relation r, view.PlanQuery(*entry->query));
        FLOTILLA_ASSIGN_OR_RETURN(
            r, Renamed(std::move(r), entry->column_aliases, qualifier, t.offset));
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

Relation Planner::Joined(const Relation& left, const Relation& right, PlanPtr plan) {
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

std::map<std::string, std::string> Planner::RightNames(const Schema& left, const Schema& right) {
  SchemaPtr joined = exec::JoinOutputSchema(left, right, exec::JoinType::kInner);
  std::map<std::string, std::string> names;
  for (int i = 0; i < right.num_fields(); ++i)
    names[right.field(i).name] = joined->field(left.num_fields() + i).name;
  return names;
}

Planner::JoinKeys Planner::ExtractKeys(const std::vector<ExprPtr>& conjuncts, const Schema& left,
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

exec::JoinType Planner::ToJoinType(JoinKind kind) {
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

Result<Relation> Planner::PlanJoin(const TableRef& t) {
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

Result<size_t> Planner::FindUsing(const Relation& r, const std::string& name, const char* side,
                                  int64_t offset) {
  // As column references: the name as written, else the one column equal to it but for case
  // (an unquoted USING (A) reads "a"; a DataFrame's column may be "A").
  for (size_t i = 0; i < r.columns.size(); ++i)
    if (!r.columns[i].hidden && r.columns[i].name == name) return i;
  std::optional<size_t> found;
  for (size_t i = 0; i < r.columns.size(); ++i) {
    if (r.columns[i].hidden || AsciiLower(r.columns[i].name) != AsciiLower(name)) continue;
    if (found) {
      return ErrorNear(offset,
                       "USING column '" + name + "' is ambiguous on the " + side + " side: '" +
                           r.columns[*found].name + "' and '" + r.columns[i].name + "'",
                       StatusCode::kKeyError);
    }
    found = i;
  }
  if (found) return *found;
  return ErrorNear(offset,
                   std::string("USING column '") + name + "' is not in the " + side + " side",
                   StatusCode::kKeyError);
}

Result<Relation> Planner::PlanFrom(const std::vector<TableRefPtr>& from) {
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

}  // namespace flotilla::sql::internal
