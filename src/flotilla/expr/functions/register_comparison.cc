// The comparison and logic family: = != < <= > >= and Kleene AND / OR / NOT, over
// compute/compare.h and compute/boolean.h. The binder coerces operands to a common type first.

#include "flotilla/compute/boolean.h"
#include "flotilla/compute/compare.h"
#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/arguments.h"

namespace flotilla::expr {
namespace {

using compute::CompareOp;

Result<TypePtr> ResolveCompare(const std::vector<TypePtr>& types) {
  FLOTILLA_RETURN_NOT_OK(compute::CheckComparable(*types[0], *types[1]));
  return boolean();
}

template <CompareOp op>
Result<Datum> ExecCompare(const std::vector<Datum>& args, int64_t num_rows) {
  const int64_t n = functions::OutputRows(args, num_rows);
  FLOTILLA_ASSIGN_OR_RETURN(Array out, compute::Compare(op, args[0].array(), args[1].array(), n));
  return functions::MakeOutput(args, std::move(out));
}

Result<TypePtr> ResolveLogic(const std::vector<TypePtr>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i]->id() != TypeId::kBool && types[i]->id() != TypeId::kNull) {
      return Status::TypeError("expected a bool for argument " + std::to_string(i + 1) + ", got " +
                               types[i]->ToString());
    }
  }
  return boolean();
}

template <bool kIsAnd>
Result<Datum> ExecLogic(const std::vector<Datum>& args, int64_t num_rows) {
  const int64_t n = functions::OutputRows(args, num_rows);
  FLOTILLA_ASSIGN_OR_RETURN(Array out,
                            kIsAnd ? compute::KleeneAnd(args[0].array(), args[1].array(), n)
                                   : compute::KleeneOr(args[0].array(), args[1].array(), n));
  return functions::MakeOutput(args, std::move(out));
}

Result<Datum> ExecNot(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(Array out, compute::Not(args[0].array()));
  return functions::MakeOutput(args, std::move(out));
}

template <CompareOp op>
ScalarFunction Comparison(const char* name, const char* doc) {
  return {name, doc, 2, 2, ResolveCompare, ExecCompare<op>};
}

}  // namespace

Status RegisterComparisonFunctions(FunctionRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      Comparison<CompareOp::kEqual>("eq", "a = b. Null if either is null; NaN equals NaN.")));
  FLOTILLA_RETURN_NOT_OK(
      registry->Add(Comparison<CompareOp::kNotEqual>("ne", "a != b. Null if either is null.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(Comparison<CompareOp::kLess>(
      "lt", "a < b. Null if either is null; NaN is greater than every number.")));
  FLOTILLA_RETURN_NOT_OK(
      registry->Add(Comparison<CompareOp::kLessEqual>("le", "a <= b. Null if either is null.")));
  FLOTILLA_RETURN_NOT_OK(
      registry->Add(Comparison<CompareOp::kGreater>("gt", "a > b. Null if either is null.")));
  FLOTILLA_RETURN_NOT_OK(
      registry->Add(Comparison<CompareOp::kGreaterEqual>("ge", "a >= b. Null if either is null.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"and", "Kleene AND: false if either is false, else null if either is null, else true.", 2, 2,
       ResolveLogic, ExecLogic<true>}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"or", "Kleene OR: true if either is true, else null if either is null, else false.", 2, 2,
       ResolveLogic, ExecLogic<false>}));
  return registry->Add({"not", "NOT a; null stays null.", 1, 1, ResolveLogic, ExecNot});
}

}  // namespace flotilla::expr
