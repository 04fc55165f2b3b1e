#pragma once
// Concat: one array (or batch) from several of the same type, copying the values once.

#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/record_batch.h"

namespace flotilla::compute {

/// \brief The rows of `arrays`, one after another.
///
/// All arrays must have the same type (TypeError otherwise) and there must be at least one.
/// Works for every type. Dictionary arrays that share one dictionary keep it; otherwise the
/// result has a unified dictionary (each distinct value once, in order of first appearance
/// across the inputs' dictionaries) and the indices are remapped into it.
Result<Array> Concat(const std::vector<Array>& arrays, MemoryPool* pool = DefaultMemoryPool());

/// The rows of `batches` one after another; all must have the same schema.
Result<RecordBatch> ConcatBatches(const std::vector<RecordBatch>& batches,
                                  MemoryPool* pool = DefaultMemoryPool());
/// Like ConcatBatches, and an empty batch of `schema` when there are no batches; one batch is
/// returned as it is.
Result<RecordBatch> ConcatBatches(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                                  MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla::compute
