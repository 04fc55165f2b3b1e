// Semi and anti join pushdown. A semi or anti join only removes rows of its left input, so one
// whose keys read the columns of one input of an inner join below it (through filters and
// projections that pass those columns on) moves into that input: the rows it removes are then
// never joined. TPC-H Q18's `o_orderkey IN (orders of more than 300 items)` filters orders
// before they meet lineitem. Joins with a residual condition stay where they are (its names
// depend on the left input's schema).
#include <map>
#include <optional>
#include <set>

#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT
using expr::ExprPtr;

struct Filtering {
  const JoinNode* join;       // the semi or anti join
  std::vector<ExprPtr> keys;  // its left keys, over the names of the input it is placed on
};

bool Reads(const Schema& schema, const std::vector<ExprPtr>& keys) {
  for (const ExprPtr& k : keys)
    for (const std::string& c : expr::Columns(k))
      if (schema.GetFieldIndex(c) < 0) return false;
  return true;
}

// The keys in the names of the projection's input, when it passes on the columns they read
// (renamed or not).
std::optional<std::vector<ExprPtr>> ThroughProject(const ProjectNode& p,
                                                   const std::vector<ExprPtr>& keys) {
  const std::map<std::string, std::string> names = PassedOnColumns(p);
  std::vector<ExprPtr> out;
  for (const ExprPtr& k : keys) {
    for (const std::string& c : expr::Columns(k))
      if (!names.count(c)) return std::nullopt;
    out.push_back(expr::RenameColumns(k, names));
  }
  return out;
}

// `input` filtered by the join, placed as deep inside it as the keys allow.
Result<PlanPtr> Place(const PlanPtr& input, const Filtering& f) {
  switch (input->kind()) {
    case PlanKind::kFilter:
    case PlanKind::kSort: {
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Place(input->children()[0], f));
      return WithNewChildren(*input, {child});
    }
    case PlanKind::kProject: {
      auto keys = ThroughProject(static_cast<const ProjectNode&>(*input), f.keys);
      if (!keys) break;
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Place(input->children()[0], {f.join, *keys}));
      return WithNewChildren(*input, {child});
    }
    case PlanKind::kHashJoin: {
      const auto& j = static_cast<const JoinNode&>(*input);
      if (j.type != JoinType::kInner) break;
      const PlanPtr& left = input->children()[0];
      const PlanPtr& right = input->children()[1];
      if (Reads(*left->schema(), f.keys)) {
        FLOTILLA_ASSIGN_OR_RETURN(PlanPtr l, Place(left, f));
        return WithNewChildren(*input, {l, right});
      }
      // The right input's columns keep their names in the join's output unless they clash.
      const std::vector<std::string> right_out =
          RightOutputNames(*left->schema(), *right->schema());
      bool unrenamed = Reads(*right->schema(), f.keys);
      for (int i = 0; i < right->schema()->num_fields() && unrenamed; ++i)
        unrenamed = right_out[static_cast<size_t>(i)] == right->schema()->field(i).name;
      if (unrenamed) {
        FLOTILLA_ASSIGN_OR_RETURN(PlanPtr r, Place(right, f));
        return WithNewChildren(*input, {left, r});
      }
      break;
    }
    default:
      break;
  }
  std::vector<ExprPtr> right_keys = f.join->right_keys;
  std::vector<ExprPtr> keys = f.keys;
  FLOTILLA_RETURN_NOT_OK(
      CoerceJoinKeys(*input->schema(), *f.join->children()[1]->schema(), &keys, &right_keys));
  return MakeHashJoin(input, f.join->children()[1], keys, right_keys, f.join->type, nullptr,
                      f.join->null_equal, f.join->strategy);
}

Result<PlanPtr> Push(const PlanPtr& node) {
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, MapChildren(node, Push));
  if (out->kind() != PlanKind::kHashJoin) return out;
  const auto& j = static_cast<const JoinNode&>(*out);
  if ((j.type != JoinType::kSemi && j.type != JoinType::kAnti) || j.residual) return out;
  const PlanPtr& left = out->children()[0];
  if (left->kind() != PlanKind::kHashJoin && left->kind() != PlanKind::kProject &&
      left->kind() != PlanKind::kFilter) {
    return out;
  }
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr placed, Place(left, {&j, j.left_keys}));
  // Placed right here again: keep the node as it was.
  if (placed->kind() == PlanKind::kHashJoin && placed->children()[0] == left) return out;
  return placed;
}

}  // namespace

Result<PlanPtr> PushDownSemiJoins(const PlanPtr& plan) {
  return Push(plan);
}

}  // namespace flotilla::optimizer
