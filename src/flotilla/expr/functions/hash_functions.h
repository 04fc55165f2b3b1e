#pragma once
// Kernels of the hashing family, registered by RegisterHashFunctions (register_hash.cc).

#include <cstdint>
#include <string_view>
#include <vector>

#include "flotilla/expr/datum.h"

namespace flotilla::expr::functions {

/// hash(x[, seed]): compute::HashRows of the single column x with `seed` (default 0), so the
/// value equals the engine's row hash. A null x hashes to a value (kNullHash mixed with the
/// seed); a null seed gives null.
Result<Datum> HashExec(const std::vector<Datum>& args, int64_t num_rows);

/// \brief The MinHash signature of one text (see minhash in register_hash.cc for the contract).
///
/// Definition, with p = 2^61 - 1 and XXH3 = XXH3_64bits_withSeed:
///   words    = maximal runs of non-white-space characters (Unicode white space)
///   n-grams  = each run of `ngram_size` consecutive words joined by one ' '; a text with fewer
///              words than ngram_size has one n-gram, all its words joined by ' ' (possibly "")
///   x        = XXH3(n-gram bytes, seed) mod p
///   a_k, b_k = for k = 0, 1, ...: a_k = 1 + SplitMix64() mod (p - 1), then
///              b_k = SplitMix64() mod p, from one SplitMix64 stream whose state starts at seed
///   h_k      = (a_k * x + b_k) mod p
///   out[k]   = low 32 bits of min over the n-grams of h_k,  k in [0, num_hashes)
/// Pinned by golden values in hash_functions_test.cc: changing it breaks stored signatures.
class MinHasher {
 public:
  MinHasher(int64_t num_hashes, int64_t ngram_size, uint64_t seed);
  void Signature(std::string_view text, std::vector<uint32_t>* out) const;

 private:
  int64_t ngram_size_;
  uint64_t seed_;
  std::vector<uint64_t> a_, b_;
};

/// minhash's result type, fixed_size_list<uint32>[num_hashes], read from its constant
/// arguments: `literals` as ResolveLiteralFn gets them. num_hashes, ngram_size and seed must be
/// constants (TypeError otherwise) that are not null, with 1 <= num_hashes <= 65536 and
/// ngram_size >= 1 (Invalid otherwise); each error names the argument.
Result<TypePtr> ResolveMinHash(const std::vector<TypePtr>& arg_types,
                               const std::vector<Array>& literals);

Result<Datum> MinHashExec(const std::vector<Datum>& args, int64_t num_rows);

}  // namespace flotilla::expr::functions
