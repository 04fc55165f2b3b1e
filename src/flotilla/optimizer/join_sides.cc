// Join sides: the hash join builds a table of its right input, so an inner or outer join puts
// the input estimated smaller on the right (a projection puts the swapped join's columns back in
// their order and names; a left join becomes a right join and the reverse), and a semi or anti
// join whose left input is estimated smaller becomes a
// right semi or anti join of the swapped inputs, which builds that input and keeps its rows.
#include <map>

#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT
using expr::ExprPtr;

Result<PlanPtr> Sides(const PlanPtr& node) {
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, MapChildren(node, Sides));
  if (out->kind() != PlanKind::kHashJoin) return out;
  const auto& join = static_cast<const JoinNode&>(*out);
  if (join.type != JoinType::kInner && join.type != JoinType::kSemi &&
      join.type != JoinType::kAnti && join.type != JoinType::kLeft &&
      join.type != JoinType::kRight && join.type != JoinType::kFull) {
    return out;
  }
  const PlanPtr& left = out->children()[0];
  const PlanPtr& right = out->children()[1];
  const double l = EstimateRows(*left), r = EstimateRows(*right);
  if (l < 0 || r < 0 || l >= r) return out;
  // Old joined row: left fields then right fields (renamed); new one: right then left.
  const Schema& ls = *left->schema();
  const Schema& rs = *right->schema();
  const std::vector<std::string> old_right = RightOutputNames(ls, rs);
  const std::vector<std::string> new_left_out = RightOutputNames(rs, ls);  // left's new names
  std::map<std::string, std::string> old_to_new;  // old joined name -> new joined name
  for (int i = 0; i < ls.num_fields(); ++i)
    old_to_new[ls.field(i).name] = new_left_out[i];
  for (int i = 0; i < rs.num_fields(); ++i)
    old_to_new[old_right[i]] = rs.field(i).name;
  ExprPtr residual = join.residual ? expr::RenameColumns(join.residual, old_to_new) : nullptr;
  if (join.type == JoinType::kSemi || join.type == JoinType::kAnti) {
    // A semi or anti join of a smaller left side builds that side instead: a right semi or
    // anti join, whose output is the same rows under the same names.
    const JoinType type =
        join.type == JoinType::kSemi ? JoinType::kRightSemi : JoinType::kRightAnti;
    return MakeHashJoin(right, left, join.right_keys, join.left_keys, type, residual,
                        join.null_equal, join.strategy);
  }
  // An outer join keeps the same side's unmatched rows from the other position: a left join
  // of a small left input builds it as a right join (its unmatched rows come out at the end).
  JoinType type = join.type;
  if (type == JoinType::kLeft) {
    type = JoinType::kRight;
  } else if (type == JoinType::kRight) {
    type = JoinType::kLeft;
  }
  FLOTILLA_ASSIGN_OR_RETURN(
      PlanPtr swapped, MakeHashJoin(right, left, join.right_keys, join.left_keys, type, residual,
                                    join.null_equal, join.strategy));
  std::vector<ExprPtr> project;
  for (const Field& f : out->schema()->fields()) {
    const std::string& now = old_to_new.at(f.name);
    project.push_back(now == f.name ? expr::Column(now) : expr::Alias(expr::Column(now), f.name));
  }
  return MakeProject(swapped, project);
}

}  // namespace

Result<PlanPtr> ChooseJoinSides(const PlanPtr& plan) {
  return Sides(plan);
}

}  // namespace flotilla::optimizer
