// The math family. Choices worth knowing:
// - Domain errors follow DuckDB: sqrt of a negative number and logarithms of zero or negative
//   numbers are Invalid errors, not NaN. NaN input propagates; -0.0 is kept where IEEE keeps it
//   (sqrt(-0.0) = -0.0, floor(-0.0) = -0.0, abs(-0.0) = 0.0).
// - abs, floor, ceil, trunc, round keep the input type (integers, floats, decimal128), except
//   that a decimal(p, s) rounded to a whole number is decimal(p, 0) (as DuckDB), which always
//   has room for the carry; integer abs(INT_MIN) and decimal results that outgrow the precision
//   are errors.
// - round rounds half away from zero; negative digits round left of the point.

#include <cmath>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/math_kernels.h"

namespace flotilla::expr {

namespace {

struct IsNan {
  static constexpr const char* kName = "isnan";
  template <typename T>
  static bool Test(T x) {
    return std::isnan(x);
  }
};
struct IsInf {
  static constexpr const char* kName = "isinf";
  template <typename T>
  static bool Test(T x) {
    return std::isinf(x);
  }
};

// A test of a float's class; false for integers and decimals, which are never NaN or infinite.
template <typename Class>
ScalarFunction FloatClassFunction(std::string doc) {
  auto resolve = [](const std::vector<TypePtr>& t) -> Result<TypePtr> {
    if (!t[0]->is_numeric() && t[0]->id() != TypeId::kDecimal128) {
      return Status::TypeError(std::string(Class::kName) + "() takes a number, got " +
                               t[0]->ToString());
    }
    return boolean();
  };
  auto exec = [](const std::vector<Datum>& a, int64_t n) -> Result<Datum> {
    BooleanBuilder out;
    return functions::MapRows(a, n, &out, [&](int64_t row) {
      const Array& v = a[0].array();
      const int64_t i = a[0].index(row);
      bool test = false;
      if (v.type_id() == TypeId::kFloat64) test = Class::Test(v.values<double>()[i]);
      if (v.type_id() == TypeId::kFloat32) test = Class::Test(v.values<float>()[i]);
      return out.Append(test);
    });
  };
  return {Class::kName, std::move(doc), 1, 1, resolve, exec};
}

}  // namespace

Status RegisterMathFunctions(FunctionRegistry* registry) {
  using math::FloatOp;
  using math::RoundOp;
  struct FloatEntry {
    const char* name;
    FloatOp op;
    const char* doc;
  };
  static const FloatEntry kFloatOps[] = {
      {"sqrt", FloatOp::kSqrt,
       "Square root as float64; a negative input is an error (as DuckDB), NaN stays NaN, null "
       "stays null."},
      {"exp", FloatOp::kExp, "e raised to x, as float64; null stays null."},
      {"ln", FloatOp::kLn,
       "Natural logarithm as float64; zero or a negative input is an error; null stays null."},
      {"log10", FloatOp::kLog10,
       "Base-10 logarithm as float64; zero or a negative input is an error; null stays null."},
      {"log2", FloatOp::kLog2,
       "Base-2 logarithm as float64; zero or a negative input is an error; null stays null."},
      {"sin", FloatOp::kSin, "Sine of x radians, as float64; null stays null."},
      {"cos", FloatOp::kCos, "Cosine of x radians, as float64; null stays null."},
      {"tan", FloatOp::kTan, "Tangent of x radians, as float64; null stays null."},
  };
  for (const auto& f : kFloatOps) {
    FLOTILLA_RETURN_NOT_OK(registry->Add(
        {f.name, f.doc, 1, 1, math::FloatOpResolver(f.op), math::FloatOpExecutor(f.op)}));
  }
  struct RoundEntry {
    const char* name;
    RoundOp op;
    const char* doc;
  };
  static const RoundEntry kRoundOps[] = {
      {"floor", RoundOp::kFloor,
       "Largest whole number <= x, in x's type (integers unchanged; decimal(p, s) gives "
       "decimal(p, 0))."},
      {"ceil", RoundOp::kCeil,
       "Smallest whole number >= x, in x's type (integers unchanged; decimal(p, s) gives "
       "decimal(p, 0))."},
      {"trunc", RoundOp::kTrunc,
       "x with its fraction dropped (toward zero), in x's type (decimal(p, s) gives "
       "decimal(p, 0)); null stays null."},
  };
  for (const auto& f : kRoundOps) {
    FLOTILLA_RETURN_NOT_OK(registry->Add(
        {f.name, f.doc, 1, 1, math::RoundOpResolver(f.op), math::RoundOpExecutor(f.op)}));
  }
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"abs",
       "Absolute value in x's type; abs of the smallest integer (-128 for int8) is an "
       "overflow error. Null stays null.",
       1, 1, math::ResolveAbs, math::ExecAbs}));
  // isnan / isinf: floats only; integers and decimals are never NaN or infinite.
  FLOTILLA_RETURN_NOT_OK(registry->Add(FloatClassFunction<IsNan>(
      "Whether a float is NaN (false for other numbers); null for null.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(FloatClassFunction<IsInf>(
      "Whether a float is +inf or -inf (false for other numbers); null for null.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"sign",
       "-1, 0 or 1 as int8 for integers and decimals; floats keep their type and NaN, "
       "-0.0 and 0.0 are their own sign. Null stays null.",
       1, 1, math::ResolveSign, math::ExecSign}));
  FLOTILLA_RETURN_NOT_OK(
      registry->Add({"round",
                     "round(x[, digits]): x rounded half away from zero to `digits` decimals (0 by "
                     "default, negative rounds to tens, hundreds...), in x's type; a decimal(p, s) "
                     "rounded to constant digits d is decimal(p, min(max(d, 0), s)).",
                     1, 2, nullptr, math::ExecRound, math::ResolveRound}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"log",
       "log(x) is the base-10 logarithm; log(base, x) the logarithm in `base`. float64; "
       "zero or negative x, or a base <= 0 or 1, is an error.",
       1, 2, math::ResolveLog, math::ExecLog}));
  const char* kPowDoc = "pow(x, y): x raised to y as float64 (IEEE: pow(-8, 1.0/3) is NaN).";
  FLOTILLA_RETURN_NOT_OK(registry->Add({"pow", kPowDoc, 2, 2, math::ResolvePow, math::ExecPow}));
  FLOTILLA_RETURN_NOT_OK(
      registry->Add({"power", "Same as pow(x, y).", 2, 2, math::ResolvePow, math::ExecPow}));
  FLOTILLA_RETURN_NOT_OK(registry->Add({"pi", "pi(): the constant 3.14159... as a float64 scalar.",
                                        0, 0, math::ResolvePi, math::ExecPi}));
  const char* kOrderDoc =
      " Arguments of one type keep it; mixed types meet as CASE branches do (int64, float64, a "
      "wide enough decimal, timestamp for dates with timestamps). Null "
      "arguments are skipped (null only when all are null); NaN is greater than every number.";
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"greatest", std::string("greatest(a, b, ...): the largest argument per row.") + kOrderDoc, 1,
       -1, math::ResolveGreatest, math::ExecGreatest}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"least", std::string("least(a, b, ...): the smallest argument per row.") + kOrderDoc, 1, -1,
       math::ResolveLeast, math::ExecLeast}));
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"clip",
       "clip(x, lo, hi): x limited to [lo, hi], in the arguments' common type. Any null "
       "gives null; NaN propagates; lo > hi is an error.",
       3, 3, math::ResolveClip, math::ExecClip}));
  return Status::OK();
}

}  // namespace flotilla::expr
