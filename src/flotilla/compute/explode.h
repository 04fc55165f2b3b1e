#pragma once
// Explode: one output row per element of list columns (Polars/Daft explode, SQL UNNEST in the
// select list).

#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::compute {

/// \brief `batch` with the list columns `list_columns` replaced by their elements, one output
/// row per element.
///
/// Row i of the input with lists of n elements gives n output rows: output row k holds element
/// k of each exploded column and row i's values of every other column. The columns are
/// exploded in lockstep, so every exploded column must have the same number of elements in a
/// given row, counting a null list as empty (Invalid naming the row, the columns and their
/// lengths otherwise). A null or empty list gives one output row with null in the exploded
/// columns (the row is kept, as in Polars). Rows come out in input order, elements in list
/// order.
///
/// Supported list types: list and fixed_size_list (the type system has no large_list). An
/// exploded column keeps its name and becomes its element type, nullable; the other fields are
/// unchanged. With no list columns the batch is returned as is. When no row has a null or empty
/// list, an exploded column is a zero-copy slice of the list's values. Errors: IndexError for a
/// column out of range, Invalid for a column listed twice, TypeError for a column that is not a
/// list.
Result<RecordBatch> Explode(const RecordBatch& batch, const std::vector<int>& list_columns,
                            MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla::compute
