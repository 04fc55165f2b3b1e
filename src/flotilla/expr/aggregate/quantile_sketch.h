#pragma once
// A mergeable quantile sketch for approx_percentile: a KLL-style stack of compactors
// (Karnin, Lang, Liberty 2016), simplified to equal capacities per level.
//
// Level h holds items of weight 2^h. When a level reaches kCapacity items it is sorted and
// every other item (starting at a pseudo-random offset 0 or 1) is promoted to level h + 1; the
// rest are dropped. Each compaction moves any rank by at most 2^h, and with the random offset
// those errors cancel in expectation.
//
// Error bounds, for n values and k = kCapacity = 256:
//   * exact (the true nearest-rank quantile) while n < k;
//   * worst case: |rank error| <= H * n / k with H = number of levels ~ log2(n / k) + 1;
//   * typical: standard deviation of the rank error about 0.6 n / k (0.25% of n); the tests
//     require < 1% of n on 100k values.
// The offsets come from a fixed-seed generator, so results are deterministic.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace flotilla::expr::aggregate_internal {

class QuantileSketch {
 public:
  static constexpr size_t kCapacity = 256;

  void Add(double value);
  /// Adds one item of weight 2^level (from a serialized sketch or another sketch).
  void AddWeighted(double value, int level);
  void Merge(const QuantileSketch& other);

  bool empty() const { return levels_.empty(); }
  /// The value of (approximate) nearest rank floor(q * (n - 1)) in sorted order, 0 <= q <= 1.
  double Quantile(double q) const;

  /// Visits every retained item as (value, level).
  template <typename F>
  void ForEachItem(F&& f) const {
    for (size_t h = 0; h < levels_.size(); ++h) {
      for (double v : levels_[h])
        f(v, static_cast<int>(h));
    }
  }

 private:
  void CompactFrom(size_t level);
  bool NextCoin();

  std::vector<std::vector<double>> levels_;
  uint64_t coin_state_ = 0x2545F4914F6CDD1Dull;
};

}  // namespace flotilla::expr::aggregate_internal
