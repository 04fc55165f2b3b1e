#pragma once
// The one registry of scalar functions. Each family registers itself from one explicit call
// (RegisterStringFunctions(registry), ...) made in DefaultRegistry(); no static initializers.
// Every function carries a doc string.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/expr/datum.h"
#include "flotilla/expr/expression.h"

namespace flotilla::expr {

/// Checks argument types and returns the result type, or a TypeError that names the function
/// and the argument that does not fit ("lower() expects a string, got int64 for argument 1").
using ResolveFn = Result<TypePtr> (*)(const std::vector<TypePtr>& arg_types);

/// \brief ResolveFn for functions whose result type depends on the value of a constant argument
/// (minhash's num_hashes sets the list size, struct_get's field name picks the field type).
///
/// `literals` has one entry per argument: the one-row value when the binder has folded that
/// argument to a literal, a default-constructed Array (valid() is false) when the argument
/// varies per row. So the function can require a constant at bind time, with an error naming
/// the argument. Callers may pass fewer entries than arguments; missing ones are "not constant".
using ResolveLiteralFn = Result<TypePtr> (*)(const std::vector<TypePtr>& arg_types,
                                             const std::vector<Array>& literals);

/// Evaluates the function over `num_rows` rows. Arguments have exactly the types ResolveFn
/// accepted. Returns a scalar only when every argument is a scalar.
using ExecFn = Result<Datum> (*)(const std::vector<Datum>& args, int64_t num_rows);

struct ScalarFunction {
  std::string name;  // lower case, as written in SQL and Python
  std::string doc;   // one or two sentences for users: what it returns, how nulls behave
  int min_args = 0;
  int max_args = 0;  // -1 for variadic
  ResolveFn resolve = nullptr;
  ExecFn exec = nullptr;
  /// Set instead of `resolve` when the result type depends on constant argument values; the
  /// binder then calls it (with the arguments already folded) and never `resolve`.
  ResolveLiteralFn resolve_with_literals = nullptr;
  /// The binder casts every argument to their common type first (list_value's elements).
  bool unify_arguments = false;
  /// A new value for every row and call (random, uuid): never folded into a constant.
  bool is_volatile = false;

  /// The result type for these arguments: resolve_with_literals when set, else resolve.
  Result<TypePtr> Resolve(const std::vector<TypePtr>& arg_types,
                          const std::vector<Array>& literals = {}) const;
};

class FunctionRegistry {
 public:
  /// Adds a function; an existing name is an error (names are unique, aliases are separate
  /// entries).
  Status Add(ScalarFunction function);
  /// The function called `name` (case-insensitive), or a KeyError suggesting the closest name.
  Result<const ScalarFunction*> Find(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, ScalarFunction> functions_;
};

/// Whether `e` calls a volatile function (random(), uuid()) anywhere: such an expression must
/// not be computed once and reused (constant folding).
bool CallsVolatileFunction(const ExprPtr& e);

/// The registry with every built-in function, built once.
const FunctionRegistry& DefaultRegistry();

// One call per family; each lives beside its kernels.
Status RegisterArithmeticFunctions(FunctionRegistry* registry);
Status RegisterComparisonFunctions(FunctionRegistry* registry);
Status RegisterStringFunctions(FunctionRegistry* registry);
Status RegisterTemporalFunctions(FunctionRegistry* registry);
Status RegisterMathFunctions(FunctionRegistry* registry);
Status RegisterHashFunctions(FunctionRegistry* registry);
Status RegisterListFunctions(FunctionRegistry* registry);
Status RegisterRandomFunctions(FunctionRegistry* registry);  // volatile: random, uuid
Status RegisterImageFunctions(FunctionRegistry* registry);   // image_decode, image_resize, ...

}  // namespace flotilla::expr
