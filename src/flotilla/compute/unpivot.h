#pragma once
// Unpivot (melt): value columns turned into (variable, value) rows.

#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::compute {

/// \brief One output row per input row and value column: the id columns, then `variable_name`
/// (the value column's name) and `value_name` (its value).
///
/// Rows are in row-major order, as DuckDB's UNPIVOT emits them: input row 0 with each value
/// column in the order of `value_columns`, then row 1, and so on; with V value columns output
/// row r * V + v comes from input row r and value column v. Every such row is produced, null
/// values included (DuckDB's UNPIVOT ... INCLUDE NULLS; filter on the value column for its
/// default, which drops them).
///
/// Output schema: the id columns (fields unchanged, in the order of `id_columns`), then
/// `variable_name` as non-null utf8, then `value_name`, nullable. The value column's type is
/// the value columns' type when they all have one type; otherwise the common type of their
/// types, folded left to right, under the implicit conversions of CASE/COALESCE branches
/// (CommonType with CoercionPurpose::kUnify: integers widen, integers and floats meet in a
/// float, decimals meet in a decimal that holds both, strings in large_utf8, ...; a dictionary
/// column counts as its value type), and every value column is cast to it. TypeError naming the
/// columns and types when there is no common type, or a cast error naming the value that does not
/// fit.
///
/// Errors: IndexError for a column out of range; Invalid for no value columns, a column listed
/// twice (or both as id and value), or an output name used twice.
Result<RecordBatch> Unpivot(const RecordBatch& batch, const std::vector<int>& id_columns,
                            const std::vector<int>& value_columns, std::string variable_name,
                            std::string value_name, MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla::compute
