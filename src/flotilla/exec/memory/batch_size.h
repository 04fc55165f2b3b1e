#pragma once
// The memory a batch's rows occupy, counting only the part of each buffer its slice covers: a
// morsel that is a slice of a large batch is charged for its own rows, not the whole buffer
// (which RecordBatch::TotalBufferSize counts).
#include <cstdint>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::exec {

int64_t SliceBytes(const Array& array);
int64_t SliceBytes(const RecordBatch& batch);

}  // namespace flotilla::exec
