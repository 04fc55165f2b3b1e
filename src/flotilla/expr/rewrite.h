#pragma once
// Tree rewriting over unbound expressions, shared by the SQL planner and the optimizer:
// rebuilding a node with new children, bottom-up transforms, the columns an expression reads,
// and splitting / joining AND chains.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "flotilla/expr/expression.h"

namespace flotilla::expr {

/// `e` with `children` in place of its own (everything else kept).
ExprPtr WithChildren(const Expression& e, std::vector<ExprPtr> children);

/// Rewrites top-down: `fn` returns a replacement for a node (not visited further) or nullptr to
/// keep the node and rewrite its children.
using RewriteFn = std::function<Result<ExprPtr>(const ExprPtr&)>;
Result<ExprPtr> Rewrite(const ExprPtr& e, const RewriteFn& fn);

/// Whether a column reference names a lambda's parameter (list_transform's body reads its
/// elements as columns "__lambda<depth>_<k>"), not a column of the input.
inline bool IsLambdaParameter(const std::string& name) {
  return name.rfind("__lambda", 0) == 0;
}

/// The column names `e` reads (of its input: lambda parameters left out).
void CollectColumns(const ExprPtr& e, std::set<std::string>* out);
std::set<std::string> Columns(const ExprPtr& e);

/// `e` with column names replaced through `names` (names not in it are kept).
ExprPtr RenameColumns(const ExprPtr& e, const std::map<std::string, std::string>& names);

/// `e` with columns replaced by expressions (a projection's definitions); aliases of the
/// replacements are dropped.
ExprPtr SubstituteColumns(const ExprPtr& e, const std::map<std::string, ExprPtr>& definitions);

/// a AND b AND c -> [a, b, c].
void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out);
std::vector<ExprPtr> SplitConjuncts(const ExprPtr& e);
/// a OR b OR c -> [a, b, c].
std::vector<ExprPtr> SplitDisjuncts(const ExprPtr& e);
/// [a, b, c] -> a AND b AND c; nullptr when empty.
ExprPtr JoinConjuncts(const std::vector<ExprPtr>& conjuncts);

/// Whether `e` contains a node of `kind`.
bool Contains(const ExprPtr& e, ExprKind kind);

/// Strips aliases at the root.
const ExprPtr& Unaliased(const ExprPtr& e);

}  // namespace flotilla::expr
