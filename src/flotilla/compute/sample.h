#pragma once
// Row sampling: a fraction of a batch (Bernoulli, or Poisson counts with replacement) and a
// fixed-size reservoir over a stream of batches. Every random choice comes from the SplitMix64
// streams defined below, so a sample is reproducible from its seed on any machine running the
// same build (the Poisson draws also use std::exp, hence "same build").

#include <cstdint>
#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::compute {

/// \brief SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// 2014; reference code: Vigna, splitmix64.c). The random source of sampling and of random
/// partitioning; the definitions below are part of their contracts.
///
///   Mix(z)    = z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
///               z ^ (z >> 31)                                          (all mod 2^64)
///   Next()    = state += 0x9E3779B97F4A7C15; Mix(state)
///
/// so the k-th output (k = 1, 2, ...) of a generator started at state s is
/// Mix(s + k * 0x9E3779B97F4A7C15). From state 0 the outputs are 0xE220A8397B1DCDAF,
/// 0x6E789E6AA1B965F4, 0x06C45D188009454F, ...
class SplitMix64 {
 public:
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;

  explicit SplitMix64(uint64_t state) : state_(state) {}

  /// The generator of stream `stream` under `seed`: its start state is
  /// Mix(seed ^ Mix(stream)). Distinct streams of one seed start at distinct states (Mix is a
  /// bijection), spread over the 2^64 cycle so that their draws do not overlap in practice.
  /// Stream 0 starts at Mix(seed).
  static SplitMix64 ForStream(uint64_t seed, uint64_t stream) {
    return SplitMix64(Mix(seed ^ Mix(stream)));
  }

  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  uint64_t Next() { return Mix(state_ += kGamma); }

  /// A uniform double in [0, 1): (Next() >> 11) * 2^-53.
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  /// A uniform integer in [0, bound), bound >= 1, by Lemire's multiply-shift with rejection
  /// ("Fast random integer generation in an interval", 2019): x = Next(); m = x * bound as a
  /// 128-bit product; while (low 64 bits of m) < (2^64 - bound) mod bound, draw again; the
  /// result is the high 64 bits of m. Exactly uniform; it draws again with probability below
  /// bound / 2^64.
  uint64_t Bounded(uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(Next()) * bound;
    if (static_cast<uint64_t>(m) < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (static_cast<uint64_t>(m) < threshold) {
        m = static_cast<unsigned __int128>(Next()) * bound;
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

/// \brief A random subset (or, with replacement, random multiset) of the rows of `batch`.
///
/// The rows are visited in order with the generator G = SplitMix64::ForStream(seed,
/// stream_offset):
/// - without replacement (Bernoulli sampling): row i is kept when the i-th draw
///   G.NextDouble() < fraction, one draw per row. `fraction` must be in [0, 1]; each row is
///   kept independently with probability `fraction`, so the size of the sample is
///   Binomial(num_rows, fraction), not exactly fraction * num_rows.
/// - with replacement (Poisson sampling): row i appears c_i times, c_i ~ Poisson(fraction)
///   independently, so `fraction` is the expected number of copies and may exceed 1. c_i is
///   the sum of Poisson draws, first one of mean 16 for each whole 16 in `fraction`, then one
///   of mean (fraction mod 16) when that is positive, each drawn by Knuth's method:
///   L = exp(-mean); k = 0; p = G.NextDouble(); while (p > L) { ++k; p *= G.NextDouble(); }
///   -> k. A row costs about fraction * 17/16 + 1 draws.
///
/// The sample keeps the input order (the copies of one row are adjacent). `stream_offset`
/// selects an independent stream of draws, not a position in one: callers that sample the
/// batches of one input in parallel pass a distinct value per batch (its morsel sequence
/// number), so (seed, stream_offset, batch) always gives the same sample and different batches
/// are sampled independently. When every row is kept once, `batch` is returned as is (shared
/// buffers). Invalid for a negative, NaN or infinite fraction, or a fraction above 1 without
/// replacement.
Result<RecordBatch> SampleFraction(const RecordBatch& batch, double fraction, bool with_replacement,
                                   uint64_t seed, int64_t stream_offset = 0,
                                   MemoryPool* pool = DefaultMemoryPool());

/// \brief A uniform sample of a fixed number of rows from a stream of batches.
///
/// Distribution, for N rows added in total (directly or through Merge) and sample size k:
/// - without replacement: min(k, N) distinct rows, every subset of that size equally likely.
///   Each row gets a key, a uniform 64-bit draw, and the sample is the k rows with the
///   smallest (key, arrival position). The rows come out in the order they arrived.
/// - with replacement: k rows (none when N = 0), each an independent uniform draw from the N
///   rows, so a row can appear several times. The sample is held as k slots: adding m rows
///   after N draws r uniform in [0, N + m) per slot and replaces the slot's row by new row
///   r - N when r >= N; Merge gives each slot the other sampler's row with probability
///   N_other / (N + N_other). The rows come out in slot order.
///
/// Randomness: one SplitMix64 stream, SplitMix64::ForStream(seed, stream_offset), used in call
/// order: without replacement each added row takes the next draw (Next()) as its key; with
/// replacement each Add of a non-empty batch and each Merge with a sampler that has seen rows
/// draws Bounded(rows seen so far including the new ones) once per slot, slot 0 first. Samplers
/// that are merged must use distinct streams (or seeds), otherwise their keys repeat and the
/// sample is not uniform; per-thread samplers pass the thread or morsel number as `stream_offset`.
///
/// Memory: at most about 2k sampled rows plus the rows of the batch being added. Not
/// thread-safe: use one sampler per thread and Merge them.
class ReservoirSampler {
 public:
  /// A sampler of `sample_size` rows of batches with `schema`. Invalid when sample_size < 0.
  static Result<ReservoirSampler> Make(SchemaPtr schema, int64_t sample_size, bool with_replacement,
                                       uint64_t seed, int64_t stream_offset = 0,
                                       MemoryPool* pool = DefaultMemoryPool());

  ReservoirSampler(ReservoirSampler&&) noexcept = default;
  ReservoirSampler& operator=(ReservoirSampler&&) noexcept = default;

  /// Offers every row of `batch` (TypeError when its schema is not the sampler's). Sampled rows
  /// are copied, so the sampler does not keep `batch` alive.
  Status Add(const RecordBatch& batch);
  /// Adds everything `other` has seen, as if its rows had been added after this sampler's.
  /// Invalid when the two differ in schema, sample size or replacement mode.
  Status Merge(ReservoirSampler&& other);
  /// The sample (see the class comment), with the sampler's schema. The sampler stays usable:
  /// later Adds continue the same stream.
  Result<RecordBatch> Finish();

  /// Rows offered so far (including through Merge).
  int64_t rows_seen() const { return rows_seen_; }

 private:
  ReservoirSampler(SchemaPtr schema, int64_t sample_size, bool with_replacement, SplitMix64 random,
                   MemoryPool* pool)
      : schema_(std::move(schema)),
        sample_size_(sample_size),
        with_replacement_(with_replacement),
        random_(random),
        pool_(pool) {}

  int64_t StoredRows() const;
  // Without replacement: keeps only the sample_size_ smallest (key, position) rows.
  Status CompactSmallestKeys();
  // With replacement: rewrites the held rows as one chunk with row j = slot j.
  Status CompactSlots();

  SchemaPtr schema_;
  int64_t sample_size_;
  bool with_replacement_;
  SplitMix64 random_;
  MemoryPool* pool_;
  int64_t rows_seen_ = 0;
  // Copied candidate rows, in arrival order.
  std::vector<RecordBatch> chunks_;
  // Without replacement: the key of every row of chunks_, in the same order.
  std::vector<uint64_t> keys_;
  // Without replacement, once sample_size_ rows are held: a row whose key is >= this cannot
  // enter the sample (sample_size_ held rows have a smaller (key, position)).
  bool have_threshold_ = false;
  uint64_t threshold_ = 0;
  // With replacement: slot j's row is row slot_rows_[j] of chunk slot_chunks_[j].
  std::vector<int64_t> slot_chunks_;
  std::vector<int64_t> slot_rows_;
};

}  // namespace flotilla::compute
