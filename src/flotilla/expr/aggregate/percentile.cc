// approx_percentile(x, q): the q-quantile (0 <= q <= 1, a constant) of the non-null numeric or
// decimal values as float64, from a QuantileSketch per group (see quantile_sketch.h for the
// error bounds; exact below 256 values). Null for a group without values.

#include <cmath>

#include "flotilla/columnar/buffer.h"
#include "flotilla/expr/aggregate/accumulator_support.h"
#include "flotilla/expr/aggregate/quantile_sketch.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::ForEachValidAsDouble;
using aggregate_internal::GrowTo;
using aggregate_internal::MakeFixedWidthArray;
using aggregate_internal::QuantileSketch;
using aggregate_internal::VisitPrimitive;

// A list<child type> array from int32 offsets (num_groups + 1) and the child values.
Result<Array> MakeList(const std::vector<int32_t>& offsets, const Array& child) {
  auto data = std::make_shared<ArrayData>();
  data->type = list(child.type());
  data->length = static_cast<int64_t>(offsets.size()) - 1;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::CopyOf(std::string_view(
                                                  reinterpret_cast<const char*>(offsets.data()),
                                                  offsets.size() * sizeof(int32_t))));
  data->buffers = {nullptr, buffer};
  data->children = {child.data()};
  return Array(std::move(data));
}

class PercentileAccumulator : public GroupedAccumulator {
 public:
  PercentileAccumulator(TypePtr type, double q) : type_(std::move(type)), q_(q) {}

  Status Resize(int64_t num_groups) override {
    GrowTo(&sketches_, num_groups);
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    ForEachValidAsDouble(args[0], num_rows,
                         [&](int64_t i, double x) { sketches_[group_ids[i]].Add(x); });
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const PercentileAccumulator&>(other);
    for (int64_t g = 0; g < o.num_groups_; ++g)
      sketches_[group_map[g]].Merge(o.sketches_[g]);
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    std::vector<int32_t> offsets{0};
    std::vector<double> values;
    std::vector<int8_t> levels;
    for (int64_t g = 0; g < num_groups_; ++g) {
      sketches_[g].ForEachItem([&](double v, int level) {
        values.push_back(v);
        levels.push_back(static_cast<int8_t>(level));
      });
      offsets.push_back(static_cast<int32_t>(values.size()));
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array value_child, MakeFixedWidthArray(float64(), values, nullptr));
    FLOTILLA_ASSIGN_OR_RETURN(Array level_child, MakeFixedWidthArray(int8(), levels, nullptr));
    FLOTILLA_ASSIGN_OR_RETURN(Array value_lists, MakeList(offsets, value_child));
    FLOTILLA_ASSIGN_OR_RETURN(Array level_lists, MakeList(offsets, level_child));
    return std::vector<Array>{value_lists, level_lists};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState("approx_percentile", state, 2, n));
    const Array values = state[0].child(0);
    const Array levels = state[1].child(0);
    for (int64_t i = 0; i < n; ++i) {
      if (state[0].IsNull(i)) continue;
      const int64_t begin = state[0].ValueOffset(i), end = state[0].ValueOffset(i + 1);
      const int64_t level_begin = state[1].ValueOffset(i);
      if (state[1].ValueOffset(i + 1) - level_begin != end - begin) {
        return Status::Invalid("approx_percentile(): partial state lists differ in length");
      }
      for (int64_t j = begin; j < end; ++j) {
        const int level = levels.values<int8_t>()[level_begin + (j - begin)];
        if (level < 0 || level > 62) {
          return Status::Invalid("approx_percentile(): malformed partial state");
        }
        sketches_[group_ids[i]].AddWeighted(values.values<double>()[j], level);
      }
    }
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    std::vector<double> out(static_cast<size_t>(num_groups_), 0.0);
    std::vector<uint8_t> valid(static_cast<size_t>(num_groups_), 0);
    for (int64_t g = 0; g < num_groups_; ++g) {
      if (sketches_[g].empty()) continue;
      out[g] = sketches_[g].Quantile(q_);
      valid[g] = 1;
    }
    return MakeFixedWidthArray(float64(), out, &valid);
  }

 private:
  TypePtr type_;
  double q_;
  std::vector<QuantileSketch> sketches_;
};

Result<TypePtr> ResolvePercentile(const std::vector<TypePtr>& args) {
  if (!args[0]->is_numeric() && args[0]->id() != TypeId::kDecimal128) {
    return ArgumentTypeError("approx_percentile", "a numeric or decimal value", args[0], 0);
  }
  if (!args[1]->is_numeric()) {
    return ArgumentTypeError("approx_percentile", "a numeric quantile", args[1], 1);
  }
  return float64();
}
Result<std::vector<TypePtr>> PercentileState(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(ResolvePercentile(args));
  return std::vector<TypePtr>{list(float64()), list(int8())};
}

Result<std::unique_ptr<GroupedAccumulator>> MakePercentile(const std::vector<TypePtr>& args,
                                                           const std::vector<Array>& constants) {
  FLOTILLA_RETURN_NOT_OK(ResolvePercentile(args));
  const Array& q_array = constants[1];
  if (!q_array.valid() || q_array.length() != 1 || q_array.IsNull(0)) {
    return Status::Invalid("approx_percentile() needs a constant, non-null quantile (argument 2)");
  }
  double q = 0;
  VisitPrimitive(
      q_array.type_id(),
      [&](auto tag) { q = static_cast<double>(q_array.values<decltype(tag)>()[0]); }, [] {});
  if (!(q >= 0 && q <= 1)) {
    return Status::Invalid("approx_percentile() quantile must be between 0 and 1, got " +
                           std::to_string(q));
  }
  return std::unique_ptr<GroupedAccumulator>(new PercentileAccumulator(args[0], q));
}

}  // namespace

Status RegisterPercentileAggregates(AggregateRegistry* registry) {
  return registry->Add(
      {"approx_percentile",
       "Approximate q-quantile (nearest rank floor(q * (n - 1)), q a constant in [0, 1]) of the "
       "non-null values as float64, from a mergeable KLL-style sketch: exact below 256 values, "
       "otherwise rank error typically under 1% of n. Null for a group without values.",
       2, 2, ResolvePercentile, PercentileState, MakePercentile});
}

}  // namespace flotilla::expr
