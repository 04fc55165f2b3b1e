#pragma once
// Element-wise arithmetic on arrays: + - * / // % and negation.
//
// Operands have the same type (the binder inserts the casts), except decimals, which may differ
// in precision and scale. An operand of one row is broadcast. Nulls propagate.
//
// Result types:
//   integers T (op) T      -> T, except `/` which is float64 (DuckDB: 7 / 2 = 3.5)
//   floats T (op) T        -> T (IEEE: x / 0 is ±inf or NaN; `//` truncates; `%` is fmod)
//   decimal(p1,s1), (p2,s2):
//     + -  scale max(s1,s2), precision max(p1-s1, p2-s2) + scale + 1
//     *    scale s1+s2,      precision p1+p2+1
//     /    SQL Server's rule: scale max(6, s1+p2+1), precision p1-s1+s2+scale; above 38 the
//          scale gives way (never below min(scale, 6)) and precision is 38; quotients are
//          rounded half away from zero
//     %    scale max(s1,s2), precision min(p1-s1, p2-s2) + scale
//     Precision is capped at 38; a value that does not fit its precision is an Invalid error.
//   date32 - date32        -> int64 days
//
// Errors and nulls: integer overflow is an Invalid error naming the operation and the values
// ("integer overflow in 9223372036854775807 + 1 (int64)"). Integer and decimal division or
// modulo by zero give NULL, as in DuckDB (a zero divisor usually marks missing data in analytic
// queries, and a whole query failing on one row is worse than a null).

#include <cstdint>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/decimal.h"

namespace flotilla::compute {

enum class ArithmeticOp { kAdd, kSubtract, kMultiply, kDivide, kIntDiv, kMod };

/// "+", "-", "*", "/", "//", "%".
const char* ArithmeticOpSymbol(ArithmeticOp op);

/// The result type of `left op right`, or a TypeError naming both types.
Result<TypePtr> ArithmeticResultType(ArithmeticOp op, const TypePtr& left, const TypePtr& right);

/// `left op right` over `length` rows (each input has `length` rows or one).
Result<Array> Arithmetic(ArithmeticOp op, const Array& left, const Array& right, int64_t length);

/// -x for signed integers, floats and decimals (negating the minimum integer is an overflow).
Result<Array> Negate(const Array& values);

/// The largest unscaled value a decimal of `precision` digits holds: 10^precision - 1.
Int128 MaxDecimalForPrecision(int32_t precision);
/// 10^exponent for 0 <= exponent <= 38.
Int128 PowerOfTen(int32_t exponent);

}  // namespace flotilla::compute
