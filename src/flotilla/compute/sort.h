#pragma once
// Sorting: the permutation that orders a batch by several keys.

#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/compute/row_comparator.h"

namespace flotilla::compute {

/// \brief uint64 row indices that put `batch` in the order of `keys` (first key most
/// significant). The sort is stable: rows equal on every key keep their input order.
///
/// Value order is RowComparator's (NaN after all numbers, -0.0 == 0.0, strings bytewise,
/// dictionaries by value); nulls go first or last per key whatever its direction. With no keys
/// the result is the identity. Apply the result with Take(batch, indices).
Result<Array> SortIndices(const RecordBatch& batch, const std::vector<SortKey>& keys,
                          MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla::compute
