// Constant folding and boolean simplification over every expression of the plan: a subtree
// that reads no column is evaluated once and becomes its value (so plans show
// `l_shipdate <= DATE '1998-09-02'`, and scans prune by it), `x AND TRUE` is x, `x OR TRUE`
// is TRUE, conditions every branch of an OR shares are taken out of it, `NOT NOT x` is x, a
// filter that is always true goes, one that is always false or NULL keeps its input's schema
// with no rows.
#include <algorithm>
#include <set>

#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/rewrite.h"
#include "flotilla/optimizer/optimizer.h"
#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;  // NOLINT
using expr::ExprKind;
using expr::ExprPtr;

// The value of a constant expression, or nullptr when it cannot be evaluated here (an error
// such as 1/0 is left for the query to report where it happens).
ExprPtr Evaluated(const ExprPtr& e) {
  static const auto kEmpty = std::make_shared<Schema>(std::vector<Field>{});
  auto bound = expr::Bind(e, *kEmpty);
  if (!bound.ok()) return nullptr;
  auto one = RecordBatch::Make(kEmpty, {}, 1);
  if (!one.ok()) return nullptr;
  auto value = expr::Evaluate(*bound, *one);
  if (!value.ok()) return nullptr;
  return expr::Literal(value->array().Slice(value->index(0), 1));
}

bool IsBoolLiteral(const ExprPtr& e, bool value) {
  if (e->kind() != ExprKind::kLiteral) return false;
  const Array& a = e->literal();
  return a.type_id() == TypeId::kBool && !a.IsNull(0) && a.BoolValue(0) == value;
}

bool IsNullLiteral(const ExprPtr& e) {
  return e->kind() == ExprKind::kLiteral && e->literal().IsNull(0);
}

// (a AND b) OR (a AND c) -> a AND (b OR c), which holds in three-valued logic too. A condition
// that every branch of an OR repeats (TPC-H Q19's join key) can then become a join key.
ExprPtr FactorOr(const ExprPtr& e) {
  const std::vector<ExprPtr> disjuncts = expr::SplitDisjuncts(e);
  std::vector<std::vector<ExprPtr>> branches;
  for (const ExprPtr& d : disjuncts)
    branches.push_back(expr::SplitConjuncts(d));
  auto in = [](const std::vector<ExprPtr>& conjuncts, const std::string& text) {
    return std::any_of(conjuncts.begin(), conjuncts.end(),
                       [&](const ExprPtr& c) { return c->ToString() == text; });
  };
  std::vector<ExprPtr> common;
  std::set<std::string> common_text;
  for (const ExprPtr& c : branches[0]) {
    const std::string text = c->ToString();
    if (common_text.count(text)) continue;
    bool everywhere = true;
    for (size_t b = 1; b < branches.size() && everywhere; ++b)
      everywhere = in(branches[b], text);
    if (everywhere) {
      common.push_back(c);
      common_text.insert(text);
    }
  }
  if (common.empty()) return e;
  ExprPtr rest;
  for (const std::vector<ExprPtr>& branch : branches) {
    std::vector<ExprPtr> left;
    for (const ExprPtr& c : branch)
      if (!common_text.count(c->ToString())) left.push_back(c);
    if (left.empty()) return expr::JoinConjuncts(common);  // that branch is just the common part
    ExprPtr conjunction = expr::JoinConjuncts(left);
    rest = rest ? expr::Or(rest, conjunction) : conjunction;
  }
  common.push_back(rest);
  return expr::JoinConjuncts(common);
}

ExprPtr Fold(const ExprPtr& e) {
  if (e->kind() == ExprKind::kLiteral || e->kind() == ExprKind::kColumn) return e;
  std::vector<ExprPtr> children;
  bool changed = false;
  for (const ExprPtr& c : e->children()) {
    ExprPtr f = Fold(c);
    changed |= f != c;
    children.push_back(std::move(f));
  }
  ExprPtr out = changed ? expr::WithChildren(*e, children) : e;
  const bool constant = expr::Columns(out).empty() && !expr::Contains(out, ExprKind::kAggregate) &&
                        !expr::Contains(out, ExprKind::kWindow) &&
                        out->kind() != ExprKind::kAlias && !expr::CallsVolatileFunction(out);
  if (constant) {
    if (ExprPtr value = Evaluated(out)) return value;
    return out;
  }
  if (out->kind() == ExprKind::kBinary &&
      (out->binary_op() == expr::BinaryOp::kAnd || out->binary_op() == expr::BinaryOp::kOr)) {
    const bool is_and = out->binary_op() == expr::BinaryOp::kAnd;
    const ExprPtr& a = out->children()[0];
    const ExprPtr& b = out->children()[1];
    // TRUE is AND's identity and OR's absorbing value; FALSE the other way round.
    if (IsBoolLiteral(a, is_and)) return b;
    if (IsBoolLiteral(b, is_and)) return a;
    if (IsBoolLiteral(a, !is_and) || IsBoolLiteral(b, !is_and)) return expr::Literal(!is_and);
    if (!is_and) return FactorOr(out);
  }
  if (out->kind() == ExprKind::kUnary && out->unary_op() == expr::UnaryOp::kNot) {
    const ExprPtr& inner = out->children()[0];
    if (inner->kind() == ExprKind::kUnary && inner->unary_op() == expr::UnaryOp::kNot) {
      return inner->children()[0];
    }
  }
  return out;
}

std::vector<ExprPtr> FoldAll(const std::vector<ExprPtr>& exprs, bool* changed) {
  std::vector<ExprPtr> out;
  for (const ExprPtr& e : exprs) {
    ExprPtr f = Fold(e);
    *changed |= f != e;
    out.push_back(std::move(f));
  }
  return out;
}

Result<PlanPtr> FoldNode(const PlanPtr& node) {
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr out, MapChildren(node, FoldNode));
  bool changed = false;
  switch (out->kind()) {
    case PlanKind::kFilter: {
      const auto& f = static_cast<const FilterNode&>(*out);
      ExprPtr p = Fold(f.predicate);
      if (IsBoolLiteral(p, true)) return out->children()[0];
      if (IsBoolLiteral(p, false) || IsNullLiteral(p)) {
        // No row passes: an empty source with the same schema (nothing below needs to run).
        return MakeInMemorySource(out->schema(), std::vector<RecordBatch>{});
      }
      if (p == f.predicate) return out;
      return MakeFilter(out->children()[0], p);
    }
    case PlanKind::kProject: {
      const auto& p = static_cast<const ProjectNode&>(*out);
      std::vector<ExprPtr> exprs = FoldAll(p.expressions, &changed);
      if (!changed) return out;
      // Keep each output's name: a folded expression no longer spells it.
      for (size_t i = 0; i < exprs.size(); ++i) {
        const std::string& name = out->schema()->field(static_cast<int>(i)).name;
        if (exprs[i]->kind() != ExprKind::kAlias &&
            !(exprs[i]->kind() == ExprKind::kColumn && exprs[i]->name() == name)) {
          exprs[i] = expr::Alias(exprs[i], name);
        }
      }
      return MakeProject(out->children()[0], exprs);
    }
    case PlanKind::kScan: {
      const auto& s = static_cast<const ScanNode&>(*out);
      if (!s.pushdowns.filter) return out;
      ExprPtr f = Fold(s.pushdowns.filter);
      if (f == s.pushdowns.filter) return out;
      ScanPushdowns pushdowns = s.pushdowns;
      pushdowns.filter = IsBoolLiteral(f, true) ? nullptr : f;
      return MakeScan(s.file_schema, s.tasks, pushdowns);
    }
    case PlanKind::kHashJoin: {
      const auto& j = static_cast<const JoinNode&>(*out);
      if (!j.residual) return out;
      ExprPtr r = Fold(j.residual);
      if (r == j.residual) return out;
      return MakeHashJoin(out->children()[0], out->children()[1], j.left_keys, j.right_keys, j.type,
                          IsBoolLiteral(r, true) ? nullptr : r, j.null_equal, j.strategy);
    }
    default:
      return out;
  }
}

}  // namespace

Result<PlanPtr> FoldConstants(const PlanPtr& plan) {
  return FoldNode(plan);
}

}  // namespace flotilla::optimizer
