#pragma once
// Counter-based random numbers for the TPC-H generator. Every row of every table seeds its own
// stream from (table stream, row number), so any range of rows can be generated on any thread,
// in any order, and comes out the same: the data depends on the scale factor alone.
#include <cstdint>

namespace flotilla::tpch {

/// SplitMix64's output function: a bijective mix of all 64 bits.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Streams of random numbers, one per table (or per independent choice within a table).
enum class Stream : uint64_t {
  kRegion = 1,
  kNation,
  kSupplier,
  kSupplierComment,  // which suppliers carry "Customer ... Complaints|Recommends"
  kPart,
  kPartSupp,
  kCustomer,
  kOrder,
  kTextPool,
};

class RowRandom {
 public:
  RowRandom(Stream stream, int64_t row)
      : state_(Mix64(static_cast<uint64_t>(stream) * 0xD6E8FEB86659FD93ull ^
                     static_cast<uint64_t>(row))) {}

  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// Uniform in [lo, hi] (both included). The multiply-shift bias is below 2^-40 for the ranges
  /// TPC-H uses.
  int64_t Uniform(int64_t lo, int64_t hi) {
    const auto range = static_cast<unsigned __int128>(static_cast<uint64_t>(hi - lo) + 1);
    return lo + static_cast<int64_t>((range * Next()) >> 64);
  }

 private:
  uint64_t state_;
};

}  // namespace flotilla::tpch
