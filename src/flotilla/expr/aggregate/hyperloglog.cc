#include "flotilla/expr/aggregate/hyperloglog.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace flotilla::expr::aggregate_internal {

namespace {
constexpr size_t kSparseLimit = HyperLogLog::kRegisters / 8;  // 8 bytes each: the dense size
}  // namespace

void HyperLogLog::Add(uint64_t hash) {
  if (!dense_.empty()) {
    AddDense(hash);
    return;
  }
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), hash);
  if (it != sparse_.end() && *it == hash) return;
  sparse_.insert(it, hash);
  if (sparse_.size() > kSparseLimit) Densify();
}

void HyperLogLog::AddDense(uint64_t hash) {
  const auto index = static_cast<uint32_t>(hash >> (64 - kPrecision));
  // The remaining bits, with a sentinel so that the rank is at most 64 - p + 1.
  const uint64_t rest = (hash << kPrecision) | (uint64_t{1} << (kPrecision - 1));
  const auto rank = static_cast<uint8_t>(__builtin_clzll(rest) + 1);
  dense_[index] = std::max(dense_[index], rank);
}

void HyperLogLog::Densify() {
  dense_.assign(kRegisters, 0);
  for (uint64_t h : sparse_)
    AddDense(h);
  sparse_.clear();
  sparse_.shrink_to_fit();
}

void HyperLogLog::Merge(const HyperLogLog& other) {
  if (!other.dense_.empty()) {
    if (dense_.empty()) Densify();
    for (int i = 0; i < kRegisters; ++i)
      dense_[i] = std::max(dense_[i], other.dense_[i]);
    return;
  }
  for (uint64_t h : other.sparse_)
    Add(h);
}

double HyperLogLog::Estimate() const {
  if (dense_.empty()) return static_cast<double>(sparse_.size());
  constexpr double m = kRegisters;
  double sum = 0;
  int64_t zeros = 0;
  for (uint8_t r : dense_) {
    sum += std::ldexp(1.0, -r);
    zeros += r == 0;
  }
  const double alpha = 0.7213 / (1.0 + 1.079 / m);
  const double raw = alpha * m * m / sum;
  if (raw <= 2.5 * m && zeros > 0) return m * std::log(m / static_cast<double>(zeros));
  return raw;
}

void HyperLogLog::Serialize(std::string* out) const {
  if (dense_.empty()) {
    out->push_back('S');
    out->append(reinterpret_cast<const char*>(sparse_.data()), sparse_.size() * 8);
  } else {
    out->push_back('D');
    out->append(reinterpret_cast<const char*>(dense_.data()), dense_.size());
  }
}

Status HyperLogLog::MergeSerialized(std::string_view bytes) {
  if (bytes.empty()) return Status::Invalid("approx_count_distinct(): empty partial state");
  const std::string_view body = bytes.substr(1);
  if (bytes[0] == 'S' && body.size() % 8 == 0) {
    for (size_t i = 0; i < body.size(); i += 8) {
      uint64_t h;
      std::memcpy(&h, body.data() + i, 8);
      Add(h);
    }
    return Status::OK();
  }
  if (bytes[0] == 'D' && body.size() == static_cast<size_t>(kRegisters)) {
    if (dense_.empty()) Densify();
    for (int i = 0; i < kRegisters; ++i) {
      dense_[i] = std::max(dense_[i], static_cast<uint8_t>(body[i]));
    }
    return Status::OK();
  }
  return Status::Invalid("approx_count_distinct(): malformed partial state");
}

}  // namespace flotilla::expr::aggregate_internal
