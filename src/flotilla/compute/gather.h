#pragma once
// Internal to the compute module: the row gather shared by Take and Filter.

#include <optional>
#include <vector>

#include "flotilla/columnar/array.h"

namespace flotilla::compute::internal {

/// Rows of `values` at the positions in `indices` (an int32/int64/uint32/uint64 array); a null
/// index gives a null row. REQUIRES: every valid index is in [0, values.length()) — callers
/// check (Take) or construct (Filter) them; this function does not.
Result<Array> Gather(const Array& values, const Array& indices,
                     MemoryPool* pool = DefaultMemoryPool());

/// Input rows [start, start + length) of a gather whose positions are consecutive there.
struct GatherRun {
  int64_t start;
  int64_t length;
};

/// The runs of consecutive positions of `indices`, in order, when it has no null and at most
/// `max_runs` of them; nullopt otherwise. A filter's selection keeping most rows is a few long
/// runs, and copying a run is one memcpy per buffer where a gather moves row by row.
std::optional<std::vector<GatherRun>> ConsecutiveRuns(const Array& indices, int64_t max_runs);

/// Whether GatherRuns handles `type`: fixed-width types (bool too) and strings/binary.
bool GathersByRuns(const DataType& type);

/// The rows of `runs`, one after another (`length` rows in all). REQUIRES: GathersByRuns, and
/// every run inside `values`.
Result<Array> GatherRuns(const Array& values, const std::vector<GatherRun>& runs, int64_t length,
                         MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla::compute::internal
