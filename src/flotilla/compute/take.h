#pragma once
// Take: select rows by position (a gather), e.g. to apply the output of a sort or a join.

#include <cstdint>
#include <functional>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/record_batch.h"

namespace flotilla::compute {

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

/// `indices` as an int64 index array for Take, where a negative index is a null (Take gives a
/// null row there: the unmatched side of an outer join).
Result<Array> TakeIndices(const std::vector<int64_t>& indices);
/// An int64 index array of `n` indices, index i being `at(i)` (no nulls).
Result<Array> TakeIndices(int64_t n, const std::function<int64_t(int64_t)>& at);

}  // namespace flotilla::compute
