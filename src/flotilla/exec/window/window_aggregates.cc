// Aggregates over window frames with dedicated kernels: count and count_star, min and max (a
// monotone deque), first, last and any_value, and sum and mean (window_sums.cc). Every other
// aggregate goes through its GroupedAccumulator (window_generic_aggregate.cc).
#include <cmath>
#include <string_view>
#include <type_traits>
#include <vector>

#include "flotilla/exec/window/window_internal.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::exec::window_internal {
namespace {

Result<Array> ComputeCount(const Array* x, const PartitionList& parts, FrameComputer* frames) {
  FLOTILLA_ASSIGN_OR_RETURN(auto out, OutputColumn<int64_t>::Make(int64(), parts.num_rows));
  int64_t* v = out.values();
  const bool all_valid = x == nullptr || (x->null_count() == 0 && x->type_id() != TypeId::kNull);
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        if (all_valid) {
          for (int64_t k = 0; k < pe - ps; ++k)
            v[ps + k] = fe[k] - fs[k];
          return Status::OK();
        }
        const Validity valid(*x);
        SlidingWindow window(ps);
        int64_t count = 0;
        for (int64_t k = 0; k < pe - ps; ++k) {
          window.MoveTo(
              fs[k], fe[k], [&](int64_t j) { count += valid(j); },
              [&](int64_t j) { count -= valid(j); });
          v[ps + k] = count;
        }
        return Status::OK();
      }));
  return out.Finish();
}

// Value access for min/max: Get(j) and a strict order (NaN above every number).
template <typename T>
struct PrimitiveValues {
  const T* values;
  explicit PrimitiveValues(const Array& a) : values(a.values<T>()) {}
  T Get(int64_t j) const { return values[j]; }
  static bool Less(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  }
};
struct DecimalValues {
  const Array* array;
  explicit DecimalValues(const Array& a) : array(&a) {}
  Int128 Get(int64_t j) const { return DecimalValue(*array, j); }
  static bool Less(Int128 a, Int128 b) { return a < b; }
};
struct BoolValues {
  const Array* array;
  explicit BoolValues(const Array& a) : array(&a) {}
  bool Get(int64_t j) const { return array->BoolValue(j); }
  static bool Less(bool a, bool b) { return !a && b; }
};
struct BinaryValues {
  const Array* array;
  explicit BinaryValues(const Array& a) : array(&a) {}
  std::string_view Get(int64_t j) const { return array->GetView(j); }
  static bool Less(std::string_view a, std::string_view b) { return a < b; }
};

// min / max over frames with a monotone deque of candidate rows: O(n). Among equal values the
// earliest row wins, as in the accumulator.
template <typename Values>
Result<Array> MinMax(const Array& x, bool is_max, const PartitionList& parts,
                     FrameComputer* frames) {
  const Values values(x);
  const Validity valid(x);
  FLOTILLA_ASSIGN_OR_RETURN(auto indices, OutputColumn<int64_t>::Make(int64(), parts.num_rows));
  std::vector<int64_t> deque;
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        deque.resize(static_cast<size_t>(pe - ps));
        size_t head = 0, tail = 0;
        auto better = [&](int64_t a, int64_t b) {
          return is_max ? Values::Less(values.Get(b), values.Get(a))
                        : Values::Less(values.Get(a), values.Get(b));
        };
        SlidingWindow window(ps);
        for (int64_t k = 0; k < pe - ps; ++k) {
          window.MoveTo(
              fs[k], fe[k],
              [&](int64_t j) {
                if (!valid(j)) return;
                while (tail > head && better(j, deque[tail - 1]))
                  --tail;
                deque[tail++] = j;
              },
              [&](int64_t j) {
                if (head < tail && deque[head] == j) ++head;
              });
          if (head < tail) {
            indices.Set(ps + k, deque[head]);
          } else {
            indices.SetNull(ps + k);
          }
        }
        return Status::OK();
      }));
  return TakeRows(x, &indices);
}

Result<Array> ComputeMinMax(const Array& x, bool is_max, const PartitionList& parts,
                            FrameComputer* frames) {
  switch (x.type_id()) {
    case TypeId::kBool:
      return MinMax<BoolValues>(x, is_max, parts, frames);
    case TypeId::kDecimal128:
      return MinMax<DecimalValues>(x, is_max, parts, frames);
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      return MinMax<BinaryValues>(x, is_max, parts, frames);
    default:
      break;
  }
  return VisitPrimitiveType(
      x.type_id(),
      [&](auto tag) -> Result<Array> {
        return MinMax<PrimitiveValues<decltype(tag)>>(x, is_max, parts, frames);
      },
      [&]() -> Result<Array> {
        return Status::TypeError(std::string(is_max ? "max" : "min") + "() cannot order " +
                                 x.type()->ToString());
      });
}

// any_value: the first non-null row of the frame.
Result<Array> ComputeAnyValue(const Array& x, const PartitionList& parts, FrameComputer* frames) {
  const Validity valid(x);
  FLOTILLA_ASSIGN_OR_RETURN(auto indices, OutputColumn<int64_t>::Make(int64(), parts.num_rows));
  std::vector<int64_t> next_valid;
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        const int64_t m = pe - ps;
        next_valid.resize(static_cast<size_t>(m + 1));
        next_valid[m] = pe;
        for (int64_t k = m - 1; k >= 0; --k)
          next_valid[k] = valid(ps + k) ? ps + k : next_valid[k + 1];
        for (int64_t k = 0; k < m; ++k) {
          const int64_t pick = next_valid[fs[k] - ps];
          if (pick < fe[k]) {
            indices.Set(ps + k, pick);
          } else {
            indices.SetNull(ps + k);
          }
        }
        return Status::OK();
      }));
  return TakeRows(x, &indices);
}

}  // namespace

Result<Array> ComputeAggregate(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                               const RecordBatch& batch, const PartitionList& parts,
                               FrameComputer* frames) {
  const std::string& name = r.aggregate->name;
  if (name == "count_star") return ComputeCount(nullptr, parts, frames);
  if (spec.arguments.size() == 1 && spec.constants.empty()) {
    const Array& x = batch.column(spec.arguments[0]);
    if (name == "count") return ComputeCount(&x, parts, frames);
    if (name == "min" || name == "max") return ComputeMinMax(x, name == "max", parts, frames);
    if (name == "first") return ComputeFramePick(WindowKind::kFirstValue, 1, x, parts, frames);
    if (name == "last") return ComputeFramePick(WindowKind::kLastValue, 1, x, parts, frames);
    if (name == "any_value") return ComputeAnyValue(x, parts, frames);
    const bool mean = name == "mean" || name == "avg";
    if ((name == "sum" || mean) && HasSlidingSum(x)) {
      return ComputeSlidingSum(name, x, r.type, mean, parts, frames);
    }
  }
  return ComputeGenericAggregate(r, spec, batch, parts, frames);
}

}  // namespace flotilla::exec::window_internal
