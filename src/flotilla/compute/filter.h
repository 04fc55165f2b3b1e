#pragma once
// Filter: keep the rows where a boolean mask is true (SQL WHERE semantics).

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/record_batch.h"

namespace flotilla::compute {

/// \brief The rows of `values` where `mask` is true, in order.
///
/// `mask` is a bool array of the same length (TypeError / Invalid otherwise). A null in the
/// mask drops the row, like SQL WHERE. When every row is selected the input is returned
/// zero-copy.
Result<Array> Filter(const Array& values, const Array& mask,
                     MemoryPool* pool = DefaultMemoryPool());

/// Filter applied to every column of `batch`; the selected positions are computed once.
Result<RecordBatch> Filter(const RecordBatch& batch, const Array& mask,
                           MemoryPool* pool = DefaultMemoryPool());

/// Rows where the bool `mask` is true and not null.
int64_t CountSelected(const Array& mask);

/// The positions (uint32 when the mask has at most 2^32 rows, else uint64) where `mask` is true
/// and not null. The building block of Filter, usable as a selection vector.
Result<Array> SelectedPositions(const Array& mask, MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla::compute
