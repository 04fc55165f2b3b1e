// Join ordering. A region of inner and cross joins is flattened into its inputs and the
// conditions between them, then rebuilt greedily from the estimated sizes (greedy operator
// ordering): of the parts joined so far, the two connected by equalities whose join is estimated
// smallest are joined next, the larger probing the smaller's hash table (the estimate divides the
// product of the sizes by the larger distinct count of the most selective key, so a join on a
// low-cardinality column such as a nation key is not taken for a key join); unconnected parts
// are cross joined only when nothing connected is left. The trees may be bushy. Each condition
// is applied at the first join where all its columns are present: equalities across the two
// sides become keys, the rest residuals. A projection restores the region's column names and
// order, which depend on the join order (a clashing right name is "right.x").
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
size_t InputOf(const std::string& token) {
  return std::stoul(token.substr(1));
}

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
std::optional<std::pair<ExprPtr, ExprPtr>> SplitEquality(const ExprPtr& c,
                                                         const std::set<size_t>& left,
                                                         const std::set<size_t>& right) {
  if (c->kind() != ExprKind::kBinary || c->binary_op() != expr::BinaryOp::kEqual)
    return std::nullopt;
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

// Part of a region joined so far: its plan, the inputs in it, each input column's name in
// the plan's output, and its estimated rows.
struct Component {
  PlanPtr plan;
  std::set<size_t> inputs;
  std::map<std::string, std::string> names;  // token -> name
  double rows = 0;
};

// The estimated rows of joining `a` and `b` on the unused equalities between them: the product
// of their rows divided by the larger distinct count of the most selective key. -1 when no
// equality connects them.
double JoinEstimate(const Region& region, const std::vector<bool>& used, const Component& a,
                    const Component& b) {
  double distinct = 0;
  for (size_t c = 0; c < region.conditions.size(); ++c) {
    if (used[c]) continue;
    auto sides = SplitEquality(region.conditions[c], a.inputs, b.inputs);
    if (!sides) continue;
    distinct = std::max({distinct, KeyDistinct(region, sides->first, a.rows),
                         KeyDistinct(region, sides->second, b.rows)});
  }
  return distinct == 0 ? -1 : a.rows * b.rows / distinct;
}

// `probe` joined with `build` (the hash table) on every unused condition over their inputs:
// equalities across the two become keys, the rest residuals.
Result<Component> JoinComponents(const Region& region, std::vector<bool>* used,
                                 const Component& probe, const Component& build) {
  Component out;
  out.inputs = probe.inputs;
  out.inputs.insert(build.inputs.begin(), build.inputs.end());
  out.names = probe.names;
  const std::vector<std::string> right_out =
      RightOutputNames(*probe.plan->schema(), *build.plan->schema());
  std::map<std::string, std::string> build_position;  // build's column name -> joined name
  for (int i = 0; i < build.plan->schema()->num_fields(); ++i)
    build_position[build.plan->schema()->field(i).name] = right_out[static_cast<size_t>(i)];
  for (const auto& [token, name] : build.names)
    out.names[token] = build_position.at(name);
  std::vector<ExprPtr> left_keys, right_keys, residual;
  for (size_t c = 0; c < region.conditions.size(); ++c) {
    if ((*used)[c] || !Within(InputsOf(region.conditions[c]), out.inputs)) continue;
    (*used)[c] = true;
    if (auto sides = SplitEquality(region.conditions[c], probe.inputs, build.inputs)) {
      left_keys.push_back(expr::RenameColumns(sides->first, probe.names));
      right_keys.push_back(expr::RenameColumns(sides->second, build.names));
    } else {
      residual.push_back(expr::RenameColumns(region.conditions[c], out.names));
    }
  }
  if (left_keys.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(out.plan, MakeCrossJoin(probe.plan, build.plan));
    if (!residual.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(out.plan, MakeFilter(out.plan, expr::JoinConjuncts(residual)));
    }
    return out;
  }
  FLOTILLA_RETURN_NOT_OK(
      CoerceJoinKeys(*probe.plan->schema(), *build.plan->schema(), &left_keys, &right_keys));
  FLOTILLA_ASSIGN_OR_RETURN(
      out.plan, MakeHashJoin(probe.plan, build.plan, left_keys, right_keys, JoinType::kInner,
                             expr::JoinConjuncts(residual)));
  return out;
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
    FLOTILLA_ASSIGN_OR_RETURN(
        region.inputs[i],
        MakeFilter(region.inputs[i], expr::RenameColumns(region.conditions[c], names)));
    used[c] = true;
  }
  // Greedy operator ordering: every input starts as a component of its own; the two connected
  // components whose join is estimated smallest are joined, until one is left. Unlike a chain
  // from the largest input, this lets a dimension filtered through another (orders of the
  // customers of one nation) be joined first and built as one small table.
  std::vector<Component> components;
  for (size_t i = 0; i < n; ++i) {
    Component c{region.inputs[i], {i}, {}, EstimateRows(*region.inputs[i])};
    for (const Field& f : c.plan->schema()->fields())
      c.names[Token(i, f.name)] = f.name;
    components.push_back(std::move(c));
  }
  while (components.size() > 1) {
    std::optional<std::pair<size_t, size_t>> best;
    double best_rows = 0;
    for (size_t a = 0; a < components.size(); ++a) {
      for (size_t b = a + 1; b < components.size(); ++b) {
        const double estimate = JoinEstimate(region, used, components[a], components[b]);
        if (estimate < 0) continue;  // not connected
        if (!best || estimate < best_rows) {
          best = std::make_pair(a, b);
          best_rows = estimate;
        }
      }
    }
    if (!best) {
      // Nothing connected is left: a cross join of the two smallest components.
      std::vector<size_t> order(components.size());
      for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
      std::sort(order.begin(), order.end(),
                [&](size_t x, size_t y) { return components[x].rows < components[y].rows; });
      best = std::make_pair(std::min(order[0], order[1]), std::max(order[0], order[1]));
      best_rows = components[order[0]].rows * components[order[1]].rows;
    }
    // The larger component probes: the hash join builds its right input.
    size_t probe = best->first, build = best->second;
    if (components[probe].rows < components[build].rows) std::swap(probe, build);
    FLOTILLA_ASSIGN_OR_RETURN(Component joined,
                              JoinComponents(region, &used, components[probe], components[build]));
    joined.rows = best_rows;
    components[best->first] = std::move(joined);
    components.erase(components.begin() + static_cast<std::ptrdiff_t>(best->second));
  }
  const PlanPtr& current = components[0].plan;
  const std::map<std::string, std::string>& names = components[0].names;
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

Result<PlanPtr> ReorderJoins(const PlanPtr& plan) {
  return Reorder(plan);
}

}  // namespace flotilla::optimizer
