#include "flotilla/expr/functions/hash_functions.h"

#include <xxhash.h>

#include <algorithm>
#include <limits>
#include <string>

#include "flotilla/compute/hash.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/utf8_text.h"

namespace flotilla::expr::functions {
namespace {

constexpr uint64_t kMersenne61 = (uint64_t{1} << 61) - 1;

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t MulAddMod61(uint64_t a, uint64_t x, uint64_t b) {
  unsigned __int128 v = static_cast<unsigned __int128>(a) * x + b;
  return static_cast<uint64_t>(v % kMersenne61);
}

constexpr int64_t kMaxMinHashes = 1 << 16;

struct MinHashParameters {
  int64_t num_hashes = 0;
  int64_t ngram_size = 0;
  uint64_t seed = 0;
};

// `constants[i]` is argument i's one-row value, or an invalid Array when it is not a constant.
Result<MinHashParameters> ReadMinHashParameters(const std::vector<Array>& constants) {
  static const char* kNames[] = {"text", "num_hashes", "ngram_size", "seed"};
  for (size_t i = 1; i < constants.size(); ++i) {
    const std::string argument =
        std::string(kNames[i]) + " (argument " + std::to_string(i + 1) + ")";
    if (!constants[i].valid()) {
      return Status::TypeError("minhash() needs " + argument +
                               " as a constant; got an expression that varies per row");
    }
    if (constants[i].IsNull(0)) {
      return Status::Invalid("minhash() needs a non-null " + argument);
    }
  }
  MinHashParameters p;
  // A uint64 above INT64_MAX reads as negative: the range checks below refuse it, naming the
  // value as given. A seed keeps all 64 bits.
  p.num_hashes = IntegerBitsAt(constants[1], 0);
  p.ngram_size = IntegerBitsAt(constants[2], 0);
  if (constants.size() > 3) p.seed = static_cast<uint64_t>(IntegerBitsAt(constants[3], 0));
  if (p.num_hashes < 1 || p.num_hashes > kMaxMinHashes) {
    return Status::Invalid("minhash() needs num_hashes (argument 2) between 1 and " +
                           std::to_string(kMaxMinHashes) + ", got " +
                           constants[1].ValueToString(0));
  }
  if (p.ngram_size < 1) {
    return Status::Invalid("minhash() needs ngram_size (argument 3) of at least 1, got " +
                           constants[2].ValueToString(0));
  }
  return p;
}

TypePtr MinHashType(int64_t num_hashes) {
  return fixed_size_list(uint32(), static_cast<int32_t>(num_hashes));
}

}  // namespace

Result<TypePtr> ResolveMinHash(const std::vector<TypePtr>& arg_types,
                               const std::vector<Array>& literals) {
  FLOTILLA_RETURN_NOT_OK(ResolveSignature("minhash", arg_types, "siii"));
  std::vector<Array> constants = literals;
  constants.resize(arg_types.size());
  FLOTILLA_ASSIGN_OR_RETURN(MinHashParameters p, ReadMinHashParameters(constants));
  return MinHashType(p.num_hashes);
}

Result<Datum> HashExec(const std::vector<Datum>& args, int64_t num_rows) {
  const Array& values = args[0].array();
  std::vector<uint64_t> value_hashes(static_cast<size_t>(values.length()));
  FLOTILLA_RETURN_NOT_OK(compute::ValueHashes(values, value_hashes.data()));
  UInt64Builder builder(uint64());
  const int64_t n = OutputRows(args, num_rows);
  FLOTILLA_RETURN_NOT_OK(builder.Reserve(n));
  for (int64_t row = 0; row < n; ++row) {
    uint64_t seed = 0;
    if (args.size() > 1) {
      if (args[1].IsNull(row)) {
        FLOTILLA_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      seed = static_cast<uint64_t>(IntegerBitsAt(args[1].array(), args[1].index(row)));
    }
    // Combine(seed, V) of compute/hash.h: the 8 little-endian bytes of V hashed with the seed.
    uint64_t v = value_hashes[static_cast<size_t>(args[0].index(row))];
    FLOTILLA_RETURN_NOT_OK(builder.Append(XXH3_64bits_withSeed(&v, sizeof(v), seed)));
  }
  return FinishDatum(&builder, args);
}

MinHasher::MinHasher(int64_t num_hashes, int64_t ngram_size, uint64_t seed)
    : ngram_size_(ngram_size), seed_(seed) {
  uint64_t state = seed;
  for (int64_t k = 0; k < num_hashes; ++k) {
    a_.push_back(1 + SplitMix64(&state) % (kMersenne61 - 1));
    b_.push_back(SplitMix64(&state) % kMersenne61);
  }
}

void MinHasher::Signature(std::string_view text, std::vector<uint32_t>* out) const {
  std::vector<std::string_view> words = SplitWords(text);
  const size_t n = static_cast<size_t>(ngram_size_);
  const size_t grams = words.size() < n ? 1 : words.size() - n + 1;
  std::vector<uint64_t> mins(a_.size(), std::numeric_limits<uint64_t>::max());
  std::string gram;
  for (size_t g = 0; g < grams; ++g) {
    gram.clear();
    for (size_t w = g; w < std::min(words.size(), g + n); ++w) {
      if (w > g) gram.push_back(' ');
      gram.append(words[w]);
    }
    uint64_t x = XXH3_64bits_withSeed(gram.data(), gram.size(), seed_) % kMersenne61;
    for (size_t k = 0; k < a_.size(); ++k)
      mins[k] = std::min(mins[k], MulAddMod61(a_[k], x, b_[k]));
  }
  out->resize(mins.size());
  for (size_t k = 0; k < mins.size(); ++k)
    (*out)[k] = static_cast<uint32_t>(mins[k]);
}

Result<Datum> MinHashExec(const std::vector<Datum>& args, int64_t num_rows) {
  std::vector<Array> constants;
  for (const Datum& a : args)
    constants.push_back(a.is_scalar() ? a.array() : Array());
  FLOTILLA_ASSIGN_OR_RETURN(MinHashParameters p, ReadMinHashParameters(constants));
  MinHasher hasher(p.num_hashes, p.ngram_size, p.seed);
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(MinHashType(p.num_hashes)));
  auto* lists = static_cast<FixedSizeListBuilder*>(builder.get());
  auto* values = static_cast<UInt32Builder*>(lists->value_builder());
  std::vector<uint32_t> signature;
  return MapRows(args, num_rows, lists, [&](int64_t row) -> Status {
    hasher.Signature(ViewAt(args[0], row), &signature);
    FLOTILLA_RETURN_NOT_OK(lists->Append());
    return values->AppendValues(signature.data(), static_cast<int64_t>(signature.size()));
  });
}

}  // namespace flotilla::expr::functions
