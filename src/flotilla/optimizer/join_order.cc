// Join ordering. A region of inner and cross joins is flattened into its inputs and the
// conditions between them, then rebuilt greedily from the estimated sizes: the largest input
// first (it is only ever probed), then at each step the input connected by equalities whose join
// is estimated smallest (it becomes the hash table; the estimate divides the product of the
// sizes by the larger distinct count of the most selective key, so a join on a low-cardinality
// column such as a nation key is not taken for a key join), and an unconnected input only when
// nothing connected is left (a cross join). Each condition is applied at the first join where
// all its columns are present: equalities across the two sides become keys, the rest residuals. A
// projection restores the region's column names and order, which depend on the join order
// (a clashing right name is "right.x").
//
// Inside the region every column is named by a token "\x1e<input>\x1e<column>", so conditions
// written at any level of the original tree can be moved to any level of the new one.
#include <algorithm>
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

std::string Token(size_t input, const std::string& column) {
  return "\x1e" + std::to_string(input) + "\x1e" + column;
}
size_t InputOf(const std::string& token) { return std::stoul(token.substr(1)); }

struct Region {
  std::vector<PlanPtr> inputs;
  std::vector<ExprPtr> conditions;  // over tokens
};

bool IsRegionJoin(const PlanNode& node) {
  if (node.kind() == PlanKind::kCrossJoin) return true;
  if (node.kind() != PlanKind::kHashJoin) return false;
  const auto& j = static_cast<const JoinNode&>(node);
  if (j.type != JoinType::kInner) return false;
  // A join the user chose a strategy for stays as written, hint and all.
  if (j.strategy != JoinStrategy::kAuto) return false;
  return std::none_of(j.null_equal.begin(), j.null_equal.end(), [](bool b) { return b; });
}

// Adds `node`'s inputs and conditions to `region`; returns the token of each output column.
std::vector<std::string> Flatten(const PlanPtr& node, Region* region) {
  if (!IsRegionJoin(*node)) {
    const size_t input = region->inputs.size();
    region->inputs.push_back(node);
    std::vector<std::string> tokens;
    for (const Field& f : node->schema()->fields())
      tokens.push_back(Token(input, f.name));
    return tokens;
  }
  const PlanPtr& left = node->children()[0];
  const PlanPtr& right = node->children()[1];
  const std::vector<std::string> lt = Flatten(left, region);
  const std::vector<std::string> rt = Flatten(right, region);
  std::map<std::string, std::string> lmap, rmap, joined;
  for (int i = 0; i < left->schema()->num_fields(); ++i) {
    lmap[left->schema()->field(i).name] = lt[i];
    joined[left->schema()->field(i).name] = lt[i];
  }
  const std::vector<std::string> right_out = RightOutputNames(*left->schema(), *right->schema());
  for (int i = 0; i < right->schema()->num_fields(); ++i) {
    rmap[right->schema()->field(i).name] = rt[i];
    joined[right_out[i]] = rt[i];
  }
  if (node->kind() == PlanKind::kHashJoin) {
    const auto& j = static_cast<const JoinNode&>(*node);
    for (size_t k = 0; k < j.left_keys.size(); ++k) {
      region->conditions.push_back(expr::Equal(expr::RenameColumns(j.left_keys[k], lmap),
                                               expr::RenameColumns(j.right_keys[k], rmap)));
    }
    if (j.residual) {
      for (const ExprPtr& c : expr::SplitConjuncts(j.residual))
        region->conditions.push_back(expr::RenameColumns(c, joined));
    }
  }
  std::vector<std::string> tokens = lt;
  tokens.insert(tokens.end(), rt.begin(), rt.end());
  return tokens;
}

std::set<size_t> InputsOf(const ExprPtr& e) {
  std::set<size_t> inputs;
  for (const std::string& c : expr::Columns(e))
    inputs.insert(InputOf(c));
  return inputs;
}

bool Within(const std::set<size_t>& inputs, const std::set<size_t>& available) {
  return std::includes(available.begin(), available.end(), inputs.begin(), inputs.end());
}

// For `a = b` with one side only over `left` inputs and the other only over `right`: the
// two sides in that order.
std::optional<std::pair<ExprPtr, ExprPtr>> SplitEquality(const ExprPtr& c, const std::set<size_t>& left,
                                                         const std::set<size_t>& right) {
  if (c->kind() != ExprKind::kBinary || c->binary_op() != expr::BinaryOp::kEqual) return std::nullopt;
  const ExprPtr& a = c->children()[0];
  const ExprPtr& b = c->children()[1];
  const std::set<size_t> ia = InputsOf(a), ib = InputsOf(b);
  if (ia.empty() || ib.empty()) return std::nullopt;
  if (Within(ia, left) && Within(ib, right)) return std::make_pair(a, b);
  if (Within(ib, left) && Within(ia, right)) return std::make_pair(b, a);
  return std::nullopt;
}

// Distinct values of one side of a join key: a column's estimate from the input it comes from,
// else (an expression) as many as the rows; at most `rows` and at least one.
double KeyDistinct(const Region& region, const ExprPtr& key, double rows) {
  double distinct = rows;
  if (key->kind() == ExprKind::kColumn) {
    const size_t input = InputOf(key->name());
    const std::string& token = key->name();
    const std::string column = token.substr(token.find('\x1e', 1) + 1);
    distinct = std::min(rows, EstimateDistinct(*region.inputs[input], column));
  }
  return std::max(distinct, 1.0);
}

Result<PlanPtr> Rebuild(Region region, const std::vector<std::string>& output_tokens,
                        const Schema& output_schema) {
  const size_t n = region.inputs.size();
  std::vector<bool> used(region.conditions.size(), false);
  // Conditions on one input filter it first (so the estimates see them).
  for (size_t c = 0; c < region.conditions.size(); ++c) {
    const std::set<size_t> inputs = InputsOf(region.conditions[c]);
    if (inputs.size() != 1) continue;
    const size_t i = *inputs.begin();
    std::map<std::string, std::string> names;
    for (const Field& f : region.inputs[i]->schema()->fields())
      names[Token(i, f.name)] = f.name;
    FLOTILLA_ASSIGN_OR_RETURN(region.inputs[i],
                              MakeFilter(region.inputs[i], expr::RenameColumns(region.conditions[c], names)));
    used[c] = true;
  }
  std::vector<double> rows(n);
  for (size_t i = 0; i < n; ++i)
    rows[i] = EstimateRows(*region.inputs[i]);
  size_t first = 0;
  for (size_t i = 1; i < n; ++i)
    if (rows[i] > rows[first]) first = i;
  PlanPtr current = region.inputs[first];
  std::map<std::string, std::string> names;  // token -> its name in `current`
  for (const Field& f : current->schema()->fields())
    names[Token(first, f.name)] = f.name;
  std::set<size_t> joined = {first};
  double current_rows = rows[first];
  while (joined.size() < n) {
    // The input whose join with what is built so far is estimated smallest; the smaller input
    // among equals. Unconnected inputs only when nothing connected is left.
    std::optional<size_t> next;
    double next_rows = 0;
    for (size_t candidate = 0; candidate < n; ++candidate) {
      if (joined.count(candidate)) continue;
      double distinct = 0;  // of the most selective key, 0: not connected
      std::set<size_t> with = joined;
      with.insert(candidate);
      for (size_t c = 0; c < region.conditions.size(); ++c) {
        if (used[c] || !Within(InputsOf(region.conditions[c]), with)) continue;
        auto sides = SplitEquality(region.conditions[c], joined, {candidate});
        if (!sides) continue;
        distinct = std::max({distinct, KeyDistinct(region, sides->first, current_rows),
                             KeyDistinct(region, sides->second, rows[candidate])});
      }
      if (distinct == 0) continue;
      const double estimate = current_rows * rows[candidate] / distinct;
      if (!next || estimate < next_rows ||
          (estimate == next_rows && rows[candidate] < rows[*next])) {
        next = candidate;
        next_rows = estimate;
      }
    }
    if (!next) {
      for (size_t i = 0; i < n; ++i)
        if (!joined.count(i) && (!next || rows[i] < rows[*next])) next = i;
      next_rows = current_rows * rows[*next];
    }
    current_rows = next_rows;
    const size_t j = *next;
    const PlanPtr& right = region.inputs[j];
    std::map<std::string, std::string> right_names;
    for (const Field& f : right->schema()->fields())
      right_names[Token(j, f.name)] = f.name;
    std::map<std::string, std::string> after = names;
    const std::vector<std::string> right_out = RightOutputNames(*current->schema(), *right->schema());
    for (int i = 0; i < right->schema()->num_fields(); ++i)
      after[Token(j, right->schema()->field(i).name)] = right_out[i];
    std::set<size_t> with = joined;
    with.insert(j);
    std::vector<ExprPtr> left_keys, right_keys, residual;
    for (size_t c = 0; c < region.conditions.size(); ++c) {
      if (used[c] || !Within(InputsOf(region.conditions[c]), with)) continue;
      used[c] = true;
      if (auto sides = SplitEquality(region.conditions[c], joined, {j})) {
        left_keys.push_back(expr::RenameColumns(sides->first, names));
        right_keys.push_back(expr::RenameColumns(sides->second, right_names));
      } else {
        residual.push_back(expr::RenameColumns(region.conditions[c], after));
      }
    }
    if (left_keys.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(current, MakeCrossJoin(current, right));
      if (!residual.empty()) {
        FLOTILLA_ASSIGN_OR_RETURN(current, MakeFilter(current, expr::JoinConjuncts(residual)));
      }
    } else {
      FLOTILLA_RETURN_NOT_OK(CoerceJoinKeys(*current->schema(), *right->schema(), &left_keys, &right_keys));
      FLOTILLA_ASSIGN_OR_RETURN(current, MakeHashJoin(current, right, left_keys, right_keys,
                                                      JoinType::kInner, expr::JoinConjuncts(residual)));
    }
    names = std::move(after);
    joined = std::move(with);
  }
  std::vector<ExprPtr> project;
  bool identity = static_cast<int>(output_tokens.size()) == current->schema()->num_fields();
  for (size_t i = 0; i < output_tokens.size(); ++i) {
    const std::string& now = names.at(output_tokens[i]);
    const std::string& name = output_schema.field(static_cast<int>(i)).name;
    identity &= current->schema()->field(static_cast<int>(i)).name == name && now == name;
    project.push_back(now == name ? expr::Column(now) : expr::Alias(expr::Column(now), name));
  }
  if (identity) return current;
  return MakeProject(current, project);
}

Result<PlanPtr> Reorder(const PlanPtr& node) {
  if (IsRegionJoin(*node)) {
    Region region;
    const std::vector<std::string> tokens = Flatten(node, &region);
    // The inputs themselves may hold regions (below a projection or an aggregate).
    if (region.inputs.size() < 3) {
      // Two inputs: only the sides can change, which join_sides decides.
      return MapChildren(node, Reorder);
    }
    for (PlanPtr& input : region.inputs) {
      FLOTILLA_ASSIGN_OR_RETURN(input, Reorder(input));
    }
    return Rebuild(std::move(region), tokens, *node->schema());
  }
  return MapChildren(node, Reorder);
}

}  // namespace

Result<PlanPtr> ReorderJoins(const PlanPtr& plan) { return Reorder(plan); }

}  // namespace flotilla::optimizer
