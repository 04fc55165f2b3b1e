#pragma once
// HyperLogLog distinct-count sketch for approx_count_distinct (Flajolet et al. 2007), with a
// sparse representation for small cardinalities so that many small groups stay cheap.
//
// Precision p = 14: 16384 six-bit registers (one byte each), standard error 1.04 / sqrt(16384)
// = 0.81%; below 2.5 * 16384 distinct values linear counting is used, which is nearly exact.
// A sketch starts sparse: the sorted distinct 64-bit hashes themselves, which count exactly
// (up to 64-bit hash collisions) and cost 8 bytes per value; it turns dense at 2048 hashes,
// where the sparse list would outgrow the registers.
//
// Input hashes must be well mixed 64-bit values (approx_count_distinct uses XXH3 over
// compute's ValueHashes, so equal values hash equally on every worker).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/common/status.h"

namespace flotilla::expr::aggregate_internal {

class HyperLogLog {
 public:
  static constexpr int kPrecision = 14;
  static constexpr int kRegisters = 1 << kPrecision;

  void Add(uint64_t hash);
  void Merge(const HyperLogLog& other);
  double Estimate() const;
  bool empty() const { return sparse_.empty() && dense_.empty(); }

  /// Appends a self-describing byte string ('S' + sparse entries, or 'D' + registers).
  void Serialize(std::string* out) const;
  /// Merges a string written by Serialize into this sketch; Invalid if it is malformed.
  Status MergeSerialized(std::string_view bytes);

 private:
  void AddDense(uint64_t hash);
  void Densify();

  std::vector<uint64_t> sparse_;  // sorted distinct hashes while sparse
  std::vector<uint8_t> dense_;    // kRegisters ranks once dense, else empty
};

}  // namespace flotilla::expr::aggregate_internal
