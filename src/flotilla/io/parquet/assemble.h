#pragma once
// Record assembly: turns the levels and dense values of the leaves under a top-level field into
// one Arrow array (validity bitmaps, list offsets, struct children), following the Dremel
// definition/repetition-level scheme of the Parquet format.
#include <vector>

#include "flotilla/io/parquet/column_reader.h"
#include "flotilla/io/parquet/schema.h"

namespace flotilla::io::parquet {

/// `leaves[i]` holds leaf i's data for every leaf under `field` (others may be empty).
/// `num_rows`: the row group's rows, which the result must have.
Result<Array> AssembleField(const SchemaNode& field, const std::vector<LeafData>& leaves,
                            const std::vector<ColumnDescriptor>& columns, int64_t num_rows);

}  // namespace flotilla::io::parquet
