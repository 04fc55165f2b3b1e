#pragma once
// Kleene (three-valued) logic on bool arrays, as SQL defines AND, OR and NOT:
//   false AND null = false, true AND null = null, true OR null = true, false OR null = null,
//   NOT null = null.
// An operand of one row is broadcast.

#include <cstdint>

#include "flotilla/columnar/array.h"

namespace flotilla::compute {

Result<Array> KleeneAnd(const Array& left, const Array& right, int64_t length);
Result<Array> KleeneOr(const Array& left, const Array& right, int64_t length);
Result<Array> Not(const Array& values);

}  // namespace flotilla::compute
