#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/hash_functions.h"

namespace flotilla::expr {

Status RegisterHashFunctions(FunctionRegistry* registry) {
  using Types = std::vector<TypePtr>;
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"hash",
       "A uint64 hash of each value, identical across processes and machines (the engine's row "
       "hash of the one column, with the optional integer seed, default 0). Nulls hash to a "
       "fixed value; a null seed gives null.",
       1, 2,
       [](const Types& t) -> Result<TypePtr> {
         if (t.size() > 1) FLOTILLA_RETURN_NOT_OK(functions::ExpectInteger("hash", t, 1));
         return uint64();
       },
       functions::HashExec}));
  ScalarFunction minhash{
      "minhash",
      "MinHash signature of the text's word n-grams: minhash(text, num_hashes, ngram_size[, "
      "seed]) returns fixed_size_list<uint32>[num_hashes]; the share of equal positions between "
      "two signatures estimates the Jaccard similarity of their n-gram sets. num_hashes "
      "(1-65536), ngram_size (>= 1) and seed (default 0) must be constants. Null for null text.",
      3, 4};
  minhash.exec = functions::MinHashExec;
  minhash.resolve_with_literals = functions::ResolveMinHash;
  FLOTILLA_RETURN_NOT_OK(registry->Add(std::move(minhash)));
  return Status::OK();
}

}  // namespace flotilla::expr
