// Projection pushdown: walks down with the set of columns the nodes above read, drops the
// projections nobody reads, and narrows every scan to the columns it must decode. A join's left
// input keeps the names of the right columns that stay, so the join's renaming of right columns
// ("right.x") stays the same.
#include <optional>
#include <set>

#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT
using expr::ExprPtr;
using Required = std::optional<std::set<std::string>>;  // nullopt: every column

void AddColumns(const ExprPtr& e, std::set<std::string>* out) {
  if (e) expr::CollectColumns(e, out);
}

Result<PlanPtr> Prune(const PlanPtr& node, const Required& required);

Result<PlanPtr> Rebuilt(const PlanPtr& node, std::vector<PlanPtr> children) {
  bool changed = false;
  for (size_t i = 0; i < children.size(); ++i)
    changed |= children[i] != node->children()[i];
  if (!changed) return node;
  return WithNewChildren(*node, std::move(children));
}

// `required` plus what `extra` reads; nullopt stays nullopt.
Required With(const Required& required, const std::vector<ExprPtr>& extra) {
  if (!required) return std::nullopt;
  std::set<std::string> out = *required;
  for (const ExprPtr& e : extra)
    AddColumns(e, &out);
  return out;
}

Result<PlanPtr> PruneJoin(const PlanPtr& node, const Required& required) {
  const PlanPtr& left = node->children()[0];
  const PlanPtr& right = node->children()[1];
  const Schema& ls = *left->schema();
  const Schema& rs = *right->schema();
  std::vector<std::string> right_out = RightOutputNames(ls, rs);
  std::set<std::string> lreq, rreq, above;
  if (required) {
    above = *required;
  } else {
    for (const Field& f : node->schema()->fields())
      above.insert(f.name);
  }
  if (node->kind() != PlanKind::kCrossJoin) {
    const auto& j = static_cast<const JoinNode&>(*node);
    for (const ExprPtr& k : j.left_keys)
      AddColumns(k, &lreq);
    for (const ExprPtr& k : j.right_keys)
      AddColumns(k, &rreq);
    AddColumns(j.residual, &above);  // over joined names
  }
  const bool right_only = node->kind() == PlanKind::kHashJoin &&
                          (static_cast<const JoinNode&>(*node).type == JoinType::kRightSemi ||
                           static_cast<const JoinNode&>(*node).type == JoinType::kRightAnti);
  for (const Field& f : ls.fields())
    if (above.count(f.name)) lreq.insert(f.name);
  for (int i = 0; i < rs.num_fields(); ++i) {
    // A right semi or anti join outputs the right input's columns under their own names.
    if (above.count(right_out[i]) || (right_only && above.count(rs.field(i).name))) {
      rreq.insert(rs.field(i).name);
    }
  }
  // A right column that stays keeps every name on its renaming chain ("x", "right.x", ... up
  // to its output name) taken as it was: by the left column of that name, or by an earlier
  // right column renamed to it, which then stays too. (A right column nobody reads goes, and
  // with it the clash.)
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < rs.num_fields(); ++i) {
      if (!rreq.count(rs.field(i).name)) continue;
      for (std::string n = rs.field(i).name; n != right_out[i]; n = "right." + n) {
        if (ls.GetFieldIndex(n) >= 0) {
          lreq.insert(n);
          continue;
        }
        for (int k = 0; k < i; ++k) {
          if (right_out[k] == n && rreq.insert(rs.field(k).name).second) grew = true;
        }
      }
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr l, Prune(left, lreq));
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr r, Prune(right, rreq));
  return Rebuilt(node, {l, r});
}

Result<PlanPtr> Prune(const PlanPtr& node, const Required& required) {
  switch (node->kind()) {
    case PlanKind::kProject: {
      const auto& p = static_cast<const ProjectNode&>(*node);
      std::vector<ExprPtr> kept;
      std::set<std::string> below;
      for (size_t i = 0; i < p.expressions.size(); ++i) {
        const std::string& name = node->schema()->field(static_cast<int>(i)).name;
        if (required && !required->count(name) &&
            !(kept.empty() && i + 1 == p.expressions.size())) {
          continue;
        }
        kept.push_back(p.expressions[i]);
        AddColumns(p.expressions[i], &below);
      }
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Prune(node->children()[0], below));
      if (kept.size() == p.expressions.size() && child == node->children()[0]) return node;
      return MakeProject(child, kept);
    }
    case PlanKind::kScan: {
      if (!required) return node;
      const auto& s = static_cast<const ScanNode&>(*node);
      std::vector<std::string> columns;
      for (const Field& f : node->schema()->fields())
        if (required->count(f.name)) columns.push_back(f.name);
      if (columns.size() == static_cast<size_t>(node->schema()->num_fields())) return node;
      if (columns.empty() && node->schema()->num_fields() > 0) {
        // Nothing is read but the row count: keep one column.
        columns.push_back(node->schema()->field(0).name);
      }
      ScanPushdowns pushdowns = s.pushdowns;
      pushdowns.columns = columns;
      return MakeScan(s.file_schema, s.tasks, pushdowns);
    }
    case PlanKind::kFilter: {
      const auto& f = static_cast<const FilterNode&>(*node);
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child,
                                Prune(node->children()[0], With(required, {f.predicate})));
      return Rebuilt(node, {child});
    }
    case PlanKind::kAggregate: {
      const auto& a = static_cast<const AggregateNode&>(*node);
      if (a.mode == AggregateMode::kFinal) break;
      std::set<std::string> below;
      for (const ExprPtr& g : a.group_by)
        AddColumns(g, &below);
      for (const AggregateSpec& spec : a.aggregates)
        for (const ExprPtr& e : spec.arguments)
          AddColumns(e, &below);
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Prune(node->children()[0], below));
      return Rebuilt(node, {child});
    }
    case PlanKind::kSort:
    case PlanKind::kTopN: {
      const auto& keys = node->kind() == PlanKind::kSort ? static_cast<const SortNode&>(*node).keys
                                                         : static_cast<const TopNNode&>(*node).keys;
      std::vector<ExprPtr> exprs;
      for (const SortSpec& k : keys)
        exprs.push_back(k.key);
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Prune(node->children()[0], With(required, exprs)));
      return Rebuilt(node, {child});
    }
    case PlanKind::kLimit:
    case PlanKind::kSample: {
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Prune(node->children()[0], required));
      return Rebuilt(node, {child});
    }
    case PlanKind::kDistinct: {
      const auto& d = static_cast<const DistinctNode&>(*node);
      if (d.columns.empty()) break;
      std::vector<ExprPtr> keys;
      for (const std::string& c : d.columns)
        keys.push_back(expr::Column(c));
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Prune(node->children()[0], With(required, keys)));
      return Rebuilt(node, {child});
    }
    case PlanKind::kWindow: {
      const auto& w = static_cast<const WindowNode&>(*node);
      if (!required) break;
      std::set<std::string> below = *required;
      for (const WindowExpression& f : w.functions) {
        below.erase(f.output_name);
        for (const ExprPtr& e : f.arguments)
          AddColumns(e, &below);
      }
      for (const ExprPtr& e : w.partition_by)
        AddColumns(e, &below);
      for (const SortSpec& k : w.order_by)
        AddColumns(k.key, &below);
      FLOTILLA_ASSIGN_OR_RETURN(PlanPtr child, Prune(node->children()[0], below));
      return Rebuilt(node, {child});
    }
    case PlanKind::kHashJoin:
    case PlanKind::kSortMergeJoin:
    case PlanKind::kCrossJoin:
      return PruneJoin(node, required);
    default:
      break;
  }
  std::vector<PlanPtr> children;
  for (const PlanPtr& c : node->children()) {
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr r, Prune(c, std::nullopt));
    children.push_back(r);
  }
  return Rebuilt(node, std::move(children));
}

}  // namespace

Result<PlanPtr> PushDownProjections(const PlanPtr& plan) {
  return Prune(plan, std::nullopt);
}

}  // namespace flotilla::optimizer
