// Variance and standard deviation: var_samp/variance, var_pop, stddev_samp/stddev, stddev_pop.
// Welford's online update per row and Chan et al.'s pairwise formula to merge two groups'
// (count, mean, M2), which stays accurate where the naive sum-of-squares formula cancels.
// Sample statistics of fewer than two values and population statistics of none are null.

#include <cmath>

#include "flotilla/expr/aggregate/accumulator_support.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::ForEachValidAsDouble;
using aggregate_internal::GrowTo;
using aggregate_internal::MakeFixedWidthArray;

struct VarianceKind {
  bool sample;
  bool sqrt;
};

class VarianceAccumulator : public GroupedAccumulator {
 public:
  VarianceAccumulator(std::string name, VarianceKind kind, TypePtr type)
      : name_(std::move(name)), kind_(kind), type_(std::move(type)) {}

  Status Resize(int64_t num_groups) override {
    GrowTo(&counts_, num_groups, int64_t{0});
    GrowTo(&means_, num_groups, 0.0);
    GrowTo(&m2_, num_groups, 0.0);
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    ForEachValidAsDouble(args[0], num_rows, [&](int64_t i, double x) { Add(group_ids[i], x); });
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const VarianceAccumulator&>(other);
    for (int64_t g = 0; g < o.num_groups_; ++g) {
      MergeOne(group_map[g], o.counts_[g], o.means_[g], o.m2_[g]);
    }
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    const auto n = static_cast<size_t>(num_groups_);
    FLOTILLA_ASSIGN_OR_RETURN(
        Array counts,
        MakeFixedWidthArray(int64(), std::vector<int64_t>(counts_.begin(), counts_.begin() + n),
                            nullptr));
    FLOTILLA_ASSIGN_OR_RETURN(
        Array means,
        MakeFixedWidthArray(float64(), std::vector<double>(means_.begin(), means_.begin() + n),
                            nullptr));
    FLOTILLA_ASSIGN_OR_RETURN(
        Array m2,
        MakeFixedWidthArray(float64(), std::vector<double>(m2_.begin(), m2_.begin() + n), nullptr));
    return std::vector<Array>{counts, means, m2};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState(name_, state, 3, n));
    const int64_t* counts = state[0].values<int64_t>();
    const double* means = state[1].values<double>();
    const double* m2 = state[2].values<double>();
    for (int64_t i = 0; i < n; ++i)
      MergeOne(group_ids[i], counts[i], means[i], m2[i]);
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    std::vector<double> out(static_cast<size_t>(num_groups_), 0.0);
    std::vector<uint8_t> valid(static_cast<size_t>(num_groups_), 0);
    for (int64_t g = 0; g < num_groups_; ++g) {
      const int64_t divisor = kind_.sample ? counts_[g] - 1 : counts_[g];
      if (divisor <= 0) continue;
      // M2 can come out a hair below zero after merges; a variance never is. (Not std::max,
      // which would turn the NaN of a group holding NaN into 0.)
      const double quotient = m2_[g] / static_cast<double>(divisor);
      const double var = quotient < 0 ? 0.0 : quotient;
      out[g] = kind_.sqrt ? std::sqrt(var) : var;
      valid[g] = 1;
    }
    return MakeFixedWidthArray(float64(), out, &valid);
  }

 private:
  void Add(uint32_t g, double x) {
    const int64_t n = ++counts_[g];
    const double delta = x - means_[g];
    means_[g] += delta / static_cast<double>(n);
    m2_[g] += delta * (x - means_[g]);
  }

  void MergeOne(uint32_t g, int64_t nb, double mean_b, double m2_b) {
    if (nb == 0) return;
    const int64_t na = counts_[g];
    if (na == 0) {
      counts_[g] = nb;
      means_[g] = mean_b;
      m2_[g] = m2_b;
      return;
    }
    const double n = static_cast<double>(na + nb);
    const double delta = mean_b - means_[g];
    means_[g] += delta * static_cast<double>(nb) / n;
    m2_[g] += m2_b + delta * delta * static_cast<double>(na) * static_cast<double>(nb) / n;
    counts_[g] = na + nb;
  }

  std::string name_;
  VarianceKind kind_;
  TypePtr type_;
  std::vector<int64_t> counts_;
  std::vector<double> means_;
  std::vector<double> m2_;
};

Status CheckNumeric(const std::vector<TypePtr>& args) {
  if (args[0]->is_numeric() || args[0]->id() == TypeId::kDecimal128) return Status::OK();
  return ArgumentTypeError("variance", "a numeric or decimal argument", args[0], 0);
}
Result<TypePtr> ResolveVariance(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(CheckNumeric(args));
  return float64();
}
Result<std::vector<TypePtr>> VarianceState(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(CheckNumeric(args));
  return std::vector<TypePtr>{int64(), float64(), float64()};
}

template <bool kSample, bool kSqrt>
Result<std::unique_ptr<GroupedAccumulator>> MakeVariance(const std::vector<TypePtr>& args,
                                                         const std::vector<Array>&) {
  FLOTILLA_RETURN_NOT_OK(CheckNumeric(args));
  return std::unique_ptr<GroupedAccumulator>(
      new VarianceAccumulator(kSqrt ? "stddev" : "variance", {kSample, kSqrt}, args[0]));
}

}  // namespace

Status RegisterVarianceAggregates(AggregateRegistry* registry) {
  const char* samp_var =
      "Sample variance (divides by n - 1) as float64; null for fewer than 2 values.";
  const char* pop_var = "Population variance (divides by n) as float64; null for no values.";
  const char* samp_sd = "Sample standard deviation as float64; null for fewer than 2 values.";
  const char* pop_sd = "Population standard deviation as float64; null for no values.";
  for (const char* name : {"variance", "var_samp"}) {
    FLOTILLA_RETURN_NOT_OK(registry->Add(
        {name, samp_var, 1, 1, ResolveVariance, VarianceState, MakeVariance<true, false>}));
  }
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"var_pop", pop_var, 1, 1, ResolveVariance, VarianceState, MakeVariance<false, false>}));
  for (const char* name : {"stddev", "stddev_samp"}) {
    FLOTILLA_RETURN_NOT_OK(registry->Add(
        {name, samp_sd, 1, 1, ResolveVariance, VarianceState, MakeVariance<true, true>}));
  }
  return registry->Add(
      {"stddev_pop", pop_sd, 1, 1, ResolveVariance, VarianceState, MakeVariance<false, true>});
}

}  // namespace flotilla::expr
