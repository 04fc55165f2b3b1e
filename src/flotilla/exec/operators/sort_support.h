#pragma once
// What the sorting operators (sort, top-N, window, sort-merge join) share: sort keys bound to
// an input, and sorted runs merged into one stream.
#include <memory>
#include <vector>

#include "flotilla/common/thread_pool.h"
#include "flotilla/compute/row_comparator.h"
#include "flotilla/exec/memory/spill_file.h"
#include "flotilla/exec/pipeline/operator.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/expr/binder.h"

namespace flotilla::exec {

/// Sort keys bound against an input schema. A key that is a plain column is used in place;
/// any other expression is evaluated into a column appended after the input's ("extended"
/// batches), which the operator drops again on output.
class BoundSortKeys {
 public:
  static Result<BoundSortKeys> Make(const SchemaPtr& input, const std::vector<SortSpec>& keys);
  /// `input` with the computed key columns appended (itself when every key is a column).
  Result<RecordBatch> Extend(const RecordBatch& input) const;
  /// The keys as SortKeys on extended batches.
  const std::vector<compute::SortKey>& keys() const { return keys_; }
  const SchemaPtr& extended_schema() const { return extended_; }
  int num_input_columns() const { return num_input_columns_; }
  /// The input columns of an extended batch.
  Result<RecordBatch> Strip(const RecordBatch& extended) const;

 private:
  std::vector<compute::SortKey> keys_;
  std::vector<expr::BoundExpression> computed_;
  SchemaPtr input_;
  SchemaPtr extended_;
  int num_input_columns_ = 0;
};

/// `batches` (all of one schema, in input order) as one batch sorted stably by `keys`; only its
/// first `max_rows` rows when that is not negative (gathered alone, so nothing else is kept).
Result<RecordBatch> SortBatches(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                                const std::vector<compute::SortKey>& keys, int64_t max_rows = -1);
/// The same rows in the same order as pieces of `piece_rows` rows, gathered on `pool`'s threads.
Result<std::vector<RecordBatch>> SortBatches(const SchemaPtr& schema,
                                             const std::vector<RecordBatch>& batches,
                                             const std::vector<compute::SortKey>& keys,
                                             ThreadPool* pool, int64_t piece_rows);

/// A stream of batches in sorted order: one run of a merge.
class SortedRun {
 public:
  virtual ~SortedRun() = default;
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};
std::unique_ptr<SortedRun> MakeMemoryRun(RecordBatch sorted, int64_t chunk_rows);
Result<std::unique_ptr<SortedRun>> MakeSpilledRun(std::shared_ptr<SpillFile> file);

/// Merges sorted runs into one sorted stream. Ties go to the run listed first, so runs given
/// in input order keep the merge stable.
class RunMerger {
 public:
  static Result<std::unique_ptr<RunMerger>> Make(SchemaPtr schema,
                                                 std::vector<std::unique_ptr<SortedRun>> runs,
                                                 std::vector<compute::SortKey> keys);
  /// Up to `max_rows` next rows in order; nullopt when every run is exhausted.
  Result<std::optional<RecordBatch>> Next(int64_t max_rows);

 private:
  struct Cursor {
    std::unique_ptr<SortedRun> run;
    RecordBatch batch;
    int64_t row = 0;
    bool done = false;
  };
  Status Advance(size_t run);  // loads the next non-empty batch of `run`
  Result<int> Compare(size_t a, size_t b);

  SchemaPtr schema_;
  std::vector<Cursor> cursors_;
  std::vector<compute::SortKey> keys_;
  // Comparators between the current batches of two runs, rebuilt when either moves on.
  std::vector<std::vector<std::unique_ptr<compute::RowComparator>>> comparators_;
  std::vector<size_t> heap_;
};

/// A Source over a RunMerger, in morsels of `morsel_size` rows; `strip` drops the hidden key
/// columns. Only `limit` rows (all when negative) after the first `skip`.
std::unique_ptr<Source> MakeMergeSource(SchemaPtr output_schema, std::unique_ptr<RunMerger> merger,
                                        std::shared_ptr<const BoundSortKeys> strip,
                                        int64_t morsel_size,
                                        std::vector<std::shared_ptr<SpillFile>> files,
                                        int64_t skip = 0, int64_t limit = -1);

}  // namespace flotilla::exec
