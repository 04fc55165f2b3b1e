#pragma once
// Row-group (and page) pruning: whether a filter can match any row of a part of a file whose
// columns have the given min/max/null-count statistics. Conservative: anything it does not
// understand "may match".
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "flotilla/expr/expression.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/io/parquet/schema.h"

namespace flotilla::io::parquet {

/// One column's statistics over some rows, decoded for comparison.
struct ColumnStats {
  const ColumnDescriptor* column = nullptr;
  std::optional<std::string> min, max;  // plain-encoded value bytes, when known and trustworthy
  std::optional<int64_t> null_count;
  int64_t num_rows = 0;
};

/// Statistics of a top-level column by name; nullopt when the column has none (or is nested).
using StatsLookup = std::function<std::optional<ColumnStats>(const std::string& name)>;

/// False only when no row described by `stats` can satisfy `filter`.
bool MayMatch(const expr::ExprPtr& filter, const StatsLookup& stats);

/// The statistics of a column chunk, with the deprecated min/max used only where their signed
/// ordering is the column's order.
ColumnStats ChunkStats(const ColumnDescriptor& column, const Statistics& statistics,
                       int64_t num_rows);

}  // namespace flotilla::io::parquet
