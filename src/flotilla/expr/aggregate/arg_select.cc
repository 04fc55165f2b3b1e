// arg_min(value, key) / arg_max(value, key): the value of the row whose key is smallest /
// largest in the group (as DuckDB's). Rows with a null key are skipped; the value may be null and
// of any type, nested included; among equal keys the first seen wins.
//
// Keys live in per-group typed storage (value_storage.h). Values cannot: a list or a struct has
// no fixed-size slot. So each Update gathers the rows that won into a chunk (one Take per batch)
// and a group records where its winner sits. A win that a later row beats leaves a dead row in
// its chunk; the chunks are compacted into one when dead rows outnumber the groups, so memory
// stays within a small factor of one value per group.

#include <utility>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/take.h"
#include "flotilla/expr/aggregate/value_storage.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::ForEachValid;
using aggregate_internal::GrowTo;
using aggregate_internal::IsSelectable;
using aggregate_internal::MakeBooleanArray;
using aggregate_internal::MakeFixedWidthArray;
using aggregate_internal::VisitStorage;

template <typename KeyStorage, bool kMax>
class ArgSelectAccumulator : public GroupedAccumulator {
 public:
  ArgSelectAccumulator(std::string name, TypePtr value_type, TypePtr key_type)
      : name_(std::move(name)),
        value_type_(std::move(value_type)),
        key_type_(std::move(key_type)) {}

  Status Resize(int64_t num_groups) override {
    keys_.Resize(num_groups);
    GrowTo(&seen_, num_groups, uint8_t{0});
    GrowTo(&where_, num_groups, Location{});
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    return Fold(args[0], args[1], nullptr, group_ids, num_rows);
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const ArgSelectAccumulator&>(other);
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> state, o.SerializePartial());
    return Fold(state[0], state[1], &state[2], group_map, o.num_groups_);
  }

  /// State: the winning values, their keys, and whether the group saw a (non-null) key.
  Result<std::vector<Array>> SerializePartial() const override {
    FLOTILLA_ASSIGN_OR_RETURN(Array values, Gather());
    std::vector<uint8_t> seen(seen_.begin(), seen_.begin() + num_groups_);
    FLOTILLA_ASSIGN_OR_RETURN(Array keys, keys_.Build(key_type_, num_groups_, seen));
    FLOTILLA_ASSIGN_OR_RETURN(Array seen_array, MakeBooleanArray(seen, nullptr));
    return std::vector<Array>{std::move(values), std::move(keys), std::move(seen_array)};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState(name_, state, 3, n));
    return Fold(state[0], state[1], &state[2], group_ids, n);
  }

  Result<Array> Finalize() const override { return Gather(); }

  int64_t memory_bytes() const override {
    return keys_.memory_bytes() + static_cast<int64_t>(seen_.capacity()) +
           static_cast<int64_t>(where_.capacity() * sizeof(Location)) + stored_bytes_;
  }

 private:
  struct Location {
    int32_t chunk = -1;
    int64_t row = 0;
  };

  static bool Better(typename KeyStorage::View key, typename KeyStorage::View best) {
    if constexpr (kMax) {
      return KeyStorage::Less(best, key);
    } else {
      return KeyStorage::Less(key, best);
    }
  }

  // Folds rows (value, key) into groups; `seen` (partial state) marks the rows that carry one.
  Status Fold(const Array& values, const Array& keys, const Array* seen, const uint32_t* group_ids,
              int64_t n) {
    std::vector<int64_t> won;
    const auto chunk = static_cast<int32_t>(chunks_.size());
    (void)ForEachValid(keys, n, [&](int64_t i) {
      if (seen != nullptr && !seen->BoolValue(i)) return true;
      const auto key = KeyStorage::Get(keys, i);
      const uint32_t g = group_ids[i];
      if (seen_[g] && !Better(key, keys_.At(g))) return true;
      seen_[g] = 1;
      keys_.Set(g, key);
      where_[g] = {chunk, static_cast<int64_t>(won.size())};
      won.push_back(i);
      return true;
    });
    if (won.empty()) return Status::OK();
    FLOTILLA_ASSIGN_OR_RETURN(Array indices, MakeFixedWidthArray(int64(), won, nullptr));
    FLOTILLA_ASSIGN_OR_RETURN(Array rows, compute::Take(values, indices));
    stored_rows_ += rows.length();
    stored_bytes_ += TotalBufferSize(*rows.data());
    chunks_.push_back(std::move(rows));
    if (stored_rows_ > 2 * num_groups_ + 1024) return Compact();
    return Status::OK();
  }

  // One value per group in group order (null for a group without a key).
  Result<Array> Gather() const {
    if (chunks_.empty()) return Array::MakeNull(value_type_, num_groups_);
    std::vector<int64_t> starts(chunks_.size());
    int64_t total = 0;
    for (size_t c = 0; c < chunks_.size(); ++c) {
      starts[c] = total;
      total += chunks_[c].length();
    }
    Array all = chunks_[0];
    if (chunks_.size() > 1) {
      FLOTILLA_ASSIGN_OR_RETURN(all, compute::Concat(chunks_));
    }
    std::vector<int64_t> index(num_groups_, 0);
    std::vector<uint8_t> valid(num_groups_, 0);
    for (int64_t g = 0; g < num_groups_; ++g) {
      if (!seen_[g]) continue;
      index[g] = starts[where_[g].chunk] + where_[g].row;
      valid[g] = 1;
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array indices, MakeFixedWidthArray(int64(), index, &valid));
    return compute::Take(all, indices);
  }

  Status Compact() {
    FLOTILLA_ASSIGN_OR_RETURN(Array all, Gather());
    stored_bytes_ = TotalBufferSize(*all.data());
    chunks_.assign(1, std::move(all));
    stored_rows_ = num_groups_;
    for (int64_t g = 0; g < num_groups_; ++g)
      where_[g] = {0, g};
    return Status::OK();
  }

  std::string name_;
  TypePtr value_type_;
  TypePtr key_type_;
  KeyStorage keys_;
  std::vector<uint8_t> seen_;
  std::vector<Location> where_;  // the group's winning value: chunks_[chunk][row]
  std::vector<Array> chunks_;  // copies of the winning rows (Take), so their buffers are their own
  int64_t stored_rows_ = 0;
  int64_t stored_bytes_ = 0;
};

template <bool kMax>
const char* ArgName() {
  return kMax ? "arg_max" : "arg_min";
}

template <bool kMax>
Result<TypePtr> ResolveArgSelect(const std::vector<TypePtr>& args) {
  if (!IsSelectable(*args[1])) {
    return ArgumentTypeError(ArgName<kMax>(), "an orderable (non-nested) key", args[1], 1);
  }
  return args[0];
}

template <bool kMax>
Result<std::vector<TypePtr>> ArgSelectState(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(ResolveArgSelect<kMax>(args).status());
  return std::vector<TypePtr>{args[0], args[1], boolean()};
}

template <bool kMax>
Result<std::unique_ptr<GroupedAccumulator>> MakeArgSelect(const std::vector<TypePtr>& args,
                                                          const std::vector<Array>&) {
  using Ptr = std::unique_ptr<GroupedAccumulator>;
  return VisitStorage(
      *args[1],
      [&](auto storage) -> Result<Ptr> {
        return Ptr(
            new ArgSelectAccumulator<decltype(storage), kMax>(ArgName<kMax>(), args[0], args[1]));
      },
      [&]() -> Result<Ptr> {
        return ArgumentTypeError(ArgName<kMax>(), "an orderable (non-nested) key", args[1], 1);
      });
}

template <bool kMax>
AggregateFunction ArgSelectFunction(std::string doc) {
  return {ArgName<kMax>(),      std::move(doc),     2, 2, ResolveArgSelect<kMax>,
          ArgSelectState<kMax>, MakeArgSelect<kMax>};
}

}  // namespace

Status RegisterArgSelectAggregates(AggregateRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(registry->Add(ArgSelectFunction<false>(
      "arg_min(value, key): the value (any type, null included) of the row with the smallest "
      "non-null key, in min()'s order; the first such row on ties; null for a group without "
      "keys.")));
  FLOTILLA_RETURN_NOT_OK(registry->Add(ArgSelectFunction<true>(
      "arg_max(value, key): the value of the row with the largest non-null key, as arg_min.")));
  // DuckDB's names for them.
  AggregateFunction min_by = ArgSelectFunction<false>("min_by(value, key): arg_min.");
  min_by.name = "min_by";
  FLOTILLA_RETURN_NOT_OK(registry->Add(std::move(min_by)));
  AggregateFunction max_by = ArgSelectFunction<true>("max_by(value, key): arg_max.");
  max_by.name = "max_by";
  return registry->Add(std::move(max_by));
}

}  // namespace flotilla::expr
