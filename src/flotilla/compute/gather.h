#pragma once
// Internal to the compute module: the row gather shared by Take and Filter.

#include "flotilla/columnar/array.h"

namespace flotilla::compute::internal {

/// Rows of `values` at the positions in `indices` (an int32/int64/uint32/uint64 array); a null
/// index gives a null row. REQUIRES: every valid index is in [0, values.length()) — callers
/// check (Take) or construct (Filter) them; this function does not.
Result<Array> Gather(const Array& values, const Array& indices,
                     MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla::compute::internal
