#pragma once
// The arithmetic of sum and mean that other kernels must repeat exactly: the sliding window sums
// (exec/window) give the same results as the accumulators of sum_mean.cc only when both bound
// decimal sums and compensate float sums the same way.

#include <cmath>

#include "flotilla/columnar/decimal.h"

namespace flotilla::expr {

/// decimal128(38, s) holds magnitudes below 10^38 (the largest is 10^38 - 1).
inline constexpr Int128 kDecimal38Limit =
    static_cast<Int128>(10000000000000000000ull) * static_cast<Int128>(10000000000000000000ull);

/// Whether an unscaled sum fits decimal128(38, s), the type every decimal sum has.
constexpr bool FitsDecimal38(Int128 v) {
  return v < kDecimal38Limit && v > -kDecimal38Limit;
}

/// Adds `v` to the Neumaier-compensated (improved Kahan) sum held as `*sum` and
/// `*compensation`: the low-order bits the addition loses go into the compensation, so the
/// result barely depends on the order of the values. Two separate doubles, so that per-group
/// states can keep them in separate arrays.
inline void CompensatedAdd(double* sum, double* compensation, double v) {
  const double s = *sum;
  const double t = s + v;
  if (std::abs(s) >= std::abs(v)) {
    *compensation += (s - t) + v;
  } else {
    *compensation += (v - t) + s;
  }
  *sum = t;
}

/// The value of a compensated sum. Once the sum is infinite or NaN the compensation holds
/// inf - inf = NaN, so it is left out: sum(-inf, 1) is -inf, not NaN.
inline double CompensatedTotal(double sum, double compensation) {
  return std::isfinite(sum) ? sum + compensation : sum;
}

/// A compensated sum as one value.
struct CompensatedSum {
  double sum = 0.0;
  double compensation = 0.0;

  void Add(double v) { CompensatedAdd(&sum, &compensation, v); }
  /// Adds another compensated sum, compensation first (as merging partial states does).
  void Add(const CompensatedSum& other) {
    compensation += other.compensation;
    Add(other.sum);
  }
  double Total() const { return CompensatedTotal(sum, compensation); }
};

}  // namespace flotilla::expr
