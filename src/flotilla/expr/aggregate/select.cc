// Aggregates that pick one input value per group: min, max, any_value, first, last.
//
// Value order (min/max): numbers, decimals and temporals numerically, NaN above every number,
// false < true, string/binary bytewise. any_value is the first non-null value; first and last
// (as in DuckDB) return the first/last row's value even when it is null. Nested types are not
// supported yet.

#include <cmath>
#include <string_view>

#include "flotilla/expr/aggregate/value_storage.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::GrowTo;
using aggregate_internal::IsSelectable;
using aggregate_internal::MakeBooleanArray;
using aggregate_internal::VisitStorage;

enum class Pick { kMin, kMax, kAny, kFirst, kLast };

template <typename Storage, Pick kPick>
class SelectAccumulator : public GroupedAccumulator {
 public:
  using View = typename Storage::View;
  SelectAccumulator(std::string name, TypePtr type)
      : name_(std::move(name)), type_(std::move(type)) {}

  Status Resize(int64_t num_groups) override {
    storage_.Resize(num_groups);
    GrowTo(&seen_, num_groups, uint8_t{0});
    GrowTo(&valid_, num_groups, uint8_t{0});
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    const Array& a = args[0];
    if (a.type_id() == TypeId::kNull) {
      if constexpr (kPick == Pick::kFirst || kPick == Pick::kLast) {
        for (int64_t i = 0; i < num_rows; ++i)
          Combine(group_ids[i], false, View{});
      }
      return Status::OK();
    }
    if (a.null_count() == 0) {
      for (int64_t i = 0; i < num_rows; ++i)
        Combine(group_ids[i], true, Storage::Get(a, i));
      return Status::OK();
    }
    for (int64_t i = 0; i < num_rows; ++i) {
      const bool valid = a.IsValid(i);
      Combine(group_ids[i], valid, valid ? Storage::Get(a, i) : View{});
    }
    return Status::OK();
  }

  int64_t memory_bytes() const override {
    return storage_.memory_bytes() + static_cast<int64_t>(seen_.capacity() + valid_.capacity());
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const SelectAccumulator&>(other);
    for (int64_t g = 0; g < o.num_groups_; ++g) {
      if (!o.seen_[g]) continue;
      Combine(group_map[g], o.valid_[g] != 0, o.valid_[g] ? o.storage_.At(g) : View{});
    }
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    FLOTILLA_ASSIGN_OR_RETURN(Array values, Finalize());
    std::vector<uint8_t> seen(seen_.begin(), seen_.begin() + num_groups_);
    FLOTILLA_ASSIGN_OR_RETURN(Array seen_array, MakeBooleanArray(seen, nullptr));
    return std::vector<Array>{values, seen_array};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState(name_, state, 2, n));
    const Array& values = state[0];
    for (int64_t i = 0; i < n; ++i) {
      if (!state[1].BoolValue(i)) continue;
      const bool valid = values.IsValid(i);
      Combine(group_ids[i], valid, valid ? Storage::Get(values, i) : View{});
    }
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    std::vector<uint8_t> valid(valid_.begin(), valid_.begin() + num_groups_);
    return storage_.Build(type_, num_groups_, valid);
  }

 private:
  void Combine(uint32_t g, bool valid, View v) {
    if constexpr (kPick == Pick::kFirst) {
      if (seen_[g]) return;
    } else if constexpr (kPick != Pick::kLast) {
      if (!valid) return;
      if (valid_[g]) {
        if constexpr (kPick == Pick::kAny) return;
        if constexpr (kPick == Pick::kMin) {
          if (!Storage::Less(v, storage_.At(g))) return;
        }
        if constexpr (kPick == Pick::kMax) {
          if (!Storage::Less(storage_.At(g), v)) return;
        }
      }
    }
    seen_[g] = 1;
    valid_[g] = valid;
    if (valid) storage_.Set(g, v);
  }

  std::string name_;
  TypePtr type_;
  Storage storage_;
  std::vector<uint8_t> seen_;   // the group saw a row (first/last: even a null one)
  std::vector<uint8_t> valid_;  // the picked value is not null
};

constexpr const char* PickName(Pick pick) {
  switch (pick) {
    case Pick::kMin:
      return "min";
    case Pick::kMax:
      return "max";
    case Pick::kAny:
      return "any_value";
    case Pick::kFirst:
      return "first";
    case Pick::kLast:
      return "last";
  }
  return "";
}

template <Pick kPick>
Result<TypePtr> ResolveSelect(const std::vector<TypePtr>& args) {
  if (!IsSelectable(*args[0])) {
    return ArgumentTypeError(PickName(kPick), "an orderable (non-nested) argument", args[0], 0);
  }
  return args[0];
}

template <Pick kPick>
Result<std::vector<TypePtr>> SelectState(const std::vector<TypePtr>& args) {
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr t, ResolveSelect<kPick>(args));
  return std::vector<TypePtr>{t, boolean()};
}

template <Pick kPick>
Result<std::unique_ptr<GroupedAccumulator>> MakeSelect(const std::vector<TypePtr>& args,
                                                       const std::vector<Array>&) {
  using Ptr = std::unique_ptr<GroupedAccumulator>;
  const TypePtr& type = args[0];
  const std::string name = PickName(kPick);
  return VisitStorage(
      *type,
      [&](auto storage) -> Result<Ptr> {
        return Ptr(new SelectAccumulator<decltype(storage), kPick>(name, type));
      },
      [&]() -> Result<Ptr> {
        return ArgumentTypeError(name, "an orderable (non-nested) argument", type, 0);
      });
}

template <Pick kPick>
AggregateFunction SelectFunction(std::string name, std::string doc) {
  return {std::move(name),    std::move(doc),   1, 1, ResolveSelect<kPick>,
          SelectState<kPick>, MakeSelect<kPick>};
}

}  // namespace

Status RegisterSelectAggregates(AggregateRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(registry->Add(SelectFunction<Pick::kMin>(
      "min",
      "Smallest non-null value (numbers, decimals, temporals, bool, strings bytewise; NaN is "
      "the largest float); null for a group without values.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(SelectFunction<Pick::kMax>(
      "max", "Largest non-null value, in min()'s order; null for a group without values.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(SelectFunction<Pick::kAny>(
      "any_value", "Some non-null value of the group (the first one seen); null if none.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(SelectFunction<Pick::kFirst>(
      "first",
      "Value of the group's first row (null if that value is null), in input order; across "
      "threads and workers, in merge order.")));
  return registry->Add(SelectFunction<Pick::kLast>(
      "last",
      "Value of the group's last row (null if that value is null), in input order; across "
      "threads and workers, in merge order."));
}

}  // namespace flotilla::expr
