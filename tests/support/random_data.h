#pragma once
// Deterministic random arrays and batches of any type, for tests and benchmarks.

#include <cstdint>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/record_batch.h"

namespace flotilla::testing {

struct RandomOptions {
  double null_probability = 0.1;
  int max_list_length = 4;
  int max_string_length = 12;
  /// Values drawn from this many distinct values (0 = unrestricted), to get duplicates.
  int64_t distinct_values = 0;
};

/// `length` random values of `type` (every type of the columnar core, nested included).
Array RandomArray(const TypePtr& type, int64_t length, uint64_t seed,
                  const RandomOptions& options = {});

/// One column per type in AllTypesForTesting(), named c0, c1, ...
RecordBatch RandomBatchOfAllTypes(int64_t length, uint64_t seed, const RandomOptions& options = {});

}  // namespace flotilla::testing
