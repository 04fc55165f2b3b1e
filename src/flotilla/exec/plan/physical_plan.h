#pragma once
// The local physical plan: a tree of immutable operator descriptions the executor turns into
// pipelines. A plan node holds parameters only (expressions unbound, as the user wrote them);
// everything that changes while a query runs lives in the executor's state objects, so one plan
// can run many times, on many threads, and be serialized to a worker (plan_serde.h).
//
// Nodes are built by the Make* functions below, which bind every expression against the input
// schema and compute the output schema, so a plan that exists is well-typed: a bad column name
// or type fails when the plan is built, naming the node.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/micro_partition.h"
#include "flotilla/compute/row_comparator.h"
#include "flotilla/exec/window/window_kernels.h"
#include "flotilla/expr/expression.h"
#include "flotilla/io/scan_task.h"

namespace flotilla::exec {

// Scans read io's scan tasks; the plan names them as its own.
using io::InMemoryScanTask;
using io::ScanPushdowns;
using io::ScanTask;

enum class PlanKind {
  kInMemorySource,
  kScan,
  kProject,
  kFilter,
  kLimit,
  kSample,
  kExplode,
  kUnpivot,
  kConcat,
  kMonotonicId,
  kAggregate,
  kDistinct,
  kHashJoin,
  kCrossJoin,
  kSortMergeJoin,
  kSort,
  kTopN,
  kWindow,
  kPivot,
  kRepartition,
  kUdfProject,
};

const char* PlanKindName(PlanKind kind);  // "Project", "HashJoin", ...

class PlanNode;
using PlanPtr = std::shared_ptr<const PlanNode>;

class PlanNode {
 public:
  virtual ~PlanNode() = default;
  PlanKind kind() const { return kind_; }
  const SchemaPtr& schema() const { return schema_; }
  const std::vector<PlanPtr>& children() const { return children_; }
  /// The node's parameters on one line, for explain: "Filter: (l_quantity < 24)".
  virtual std::string Describe() const = 0;

 protected:
  PlanNode(PlanKind kind, SchemaPtr schema, std::vector<PlanPtr> children)
      : kind_(kind), schema_(std::move(schema)), children_(std::move(children)) {}

 private:
  PlanKind kind_;
  SchemaPtr schema_;
  std::vector<PlanPtr> children_;
};

/// The plan as an indented tree, one node per line (explain).
std::string PlanToString(const PlanNode& root);

// --- Sources ------------------------------------------------------------------------------------

/// Rows already in memory, as partitions (their index numbers monotonically increasing ids).
struct InMemorySourceNode final : PlanNode {
  std::vector<MicroPartition> partitions;  // loaded
  InMemorySourceNode(SchemaPtr schema, std::vector<MicroPartition> partitions)
      : PlanNode(PlanKind::kInMemorySource, std::move(schema), {}),
        partitions(std::move(partitions)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeInMemorySource(SchemaPtr schema, std::vector<MicroPartition> partitions);
/// One partition of batches.
Result<PlanPtr> MakeInMemorySource(SchemaPtr schema, std::vector<RecordBatch> batches);

/// Rows read by scan tasks (files, row-group ranges...) with pushdowns.
struct ScanNode final : PlanNode {
  SchemaPtr file_schema;  // what every task reads before pushdowns; schema() is its projection
  std::vector<std::shared_ptr<const ScanTask>> tasks;
  ScanPushdowns pushdowns;
  ScanNode(SchemaPtr schema, SchemaPtr file_schema,
           std::vector<std::shared_ptr<const ScanTask>> tasks, ScanPushdowns pushdowns)
      : PlanNode(PlanKind::kScan, std::move(schema), {}),
        file_schema(std::move(file_schema)),
        tasks(std::move(tasks)),
        pushdowns(std::move(pushdowns)) {}
  std::string Describe() const override;
};
/// `file_schema` is the schema every task reads; the node's schema is its projection by
/// `pushdowns.columns`.
Result<PlanPtr> MakeScan(SchemaPtr file_schema, std::vector<std::shared_ptr<const ScanTask>> tasks,
                         ScanPushdowns pushdowns = {});

// --- Streaming operators ------------------------------------------------------------------------

struct ProjectNode final : PlanNode {
  std::vector<expr::ExprPtr> expressions;
  ProjectNode(SchemaPtr schema, PlanPtr input, std::vector<expr::ExprPtr> expressions)
      : PlanNode(PlanKind::kProject, std::move(schema), {std::move(input)}),
        expressions(std::move(expressions)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeProject(PlanPtr input, std::vector<expr::ExprPtr> expressions);

struct FilterNode final : PlanNode {
  expr::ExprPtr predicate;
  FilterNode(PlanPtr input, expr::ExprPtr predicate)
      : PlanNode(PlanKind::kFilter, input->schema(), {input}), predicate(std::move(predicate)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeFilter(PlanPtr input, expr::ExprPtr predicate);

/// Skips `offset` rows then keeps at most `limit` (no limit when negative). In input order.
struct LimitNode final : PlanNode {
  int64_t limit;
  int64_t offset;
  LimitNode(PlanPtr input, int64_t limit, int64_t offset)
      : PlanNode(PlanKind::kLimit, input->schema(), {input}), limit(limit), offset(offset) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeLimit(PlanPtr input, int64_t limit, int64_t offset = 0);

/// A random sample: each row with probability `fraction`, or exactly `size` rows (all when
/// fewer), with or without replacement; the same seed gives the same sample.
struct SampleNode final : PlanNode {
  std::optional<double> fraction;
  std::optional<int64_t> size;
  bool with_replacement;
  uint64_t seed;
  SampleNode(PlanPtr input, std::optional<double> fraction, std::optional<int64_t> size,
             bool with_replacement, uint64_t seed)
      : PlanNode(PlanKind::kSample, input->schema(), {input}),
        fraction(fraction),
        size(size),
        with_replacement(with_replacement),
        seed(seed) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeSampleFraction(PlanPtr input, double fraction, bool with_replacement,
                                   uint64_t seed);
Result<PlanPtr> MakeSampleSize(PlanPtr input, int64_t size, bool with_replacement, uint64_t seed);

/// One row per element of the list columns (several are exploded in lockstep).
struct ExplodeNode final : PlanNode {
  std::vector<std::string> columns;
  ExplodeNode(SchemaPtr schema, PlanPtr input, std::vector<std::string> columns)
      : PlanNode(PlanKind::kExplode, std::move(schema), {std::move(input)}),
        columns(std::move(columns)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeExplode(PlanPtr input, std::vector<std::string> columns);

/// Wide to long: ids + (variable, value) per value column.
struct UnpivotNode final : PlanNode {
  std::vector<std::string> ids;
  std::vector<std::string> values;
  std::string variable_name;
  std::string value_name;
  UnpivotNode(SchemaPtr schema, PlanPtr input, std::vector<std::string> ids,
              std::vector<std::string> values, std::string variable_name, std::string value_name)
      : PlanNode(PlanKind::kUnpivot, std::move(schema), {std::move(input)}),
        ids(std::move(ids)),
        values(std::move(values)),
        variable_name(std::move(variable_name)),
        value_name(std::move(value_name)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeUnpivot(PlanPtr input, std::vector<std::string> ids,
                            std::vector<std::string> values, std::string variable_name = "variable",
                            std::string value_name = "value");

/// The rows of every input, in input order (same schema).
struct ConcatNode final : PlanNode {
  ConcatNode(SchemaPtr schema, std::vector<PlanPtr> inputs)
      : PlanNode(PlanKind::kConcat, std::move(schema), std::move(inputs)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeConcat(std::vector<PlanPtr> inputs);

/// Appends an int64 id column: (first_partition + partition index) * 2^36 + row number within
/// the partition. A distributed task numbers its rows as partition first_partition (its place
/// among its node's tasks), so ids stay unique across tasks.
struct MonotonicIdNode final : PlanNode {
  std::string column_name;
  int64_t first_partition = 0;
  MonotonicIdNode(SchemaPtr schema, PlanPtr input, std::string column_name, int64_t first_partition)
      : PlanNode(PlanKind::kMonotonicId, std::move(schema), {std::move(input)}),
        column_name(std::move(column_name)),
        first_partition(first_partition) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeMonotonicId(PlanPtr input, std::string column_name = "id",
                                int64_t first_partition = 0);

/// A C++ function applied to each batch: its arguments are evaluated, the function returns one
/// column of `return_type` and as many rows, appended to the `passthrough` columns. With
/// `concurrency` > 0 this is an ActorPoolProject: the function hands each batch to one of a pool
/// of that many stateful instances (a model loaded once per instance), at most one batch per
/// instance at a time.
using BatchFunction = std::function<Result<Array>(const std::vector<Array>& arguments)>;
struct UdfProjectNode final : PlanNode {
  std::string function_name;  // registered in the UdfRegistry (workers look it up by name)
  BatchFunction function;
  std::vector<expr::ExprPtr> arguments;
  std::vector<std::string> passthrough;
  std::string output_name;
  TypePtr return_type;
  int concurrency = 0;
  UdfProjectNode(SchemaPtr schema, PlanPtr input, std::string function_name, BatchFunction function,
                 std::vector<expr::ExprPtr> arguments, std::vector<std::string> passthrough,
                 std::string output_name, TypePtr return_type, int concurrency)
      : PlanNode(PlanKind::kUdfProject, std::move(schema), {std::move(input)}),
        function_name(std::move(function_name)),
        function(std::move(function)),
        arguments(std::move(arguments)),
        passthrough(std::move(passthrough)),
        output_name(std::move(output_name)),
        return_type(std::move(return_type)),
        concurrency(concurrency) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeUdfProject(PlanPtr input, std::string function_name, BatchFunction function,
                               std::vector<expr::ExprPtr> arguments,
                               std::vector<std::string> passthrough, std::string output_name,
                               TypePtr return_type, int concurrency = 0);

// --- Aggregation --------------------------------------------------------------------------------

/// single: rows -> result; partial: rows -> group keys + partial state columns; final: the
/// partial output (of one or many partial aggregates) -> result. partial then final equals
/// single.
enum class AggregateMode { kSingle, kPartial, kFinal };
const char* AggregateModeName(AggregateMode mode);

/// One aggregate: `function`(arguments) AS name. Arguments are expressions over the input
/// (partial and single mode); a final aggregate reads its state columns by position.
struct AggregateSpec {
  std::string function;
  std::vector<expr::ExprPtr> arguments;
  std::string name;
};

struct AggregateNode final : PlanNode {
  std::vector<expr::ExprPtr> group_by;
  std::vector<AggregateSpec> aggregates;
  AggregateMode mode;
  /// Final mode: the argument types the partial side resolved (state columns are typed by them).
  std::vector<std::vector<TypePtr>> argument_types;
  AggregateNode(SchemaPtr schema, PlanPtr input, std::vector<expr::ExprPtr> group_by,
                std::vector<AggregateSpec> aggregates, AggregateMode mode,
                std::vector<std::vector<TypePtr>> argument_types)
      : PlanNode(PlanKind::kAggregate, std::move(schema), {std::move(input)}),
        group_by(std::move(group_by)),
        aggregates(std::move(aggregates)),
        mode(mode),
        argument_types(std::move(argument_types)) {}
  std::string Describe() const override;
};
/// Single or partial aggregation of `input`. The partial output is the group columns followed by
/// each aggregate's state columns, named "<name>.<i>".
Result<PlanPtr> MakeAggregate(PlanPtr input, std::vector<expr::ExprPtr> group_by,
                              std::vector<AggregateSpec> aggregates,
                              AggregateMode mode = AggregateMode::kSingle);
/// The final aggregation over the output of `partial` (a partial AggregateNode's schema); `input`
/// produces rows of that schema (e.g. the partial node itself, or a shuffle of its output).
Result<PlanPtr> MakeFinalAggregate(PlanPtr input, const AggregateNode& partial);

/// Distinct rows over `columns` (all columns when empty); keeps every column, first row wins.
struct DistinctNode final : PlanNode {
  std::vector<std::string> columns;
  DistinctNode(PlanPtr input, std::vector<std::string> columns)
      : PlanNode(PlanKind::kDistinct, input->schema(), {input}), columns(std::move(columns)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeDistinct(PlanPtr input, std::vector<std::string> columns = {});

/// Pivot: one row per group; one column per value in `names`, holding
/// aggregate(value_column) over the group's rows whose pivot_column equals that name (null when
/// none).
struct PivotNode final : PlanNode {
  std::vector<expr::ExprPtr> group_by;
  expr::ExprPtr pivot_column;
  expr::ExprPtr value_column;
  std::string function;
  std::vector<std::string> names;
  PivotNode(SchemaPtr schema, PlanPtr input, std::vector<expr::ExprPtr> group_by,
            expr::ExprPtr pivot_column, expr::ExprPtr value_column, std::string function,
            std::vector<std::string> names)
      : PlanNode(PlanKind::kPivot, std::move(schema), {std::move(input)}),
        group_by(std::move(group_by)),
        pivot_column(std::move(pivot_column)),
        value_column(std::move(value_column)),
        function(std::move(function)),
        names(std::move(names)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakePivot(PlanPtr input, std::vector<expr::ExprPtr> group_by,
                          expr::ExprPtr pivot_column, expr::ExprPtr value_column,
                          std::string function, std::vector<std::string> names);

// --- Joins --------------------------------------------------------------------------------------

/// kRightSemi / kRightAnti are semi and anti joins that output the right input's rows (those
/// with a match, those without): the hash join builds the side whose rows it keeps, so a small
/// left side of a semi join becomes the right side of a right semi join.
enum class JoinType { kInner, kLeft, kRight, kFull, kSemi, kAnti, kRightSemi, kRightAnti };
const char* JoinTypeName(JoinType type);

/// The user's word on how a distributed runner joins: kAuto lets it choose by size; kShuffle
/// always exchanges both sides on the keys; kBroadcast sends a side (the smaller of those the
/// join type allows) to every task of the other. The local engine joins alike in every case.
enum class JoinStrategy { kAuto, kShuffle, kBroadcast };

/// Equi-join on left_keys[i] = right_keys[i] (null_equal[i]: null matches null), then `residual`
/// (may be null) over the joined row. Output: every left column then every right column (semi
/// and anti: left columns only); a right column whose name is already taken is renamed
/// "right.<name>".
struct JoinNode final : PlanNode {
  std::vector<expr::ExprPtr> left_keys;
  std::vector<expr::ExprPtr> right_keys;
  std::vector<bool> null_equal;
  JoinType type;
  expr::ExprPtr residual;
  JoinStrategy strategy;
  JoinNode(PlanKind kind, SchemaPtr schema, PlanPtr left, PlanPtr right,
           std::vector<expr::ExprPtr> left_keys, std::vector<expr::ExprPtr> right_keys,
           std::vector<bool> null_equal, JoinType type, expr::ExprPtr residual,
           JoinStrategy strategy)
      : PlanNode(kind, std::move(schema), {std::move(left), std::move(right)}),
        left_keys(std::move(left_keys)),
        right_keys(std::move(right_keys)),
        null_equal(std::move(null_equal)),
        type(type),
        residual(std::move(residual)),
        strategy(strategy) {}
  std::string Describe() const override;
};
/// Hash join: builds on the right input, probes with the left.
Result<PlanPtr> MakeHashJoin(PlanPtr left, PlanPtr right, std::vector<expr::ExprPtr> left_keys,
                             std::vector<expr::ExprPtr> right_keys, JoinType type,
                             expr::ExprPtr residual = nullptr, std::vector<bool> null_equal = {},
                             JoinStrategy strategy = JoinStrategy::kAuto);
/// Sort-merge join: sorts both inputs on the keys and merges them (inner, left, right, full).
Result<PlanPtr> MakeSortMergeJoin(PlanPtr left, PlanPtr right, std::vector<expr::ExprPtr> left_keys,
                                  std::vector<expr::ExprPtr> right_keys, JoinType type,
                                  std::vector<bool> null_equal = {});
/// Every left row with every right row.
Result<PlanPtr> MakeCrossJoin(PlanPtr left, PlanPtr right);

/// The schema of a join's output (see JoinNode).
SchemaPtr JoinOutputSchema(const Schema& left, const Schema& right, JoinType type);

// --- Sorting and windows ------------------------------------------------------------------------

struct SortSpec {
  expr::ExprPtr key;
  bool ascending = true;
  bool nulls_first = false;
};
std::string SortSpecsToString(const std::vector<SortSpec>& keys);

/// Stable sort by several keys.
struct SortNode final : PlanNode {
  std::vector<SortSpec> keys;
  SortNode(PlanPtr input, std::vector<SortSpec> keys)
      : PlanNode(PlanKind::kSort, input->schema(), {input}), keys(std::move(keys)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeSort(PlanPtr input, std::vector<SortSpec> keys);

/// The first `limit` rows (after `offset`) in sort order, without sorting everything.
struct TopNNode final : PlanNode {
  std::vector<SortSpec> keys;
  int64_t limit;
  int64_t offset;
  TopNNode(PlanPtr input, std::vector<SortSpec> keys, int64_t limit, int64_t offset)
      : PlanNode(PlanKind::kTopN, input->schema(), {input}),
        keys(std::move(keys)),
        limit(limit),
        offset(offset) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeTopN(PlanPtr input, std::vector<SortSpec> keys, int64_t limit,
                         int64_t offset = 0);

/// One window function column: name(arguments) [frame] AS output_name. Constant arguments
/// (lag's offset and default, ntile's buckets) are literals among `arguments`.
struct WindowExpression {
  std::string function;
  std::vector<expr::ExprPtr> arguments;
  std::optional<WindowFrame> frame;
  std::string output_name;

  /// Whether argument i is a constant (an offset, a bucket count, a separator) rather than a
  /// column: a literal, except as the value a function reads first (ntile's one argument is its
  /// bucket count), so max(DATE '2022-03-01') OVER () aggregates a column of that date.
  bool IsConstantArgument(size_t i) const;
};

/// Appends one column per window expression, all over the same PARTITION BY / ORDER BY.
struct WindowNode final : PlanNode {
  std::vector<expr::ExprPtr> partition_by;
  std::vector<SortSpec> order_by;
  std::vector<WindowExpression> functions;
  WindowNode(SchemaPtr schema, PlanPtr input, std::vector<expr::ExprPtr> partition_by,
             std::vector<SortSpec> order_by, std::vector<WindowExpression> functions)
      : PlanNode(PlanKind::kWindow, std::move(schema), {std::move(input)}),
        partition_by(std::move(partition_by)),
        order_by(std::move(order_by)),
        functions(std::move(functions)) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeWindow(PlanPtr input, std::vector<expr::ExprPtr> partition_by,
                           std::vector<SortSpec> order_by, std::vector<WindowExpression> functions);

// --- Partitioning -------------------------------------------------------------------------------

enum class PartitionScheme { kHash, kRandom, kRange, kInto };
const char* PartitionSchemeName(PartitionScheme scheme);

/// Splits the rows into `num_partitions` partitions: by hash of `keys`, at random (seeded), by
/// ranges of `sort_keys` (sampled boundaries; partition i holds smaller keys than i + 1), or
/// "into": consecutive rows into partitions of near-equal size, in order.
struct RepartitionNode final : PlanNode {
  PartitionScheme scheme;
  int num_partitions;
  std::vector<expr::ExprPtr> keys;  // hash
  std::vector<SortSpec> sort_keys;  // range
  uint64_t seed;                    // random
  /// Range: the num_partitions - 1 upper boundaries (one column per sort key), when they were
  /// chosen before the rows arrived (a distributed sort samples every task's rows first);
  /// absent: sampled from the node's own input.
  std::optional<RecordBatch> boundaries;
  RepartitionNode(PlanPtr input, PartitionScheme scheme, int num_partitions,
                  std::vector<expr::ExprPtr> keys, std::vector<SortSpec> sort_keys, uint64_t seed)
      : PlanNode(PlanKind::kRepartition, input->schema(), {input}),
        scheme(scheme),
        num_partitions(num_partitions),
        keys(std::move(keys)),
        sort_keys(std::move(sort_keys)),
        seed(seed) {}
  std::string Describe() const override;
};
Result<PlanPtr> MakeRepartitionByHash(PlanPtr input, int num_partitions,
                                      std::vector<expr::ExprPtr> keys);
Result<PlanPtr> MakeRepartitionRandom(PlanPtr input, int num_partitions, uint64_t seed = 0);
Result<PlanPtr> MakeRepartitionByRange(PlanPtr input, int num_partitions,
                                       std::vector<SortSpec> keys,
                                       std::optional<RecordBatch> boundaries = std::nullopt);
Result<PlanPtr> MakeIntoPartitions(PlanPtr input, int num_partitions);

/// `node` with `children` in place of its own, rebuilt by its Make* function (so it is checked
/// again against the new children's schemas). Plan rewrites (optimizer/, distributed/) use it.
Result<PlanPtr> WithNewChildren(const PlanNode& node, std::vector<PlanPtr> children);

}  // namespace flotilla::exec
