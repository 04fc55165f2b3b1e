// sum, mean/avg. Integers sum into int64 (uint64 for unsigned) with overflow detection; floats
// into float64 with Neumaier (improved Kahan) compensation so that the result does not depend
// much on batch or merge order; decimal128(p, s) sums exactly into decimal128(38, s).
// mean returns float64 for every input, decimals included (DuckDB's avg(decimal) is a double);
// integer means sum exactly in 128 bits before the one division.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "flotilla/compute/arithmetic.h"
#include "flotilla/expr/aggregate/accumulator_support.h"
#include "flotilla/expr/aggregate/sum_arithmetic.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::DecimalAt;
using aggregate_internal::ForEachValid;
using aggregate_internal::GrowTo;
using aggregate_internal::MakeFixedWidthArray;
using aggregate_internal::VisitPrimitive;

// Exact sums without a 128-bit add per value: a block whose values all lie within +-2^53 sums
// exactly in 64-bit lanes, which vectorize (the range test is an OR of shifted values); any
// other block is summed in 128 bits.
constexpr int64_t kSumBlock = 1024;
constexpr uint64_t kNarrowBias = uint64_t{1} << 53;

Int128 SumInt64(const int64_t* v, int64_t n) {
  Int128 total = 0;
  for (int64_t b = 0; b < n; b += kSumBlock) {
    const int64_t e = std::min(n, b + kSumBlock);
    uint64_t sum = 0, wide = 0;
    for (int64_t i = b; i < e; ++i) {
      const auto x = static_cast<uint64_t>(v[i]);
      sum += x;
      wide |= (x + kNarrowBias) >> 54;
    }
    if (wide == 0) {
      total += static_cast<int64_t>(sum);
    } else {
      for (int64_t i = b; i < e; ++i)
        total += v[i];
    }
  }
  return total;
}

// An exact sum of int128 values: high halves (signed) and low halves (unsigned) summed apart,
// each without overflow for fewer than 2^63 values, recombined once.
struct WideSum {
  Int128 high = 0;
  unsigned __int128 low = 0;

  void Add(const uint8_t* value) {
    uint64_t lo;
    int64_t hi;
    std::memcpy(&lo, value, 8);
    std::memcpy(&hi, value + 8, 8);
    high += hi;
    low += lo;
  }
  // False when the sum leaves int128.
  bool Total(Int128* out) const {
    const Int128 top = high + static_cast<Int128>(low >> 64);
    if (top < std::numeric_limits<int64_t>::min() || top > std::numeric_limits<int64_t>::max())
      return false;
    *out = static_cast<Int128>((static_cast<unsigned __int128>(top) << 64) |
                               static_cast<uint64_t>(low));
    return true;
  }
};

// Decimal values as 16-byte little-endian two's complement: a block where every value fits
// 54 signed bits (its high half is the sign of its low half) sums the low halves as above.
// False when the exact sum leaves int128.
bool SumDecimals(const uint8_t* raw, int64_t n, Int128* out) {
  WideSum total;
  for (int64_t b = 0; b < n; b += kSumBlock) {
    const int64_t e = std::min(n, b + kSumBlock);
    uint64_t sum = 0, wide = 0;
    for (int64_t i = b; i < e; ++i) {
      uint64_t lo, hi;
      std::memcpy(&lo, raw + i * 16, 8);
      std::memcpy(&hi, raw + i * 16 + 8, 8);
      sum += lo;
      wide |= ((lo + kNarrowBias) >> 54) | (hi + (lo >> 63));
    }
    if (wide == 0) {
      const Int128 s = static_cast<int64_t>(sum);
      total.high += s >> 64;  // -1 for a negative block sum
      total.low += static_cast<uint64_t>(s);
      continue;
    }
    for (int64_t i = b; i < e; ++i)
      total.Add(raw + i * 16);
  }
  return total.Total(out);
}

// Acc is int64_t, uint64_t, double or Int128 (decimal sum, or exact integer sum for mean).
template <typename In, typename Acc, bool kMean>
class SumAccumulator : public GroupedAccumulator {
 public:
  static constexpr bool kFloat = std::is_same_v<Acc, double>;
  static constexpr bool kWide = std::is_same_v<Acc, Int128>;

  SumAccumulator(std::string name, TypePtr sum_type, int32_t scale)
      : name_(std::move(name)), sum_type_(std::move(sum_type)), scale_(scale) {}

  Status Resize(int64_t num_groups) override {
    GrowTo(&sums_, num_groups, Acc{0});
    GrowTo(&counts_, num_groups, int64_t{0});
    if constexpr (kFloat) GrowTo(&compensation_, num_groups, 0.0);
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    const Array& a = args[0];
    // With one group every id is 0 (ids are dense): a global aggregate.
    if constexpr (!kFloat) {
      if (num_groups_ == 1 && a.type_id() != TypeId::kNull) return UpdateOnlyGroup(a, num_rows);
    }
    int64_t stopped;
    if constexpr (std::is_same_v<In, Int128>) {
      if (SumsCannotOverflow(a, num_rows)) {
        const uint8_t* raw = a.raw_values() + a.offset() * 16;
        (void)ForEachValid(a, num_rows, [&](int64_t i) {
          Int128 v;
          std::memcpy(&v, raw + i * 16, 16);
          ++counts_[group_ids[i]];
          sums_[group_ids[i]] += v;
          return true;
        });
        return Status::OK();
      }
      stopped =
          ForEachValid(a, num_rows, [&](int64_t i) { return Add(group_ids[i], DecimalAt(a, i)); });
    } else {
      const In* values = a.values<In>();
      stopped = ForEachValid(
          a, num_rows, [&](int64_t i) { return Add(group_ids[i], static_cast<Acc>(values[i])); });
    }
    return stopped < 0 ? Status::OK() : OverflowError(group_ids[stopped]);
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const SumAccumulator&>(other);
    bound_ = kDecimal38Limit;  // merged sums are checked row by row from here on
    for (int64_t g = 0; g < o.num_groups_; ++g) {
      FLOTILLA_RETURN_NOT_OK(
          MergeOne(group_map[g], o.sums_[g], kFloat ? o.Comp(g) : 0.0, o.counts_[g]));
    }
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    std::vector<Array> out;
    std::vector<Acc> sums(sums_.begin(), sums_.begin() + num_groups_);
    FLOTILLA_ASSIGN_OR_RETURN(Array s, MakeFixedWidthArray(sum_type_, sums, nullptr));
    out.push_back(s);
    if constexpr (kFloat) {
      std::vector<double> comp(compensation_.begin(), compensation_.begin() + num_groups_);
      FLOTILLA_ASSIGN_OR_RETURN(Array c, MakeFixedWidthArray(float64(), comp, nullptr));
      out.push_back(c);
    }
    std::vector<int64_t> counts(counts_.begin(), counts_.begin() + num_groups_);
    FLOTILLA_ASSIGN_OR_RETURN(Array c, MakeFixedWidthArray(int64(), counts, nullptr));
    out.push_back(c);
    return out;
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState(name_, state, kFloat ? 3 : 2, n));
    bound_ = kDecimal38Limit;
    const int64_t* counts = state.back().values<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      Acc sum;
      if constexpr (kWide) {
        sum = DecimalAt(state[0], i);
      } else {
        sum = state[0].values<Acc>()[i];
      }
      const double comp = kFloat ? state[1].values<double>()[i] : 0.0;
      FLOTILLA_RETURN_NOT_OK(MergeOne(group_ids[i], sum, comp, counts[i]));
    }
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    std::vector<uint8_t> valid(static_cast<size_t>(num_groups_));
    for (int64_t g = 0; g < num_groups_; ++g)
      valid[g] = counts_[g] > 0;
    if constexpr (kMean) {
      std::vector<double> means(static_cast<size_t>(num_groups_), 0.0);
      const double unit = std::pow(10.0, scale_);
      for (int64_t g = 0; g < num_groups_; ++g) {
        if (counts_[g] == 0) continue;
        if constexpr (kFloat) {
          means[g] = Total(g) / static_cast<double>(counts_[g]);
        } else {
          // One division, one rounding: the mean of n equal values is that value.
          means[g] = static_cast<double>(sums_[g]) / (unit * static_cast<double>(counts_[g]));
        }
      }
      return MakeFixedWidthArray(float64(), means, &valid);
    } else {
      std::vector<Acc> sums(sums_.begin(), sums_.begin() + num_groups_);
      if constexpr (kFloat) {
        for (int64_t g = 0; g < num_groups_; ++g)
          sums[g] = Total(g);
      }
      return MakeFixedWidthArray(sum_type_, sums, &valid);
    }
  }

 private:
  double Total(int64_t g) const { return CompensatedTotal(sums_[g], compensation_[g]); }

  double Comp(int64_t g) const {
    if constexpr (kFloat) return compensation_[g];
    return 0.0;
  }

  // Returns false on overflow.
  bool Add(uint32_t g, Acc v) {
    ++counts_[g];
    if constexpr (kFloat) {
      CompensatedAdd(&sums_[g], &compensation_[g], v);
      return true;
    } else if constexpr (kWide) {
      return AddWide(&sums_[g], v);
    } else {
      return !__builtin_add_overflow(sums_[g], v, &sums_[g]);
    }
  }

  // Whether adding the batch's decimals to any group's sum without a test per row is safe: the
  // type bounds each value below 10^precision, and `bound_` every sum so far, so no sum can
  // pass 10^38 while the bound stays below it. Then the bound grows by the batch's worst case.
  bool SumsCannotOverflow(const Array& a, int64_t n) {
    if constexpr (kWide) {
      const int32_t precision = a.type()->precision();
      if (a.type_id() != TypeId::kDecimal128 || precision > 28 || n >= (int64_t{1} << 31))
        return false;
      const Int128 most = Int128{n} * compute::PowerOfTen(precision);  // below 2^125
      if (bound_ + most >= kDecimal38Limit) return false;
      bound_ += most;
      return true;
    }
    return false;
  }

  // Two values below 10^38 in magnitude can still sum past 2^127, hence the overflow test.
  static bool AddWide(Int128* sum, Int128 v) {
    Int128 t;
    if (__builtin_add_overflow(*sum, v, &t) || !FitsDecimal38(t)) return false;
    *sum = t;
    return true;
  }

  // The batch summed exactly in 128 bits, then added once: no overflow test per row.
  Status UpdateOnlyGroup(const Array& a, int64_t n) {
    Int128 total = 0;
    int64_t count = 0;
    if (!SumBatch(a, n, &total, &count)) return OverflowError(0);
    if constexpr (kWide) {
      if (!AddWide(&sums_[0], total)) return OverflowError(0);
    } else {
      const Int128 t = static_cast<Int128>(sums_[0]) + total;
      if (t < static_cast<Int128>(std::numeric_limits<Acc>::min()) ||
          t > static_cast<Int128>(std::numeric_limits<Acc>::max()))
        return OverflowError(0);
      sums_[0] = static_cast<Acc>(t);
    }
    counts_[0] += count;
    return Status::OK();
  }

  // Sum and count of the valid rows among the first n. False when the sum leaves int128.
  static bool SumBatch(const Array& a, int64_t n, Int128* total, int64_t* count) {
    const uint8_t* validity = a.null_count() > 0 ? a.validity() : nullptr;
    const int64_t offset = a.offset();
    if (validity == nullptr) {
      *count = n;
      if constexpr (std::is_same_v<In, Int128>) {
        return SumDecimals(a.raw_values() + offset * 16, n, total);
      } else if constexpr (std::is_same_v<In, int64_t>) {
        *total = SumInt64(a.values<int64_t>(), n);
        return true;
      }
    }
    if constexpr (std::is_same_v<In, Int128>) {  // with nulls (the no-null case returned)
      const uint8_t* raw = a.raw_values() + offset * 16;
      WideSum sum;
      int64_t c = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (!bit_util::GetBit(validity, offset + i)) continue;
        sum.Add(raw + i * 16);
        ++c;
      }
      if (!sum.Total(total)) return false;
      *count = c;
    } else {
      const In* values = a.values<In>();
      Int128 t = 0;
      if (validity == nullptr) {
        for (int64_t i = 0; i < n; ++i)
          t += values[i];
        *count = n;
      } else {
        int64_t c = 0;
        for (int64_t i = 0; i < n; ++i) {
          const bool valid = bit_util::GetBit(validity, offset + i);
          t += valid ? static_cast<Int128>(values[i]) : 0;
          c += valid;
        }
        *count = c;
      }
      *total = t;
    }
    return true;
  }

  Status MergeOne(uint32_t g, Acc sum, double comp, int64_t count) {
    if (count == 0) return Status::OK();
    if constexpr (kFloat) compensation_[g] += comp;
    const int64_t before = counts_[g];
    if (!Add(g, sum)) return OverflowError(g);
    counts_[g] = before + count;
    return Status::OK();
  }

  Status OverflowError(uint32_t group) const {
    return Status::Invalid(name_ + "() overflowed " + sum_type_->ToString() + " in group " +
                           std::to_string(group) +
                           "; cast the argument to a wider type (decimal128(38, 0) or float64)");
  }

  std::string name_;
  TypePtr sum_type_;
  int32_t scale_;
  std::vector<Acc> sums_;
  std::vector<double> compensation_;
  std::vector<int64_t> counts_;
  Int128 bound_ = 0;  // no decimal sum's magnitude is above it (see SumsCannotOverflow)
};

Status CheckSummable(const std::string& name, const std::vector<TypePtr>& args) {
  const DataType& t = *args[0];
  if (t.is_numeric() || t.id() == TypeId::kDecimal128) return Status::OK();
  return ArgumentTypeError(name, "a numeric or decimal argument", args[0], 0);
}

// The partial sum type: what SumAccumulator's Acc serializes as.
TypePtr SumStateType(const DataType& t, bool mean) {
  if (t.id() == TypeId::kDecimal128) return decimal128(38, t.scale());
  if (t.is_floating()) return float64();
  if (mean) return decimal128(38, 0);
  return t.is_signed_integer() ? int64() : uint64();
}

template <bool kMean>
Result<std::unique_ptr<GroupedAccumulator>> MakeSum(const std::vector<TypePtr>& args,
                                                    const std::vector<Array>&) {
  const std::string name = kMean ? "mean" : "sum";
  const DataType& t = *args[0];
  TypePtr state = SumStateType(t, kMean);
  if (t.id() == TypeId::kDecimal128) {
    return std::unique_ptr<GroupedAccumulator>(
        new SumAccumulator<Int128, Int128, kMean>(name, state, t.scale()));
  }
  return VisitPrimitive(
      t.id(),
      [&](auto tag) -> Result<std::unique_ptr<GroupedAccumulator>> {
        using In = decltype(tag);
        using Acc = std::conditional_t<
            std::is_floating_point_v<In>, double,
            std::conditional_t<kMean, Int128,
                               std::conditional_t<std::is_signed_v<In>, int64_t, uint64_t>>>;
        return std::unique_ptr<GroupedAccumulator>(
            new SumAccumulator<In, Acc, kMean>(name, state, 0));
      },
      [&]() -> Result<std::unique_ptr<GroupedAccumulator>> {
        return ArgumentTypeError(name, "a numeric or decimal argument", args[0], 0);
      });
}

Result<TypePtr> ResolveSum(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(CheckSummable("sum", args));
  return SumStateType(*args[0], false);
}
Result<std::vector<TypePtr>> SumState(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(CheckSummable("sum", args));
  if (args[0]->is_floating()) return std::vector<TypePtr>{float64(), float64(), int64()};
  return std::vector<TypePtr>{SumStateType(*args[0], false), int64()};
}
Result<TypePtr> ResolveMean(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(CheckSummable("mean", args));
  return float64();
}
Result<std::vector<TypePtr>> MeanState(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(CheckSummable("mean", args));
  if (args[0]->is_floating()) return std::vector<TypePtr>{float64(), float64(), int64()};
  return std::vector<TypePtr>{SumStateType(*args[0], true), int64()};
}

}  // namespace

Status RegisterSumMeanAggregates(AggregateRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"sum",
       "Sum of the non-null values: int64 for signed integers, uint64 for unsigned (an error "
       "on overflow), float64 for floats (compensated), decimal128(38, s) for decimals (exact). "
       "Null for a group without values.",
       1, 1, ResolveSum, SumState, MakeSum<false>}));
  const char* mean_doc =
      "Arithmetic mean of the non-null values as float64 (decimals too); null for a group "
      "without values.";
  FLOTILLA_RETURN_NOT_OK(
      registry->Add({"mean", mean_doc, 1, 1, ResolveMean, MeanState, MakeSum<true>}));
  return registry->Add({"avg", mean_doc, 1, 1, ResolveMean, MeanState, MakeSum<true>});
}

}  // namespace flotilla::expr
