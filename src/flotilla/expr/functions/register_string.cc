#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/string_functions.h"

namespace flotilla::expr {

Status RegisterStringFunctions(FunctionRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(functions::RegisterBasicStringFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterLikeFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterRegexFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterDigestFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterEditFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterFormatFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterTypeOfFunction(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterHtmlFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterHttpFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterBinaryTextFunctions(registry));
  FLOTILLA_RETURN_NOT_OK(functions::RegisterTextQualityFunctions(registry));
  return functions::RegisterNormalizeFunctions(registry);
}

}  // namespace flotilla::expr
