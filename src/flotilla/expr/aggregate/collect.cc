// Aggregates that collect every value: list/agg_list and string_agg.
//
// list keeps handles to the input arrays (cheap: shared buffers) plus one (group, array, row)
// entry per row, and gathers the values per group only at the end, so Update copies no values
// and allocates nothing per row beyond the amortized entry vector. Like DuckDB, list includes
// null values, and a group without rows gives null.

#include <algorithm>

#include "flotilla/columnar/builder.h"
#include "flotilla/columnar/value_size.h"
#include "flotilla/expr/aggregate/accumulator_support.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::GrowTo;
using aggregate_internal::MakeBinaryArray;

class ListAccumulator : public GroupedAccumulator {
 public:
  explicit ListAccumulator(TypePtr list_type) : list_type_(std::move(list_type)) {}

  Status Resize(int64_t num_groups) override {
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    const auto chunk = static_cast<uint32_t>(chunks_.size());
    chunks_.push_back(args[0]);
    entries_.reserve(entries_.size() + static_cast<size_t>(num_rows));
    for (int64_t i = 0; i < num_rows; ++i)
      entries_.push_back({group_ids[i], chunk, i});
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const ListAccumulator&>(other);
    const auto base = static_cast<uint32_t>(chunks_.size());
    chunks_.insert(chunks_.end(), o.chunks_.begin(), o.chunks_.end());
    entries_.reserve(entries_.size() + o.entries_.size());
    for (const Entry& e : o.entries_)
      entries_.push_back({group_map[e.group], base + e.chunk, e.row});
    return Status::OK();
  }

  // The entries; the input batches they point into are the pipeline's, charged there.
  int64_t memory_bytes() const override {
    return static_cast<int64_t>(entries_.capacity() * sizeof(Entry));
  }

  Result<std::vector<Array>> SerializePartial() const override {
    FLOTILLA_ASSIGN_OR_RETURN(Array lists, Finalize());
    return std::vector<Array>{lists};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState("list", state, 1, n));
    const Array& lists = state[0];
    const auto chunk = static_cast<uint32_t>(chunks_.size());
    chunks_.push_back(lists.child(0));
    for (int64_t i = 0; i < n; ++i) {
      if (lists.IsNull(i)) continue;
      for (int64_t j = lists.ValueOffset(i); j < lists.ValueOffset(i + 1); ++j) {
        entries_.push_back({group_ids[i], chunk, j});
      }
    }
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    // Stable counting sort of the entries by group keeps input order within each group.
    std::vector<int64_t> starts(static_cast<size_t>(num_groups_) + 1, 0);
    for (const Entry& e : entries_)
      ++starts[e.group + 1];
    for (int64_t g = 0; g < num_groups_; ++g)
      starts[g + 1] += starts[g];
    std::vector<int64_t> cursor(starts.begin(), starts.end() - 1);
    std::vector<const Entry*> sorted(entries_.size());
    for (const Entry& e : entries_)
      sorted[cursor[e.group]++] = &e;

    FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(list_type_));
    auto* list_builder = static_cast<ListBuilder*>(builder.get());
    ArrayBuilder* values = list_builder->value_builder();
    for (int64_t g = 0; g < num_groups_; ++g) {
      if (starts[g] == starts[g + 1]) {
        FLOTILLA_RETURN_NOT_OK(list_builder->AppendNull());
        continue;
      }
      FLOTILLA_RETURN_NOT_OK(list_builder->Append());
      for (int64_t k = starts[g]; k < starts[g + 1];) {
        // Copy runs of consecutive rows of one array with one call.
        const Entry* first = sorted[k];
        int64_t run = 1;
        while (k + run < starts[g + 1] && sorted[k + run]->chunk == first->chunk &&
               sorted[k + run]->row == first->row + run) {
          ++run;
        }
        FLOTILLA_RETURN_NOT_OK(values->AppendArraySlice(chunks_[first->chunk], first->row, run));
        k += run;
      }
    }
    return builder->Finish();
  }

 private:
  struct Entry {
    uint32_t group;
    uint32_t chunk;
    int64_t row;
  };
  TypePtr list_type_;
  std::vector<Array> chunks_;
  std::vector<Entry> entries_;
};

class StringAggAccumulator : public GroupedAccumulator {
 public:
  StringAggAccumulator(TypePtr type, std::string separator)
      : type_(std::move(type)), separator_(std::move(separator)) {}

  Status Resize(int64_t num_groups) override {
    GrowTo(&strings_, num_groups);
    GrowTo(&seen_, num_groups, uint8_t{0});
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    return AppendValid(args[0], group_ids, num_rows);
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const StringAggAccumulator&>(other);
    for (int64_t g = 0; g < o.num_groups_; ++g) {
      if (o.seen_[g]) FLOTILLA_RETURN_NOT_OK(Append(group_map[g], o.strings_[g]));
    }
    return Status::OK();
  }

  int64_t memory_bytes() const override {
    return static_cast<int64_t>(strings_.capacity() * sizeof(std::string) + seen_.capacity()) +
           string_bytes_;
  }

  Result<std::vector<Array>> SerializePartial() const override {
    FLOTILLA_ASSIGN_OR_RETURN(Array strings, Finalize());
    return std::vector<Array>{strings};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState("string_agg", state, 1, n));
    return AppendValid(state[0], group_ids, n);
  }

  Result<Array> Finalize() const override {
    std::vector<std::string> out(strings_.begin(), strings_.begin() + num_groups_);
    std::vector<uint8_t> seen(seen_.begin(), seen_.begin() + num_groups_);
    return MakeBinaryArray(type_, out, &seen);
  }

 private:
  Status AppendValid(const Array& a, const uint32_t* group_ids, int64_t n) {
    if (a.type_id() == TypeId::kNull) return Status::OK();
    for (int64_t i = 0; i < n; ++i) {
      if (a.IsValid(i)) FLOTILLA_RETURN_NOT_OK(Append(group_ids[i], a.GetView(i)));
    }
    return Status::OK();
  }
  Status Append(uint32_t g, std::string_view v) {
    std::string& s = strings_[g];
    FLOTILLA_RETURN_NOT_OK(
        CheckValueSize("string_agg()", s.size() + separator_.size() + v.size(), 1));
    const auto before = static_cast<int64_t>(s.capacity());
    if (seen_[g]) s.append(separator_);
    seen_[g] = 1;
    s.append(v);
    string_bytes_ += static_cast<int64_t>(s.capacity()) - before;
    return Status::OK();
  }

  TypePtr type_;
  std::string separator_;
  std::vector<std::string> strings_;
  std::vector<uint8_t> seen_;
  int64_t string_bytes_ = 0;
};

Result<TypePtr> ResolveList(const std::vector<TypePtr>& args) {
  return list(args[0]);
}
Result<std::vector<TypePtr>> ListState(const std::vector<TypePtr>& args) {
  return std::vector<TypePtr>{list(args[0])};
}
Result<std::unique_ptr<GroupedAccumulator>> MakeList(const std::vector<TypePtr>& args,
                                                     const std::vector<Array>&) {
  return std::unique_ptr<GroupedAccumulator>(new ListAccumulator(list(args[0])));
}

bool IsStringLike(const DataType& t) {
  return t.is_binary_like() || t.id() == TypeId::kNull;
}

Result<TypePtr> ResolveStringAgg(const std::vector<TypePtr>& args) {
  if (!IsStringLike(*args[0])) {
    return ArgumentTypeError("string_agg", "a string or binary value", args[0], 0);
  }
  if (args.size() > 1 && !IsStringLike(*args[1])) {
    return ArgumentTypeError("string_agg", "a string separator", args[1], 1);
  }
  return args[0]->id() == TypeId::kNull ? utf8() : args[0];
}
Result<std::vector<TypePtr>> StringAggState(const std::vector<TypePtr>& args) {
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr t, ResolveStringAgg(args));
  return std::vector<TypePtr>{t};
}
Result<std::unique_ptr<GroupedAccumulator>> MakeStringAgg(const std::vector<TypePtr>& args,
                                                          const std::vector<Array>& constants) {
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr t, ResolveStringAgg(args));
  std::string separator = ",";
  if (args.size() > 1) {
    const Array& sep = constants[1];
    if (!sep.valid() || sep.length() != 1) {
      return Status::Invalid("string_agg() needs a constant separator (argument 2)");
    }
    if (sep.IsValid(0)) separator = std::string(sep.GetView(0));
  }
  return std::unique_ptr<GroupedAccumulator>(new StringAggAccumulator(t, std::move(separator)));
}

}  // namespace

Status RegisterCollectAggregates(AggregateRegistry* registry) {
  const char* list_doc =
      "All values of the group in input order (nulls included) as a list; null for a group "
      "without rows. Across threads and workers, lists are concatenated in merge order.";
  FLOTILLA_RETURN_NOT_OK(registry->Add({"list", list_doc, 1, 1, ResolveList, ListState, MakeList}));
  for (const char* alias : {"agg_list", "array_agg"}) {
    FLOTILLA_RETURN_NOT_OK(
        registry->Add({alias, list_doc, 1, 1, ResolveList, ListState, MakeList}));
  }
  return registry->Add(
      {"string_agg",
       "The non-null strings of the group joined by the constant separator (default ','; a "
       "null separator joins with nothing), in input order; null for a group without values.",
       1, 2, ResolveStringAgg, StringAggState, MakeStringAgg});
}

}  // namespace flotilla::expr
