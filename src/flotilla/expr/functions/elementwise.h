#pragma once
// Shared plumbing of the element-wise scalar kernels (temporal and math families): how many
// rows to compute, reading small per-row parameters of any integer/float/string type, and
// wrapping the result as a scalar exactly when every argument is a scalar.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/expr/datum.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::expr::elementwise {

/// 1 when every argument is a scalar (the result is then a scalar), else `num_rows`.
int64_t OutputRows(const std::vector<Datum>& args, int64_t num_rows);
/// `result` as a scalar Datum when every argument is a scalar, else as a column.
Datum MakeOutput(const std::vector<Datum>& args, Array result);
/// True when any argument is null at `row`.
bool AnyNull(const std::vector<Datum>& args, int64_t row);

/// Row `row` of an integer-typed datum as int64; uint64 values above INT64_MAX are an Invalid
/// error naming `function`. The caller has checked the row is not null.
Result<int64_t> IntegerAt(const Datum& datum, int64_t row, std::string_view function);
/// Row `row` of a numeric datum as double (integers converted). Not null.
double DoubleAt(const Datum& datum, int64_t row);
/// Row `row` of a string/large_string datum. Not null.
std::string_view StringAt(const Datum& datum, int64_t row);

bool IsStringType(const DataType& type);
/// "name() expects <expected>, got <type> for argument <index + 1>".
Status ArgumentTypeError(std::string_view function, std::string_view expected, const TypePtr& got,
                         size_t index);

/// Calls `f(T{})` with the C type of a numeric TypeId (integers and floats); other ids are
/// a caller bug and call `f(double{})` never: callers resolve types first.
template <typename F>
decltype(auto) DispatchNumeric(TypeId id, F&& f) {
  return VisitNumericType(id, f, [&]() -> decltype(auto) { return f(double{}); });
}

}  // namespace flotilla::expr::elementwise
