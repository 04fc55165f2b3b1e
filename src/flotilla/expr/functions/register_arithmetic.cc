// The arithmetic family: + - * / // % and unary minus, over compute/arithmetic.h. The binder
// coerces operands to a common type before these run (see binder.h), so resolve only accepts
// matching types and decimal pairs.

#include "flotilla/compute/arithmetic.h"
#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/arguments.h"

namespace flotilla::expr {
namespace {

using compute::ArithmeticOp;

template <ArithmeticOp op>
Result<TypePtr> ResolveArithmetic(const std::vector<TypePtr>& types) {
  return compute::ArithmeticResultType(op, types[0], types[1]);
}

template <ArithmeticOp op>
Result<Datum> ExecArithmetic(const std::vector<Datum>& args, int64_t num_rows) {
  const int64_t n = functions::OutputRows(args, num_rows);
  FLOTILLA_ASSIGN_OR_RETURN(Array out,
                            compute::Arithmetic(op, args[0].array(), args[1].array(), n));
  return functions::MakeOutput(args, std::move(out));
}

Result<TypePtr> ResolveNegate(const std::vector<TypePtr>& types) {
  const DataType& t = *types[0];
  if (t.is_signed_integer() || t.is_floating() || t.id() == TypeId::kDecimal128) return types[0];
  return Status::TypeError("negate() expects a signed number, got " + t.ToString());
}

Result<Datum> ExecNegate(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(Array out, compute::Negate(args[0].array()));
  return functions::MakeOutput(args, std::move(out));
}

template <ArithmeticOp op>
ScalarFunction Binary(const char* name, const char* doc) {
  return {name, doc, 2, 2, ResolveArithmetic<op>, ExecArithmetic<op>};
}

}  // namespace

Status RegisterArithmeticFunctions(FunctionRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(registry->Add(Binary<ArithmeticOp::kAdd>(
      "add", "a + b. Null if either is null; integer overflow is an error.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(Binary<ArithmeticOp::kSubtract>(
      "subtract", "a - b (date - date gives days). Null if either is null.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(Binary<ArithmeticOp::kMultiply>(
      "multiply", "a * b. Null if either is null; integer overflow is an error.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(Binary<ArithmeticOp::kDivide>(
      "divide",
      "a / b. Integers divide as float64 (IEEE: 1/0 is inf); decimals keep a decimal and "
      "division by a zero decimal is null.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      Binary<ArithmeticOp::kIntDiv>("int_div", "a // b truncated toward zero. Null when b is 0.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(Binary<ArithmeticOp::kMod>(
      "mod", "a % b with the sign of a. Null when b is 0 (integers, decimals).")));
  return registry->Add({"negate", "-a. Negating the smallest integer is an overflow error.", 1, 1,
                        ResolveNegate, ExecNegate});
}

}  // namespace flotilla::expr
