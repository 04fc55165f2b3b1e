// Aggregate input reduction. An aggregate grouped by a join's keys and joined (inner, or as the
// right side of a left join) to an outer input keeps only the groups whose keys the outer input
// has; the others are computed and dropped. A semi join of the aggregate's input with the outer
// keys drops their rows before they are aggregated. The keys may come from any part of the
// outer input that carries the key columns (a superset of the keys filters no less correctly),
// so the smallest such part is used: TPC-H Q17's per-part averages over lineitem are computed
// only for the parts of one brand and container, and Q20's sums only for the (part, supplier)
// pairs of 'forest' parts. That part of the outer input is then read twice, so the rule applies
// only where it is estimated well under the aggregate's input.
#include <map>
#include <optional>

#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT
using expr::ExprKind;
using expr::ExprPtr;

// The column a plain (possibly aliased) column expression reads, if it is one.
std::optional<std::string> PlainColumn(const ExprPtr& e) {
  const ExprPtr& inner = expr::Unaliased(e);
  if (inner->kind() != ExprKind::kColumn) return std::nullopt;
  return inner->name();
}

// Key columns named in `node`'s output, followed down to the smallest part of `node` that
// still carries all of them (through filters, projections that pass them on, inner and cross
// joins and the kept side of semi and anti joins). Returns that part and the keys' names in it.
std::pair<PlanPtr, std::vector<std::string>> SmallestCarrier(const PlanPtr& node,
                                                             std::vector<std::string> keys) {
  std::pair<PlanPtr, std::vector<std::string>> best{node, keys};
  double best_rows = EstimateRows(*node);
  PlanPtr at = node;
  while (true) {
    std::optional<PlanPtr> next;
    switch (at->kind()) {
      case PlanKind::kFilter:
        next = at->children()[0];
        break;
      case PlanKind::kProject: {
        const auto passed = PassedOnColumns(static_cast<const ProjectNode&>(*at));
        std::vector<std::string> renamed;
        for (const std::string& k : keys) {
          auto it = passed.find(k);
          if (it == passed.end()) break;
          renamed.push_back(it->second);
        }
        if (renamed.size() == keys.size()) {
          keys = std::move(renamed);
          next = at->children()[0];
        }
        break;
      }
      case PlanKind::kHashJoin:
      case PlanKind::kCrossJoin: {
        // A cross join keeps both sides' rows as an inner join does.
        const JoinType type = at->kind() == PlanKind::kCrossJoin
                                  ? JoinType::kInner
                                  : static_cast<const JoinNode&>(*at).type;
        const PlanPtr& left = at->children()[0];
        const PlanPtr& right = at->children()[1];
        auto carries = [&](const PlanPtr& side) {
          for (const std::string& k : keys)
            if (side->schema()->GetFieldIndex(k) < 0) return false;
          return true;
        };
        const bool left_kept =
            type == JoinType::kInner || type == JoinType::kSemi || type == JoinType::kAnti;
        if (left_kept && carries(left)) {
          next = left;
        } else if (type == JoinType::kInner && carries(right)) {
          // Only when the right side's columns keep their names in the join's output.
          const auto out = RightOutputNames(*left->schema(), *right->schema());
          bool unrenamed = true;
          for (const std::string& k : keys)
            unrenamed &= out[static_cast<size_t>(right->schema()->GetFieldIndex(k))] == k;
          if (unrenamed) next = right;
        } else if ((type == JoinType::kRightSemi || type == JoinType::kRightAnti) &&
                   carries(right)) {
          next = right;
        }
        break;
      }
      default:
        break;
    }
    if (!next) return best;
    at = *next;
    if (const double rows = EstimateRows(*at); rows < best_rows) {
      best = {at, keys};
      best_rows = rows;
    }
  }
}

// `side` (an aggregate under projections) with its input semi joined to `outer` on the
// join keys that are its group columns; nullopt when it is not such a side or nothing is gained.
Result<std::optional<PlanPtr>> Reduce(const PlanPtr& side, const std::vector<ExprPtr>& side_keys,
                                      const PlanPtr& outer, const std::vector<ExprPtr>& outer_keys,
                                      const std::vector<bool>& null_equal) {
  // Down through projections to the aggregate, following the key names.
  std::vector<PlanPtr> path;
  std::vector<std::optional<std::string>> names;
  for (const ExprPtr& k : side_keys)
    names.push_back(PlainColumn(k));
  PlanPtr at = side;
  while (at->kind() == PlanKind::kProject) {
    const auto passed = PassedOnColumns(static_cast<const ProjectNode&>(*at));
    for (auto& name : names) {
      if (!name) continue;
      auto it = passed.find(*name);
      name = it == passed.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    path.push_back(at);
    at = at->children()[0];
  }
  if (at->kind() != PlanKind::kAggregate) return std::nullopt;
  const auto& aggregate = static_cast<const AggregateNode&>(*at);
  if (aggregate.mode != AggregateMode::kSingle || aggregate.group_by.empty()) return std::nullopt;
  const PlanPtr& input = at->children()[0];
  // Each key that is a group column read straight from the input, with its outer key column.
  std::vector<std::string> input_columns, outer_columns;
  std::vector<bool> equal;
  for (size_t k = 0; k < names.size(); ++k) {
    auto outer_column = PlainColumn(outer_keys[k]);
    if (!names[k] || !outer_column) continue;
    const int g = at->schema()->GetFieldIndex(*names[k]);
    if (g < 0 || g >= static_cast<int>(aggregate.group_by.size())) continue;
    auto column = PlainColumn(aggregate.group_by[static_cast<size_t>(g)]);
    if (!column) continue;
    input_columns.push_back(*column);
    outer_columns.push_back(*outer_column);
    equal.push_back(null_equal[k]);
  }
  if (input_columns.empty()) return std::nullopt;
  auto [carrier, carrier_columns] = SmallestCarrier(outer, outer_columns);
  const double reducer_rows = EstimateRows(*carrier), input_rows = EstimateRows(*input);
  if (reducer_rows < 0 || input_rows < 0 || 2 * reducer_rows >= input_rows) return std::nullopt;
  std::vector<ExprPtr> keep, left_keys, right_keys;
  for (size_t k = 0; k < input_columns.size(); ++k) {
    keep.push_back(expr::Column(carrier_columns[k]));
    left_keys.push_back(expr::Column(input_columns[k]));
    right_keys.push_back(expr::Column(carrier_columns[k]));
  }
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr reducer, MakeProject(carrier, keep));
  FLOTILLA_RETURN_NOT_OK(
      CoerceJoinKeys(*input->schema(), *reducer->schema(), &left_keys, &right_keys));
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr reduced, MakeHashJoin(input, reducer, left_keys, right_keys,
                                                          JoinType::kSemi, nullptr, equal));
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, WithNewChildren(*at, {reduced}));
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    FLOTILLA_ASSIGN_OR_RETURN(out, WithNewChildren(**it, {out}));
  }
  return std::optional<PlanPtr>(out);
}

Result<PlanPtr> ReduceJoins(const PlanPtr& node) {
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, MapChildren(node, ReduceJoins));
  if (out->kind() != PlanKind::kHashJoin) return out;
  const auto& j = static_cast<const JoinNode&>(*out);
  if (j.strategy != JoinStrategy::kAuto) return out;
  const PlanPtr& left = out->children()[0];
  const PlanPtr& right = out->children()[1];
  if (j.type == JoinType::kInner || j.type == JoinType::kLeft) {
    FLOTILLA_ASSIGN_OR_RETURN(auto reduced,
                              Reduce(right, j.right_keys, left, j.left_keys, j.null_equal));
    if (reduced) return WithNewChildren(*out, {left, *reduced});
  }
  if (j.type == JoinType::kInner || j.type == JoinType::kRight) {
    FLOTILLA_ASSIGN_OR_RETURN(auto reduced,
                              Reduce(left, j.left_keys, right, j.right_keys, j.null_equal));
    if (reduced) return WithNewChildren(*out, {*reduced, right});
  }
  return out;
}

}  // namespace

Result<PlanPtr> ReduceAggregateInputs(const PlanPtr& plan) {
  return ReduceJoins(plan);
}

}  // namespace flotilla::optimizer
