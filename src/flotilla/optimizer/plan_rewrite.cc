#include "flotilla/optimizer/plan_rewrite.h"

#include <algorithm>
#include <limits>

#include "flotilla/expr/binder.h"
#include "flotilla/expr/rewrite.h"
#include "flotilla/types/coercion.h"

namespace flotilla::optimizer {

using namespace exec;  // NOLINT: node types and builders

std::map<std::string, std::string> PassedOnColumns(const ProjectNode& project) {
  std::map<std::string, std::string> names;
  for (size_t i = 0; i < project.expressions.size(); ++i) {
    const expr::ExprPtr& e = expr::Unaliased(project.expressions[i]);
    if (e->kind() == expr::ExprKind::kColumn)
      names[project.schema()->field(static_cast<int>(i)).name] = e->name();
  }
  return names;
}

double EstimateRows(const PlanNode& node) {
  auto child = [&](size_t i) { return EstimateRows(*node.children()[i]); };
  switch (node.kind()) {
    case PlanKind::kInMemorySource: {
      double rows = 0;
      for (const MicroPartition& p : static_cast<const InMemorySourceNode&>(node).partitions)
        rows += static_cast<double>(std::max<int64_t>(0, p.num_rows()));
      return rows;
    }
    case PlanKind::kScan: {
      const auto& scan = static_cast<const ScanNode&>(node);
      double rows = 0;
      for (const auto& task : scan.tasks) {
        const int64_t n = task->num_rows();
        // Unknown (a CSV chunk): about 100 bytes a row.
        rows += n >= 0 ? static_cast<double>(n)
                       : static_cast<double>(std::max<int64_t>(task->size_bytes(), 0)) / 100;
      }
      return scan.pushdowns.filter ? rows * 0.25 : rows;
    }
    case PlanKind::kFilter:
      return child(0) * 0.25;
    case PlanKind::kLimit: {
      const auto& n = static_cast<const LimitNode&>(node);
      return n.limit >= 0 ? std::min<double>(child(0), static_cast<double>(n.limit)) : child(0);
    }
    case PlanKind::kTopN:
      return std::min<double>(child(0),
                              static_cast<double>(static_cast<const TopNNode&>(node).limit));
    case PlanKind::kAggregate:
      return static_cast<const AggregateNode&>(node).group_by.empty() ? 1 : child(0) * 0.1;
    case PlanKind::kDistinct:
      return child(0) * 0.5;
    case PlanKind::kHashJoin:
    case PlanKind::kSortMergeJoin: {
      const auto& n = static_cast<const JoinNode&>(node);
      if (n.type == JoinType::kSemi || n.type == JoinType::kAnti) return child(0) * 0.5;
      if (n.type == JoinType::kRightSemi || n.type == JoinType::kRightAnti) return child(1) * 0.5;
      return std::max(child(0), child(1));
    }
    case PlanKind::kCrossJoin:
      return child(0) * child(1);
    case PlanKind::kConcat: {
      double rows = 0;
      for (size_t i = 0; i < node.children().size(); ++i)
        rows += child(i);
      return rows;
    }
    default:
      return node.children().empty() ? -1 : child(0);
  }
}

namespace {

/// The distinct values of a scanned integer column, bounded by its values' range.
double ScanDistinct(const ScanNode& scan, const std::string& column) {
  std::optional<std::pair<int64_t, int64_t>> range;
  for (const auto& task : scan.tasks) {
    auto r = task->IntegerRange(column);
    if (!r) return std::numeric_limits<double>::infinity();
    range =
        range ? std::make_pair(std::min(range->first, r->first), std::max(range->second, r->second))
              : *r;
  }
  if (!range) return std::numeric_limits<double>::infinity();
  return static_cast<double>(range->second) - static_cast<double>(range->first) + 1;
}

}  // namespace

double EstimateDistinct(const PlanNode& node, const std::string& column) {
  const double rows = EstimateRows(node);
  double distinct = std::numeric_limits<double>::infinity();
  switch (node.kind()) {
    case PlanKind::kScan:
      distinct = ScanDistinct(static_cast<const ScanNode&>(node), column);
      break;
    case PlanKind::kProject: {
      // Through a column passed on or renamed.
      const auto& project = static_cast<const ProjectNode&>(node);
      const int i = node.schema()->GetFieldIndex(column);
      if (i < 0) break;
      expr::ExprPtr e = project.expressions[static_cast<size_t>(i)];
      if (e->kind() == expr::ExprKind::kAlias) e = e->children()[0];
      if (e->kind() == expr::ExprKind::kColumn)
        distinct = EstimateDistinct(*node.children()[0], e->name());
      break;
    }
    case PlanKind::kAggregate:
    case PlanKind::kDistinct:
      break;  // grouped columns are as many as the groups
    default:
      // Operators that pass their inputs' columns on under the same names.
      for (const PlanPtr& child : node.children()) {
        if (child->schema()->GetFieldIndex(column) >= 0) {
          distinct = EstimateDistinct(*child, column);
          break;
        }
      }
  }
  return rows >= 0 ? std::min(distinct, rows) : distinct;
}

std::vector<std::string> RightOutputNames(const Schema& left, const Schema& right) {
  SchemaPtr joined = JoinOutputSchema(left, right, JoinType::kInner);
  std::vector<std::string> names;
  for (int i = 0; i < right.num_fields(); ++i)
    names.push_back(joined->field(left.num_fields() + i).name);
  return names;
}

Status CoerceJoinKeys(const Schema& left, const Schema& right,
                      std::vector<expr::ExprPtr>* left_keys,
                      std::vector<expr::ExprPtr>* right_keys) {
  for (size_t i = 0; i < left_keys->size() && i < right_keys->size(); ++i) {
    auto l = expr::Bind((*left_keys)[i], left);
    auto r = expr::Bind((*right_keys)[i], right);
    if (!l.ok() || !r.ok()) continue;  // the join itself reports the error
    const TypePtr& a = l->type();
    const TypePtr& b = r->type();
    if (a->Equals(*b)) continue;
    TypePtr common = CommonType(a, b, CoercionPurpose::kUnify);
    if (!common) continue;
    if (!a->Equals(*common)) (*left_keys)[i] = expr::Cast((*left_keys)[i], common);
    if (!b->Equals(*common)) (*right_keys)[i] = expr::Cast((*right_keys)[i], common);
  }
  return Status::OK();
}

}  // namespace flotilla::optimizer
