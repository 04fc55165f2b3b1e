#pragma once
// The page index on the read side: which rows of a row group a filter can need, from the
// per-page min/max (ColumnIndex) and page locations (OffsetIndex) of the columns it names, and
// cutting decoded columns down to those rows.
#include <cstdint>
#include <string>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/expr/expression.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/io/parquet/schema.h"

namespace flotilla::io::parquet {

/// Rows [begin, end) of a row group.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  bool operator==(const RowRange&) const = default;
};
/// Sorted, disjoint and not touching (adjacent ranges are merged).
using RowRanges = std::vector<RowRange>;

/// Appends [begin, end) to ranges that end at or before `begin`, merging when they touch.
void AppendRange(RowRanges* ranges, int64_t begin, int64_t end);
RowRanges Intersect(const RowRanges& a, const RowRanges& b);
int64_t CountRows(const RowRanges& ranges);

/// The rows of page p: from its first_row_index to the next page's (or `num_rows`).
RowRange PageRows(const OffsetIndex& index, size_t p, int64_t num_rows);

/// Checks that the offset index describes pages in row order inside the row group and inside
/// the chunk's bytes [chunk_offset, chunk_offset + chunk_length).
Status CheckOffsetIndex(const OffsetIndex& index, int64_t num_rows, int64_t chunk_offset,
                        int64_t chunk_length);

/// The rows of the pages whose statistics do not rule out `filter`, for the top-level column
/// `name`; every page of `offsets` when the column index does not describe them.
RowRanges PagesMayMatch(const ColumnDescriptor& column, const std::string& name,
                        const ColumnIndex& stats, const OffsetIndex& offsets, int64_t num_rows,
                        const expr::ExprPtr& filter);

/// `values` holds the rows of `covered`, in order; returns its rows in `wanted`, each of which
/// must lie inside `covered`. Zero-copy when `wanted` is one range.
Result<Array> TakeRows(const Array& values, const RowRanges& covered, const RowRanges& wanted);

}  // namespace flotilla::io::parquet
