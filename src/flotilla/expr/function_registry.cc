#include "flotilla/expr/function_registry.h"

#include <algorithm>
#include <cctype>

#include "flotilla/common/suggest.h"

namespace flotilla::expr {

Status FunctionRegistry::Add(ScalarFunction function) {
  std::string key = AsciiLower(function.name);
  if (function.resolve == nullptr || function.exec == nullptr || function.doc.empty()) {
    return Status::Internal("function '" + key + "' registered without resolve, exec or doc");
  }
  if (!functions_.emplace(key, std::move(function)).second) {
    return Status::Internal("function '" + key + "' registered twice");
  }
  return Status::OK();
}

Result<const ScalarFunction*> FunctionRegistry::Find(std::string_view name) const {
  auto it = functions_.find(AsciiLower(name));
  if (it != functions_.end()) return &it->second;
  return Status::KeyError(NotFoundMessage("function", name, Names()));
}

std::vector<std::string> FunctionRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, f] : functions_) names.push_back(name);
  return names;
}

const FunctionRegistry& DefaultRegistry() {
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    for (auto reg : {RegisterArithmeticFunctions, RegisterComparisonFunctions,
                     RegisterStringFunctions, RegisterTemporalFunctions, RegisterMathFunctions,
                     RegisterHashFunctions, RegisterListFunctions}) {
      reg(r).Check();
    }
    return r;
  }();
  return *registry;
}

}  // namespace flotilla::expr
