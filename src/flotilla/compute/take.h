#pragma once
// Take: select rows by position (a gather), e.g. to apply the output of a sort or a join.

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/record_batch.h"

namespace flotilla {

/// \brief Row i of the result is values[indices[i]].
///
/// `indices` is int32, int64, uint32 or uint64 (TypeError otherwise). A null index gives a null
/// row; an index outside [0, values.length()) is an IndexError naming it. Works for every type;
/// a dictionary result keeps the input's dictionary. The result never shares buffers with
/// `values` except a dictionary.
Result<Array> Take(const Array& values, const Array& indices,
                   MemoryPool* pool = DefaultMemoryPool());

/// Take applied to every column of `batch` (the indices are checked once).
Result<RecordBatch> Take(const RecordBatch& batch, const Array& indices,
                         MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla
