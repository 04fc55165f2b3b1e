// log(x) / log(base, x), pow/power and pi(): float64 results.

#include <cmath>
#include <numbers>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/math_kernels.h"

namespace flotilla::expr::math {
namespace {

using functions::ArgumentTypeError;
using functions::MakeOutput;
using functions::OutputRows;

Status CheckNumbers(std::string_view name, const std::vector<TypePtr>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    if (!types[i]->is_numeric()) return ArgumentTypeError(name, i, "a number", types[i]);
  }
  return Status::OK();
}

/// float64 of `compute(a0, a1, ...)` over the arguments, read as doubles (nulls propagate).
template <typename Compute>
Result<Datum> MapDoubles(const std::vector<Datum>& args, int64_t num_rows, Compute&& compute) {
  const int64_t rows = OutputRows(args, num_rows);
  DoubleBuilder out(float64());
  FLOTILLA_RETURN_NOT_OK(out.Reserve(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (functions::AnyNull(args, r)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(double v, compute(r));
    FLOTILLA_RETURN_NOT_OK(out.Append(v));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return MakeOutput(args, std::move(result));
}

}  // namespace

Result<TypePtr> ResolveLog(const std::vector<TypePtr>& types) {
  FLOTILLA_RETURN_NOT_OK(CheckNumbers("log", types));
  return float64();
}

Result<Datum> ExecLog(const std::vector<Datum>& args, int64_t num_rows) {
  return MapDoubles(args, num_rows, [&](int64_t r) -> Result<double> {
    const double x = functions::DoubleAt(args.back(), r);
    // As DuckDB: logarithms of zero and negative numbers are errors; NaN propagates.
    if (x <= 0) {
      return Status::Invalid(x == 0 ? "log(): cannot take the logarithm of zero"
                                    : "log(): cannot take the logarithm of a negative number");
    }
    if (args.size() == 1) return std::log10(x);
    const double base = functions::DoubleAt(args[0], r);
    if (base <= 0 || base == 1) {
      return Status::Invalid("log(): the base must be positive and not 1, got " +
                             std::to_string(base));
    }
    return std::log(x) / std::log(base);
  });
}

Result<TypePtr> ResolvePow(const std::vector<TypePtr>& types) {
  FLOTILLA_RETURN_NOT_OK(CheckNumbers("pow", types));
  return float64();
}

Result<Datum> ExecPow(const std::vector<Datum>& args, int64_t num_rows) {
  return MapDoubles(args, num_rows, [&](int64_t r) -> Result<double> {
    return std::pow(functions::DoubleAt(args[0], r), functions::DoubleAt(args[1], r));
  });
}

Result<TypePtr> ResolvePi(const std::vector<TypePtr>& types) {
  return float64();
}

Result<Datum> ExecPi(const std::vector<Datum>& args, int64_t num_rows) {
  DoubleBuilder out(float64());
  FLOTILLA_RETURN_NOT_OK(out.Append(std::numbers::pi));
  FLOTILLA_ASSIGN_OR_RETURN(Array result, out.Finish());
  return Datum::Scalar(std::move(result));
}

}  // namespace flotilla::expr::math
