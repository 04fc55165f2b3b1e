#pragma once
// Resolve and exec entry points of the math functions, registered (with their docs) by
// register_math.cc. Nulls propagate (greatest/least skip them). Floats follow IEEE 754: NaN
// propagates and -0.0 is kept wherever the IEEE operation keeps it.

#include <vector>

#include "flotilla/expr/function_registry.h"

namespace flotilla::expr::math {

/// One-argument functions returning float64 (decimal and integer inputs are converted).
enum class FloatOp { kSqrt, kExp, kLn, kLog10, kLog2, kSin, kCos, kTan };
ResolveFn FloatOpResolver(FloatOp op);
ExecFn FloatOpExecutor(FloatOp op);

/// Type-keeping rounding family (integers, floats and decimal128 keep their type).
enum class RoundOp { kFloor, kCeil, kTrunc };
ResolveFn RoundOpResolver(RoundOp op);
ExecFn RoundOpExecutor(RoundOp op);

Result<TypePtr> ResolveAbs(const std::vector<TypePtr>& types);
Result<Datum> ExecAbs(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveSign(const std::vector<TypePtr>& types);
Result<Datum> ExecSign(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveRound(const std::vector<TypePtr>& types, const std::vector<Array>& literals);
Result<Datum> ExecRound(const std::vector<Datum>& args, int64_t num_rows);

// math_binary.cc
Result<TypePtr> ResolveLog(const std::vector<TypePtr>& types);
Result<Datum> ExecLog(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolvePow(const std::vector<TypePtr>& types);
Result<Datum> ExecPow(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolvePi(const std::vector<TypePtr>& types);
Result<Datum> ExecPi(const std::vector<Datum>& args, int64_t num_rows);

// math_select.cc
Result<TypePtr> ResolveGreatest(const std::vector<TypePtr>& types);
Result<Datum> ExecGreatest(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveLeast(const std::vector<TypePtr>& types);
Result<Datum> ExecLeast(const std::vector<Datum>& args, int64_t num_rows);
Result<TypePtr> ResolveClip(const std::vector<TypePtr>& types);
Result<Datum> ExecClip(const std::vector<Datum>& args, int64_t num_rows);

}  // namespace flotilla::expr::math
