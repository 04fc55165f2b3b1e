#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/list_functions.h"

namespace flotilla::expr {

Status RegisterListFunctions(FunctionRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(functions::RegisterListAccessFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterListConstructFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterListQuantileFunctions(registry));
  return functions::RegisterListAggregateFunctions(registry);
}

}  // namespace flotilla::expr
