// count(x) and count_star(): the number of non-null values / rows per group.

#include "flotilla/expr/aggregate/accumulator_support.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::CheckPartialState;
using aggregate_internal::ForEachValid;
using aggregate_internal::GrowTo;
using aggregate_internal::MakeFixedWidthArray;

class CountAccumulator : public GroupedAccumulator {
 public:
  explicit CountAccumulator(bool count_all) : count_all_(count_all) {}

  Status Resize(int64_t num_groups) override {
    GrowTo(&counts_, num_groups, int64_t{0});
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    int64_t* counts = counts_.data();
    if (num_groups_ == 1) {  // every id is 0 (ids are dense): a global count
      if (count_all_ || args.empty()) {
        counts[0] += num_rows;
      } else if (args[0].type_id() != TypeId::kNull) {
        const Array& a = args[0];
        counts[0] += a.null_count() == 0 || a.validity() == nullptr
                         ? num_rows
                         : bit_util::CountSetBits(a.validity(), a.offset(), num_rows);
      }
      return Status::OK();
    }
    if (count_all_ || args.empty()) {
      for (int64_t i = 0; i < num_rows; ++i)
        ++counts[group_ids[i]];
      return Status::OK();
    }
    (void)ForEachValid(args[0], num_rows, [&](int64_t i) {
      ++counts[group_ids[i]];
      return true;
    });
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const CountAccumulator&>(other);
    for (int64_t g = 0; g < o.num_groups_; ++g)
      counts_[group_map[g]] += o.counts_[g];
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    FLOTILLA_ASSIGN_OR_RETURN(Array counts, Finalize());
    return std::vector<Array>{counts};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState("count", state, 1, n));
    const int64_t* partial = state[0].values<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      counts_[group_ids[i]] += partial[i];
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    std::vector<int64_t> out(counts_.begin(), counts_.begin() + num_groups_);
    return MakeFixedWidthArray(int64(), out, nullptr);
  }

 private:
  bool count_all_;
  std::vector<int64_t> counts_;
};

Result<TypePtr> ResolveCount(const std::vector<TypePtr>&) {
  return int64();
}
Result<std::vector<TypePtr>> CountState(const std::vector<TypePtr>&) {
  return std::vector<TypePtr>{int64()};
}

}  // namespace

Status RegisterCountAggregates(AggregateRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"count", "Number of non-null values of the argument in the group; 0 for an empty group.", 1,
       1, ResolveCount, CountState,
       [](const std::vector<TypePtr>&,
          const std::vector<Array>&) -> Result<std::unique_ptr<GroupedAccumulator>> {
         return std::make_unique<CountAccumulator>(false);
       }}));
  return registry->Add(
      {"count_star", "Number of rows in the group (COUNT(*)), nulls included; 0 when empty.", 0, 0,
       ResolveCount, CountState,
       [](const std::vector<TypePtr>&,
          const std::vector<Array>&) -> Result<std::unique_ptr<GroupedAccumulator>> {
         return std::make_unique<CountAccumulator>(true);
       }});
}

}  // namespace flotilla::expr
