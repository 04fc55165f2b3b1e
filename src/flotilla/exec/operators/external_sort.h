#pragma once
// The rows a sorting sink (sort, window) collects, kept under the memory budget: morsels are
// buffered while the budget allows; when it does not, the buffered rows are sorted into a run
// and spilled. At the end the caller sorts the buffered rows itself when nothing spilled (the
// fast path), or merges every run with the rows still in memory.
//
// Stability: buffered morsels come back in input order. Spilled runs hold morsels in whatever
// order threads delivered them, so once anything spills every row carries its input position
// (morsel sequence << 32 | row) as a hidden last column and sort key, and the merge restores
// the input order of equal keys.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "flotilla/exec/memory/memory_manager.h"
#include "flotilla/exec/operators/sort_support.h"

namespace flotilla::exec {

class ExecContext;
struct OperatorStats;

class ExternalSortBuffer {
 public:
  /// Batches of `schema` sorted by `keys`; spill files through `context`, memory and spilled
  /// bytes reported to `stats`.
  ExternalSortBuffer(ExecContext* context, OperatorStats* stats, SchemaPtr schema,
                     std::vector<compute::SortKey> keys);

  /// Adds morsel `seq`'s rows; may sort and spill everything buffered. Thread-safe.
  Status Add(int64_t seq, RecordBatch batch) { return Buffer(seq, std::move(batch)); }
  /// Adds rows of positioned_schema() whose positions the caller set (top-N, which filters
  /// rows before they get here). A buffer given such rows is read with Merge only.
  Status AddPositioned(RecordBatch positioned) {
    return Buffer(kPositioned, std::move(positioned));
  }

  /// Whether any run was spilled (then Merge, else TakeInOrder). Call once adding is over.
  bool spilled() const { return !runs_.empty(); }
  /// The buffered batches in input order (nothing spilled).
  std::vector<RecordBatch> TakeInOrder();
  /// Every row in order, as batches of positioned_schema() of up to `chunk_rows` rows: the
  /// spilled runs and the rows still in memory, merged.
  Result<std::unique_ptr<RunMerger>> Merge(int64_t chunk_rows);
  /// The spill files, for whatever reads the merge to keep until it is done.
  std::vector<std::shared_ptr<SpillFile>> TakeFiles() { return std::move(runs_); }

  /// The batch schema with the position column last.
  const SchemaPtr& positioned_schema() const { return positioned_schema_; }
  /// A batch of positioned_schema() without its position column.
  Result<RecordBatch> DropPosition(const RecordBatch& positioned) const;

 private:
  static constexpr int64_t kPositioned = -1;  // the morsel number of rows already positioned
  Status Buffer(int64_t seq, RecordBatch batch);
  /// The rows, positioned, as one batch and the order that sorts them.
  struct Ordered {
    RecordBatch rows;
    Array order;
  };
  Result<Ordered> OrderPositioned(std::vector<std::pair<int64_t, RecordBatch>> batches) const;
  Status SpillRun(std::vector<std::pair<int64_t, RecordBatch>> batches);

  ExecContext* context_;
  OperatorStats* stats_;
  SchemaPtr schema_;
  SchemaPtr positioned_schema_;
  std::vector<compute::SortKey> positioned_keys_;
  std::mutex mutex_;
  std::condition_variable spill_done_;
  int spills_in_flight_ = 0;
  std::vector<std::pair<int64_t, RecordBatch>> buffered_;  // (morsel seq, batch)
  int64_t buffered_bytes_ = 0;
  MemoryReservation reservation_;
  std::vector<std::shared_ptr<SpillFile>> runs_;
  // Rows per batch of the runs merged before the final merge: the smallest any run used.
  int64_t spill_chunk_rows_ = int64_t{1} << 30;
};

}  // namespace flotilla::exec
