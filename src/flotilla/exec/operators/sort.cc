// Sort: an external merge sort. Morsels are buffered (with their computed key columns) while
// the memory budget allows; when it does not, the buffered rows are sorted into a run and
// spilled. At the end the rows still in memory are sorted; with spilled runs, all runs are
// merged as the output is read.
//
// Stability: in memory, the buffered morsels are put back in input order before one stable
// sort. Spilled runs hold morsels in whatever order threads delivered them, so once anything
// spills every row carries its input position (morsel sequence << 32 | row) as a last, hidden
// sort key, and the merge restores the input order of equal keys.
#include <mutex>

#include "flotilla/compute/elementwise.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sort_support.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {

struct SortState final : GlobalState {
  SortState(ExecContext* context, OperatorStats* stats)
      : context(context), stats(stats), reservation(context->memory()) {}
  ExecContext* context;
  OperatorStats* stats;
  std::mutex mutex;
  std::vector<std::pair<int64_t, RecordBatch>> buffered;  // (morsel seq, extended batch)
  int64_t buffered_bytes = 0;
  MemoryReservation reservation;
  std::vector<std::shared_ptr<SpillFile>> runs;
};

class SortSink final : public SinkOperator {
 public:
  SortSink(SchemaPtr schema, std::shared_ptr<const BoundSortKeys> keys)
      : schema_(std::move(schema)), keys_(std::move(keys)) {
    std::vector<Field> fields = keys_->extended_schema()->fields();
    fields.push_back(Field{"__position", int64(), false});
    const int position = static_cast<int>(fields.size()) - 1;
    positioned_schema_ = std::make_shared<Schema>(std::move(fields));
    positioned_keys_ = keys_->keys();
    positioned_keys_.push_back(SortKey{position, true, false});
  }
  std::string name() const override { return "Sort"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    return std::unique_ptr<GlobalState>(new SortState(context, stats));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<SortState*>(global);
    std::vector<std::pair<int64_t, RecordBatch>> to_spill;
    for (RecordBatch& batch : input.batches) {
      if (batch.num_rows() == 0) continue;
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch extended, keys_->Extend(batch));
      const int64_t bytes = SliceBytes(extended);
      std::lock_guard<std::mutex> lock(state->mutex);
      state->buffered.emplace_back(input.seq, std::move(extended));
      state->buffered_bytes += bytes;
      // Sorting needs about as much again as the rows (the sorted copy).
      if (!state->reservation.TryResize(2 * state->buffered_bytes)) {
        to_spill = std::move(state->buffered);
        state->buffered.clear();
        state->buffered_bytes = 0;
        state->reservation.ForceResize(0);
      }
      state->stats->ObserveMemory(state->reservation.size());
    }
    if (!to_spill.empty()) return SpillRun(state, std::move(to_spill));
    return Status::OK();
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<SortState*>(global);
    const int64_t morsel = state->context->morsel_size();
    std::sort(state->buffered.begin(), state->buffered.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    if (state->runs.empty()) {
      std::vector<RecordBatch> batches;
      for (auto& [seq, batch] : state->buffered)
        batches.push_back(std::move(batch));
      state->buffered.clear();
      FLOTILLA_ASSIGN_OR_RETURN(
          std::vector<RecordBatch> sorted,
          SortBatches(keys_->extended_schema(), batches, keys_->keys(), state->context->pool(),
                      std::max<int64_t>(morsel, 1 << 20)));
      std::vector<std::vector<RecordBatch>> partitions(1);
      for (const RecordBatch& piece : sorted) {
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch stripped, keys_->Strip(piece));
        partitions[0].push_back(std::move(stripped));
      }
      return MakeBatchSource(schema_, std::move(partitions), morsel);
    }
    std::vector<std::unique_ptr<SortedRun>> runs;
    for (const auto& file : state->runs) {
      FLOTILLA_ASSIGN_OR_RETURN(auto run, MakeSpilledRun(file));
      runs.push_back(std::move(run));
    }
    if (!state->buffered.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch rest, SortPositioned(std::move(state->buffered)));
      runs.push_back(MakeMemoryRun(std::move(rest), morsel));
    }
    FLOTILLA_ASSIGN_OR_RETURN(
        auto merger, RunMerger::Make(positioned_schema_, std::move(runs), positioned_keys_));
    return MakeMergeSource(schema_, std::move(merger), keys_, morsel, std::move(state->runs));
  }

 private:
  /// The rows of `batches` with their input positions, sorted by key then position.
  Result<RecordBatch> SortPositioned(std::vector<std::pair<int64_t, RecordBatch>> batches) const {
    std::vector<RecordBatch> positioned;
    for (auto& [seq, batch] : batches) {
      const int64_t n = batch.num_rows();
      FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
      auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
      for (int64_t i = 0; i < n; ++i)
        out[i] = (seq << 32) | i;
      std::vector<Array> columns = batch.columns();
      columns.push_back(compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values)));
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch with_position,
                                RecordBatch::Make(positioned_schema_, std::move(columns), n));
      positioned.push_back(std::move(with_position));
      batch = RecordBatch();
    }
    return SortBatches(positioned_schema_, positioned, positioned_keys_);
  }

  Status SpillRun(SortState* state, std::vector<std::pair<int64_t, RecordBatch>> batches) const {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch sorted, SortPositioned(std::move(batches)));
    FLOTILLA_ASSIGN_OR_RETURN(auto writer, state->context->spill()->Create(positioned_schema_));
    const int64_t chunk = state->context->morsel_size();
    for (int64_t offset = 0; offset < sorted.num_rows(); offset += chunk) {
      FLOTILLA_RETURN_NOT_OK(writer->Write(sorted.Slice(offset, chunk)));
    }
    FLOTILLA_ASSIGN_OR_RETURN(auto file, writer->Finish());
    state->stats->spilled_bytes += file->size_bytes();
    std::lock_guard<std::mutex> lock(state->mutex);
    state->runs.push_back(std::move(file));
    return Status::OK();
  }

  SchemaPtr schema_;
  std::shared_ptr<const BoundSortKeys> keys_;
  SchemaPtr positioned_schema_;
  std::vector<SortKey> positioned_keys_;
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeSortSink(const SchemaPtr& schema,
                                                   const std::vector<SortSpec>& keys) {
  FLOTILLA_ASSIGN_OR_RETURN(BoundSortKeys bound, BoundSortKeys::Make(schema, keys));
  return std::unique_ptr<SinkOperator>(
      new SortSink(schema, std::make_shared<const BoundSortKeys>(std::move(bound))));
}

}  // namespace flotilla::exec
