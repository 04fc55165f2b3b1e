#pragma once
// Aggregate functions as grouped accumulators: the building block of hash aggregation.
//
// An AggregateFunction is a descriptor (name, doc, type resolution, partial-state types) and a
// factory for GroupedAccumulators. A GroupedAccumulator holds the running state of one
// aggregate for many groups at once, in columnar per-group vectors, so that the hash table of
// the aggregation operator only has to map keys to dense group ids (0, 1, 2, ...).
//
// Lifecycle:
//   single phase:  Resize -> Update* -> Finalize
//   thread-local pre-aggregation then merge:
//                  per thread Update*; then one accumulator Merge(other, group_map)s the others
//   two phase (distributed):
//                  workers Update* -> SerializePartial (Arrow arrays, shippable as a batch);
//                  final side Resize -> MergePartial* -> Finalize
//
// Each accumulator is used by one thread at a time; none is thread-safe.
//
// State layout: per-group vectors inside each accumulator (struct of arrays), not the row-wise
// state blocks PERFORMANCE.md sketches for the hash table. This keeps one virtual call per batch
// and aggregate with a typed loop inside; the operator only maps keys to dense group ids.
// Update allocates nothing per row except where values must be kept (list's entries,
// count_distinct's new distinct values, string_agg's growing strings, the sketches' items).
//
// Built-in functions (RegisterAggregateFunctions):
//   count(x), count_star()             int64; 0 for an empty group
//   count_distinct(x)                  int64, exact; partial state list<T> per group
//   approx_count_distinct(x)           int64, HyperLogLog 2^14 (hyperloglog.h)
//   sum(x)                             int64 / uint64 (overflow is an error naming the group),
//                                      float64 (Neumaier-compensated), decimal128(38, s) exact
//   mean(x), avg(x)                    float64 (decimal too, as DuckDB's avg(decimal))
//   min(x), max(x)                     input type; NaN is the largest float
//   any_value(x), first(x), last(x)    input type (first/last keep a null first/last value)
//   arg_min(x, k), arg_max(x, k)       x's type (any, nested too): x at the row of the
//                                      smallest / largest non-null k
//   variance/var_samp, var_pop,
//   stddev/stddev_samp, stddev_pop     float64 (Welford + Chan's merge); samp of < 2 rows null
//   bool_and(x), bool_or(x)            bool
//   list(x), agg_list(x)               list<T>, nulls included (as DuckDB)
//   string_agg(x, sep)                 string, sep a constant
//   approx_percentile(x, q)            float64, KLL-style sketch (quantile_sketch.h)
// Except for the counts, an aggregate over a group without (non-null) values is null.
//
// Order-sensitive aggregates (first, last, list, string_agg) see rows in input order within a
// batch and batches in Update order. Across threads and workers "first" is defined by merge
// order: Merge/MergePartial append the other side's values after this side's.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/common/result.h"
#include "flotilla/types/data_type.h"

namespace flotilla::expr {

/// \brief The running state of one aggregate over many groups.
///
/// Group ids are dense: every id passed to Update/MergePartial, and every entry of a Merge
/// group_map, must be below the current num_groups() (callers Resize first). Violating this is
/// a caller bug and is not checked per row.
class GroupedAccumulator {
 public:
  virtual ~GroupedAccumulator() = default;

  /// Grows (or keeps) the number of groups; new groups start empty. Never shrinks state.
  virtual Status Resize(int64_t num_groups) = 0;
  int64_t num_groups() const { return num_groups_; }

  /// Folds `num_rows` rows into their groups: row i goes to group `group_ids[i]`. `args` are
  /// the argument columns (each at least num_rows long) with the types given to the factory;
  /// constant arguments (separator, quantile) are taken from the factory and ignored here.
  /// Errors: Invalid on overflow (naming the group).
  virtual Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                        int64_t num_rows) = 0;

  /// Folds `other` (the same function with the same argument types) into this accumulator:
  /// other's group g goes into this group `group_map[g]`. `other` is left unchanged.
  virtual Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) = 0;

  /// The partial state, one row per group, as arrays of the function's state types (see
  /// AggregateFunction::state_types). The accumulator is unchanged.
  virtual Result<std::vector<Array>> SerializePartial() const = 0;

  /// Folds `n` rows of serialized partial state into groups: row i goes to group
  /// `group_ids[i]`.
  virtual Status MergePartial(const std::vector<Array>& partial_state, const uint32_t* group_ids,
                              int64_t n) = 0;

  /// The result, one value per group (null where SQL says so: sum of no rows, ...).
  virtual Result<Array> Finalize() const = 0;

  /// About how many bytes the state holds (what a memory budget charges for it). Accumulators
  /// whose state grows with the values they see (strings, lists, retained input) say so;
  /// fixed-size states are charged a typical size per group.
  virtual int64_t memory_bytes() const { return num_groups_ * 24; }

 protected:
  int64_t num_groups_ = 0;
};

/// Checks argument types and returns the result type, or a TypeError that names the function
/// and the argument ("sum() expects a numeric or decimal argument, got utf8 for argument 1").
using AggregateResolveFn = Result<TypePtr> (*)(const std::vector<TypePtr>& arg_types);

/// Types of the partial-state arrays SerializePartial produces, for accepted argument types.
using AggregateStateTypesFn =
    Result<std::vector<TypePtr>> (*)(const std::vector<TypePtr>& arg_types);

/// Creates an empty accumulator (zero groups). `constant_args[i]` is a one-row array when
/// argument i is a constant (a literal), and an invalid Array otherwise; functions that need a
/// constant (string_agg's separator, approx_percentile's quantile) return Invalid without one.
using AggregateFactoryFn = Result<std::unique_ptr<GroupedAccumulator>> (*)(
    const std::vector<TypePtr>& arg_types, const std::vector<Array>& constant_args);

struct AggregateFunction {
  std::string name;  // lower case, as written in SQL and Python
  std::string doc;   // for users: what it returns, how nulls and empty groups behave
  int min_args = 1;
  int max_args = 1;
  AggregateResolveFn resolve = nullptr;
  AggregateStateTypesFn state_types = nullptr;
  AggregateFactoryFn make_accumulator = nullptr;

  /// Checks the argument count and types, then creates an accumulator.
  Result<std::unique_ptr<GroupedAccumulator>> MakeAccumulator(
      const std::vector<TypePtr>& arg_types, const std::vector<Array>& constant_args = {}) const;
};

class AggregateRegistry {
 public:
  /// Adds a function; an existing name is an error (aliases are separate entries).
  Status Add(AggregateFunction function);
  /// The function called `name` (case-insensitive), or a KeyError suggesting the closest name.
  Result<const AggregateFunction*> Find(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, AggregateFunction> functions_;
};

/// Registers every built-in aggregate function.
Status RegisterAggregateFunctions(AggregateRegistry* registry);

/// The registry with every built-in aggregate, built once.
const AggregateRegistry& DefaultAggregateRegistry();

// One call per family, each beside its accumulators; RegisterAggregateFunctions calls them all.
Status RegisterCountAggregates(AggregateRegistry* registry);       // count, count_star
Status RegisterSumMeanAggregates(AggregateRegistry* registry);     // sum, mean, avg
Status RegisterSelectAggregates(AggregateRegistry* registry);      // min, max, first, ...
Status RegisterArgSelectAggregates(AggregateRegistry* registry);   // arg_min, arg_max
Status RegisterVarianceAggregates(AggregateRegistry* registry);    // stddev, variance, ...
Status RegisterBoolAggregates(AggregateRegistry* registry);        // bool_and, bool_or
Status RegisterCollectAggregates(AggregateRegistry* registry);     // list, string_agg
Status RegisterDistinctAggregates(AggregateRegistry* registry);    // count_distinct, approx
Status RegisterPercentileAggregates(AggregateRegistry* registry);  // approx_percentile
Status RegisterProductAggregate(AggregateRegistry* registry);      // product

}  // namespace flotilla::expr
