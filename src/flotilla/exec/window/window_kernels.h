#pragma once
// Window function kernels: the values of one window function over a batch that the window
// operator has already sorted by (partition keys, order keys). Semantics follow PostgreSQL and
// DuckDB.
//
// Functions (names case-insensitive). `arguments` are column indices into the sorted batch,
// `constants` one-row arrays:
//   row_number()        int64: 1, 2, ... within the partition, in the sorted order
//   rank()              int64: 1 + the rows before the current row's peer group (gaps on ties)
//   dense_rank()        int64: 1 + the peer groups before the current row's (no gaps)
//   percent_rank()      float64: (rank - 1) / (rows - 1); 0 for a one-row partition
//   cume_dist()         float64: (rows before the current row or its peers) / rows
//   ntile(buckets)      int64, constants {buckets} (an integer): the bucket 1..buckets, as
//                       PostgreSQL: the first rows % buckets buckets hold one row more than the
//                       others; more buckets than rows gives 1..rows. A null buckets gives null;
//                       buckets <= 0 is Invalid.
//   lag(x, offset, default), lead(x, offset, default)
//                       x's type. arguments {x} or {x, default}; constants {}, {offset} or
//                       {offset, default}: x at `offset` rows before (lag) / after (lead) the
//                       current row within the partition (offset an integer, 1 when absent;
//                       negative looks the other way; null gives null), or `default` (converted
//                       to x's type; a column is read at the current row) when that row is
//                       outside the partition, null when there is no default.
//   first_value(x), last_value(x)
//                       x's type: x at the first / last row of the frame (null when x is null
//                       there or the frame is empty).
//   nth_value(x, n)     x's type, constants {n} (an integer): x at the frame's n-th row (1-based),
//                       null when the frame is shorter or n is null; n <= 0 is Invalid.
//   any aggregate of expr::DefaultAggregateRegistry() (sum, count, count_star, mean, min, max,
//   first, last, variance, list, string_agg, ...)
//                       over the frame, typed as the AggregateFunction resolves. Its arguments
//                       are `arguments` (columns) followed by `constants` (string_agg's
//                       separator, approx_percentile's quantile).
//
// Peers are rows of a partition equal on every order key (RowComparator's equality: nulls equal
// nulls, NaN equals NaN, -0.0 equals 0.0). Without order keys every row of a partition is a peer
// of every other. Ranking and navigation functions (row_number .. lag/lead) ignore the frame.
//
// Frames: ROWS counts rows from the current one. RANGE with CURRENT ROW reaches to the edge of
// the current row's peer group. RANGE with an offset needs exactly one order key of an integer,
// float, decimal, date32, timestamp or duration type and spans the rows whose key is within
// `offset` of the current row's key, in the key's unit: days for date32, the time unit of
// timestamps and durations, whole units for decimals (offset 2 on a decimal128(10, 2) key is
// 2.00). A descending key flips the direction of PRECEDING and FOLLOWING. Rows whose key is null
// (and, for float keys, NaN) form their own peer group: their offset bounds stop at that group's
// edges, and other rows' offset bounds never reach into it. A frame whose end lies before its
// start is empty. Invalid frames (starting at UNBOUNDED FOLLOWING, ending at UNBOUNDED
// PRECEDING, starting at CURRENT ROW and ending PRECEDING, starting FOLLOWING and ending at
// CURRENT ROW or PRECEDING, negative offsets) are Invalid; RANGE offsets on other order keys are
// NotImplemented.
//
// Cost, n rows, w rows per frame: ranking, lag/lead, first/last/nth_value and count are O(n);
// sum and mean of integers and decimals O(n) (a sliding 128-bit sum); of floats O(n) for frames
// with a fixed start and O(n log n) otherwise (a tree of compensated partial sums, so removing
// rows loses no precision); min and max O(n) (a monotone deque); any_value O(n). Every other
// aggregate, through its GroupedAccumulator: frames with a fixed start (running and whole-
// partition frames) feed each row once and snapshot the state once per distinct frame (one
// Merge); frames whose start moves feed each frame's rows again (O(n * w)).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/compute/row_comparator.h"

namespace flotilla::exec {

/// One end of a window frame. `offset` (>= 0) is used by kPreceding and kFollowing only: a
/// number of rows (ROWS), or a distance in the order key's unit (RANGE).
struct FrameBound {
  enum Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing } kind;
  int64_t offset = 0;
};

/// A window frame; the default is SQL's default with an ORDER BY (RANGE BETWEEN UNBOUNDED
/// PRECEDING AND CURRENT ROW).
struct WindowFrame {
  enum Type { kRows, kRange } type = kRange;
  FrameBound start{FrameBound::kUnboundedPreceding};
  FrameBound end{FrameBound::kCurrentRow};
};

/// SQL text of a frame: "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW".
std::string WindowFrameToString(const WindowFrame& frame);

/// One window function call (see the table at the top of this file).
struct WindowFunctionSpec {
  std::string name;
  std::vector<int> arguments;
  std::vector<Array> constants;
  /// For aggregates and first_value/last_value/nth_value. Absent: SQL's default, RANGE BETWEEN
  /// UNBOUNDED PRECEDING AND CURRENT ROW with order keys, the whole partition without.
  std::optional<WindowFrame> frame;
};

/// \brief The values of `spec` for every row of `sorted`, in its row order.
///
/// `sorted` holds the rows sorted by the partition keys, then by `order_keys` (SortKeys on
/// `sorted`; may be empty). `partition_starts` lists the first row of each partition: ascending,
/// the first 0 (empty partitions, equal consecutive starts, are allowed); partition p ends at
/// the next start or num_rows. A batch without rows may pass no starts.
/// Errors: KeyError for an unknown function (with a suggestion), TypeError / IndexError for bad
/// arguments or constants, Invalid for invalid frames, partition starts or constants (ntile's
/// buckets <= 0), NotImplemented for RANGE offsets on unsupported order keys, and whatever the
/// aggregate reports (sum overflow names the row).
Result<Array> ComputeWindowFunction(const RecordBatch& sorted,
                                    const std::vector<int64_t>& partition_starts,
                                    const std::vector<compute::SortKey>& order_keys,
                                    const WindowFunctionSpec& spec);

/// The type ComputeWindowFunction returns for `spec` over batches of `schema` (for planning),
/// with the same argument checks and errors.
Result<TypePtr> WindowFunctionType(const Schema& schema, const WindowFunctionSpec& spec);

/// \brief The first row of each run of rows of `sorted` equal on every column of
/// `partition_columns` (nulls equal nulls, NaN equals NaN): {0, ...} for a batch with rows, {}
/// for an empty one. No columns give one partition. IndexError for a column out of range,
/// NotImplemented for nested key types.
Result<std::vector<int64_t>> PartitionStarts(const RecordBatch& sorted,
                                             const std::vector<int>& partition_columns);

}  // namespace flotilla::exec
