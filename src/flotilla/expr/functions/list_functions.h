#pragma once
// The list family (list<T> and fixed_size_list<T>), registered by RegisterListFunctions
// (register_list.cc). Element positions are 0-based; a null list gives a null result.

#include <cstdint>
#include <string_view>
#include <utility>

#include "flotilla/columnar/decimal.h"
#include "flotilla/expr/function_registry.h"

namespace flotilla::expr::functions {

/// Rows [first, end) of the list's child array holding list row `i` of `lists`.
std::pair<int64_t, int64_t> ListRange(const Array& lists, int64_t i);

/// The element type of a list or fixed_size_list type.
inline const TypePtr& ElementType(const DataType& list_type) {
  return list_type.fields()[0].type;
}
/// Element i of a float32 or float64 array, as a double.
double DoubleAt(const Array& values, int64_t i);
/// Element i of a decimal128 array, unscaled.
Int128 DecimalValueAt(const Array& values, int64_t i);

/// list<element> with the input's element field: the result type of list-to-list functions.
TypePtr VariableListOf(const DataType& list_type);

/// \brief Orders the non-null elements of one array (numbers numerically with NaN above every
/// number, bool false < true, strings and binary bytewise, temporal types by their integer).
class ElementOrder {
 public:
  /// NotImplemented naming `function` when elements of this type cannot be ordered.
  static Result<ElementOrder> Make(const Array& values, std::string_view function);
  static bool IsOrderable(const DataType& type);
  int Compare(int64_t i, int64_t j) const;

 private:
  enum class Kind { kSigned, kUnsigned, kFloating, kBool, kBytes, kDecimal };
  ElementOrder(const Array& values, Kind kind) : values_(values), kind_(kind) {}
  Array values_;
  Kind kind_;
};

/// length, get, slice, join, contains, struct_get.
Status RegisterListAccessFunctions(FunctionRegistry* registry);
/// sum, mean, min, max, distinct, sort.
Status RegisterListAggregateFunctions(FunctionRegistry* registry);
/// quantile_cont, quantile_disc over a list's elements (SQL's median and quantiles).
Status RegisterListQuantileFunctions(FunctionRegistry* registry);
/// list_value, struct_pack.
Status RegisterListConstructFunctions(FunctionRegistry* registry);

}  // namespace flotilla::expr::functions
