#include "flotilla/expr/rewrite.h"

namespace flotilla::expr {

ExprPtr WithChildren(const Expression& e, std::vector<ExprPtr> children) {
  // try_cast, negated and has_else are one flag under three names.
  Expression::Parts p{e.kind(),      e.name(),    std::move(children), e.literal(),
                      e.cast_type(), e.negated(), e.unary_op(),        e.binary_op()};
  return std::make_shared<const Expression>(std::move(p));
}

Result<ExprPtr> Rewrite(const ExprPtr& e, const RewriteFn& fn) {
  FLOTILLA_ASSIGN_OR_RETURN(ExprPtr replaced, fn(e));
  if (replaced) return replaced;
  if (e->children().empty()) return e;
  std::vector<ExprPtr> children;
  children.reserve(e->children().size());
  bool changed = false;
  for (const ExprPtr& c : e->children()) {
    FLOTILLA_ASSIGN_OR_RETURN(ExprPtr r, Rewrite(c, fn));
    changed |= r != c;
    children.push_back(std::move(r));
  }
  return changed ? WithChildren(*e, std::move(children)) : e;
}

void CollectColumns(const ExprPtr& e, std::set<std::string>* out) {
  if (e->kind() == ExprKind::kColumn && !IsLambdaParameter(e->name())) {
    out->insert(e->name());
  }
  for (const ExprPtr& c : e->children())
    CollectColumns(c, out);
}

std::set<std::string> Columns(const ExprPtr& e) {
  std::set<std::string> out;
  CollectColumns(e, &out);
  return out;
}

ExprPtr RenameColumns(const ExprPtr& e, const std::map<std::string, std::string>& names) {
  return Rewrite(e,
                 [&](const ExprPtr& n) -> Result<ExprPtr> {
                   if (n->kind() != ExprKind::kColumn) return ExprPtr();
                   auto it = names.find(n->name());
                   return it == names.end() || it->second == n->name() ? n : Column(it->second);
                 })
      .ValueOrDie();
}

ExprPtr SubstituteColumns(const ExprPtr& e, const std::map<std::string, ExprPtr>& definitions) {
  return Rewrite(e,
                 [&](const ExprPtr& n) -> Result<ExprPtr> {
                   if (n->kind() != ExprKind::kColumn) return ExprPtr();
                   auto it = definitions.find(n->name());
                   return it == definitions.end() ? n : Unaliased(it->second);
                 })
      .ValueOrDie();
}

void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind() == ExprKind::kBinary && e->binary_op() == BinaryOp::kAnd) {
    SplitConjuncts(e->children()[0], out);
    SplitConjuncts(e->children()[1], out);
  } else {
    out->push_back(e);
  }
}

static void CollectDisjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind() == ExprKind::kBinary && e->binary_op() == BinaryOp::kOr) {
    CollectDisjuncts(e->children()[0], out);
    CollectDisjuncts(e->children()[1], out);
  } else {
    out->push_back(e);
  }
}

std::vector<ExprPtr> SplitDisjuncts(const ExprPtr& e) {
  std::vector<ExprPtr> out;
  if (e) CollectDisjuncts(e, &out);
  return out;
}

std::vector<ExprPtr> SplitConjuncts(const ExprPtr& e) {
  std::vector<ExprPtr> out;
  if (e) SplitConjuncts(e, &out);
  return out;
}

namespace {
// conjuncts[lo, hi) as a balanced AND tree, the larger half first (three read ((a AND b) AND c)).
ExprPtr Balanced(const std::vector<ExprPtr>& conjuncts, size_t lo, size_t hi) {
  if (hi - lo == 1) return conjuncts[lo];
  const size_t mid = lo + (hi - lo + 1) / 2;
  return And(Balanced(conjuncts, lo, mid), Balanced(conjuncts, mid, hi));
}
}  // namespace

// Balanced, so thousands of conditions stay a few levels deep (every pass over a tree recurses).
ExprPtr JoinConjuncts(const std::vector<ExprPtr>& conjuncts) {
  return conjuncts.empty() ? nullptr : Balanced(conjuncts, 0, conjuncts.size());
}

bool Contains(const ExprPtr& e, ExprKind kind) {
  if (e->kind() == kind) return true;
  for (const ExprPtr& c : e->children())
    if (Contains(c, kind)) return true;
  return false;
}

const ExprPtr& Unaliased(const ExprPtr& e) {
  return e->kind() == ExprKind::kAlias ? Unaliased(e->children()[0]) : e;
}

}  // namespace flotilla::expr
