#pragma once
// Implicit type coercion rules: the binder applies them (documented in expr/binder.h), unpivot
// and the list functions unify types with them.

#include "flotilla/types/data_type.h"

namespace flotilla {

enum class CoercionPurpose {
  kArithmetic,  // two decimals stay as they are: the kernel's precision rules apply
  kCompare,     // two decimals stay as they are: the kernel compares any scales
  kUnify,       // CASE / COALESCE branches: everything ends up with one type
};

/// The type both `a` and `b` convert to implicitly, or nullptr when there is none. For two
/// decimals, or a decimal and an integer, under kArithmetic/kCompare it returns nullptr too:
/// callers cast an integer side to IntegerAsDecimal and leave decimals as they are.
TypePtr CommonType(const TypePtr& a, const TypePtr& b, CoercionPurpose purpose);

/// decimal128(digits of the integer type, 0).
TypePtr IntegerAsDecimal(const DataType& integer_type);

/// Decimal digits needed by every value of an integer type (int32 -> 10), 0 for other types.
int32_t IntegerDecimalDigits(TypeId id);

}  // namespace flotilla
