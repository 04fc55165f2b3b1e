#include "flotilla/expr/function_registry.h"

#include <algorithm>
#include <cctype>

#include "flotilla/common/ascii.h"
#include "flotilla/common/suggest.h"

namespace flotilla::expr {

Result<TypePtr> ScalarFunction::Resolve(const std::vector<TypePtr>& arg_types,
                                        const std::vector<Array>& literals) const {
  if (resolve_with_literals == nullptr) return resolve(arg_types);
  if (literals.size() >= arg_types.size()) return resolve_with_literals(arg_types, literals);
  std::vector<Array> padded = literals;
  padded.resize(arg_types.size());
  return resolve_with_literals(arg_types, padded);
}

Status FunctionRegistry::Add(ScalarFunction function) {
  std::string key = AsciiLower(function.name);
  const bool resolves = function.resolve != nullptr || function.resolve_with_literals != nullptr;
  if (!resolves || function.exec == nullptr || function.doc.empty()) {
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
  for (const auto& [name, f] : functions_)
    names.push_back(name);
  return names;
}

const FunctionRegistry& DefaultRegistry() {
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    for (auto reg :
         {RegisterArithmeticFunctions, RegisterComparisonFunctions, RegisterStringFunctions,
          RegisterTemporalFunctions, RegisterMathFunctions, RegisterHashFunctions,
          RegisterListFunctions, RegisterRandomFunctions, RegisterImageFunctions}) {
      reg(r).Check();
    }
    return r;
  }();
  return *registry;
}

bool CallsVolatileFunction(const ExprPtr& e) {
  if (e->kind() == ExprKind::kCall) {
    auto f = DefaultRegistry().Find(e->name());
    if (f.ok() && (*f)->is_volatile) return true;
  }
  for (const ExprPtr& c : e->children())
    if (CallsVolatileFunction(c)) return true;
  return false;
}

}  // namespace flotilla::expr
