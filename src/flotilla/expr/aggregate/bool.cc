// bool_and, bool_or over non-null booleans; null for a group without values.

#include "flotilla/expr/aggregate/accumulator_support.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::ForEachValid;
using aggregate_internal::GrowTo;
using aggregate_internal::MakeBooleanArray;

template <bool kAnd>
class BoolAccumulator : public GroupedAccumulator {
 public:
  Status Resize(int64_t num_groups) override {
    GrowTo(&values_, num_groups, uint8_t{kAnd});
    GrowTo(&seen_, num_groups, uint8_t{0});
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    const Array& a = args[0];
    (void)ForEachValid(a, num_rows, [&](int64_t i) {
      Combine(group_ids[i], a.BoolValue(i));
      return true;
    });
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const BoolAccumulator&>(other);
    for (int64_t g = 0; g < o.num_groups_; ++g) {
      if (o.seen_[g]) Combine(group_map[g], o.values_[g] != 0);
    }
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    FLOTILLA_ASSIGN_OR_RETURN(Array values, Finalize());
    return std::vector<Array>{values};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState(kAnd ? "bool_and" : "bool_or", state, 1, n));
    const Array& a = state[0];
    (void)ForEachValid(a, n, [&](int64_t i) {
      Combine(group_ids[i], a.BoolValue(i));
      return true;
    });
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    std::vector<uint8_t> values(values_.begin(), values_.begin() + num_groups_);
    std::vector<uint8_t> seen(seen_.begin(), seen_.begin() + num_groups_);
    return MakeBooleanArray(values, &seen);
  }

 private:
  void Combine(uint32_t g, bool v) {
    seen_[g] = 1;
    if constexpr (kAnd) {
      values_[g] &= static_cast<uint8_t>(v);
    } else {
      values_[g] |= static_cast<uint8_t>(v);
    }
  }

  std::vector<uint8_t> values_;
  std::vector<uint8_t> seen_;
};

template <bool kAnd>
Result<TypePtr> ResolveBool(const std::vector<TypePtr>& args) {
  if (args[0]->id() != TypeId::kBool) {
    return ArgumentTypeError(kAnd ? "bool_and" : "bool_or", "a bool argument", args[0], 0);
  }
  return boolean();
}

template <bool kAnd>
Result<std::vector<TypePtr>> BoolState(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(ResolveBool<kAnd>(args));
  return std::vector<TypePtr>{boolean()};
}

template <bool kAnd>
Result<std::unique_ptr<GroupedAccumulator>> MakeBool(const std::vector<TypePtr>&,
                                                     const std::vector<Array>&) {
  return std::unique_ptr<GroupedAccumulator>(new BoolAccumulator<kAnd>());
}

}  // namespace

Status RegisterBoolAggregates(AggregateRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"bool_and", "True when every non-null value is true; null for a group without values.", 1, 1,
       ResolveBool<true>, BoolState<true>, MakeBool<true>}));
  return registry->Add({"bool_or",
                        "True when any non-null value is true; null for a group without values.", 1,
                        1, ResolveBool<false>, BoolState<false>, MakeBool<false>});
}

}  // namespace flotilla::expr
