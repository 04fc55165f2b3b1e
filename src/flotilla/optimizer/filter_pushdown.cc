// Filter pushdown: every condition moves as far down as it can go and still see the columns it
// reads with the same values, and stops above anything that changes which rows it would see
// (limits, windows, samples, outer joins' null-filled sides).
#include <map>
#include <set>

#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT
using expr::ExprKind;
using expr::ExprPtr;

std::set<std::string> Names(const Schema& schema) {
  std::set<std::string> names;
  for (const Field& f : schema.fields())
    names.insert(f.name);
  return names;
}

bool ReadsOnly(const ExprPtr& e, const std::set<std::string>& names) {
  for (const std::string& c : expr::Columns(e))
    if (!names.count(c)) return false;
  return true;
}

// Column references in `e`, repeats counted.
void CountColumnReferences(const ExprPtr& e, std::map<std::string, int>* counts) {
  if (e->kind() == ExprKind::kColumn && !expr::IsLambdaParameter(e->name())) ++(*counts)[e->name()];
  for (const ExprPtr& c : e->children())
    CountColumnReferences(c, counts);
}

// A column, a constant, or a cast or alias of one: as cheap to repeat as to read.
bool IsTrivial(const ExprPtr& e) {
  switch (e->kind()) {
    case ExprKind::kColumn:
    case ExprKind::kLiteral:
      return true;
    case ExprKind::kAlias:
    case ExprKind::kCast:
      return IsTrivial(e->children()[0]);
    default:
      return false;
  }
}

// The conditions without repeats (an implied condition is derived again by every pass).
std::vector<ExprPtr> Distinct(const std::vector<ExprPtr>& conditions) {
  std::vector<ExprPtr> out;
  std::set<std::string> seen;
  for (const ExprPtr& c : conditions)
    for (const ExprPtr& conjunct : expr::SplitConjuncts(c))
      if (seen.insert(conjunct->ToString()).second) out.push_back(conjunct);
  return out;
}

Result<PlanPtr> WithFilter(PlanPtr plan, const std::vector<ExprPtr>& conditions) {
  if (conditions.empty()) return plan;
  return MakeFilter(std::move(plan), expr::JoinConjuncts(Distinct(conditions)));
}

// For an OR across both sides of a join, what it implies for the side with `names`: the OR of
// each branch's conjuncts that read that side only, when every branch has some. TPC-H Q7's
// (n1 = 'FRANCE' AND n2 = 'GERMANY') OR (n1 = 'GERMANY' AND n2 = 'FRANCE') implies
// n1 IN both and n2 IN both, which the nation inputs can filter by before the join.
ExprPtr ImpliedFor(const ExprPtr& c, const std::set<std::string>& names) {
  const std::vector<ExprPtr> branches = expr::SplitDisjuncts(c);
  if (branches.size() < 2) return nullptr;
  ExprPtr implied;
  for (const ExprPtr& branch : branches) {
    std::vector<ExprPtr> own;
    for (const ExprPtr& conjunct : expr::SplitConjuncts(branch))
      if (!expr::Columns(conjunct).empty() && ReadsOnly(conjunct, names)) own.push_back(conjunct);
    if (own.empty()) return nullptr;
    implied = implied ? expr::Or(implied, expr::JoinConjuncts(own)) : expr::JoinConjuncts(own);
  }
  return implied;
}

Result<PlanPtr> Push(const PlanPtr& node, std::vector<ExprPtr> conditions);

// Joins: conditions on one side go to it; equalities across become keys (inner joins).
Result<PlanPtr> PushJoin(const PlanPtr& node, std::vector<ExprPtr> conditions) {
  const PlanPtr& left = node->children()[0];
  const PlanPtr& right = node->children()[1];
  const bool cross = node->kind() == PlanKind::kCrossJoin;
  const JoinNode* join = cross ? nullptr : static_cast<const JoinNode*>(node.get());
  const JoinType type = cross ? JoinType::kInner : join->type;
  const std::set<std::string> left_names = Names(*left->schema());
  std::vector<std::string> right_out = RightOutputNames(*left->schema(), *right->schema());
  std::map<std::string, std::string> to_right;  // joined name -> right input name
  std::set<std::string> right_names;
  for (int i = 0; i < right->schema()->num_fields(); ++i) {
    to_right[right_out[i]] = right->schema()->field(i).name;
    right_names.insert(right_out[i]);
  }
  // Semi and anti joins output the left side only, so every condition above reads the left.
  const bool left_pushable = type == JoinType::kInner || type == JoinType::kLeft ||
                             type == JoinType::kSemi || type == JoinType::kAnti;
  const bool right_pushable = type == JoinType::kInner || type == JoinType::kRight;
  std::vector<ExprPtr> to_left_side, to_right_side, above, residual;
  std::vector<ExprPtr> left_keys, right_keys;
  std::vector<bool> null_equal;
  if (join) {
    left_keys = join->left_keys;
    right_keys = join->right_keys;
    null_equal = join->null_equal;
    // The join's own conditions on the side whose rows it does not keep unmatched filter that
    // side's input instead (Q13's LEFT JOIN orders ON ... AND o_comment NOT LIKE ...).
    const bool right_filterable = type == JoinType::kInner || type == JoinType::kLeft ||
                                  type == JoinType::kSemi || type == JoinType::kAnti;
    const bool left_filterable =
        type == JoinType::kInner || type == JoinType::kRight || type == JoinType::kSemi;
    for (const ExprPtr& c : expr::SplitConjuncts(join->residual)) {
      if (expr::Columns(c).empty()) {
        residual.push_back(c);
      } else if (right_filterable && ReadsOnly(c, right_names)) {
        to_right_side.push_back(expr::RenameColumns(c, to_right));
      } else if (left_filterable && ReadsOnly(c, left_names)) {
        to_left_side.push_back(c);
      } else {
        residual.push_back(c);
      }
    }
  }
  // Conditions across both sides stay where they are and also filter each side by what they
  // imply for it.
  std::vector<ExprPtr> implied;
  if (type == JoinType::kInner) implied = conditions;
  for (const ExprPtr& c : residual)
    for (const ExprPtr& conjunct : expr::SplitConjuncts(c))
      implied.push_back(conjunct);
  for (const ExprPtr& c : implied) {
    if (ReadsOnly(c, left_names) || ReadsOnly(c, right_names)) continue;
    if (type == JoinType::kInner || type == JoinType::kSemi || type == JoinType::kRight) {
      if (ExprPtr l = ImpliedFor(c, left_names)) to_left_side.push_back(l);
    }
    if (type == JoinType::kInner || type == JoinType::kSemi || type == JoinType::kLeft ||
        type == JoinType::kAnti) {
      if (ExprPtr r = ImpliedFor(c, right_names))
        to_right_side.push_back(expr::RenameColumns(r, to_right));
    }
  }
  for (const ExprPtr& c : conditions) {
    if (left_pushable && ReadsOnly(c, left_names)) {
      to_left_side.push_back(c);
    } else if (right_pushable && ReadsOnly(c, right_names)) {
      to_right_side.push_back(expr::RenameColumns(c, to_right));
    } else if (type == JoinType::kInner) {
      const ExprPtr& bare = c;
      if (bare->kind() == ExprKind::kBinary && bare->binary_op() == expr::BinaryOp::kEqual) {
        const ExprPtr& a = bare->children()[0];
        const ExprPtr& b = bare->children()[1];
        const bool a_left = !expr::Columns(a).empty() && ReadsOnly(a, left_names);
        const bool b_left = !expr::Columns(b).empty() && ReadsOnly(b, left_names);
        const bool a_right = !expr::Columns(a).empty() && ReadsOnly(a, right_names);
        const bool b_right = !expr::Columns(b).empty() && ReadsOnly(b, right_names);
        if ((a_left && b_right) || (a_right && b_left)) {
          left_keys.push_back(a_left ? a : b);
          right_keys.push_back(expr::RenameColumns(a_left ? b : a, to_right));
          if (!null_equal.empty()) null_equal.push_back(false);
          continue;
        }
      }
      residual.push_back(c);
    } else {
      above.push_back(c);
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr new_left, Push(left, std::move(to_left_side)));
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr new_right, Push(right, std::move(to_right_side)));
  FLOTILLA_RETURN_NOT_OK(
      CoerceJoinKeys(*new_left->schema(), *new_right->schema(), &left_keys, &right_keys));
  PlanPtr out;
  if (left_keys.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(out, MakeCrossJoin(new_left, new_right));
    FLOTILLA_ASSIGN_OR_RETURN(out, WithFilter(out, residual));
  } else if (node->kind() == PlanKind::kSortMergeJoin) {
    FLOTILLA_ASSIGN_OR_RETURN(
        out, MakeSortMergeJoin(new_left, new_right, left_keys, right_keys, type, null_equal));
    FLOTILLA_ASSIGN_OR_RETURN(out, WithFilter(out, residual));
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(out,
                              MakeHashJoin(new_left, new_right, left_keys, right_keys, type,
                                           expr::JoinConjuncts(residual), null_equal,
                                           join != nullptr ? join->strategy : JoinStrategy::kAuto));
  }
  return WithFilter(out, above);
}

Result<PlanPtr> Push(const PlanPtr& node, std::vector<ExprPtr> conditions) {
  auto recurse = [](const PlanPtr& c) { return Push(c, {}); };
  switch (node->kind()) {
    case PlanKind::kFilter: {
      const auto& f = static_cast<const FilterNode&>(*node);
      expr::SplitConjuncts(f.predicate, &conditions);
      return Push(node->children()[0], std::move(conditions));
    }
    case PlanKind::kProject: {
      const auto& p = static_cast<const ProjectNode&>(*node);
      std::map<std::string, ExprPtr> definitions;
      const Schema& schema = *node->schema();
      for (size_t i = 0; i < p.expressions.size(); ++i) {
        const ExprPtr& e = p.expressions[i];
        if (expr::Contains(e, ExprKind::kAggregate) || expr::Contains(e, ExprKind::kWindow))
          continue;
        definitions[schema.field(static_cast<int>(i)).name] = e;
      }
      // A condition below the projection computes the columns it reads itself. That is free
      // for trivial columns; a computed one is computed again for every reference (a quality
      // filter reading html_to_text(...) seven times parsed each page eight times), so it moves
      // down only when it is operators without function calls (arithmetic, comparisons, CASE)
      // read once among the conditions. A volatile call never moves: the condition would see
      // other random() values than the output.
      std::map<std::string, int> references;
      for (const ExprPtr& c : conditions)
        CountColumnReferences(c, &references);
      std::vector<ExprPtr> down, above;
      for (const ExprPtr& c : conditions) {
        bool ok = true;
        for (const std::string& col : expr::Columns(c)) {
          auto it = definitions.find(col);
          ok &= it != definitions.end() &&
                (IsTrivial(it->second) ||
                 (references[col] == 1 && !expr::Contains(it->second, ExprKind::kCall)));
        }
        if (ok) {
          down.push_back(expr::SubstituteColumns(c, definitions));
        } else {
          above.push_back(c);
        }
      }
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Push(node->children()[0], std::move(down)));
      PlanPtr out = node;
      if (child != node->children()[0]) {
        FLOTILLA_ASSIGN_OR_RETURN(out, WithNewChildren(*node, {child}));
      }
      return WithFilter(out, above);
    }
    case PlanKind::kSort:
    case PlanKind::kDistinct:
    case PlanKind::kRepartition: {
      // Distinct keeps the first row of each group; a condition on every column commutes with
      // it, on some columns only when those are all of its keys.
      std::vector<ExprPtr> down, above;
      if (node->kind() == PlanKind::kDistinct) {
        const auto& d = static_cast<const DistinctNode&>(*node);
        const std::set<std::string> keys(d.columns.begin(), d.columns.end());
        for (const ExprPtr& c : conditions)
          (d.columns.empty() || ReadsOnly(c, keys) ? down : above).push_back(c);
      } else {
        down = std::move(conditions);
      }
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Push(node->children()[0], std::move(down)));
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, WithNewChildren(*node, {child}));
      return WithFilter(out, above);
    }
    case PlanKind::kConcat: {
      std::vector<PlanPtr> children;
      for (const PlanPtr& c : node->children()) {
        // Children share the concat's names by position.
        std::map<std::string, std::string> names;
        for (int i = 0; i < c->schema()->num_fields(); ++i)
          names[node->schema()->field(i).name] = c->schema()->field(i).name;
        std::vector<ExprPtr> renamed;
        for (const ExprPtr& cond : conditions)
          renamed.push_back(expr::RenameColumns(cond, names));
        FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Push(c, std::move(renamed)));
        children.push_back(child);
      }
      return MakeConcat(std::move(children));
    }
    case PlanKind::kAggregate: {
      const auto& a = static_cast<const AggregateNode&>(*node);
      if (a.mode != AggregateMode::kSingle) break;
      // Conditions on group keys hold for the group's rows too.
      std::map<std::string, ExprPtr> keys;
      for (size_t i = 0; i < a.group_by.size(); ++i)
        keys[node->schema()->field(static_cast<int>(i)).name] = a.group_by[i];
      std::vector<ExprPtr> down, above;
      for (const ExprPtr& c : conditions) {
        bool ok = !a.group_by.empty();
        for (const std::string& col : expr::Columns(c))
          ok &= keys.count(col) > 0;
        if (ok) {
          down.push_back(expr::SubstituteColumns(c, keys));
        } else {
          above.push_back(c);
        }
      }
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Push(node->children()[0], std::move(down)));
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, WithNewChildren(*node, {child}));
      return WithFilter(out, above);
    }
    case PlanKind::kHashJoin:
    case PlanKind::kCrossJoin:
    case PlanKind::kSortMergeJoin:
      return PushJoin(node, std::move(conditions));
    case PlanKind::kScan: {
      if (conditions.empty()) return node;
      const auto& s = static_cast<const ScanNode&>(*node);
      ScanPushdowns pushdowns = s.pushdowns;
      if (pushdowns.limit) break;  // the limit was applied before these conditions
      if (pushdowns.filter) conditions.insert(conditions.begin(), pushdowns.filter);
      pushdowns.filter = expr::JoinConjuncts(Distinct(conditions));
      if (pushdowns.filter->ToString() ==
          (s.pushdowns.filter ? s.pushdowns.filter->ToString() : "")) {
        return node;
      }
      auto scan = MakeScan(s.file_schema, s.tasks, pushdowns);
      if (!scan.ok()) break;  // e.g. a condition the scan's columns cannot bind: keep it above
      return scan;
    }
    default:
      break;
  }
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, MapChildren(node, recurse));
  return WithFilter(out, conditions);
}

}  // namespace

Result<PlanPtr> PushDownFilters(const PlanPtr& plan) {
  return Push(plan, {});
}

}  // namespace flotilla::optimizer
