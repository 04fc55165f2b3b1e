#include "flotilla/expr/aggregate/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace flotilla::expr::aggregate_internal {

namespace {
// NaN sorts above every number, as in min/max and sort.
bool NanLast(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}
}  // namespace

void QuantileSketch::Add(double value) {
  AddWeighted(value, 0);
}

void QuantileSketch::AddWeighted(double value, int level) {
  if (levels_.size() <= static_cast<size_t>(level)) levels_.resize(static_cast<size_t>(level) + 1);
  levels_[level].push_back(value);
  if (levels_[level].size() >= kCapacity) CompactFrom(static_cast<size_t>(level));
}

bool QuantileSketch::NextCoin() {
  // xorshift64: cheap, and fixed-seeded so results are reproducible.
  coin_state_ ^= coin_state_ << 13;
  coin_state_ ^= coin_state_ >> 7;
  coin_state_ ^= coin_state_ << 17;
  return (coin_state_ >> 32) & 1;
}

void QuantileSketch::CompactFrom(size_t level) {
  for (size_t h = level; h < levels_.size() && levels_[h].size() >= kCapacity; ++h) {
    // Grow first: emplace_back may move the inner vectors referenced below.
    if (levels_.size() == h + 1) levels_.emplace_back();
    std::vector<double>& items = levels_[h];
    std::sort(items.begin(), items.end(), NanLast);
    // An odd item out stays at this level, so only pairs are compacted.
    double leftover = 0;
    const bool odd = items.size() % 2 == 1;
    if (odd) {
      leftover = items.back();
      items.pop_back();
    }
    std::vector<double>& up = levels_[h + 1];
    for (size_t i = NextCoin() ? 1 : 0; i < items.size(); i += 2)
      up.push_back(items[i]);
    items.clear();
    if (odd) items.push_back(leftover);
  }
}

void QuantileSketch::Merge(const QuantileSketch& other) {
  if (levels_.size() < other.levels_.size()) levels_.resize(other.levels_.size());
  for (size_t h = 0; h < other.levels_.size(); ++h) {
    levels_[h].insert(levels_[h].end(), other.levels_[h].begin(), other.levels_[h].end());
  }
  for (size_t h = 0; h < levels_.size(); ++h) {
    if (levels_[h].size() >= kCapacity) CompactFrom(h);
  }
}

double QuantileSketch::Quantile(double q) const {
  std::vector<std::pair<double, uint64_t>> items;
  uint64_t total = 0;
  ForEachItem([&](double v, int level) {
    items.emplace_back(v, uint64_t{1} << level);
    total += uint64_t{1} << level;
  });
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return NanLast(a.first, b.first); });
  const auto target = static_cast<uint64_t>(std::floor(q * static_cast<double>(total - 1)));
  uint64_t cumulative = 0;
  for (const auto& [value, weight] : items) {
    cumulative += weight;
    if (cumulative > target) return value;
  }
  return items.back().first;
}

}  // namespace flotilla::expr::aggregate_internal
