#include <algorithm>
#include <cctype>

#include "flotilla/common/ascii.h"
#include "flotilla/common/suggest.h"
#include "flotilla/expr/aggregate/aggregate_function.h"

namespace flotilla::expr {

Result<std::unique_ptr<GroupedAccumulator>> AggregateFunction::MakeAccumulator(
    const std::vector<TypePtr>& arg_types, const std::vector<Array>& constant_args) const {
  const int n = static_cast<int>(arg_types.size());
  if (n < min_args || (max_args >= 0 && n > max_args)) {
    return Status::TypeError(name + "() takes " + std::to_string(min_args) +
                             (max_args == min_args ? "" : " to " + std::to_string(max_args)) +
                             " argument(s), got " + std::to_string(n));
  }
  FLOTILLA_RETURN_NOT_OK(resolve(arg_types));
  std::vector<Array> constants = constant_args;
  constants.resize(arg_types.size());
  return make_accumulator(arg_types, constants);
}

Status AggregateRegistry::Add(AggregateFunction function) {
  std::string key = AsciiLower(function.name);
  if (functions_.count(key) != 0) {
    return Status::Invalid("aggregate function '" + key + "' is already registered");
  }
  functions_.emplace(std::move(key), std::move(function));
  return Status::OK();
}

Result<const AggregateFunction*> AggregateRegistry::Find(std::string_view name) const {
  auto it = functions_.find(AsciiLower(name));
  if (it == functions_.end()) {
    return Status::KeyError(NotFoundMessage("aggregate function", name, Names()));
  }
  return &it->second;
}

std::vector<std::string> AggregateRegistry::Names() const {
  std::vector<std::string> names;
  names.reserve(functions_.size());
  for (const auto& entry : functions_)
    names.push_back(entry.first);
  return names;
}

Status RegisterAggregateFunctions(AggregateRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(RegisterCountAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterSumMeanAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterSelectAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterArgSelectAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterVarianceAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterBoolAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterCollectAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterDistinctAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterPercentileAggregates(registry));
  FLOTILLA_RETURN_NOT_OK(RegisterProductAggregate(registry));
  return Status::OK();
}

const AggregateRegistry& DefaultAggregateRegistry() {
  // Built on first use (thread-safe static init); registration failing is a bug, hence Check.
  static const AggregateRegistry* registry = [] {
    auto* r = new AggregateRegistry();
    RegisterAggregateFunctions(r).Check();
    return r;
  }();
  return *registry;
}

}  // namespace flotilla::expr
