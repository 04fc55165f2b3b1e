#pragma once
// Element-wise comparisons (= != < <= > >=) producing bool arrays.
//
// Both operands have the same type, except decimals, which may differ in precision and scale
// (compared by value). An operand of one row is broadcast; a null on either side gives null.
// Value order: integers, dates, timestamps (same unit), durations, decimals numerically; floats
// numerically with -0.0 == 0.0 and NaN equal to NaN and greater than every number (DuckDB);
// bool false < true; string/binary bytewise (unsigned bytes).

#include <cstdint>

#include "flotilla/columnar/array.h"

namespace flotilla::compute {

enum class CompareOp { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

/// "=", "!=", "<", "<=", ">", ">=".
const char* CompareOpSymbol(CompareOp op);

/// OK when values of `left` and `right` can be compared by Compare, a TypeError otherwise.
Status CheckComparable(const DataType& left, const DataType& right);

/// `left op right` over `length` rows (each input has `length` rows or one).
Result<Array> Compare(CompareOp op, const Array& left, const Array& right, int64_t length);

}  // namespace flotilla::compute
