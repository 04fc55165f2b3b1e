#include "flotilla/exec/operators/external_sort.h"

#include <algorithm>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/sort.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {
// The bytes of one batch of a spilled run: a merge holds one batch of every run it reads, so
// batches are a small share of the budget (1/64), and at most 1 MiB (bigger gains nothing).
int64_t SpillBatchBytes(const MemoryManager* memory) {
  return std::clamp<int64_t>(memory->limit() / 64, 16 << 10, 1 << 20);
}
}  // namespace

ExternalSortBuffer::ExternalSortBuffer(ExecContext* context, OperatorStats* stats, SchemaPtr schema,
                                       std::vector<compute::SortKey> keys)
    : context_(context),
      stats_(stats),
      schema_(std::move(schema)),
      positioned_keys_(std::move(keys)),
      reservation_(context->memory()) {
  std::vector<Field> fields = schema_->fields();
  fields.push_back(Field{"__position", int64(), false});
  positioned_keys_.push_back(compute::SortKey{static_cast<int>(fields.size()) - 1, true, false});
  positioned_schema_ = std::make_shared<Schema>(std::move(fields));
}

Status ExternalSortBuffer::Buffer(int64_t seq, RecordBatch batch) {
  if (batch.num_rows() == 0) return Status::OK();
  const int64_t bytes = SliceBytes(batch);
  std::vector<std::pair<int64_t, RecordBatch>> to_spill;
  // Rows being sorted and written stay reserved until their run is on disk: releasing them
  // first would let other threads buffer a budget's worth more while they are still in memory.
  MemoryReservation spilling(reservation_.manager());
  {
    std::unique_lock<std::mutex> lock(mutex_);
    // Sorting needs about as much again as the rows (the sorted copy).
    while (!reservation_.TryResize(2 * (buffered_bytes_ + bytes))) {
      if (spills_in_flight_ == 0) break;
      // Another thread is writing a run; its memory comes back when it is done.
      spill_done_.wait(lock);
    }
    buffered_.emplace_back(seq, std::move(batch));
    buffered_bytes_ += bytes;
    if (reservation_.size() < 2 * buffered_bytes_) {
      to_spill = std::move(buffered_);
      buffered_.clear();
      buffered_bytes_ = 0;
      spilling.ForceResize(std::max(reservation_.size(), 2 * bytes));
      reservation_.ForceResize(0);
      ++spills_in_flight_;
    }
    stats_->ObserveMemory(reservation_.size() + spilling.size());
  }
  if (to_spill.empty()) return Status::OK();
  Status status = SpillRun(std::move(to_spill));
  spilling.Clear();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --spills_in_flight_;
  }
  spill_done_.notify_all();
  return status;
}

std::vector<RecordBatch> ExternalSortBuffer::TakeInOrder() {
  std::stable_sort(buffered_.begin(), buffered_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<RecordBatch> out;
  for (auto& [seq, batch] : buffered_)
    out.push_back(std::move(batch));
  buffered_.clear();
  return out;
}

Result<std::unique_ptr<RunMerger>> ExternalSortBuffer::Merge(int64_t chunk_rows) {
  // A merge holds a batch of every run: past what half the budget holds, runs are first merged
  // in groups into longer runs (each row's position key makes the order total, so which runs
  // are merged together does not matter).
  const auto fan_in = static_cast<size_t>(std::max<int64_t>(
      2, reservation_.manager()->limit() / 2 / SpillBatchBytes(reservation_.manager())));
  while (runs_.size() > fan_in) {
    std::vector<std::unique_ptr<SortedRun>> group;
    for (size_t i = 0; i < fan_in; ++i) {
      FLOTILLA_ASSIGN_OR_RETURN(auto run, MakeSpilledRun(runs_[i]));
      group.push_back(std::move(run));
    }
    FLOTILLA_ASSIGN_OR_RETURN(
        auto merger, RunMerger::Make(positioned_schema_, std::move(group), positioned_keys_));
    FLOTILLA_ASSIGN_OR_RETURN(auto writer, context_->spill()->Create(positioned_schema_));
    while (true) {
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, merger->Next(spill_chunk_rows_));
      if (!batch.has_value()) break;
      FLOTILLA_RETURN_NOT_OK(writer->Write(*batch));
    }
    FLOTILLA_ASSIGN_OR_RETURN(auto file, writer->Finish());
    stats_->spilled_bytes += file->size_bytes();
    runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(fan_in));
    runs_.push_back(std::move(file));
  }
  std::vector<std::unique_ptr<SortedRun>> runs;
  for (const auto& file : runs_) {
    FLOTILLA_ASSIGN_OR_RETURN(auto run, MakeSpilledRun(file));
    runs.push_back(std::move(run));
  }
  if (!buffered_.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(Ordered rest, OrderPositioned(std::move(buffered_)));
    buffered_.clear();
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch sorted, compute::Take(rest.rows, rest.order));
    runs.push_back(MakeMemoryRun(std::move(sorted), chunk_rows));
  }
  return RunMerger::Make(positioned_schema_, std::move(runs), positioned_keys_);
}

Result<RecordBatch> ExternalSortBuffer::DropPosition(const RecordBatch& positioned) const {
  std::vector<Array> columns(positioned.columns().begin(), positioned.columns().end() - 1);
  return RecordBatch::Make(schema_, std::move(columns), positioned.num_rows());
}

Result<ExternalSortBuffer::Ordered> ExternalSortBuffer::OrderPositioned(
    std::vector<std::pair<int64_t, RecordBatch>> batches) const {
  std::vector<RecordBatch> positioned;
  for (auto& [seq, batch] : batches) {
    if (seq == kPositioned) {
      positioned.push_back(std::move(batch));
      continue;
    }
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
  Ordered out;
  if (positioned.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(out.rows, RecordBatch::MakeEmpty(positioned_schema_));
  } else {
    // The pieces go as soon as they are copied into one batch: one copy of the rows at a time.
    FLOTILLA_ASSIGN_OR_RETURN(out.rows, compute::ConcatBatches(positioned));
  }
  positioned.clear();
  batches.clear();
  FLOTILLA_ASSIGN_OR_RETURN(out.order, compute::SortIndices(out.rows, positioned_keys_));
  return out;
}

Status ExternalSortBuffer::SpillRun(std::vector<std::pair<int64_t, RecordBatch>> batches) {
  FLOTILLA_ASSIGN_OR_RETURN(Ordered ordered, OrderPositioned(std::move(batches)));
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, context_->spill()->Create(positioned_schema_));
  // Small batches: the merge holds one batch of every run at once. Each is gathered as it is
  // written, so the run never exists sorted in memory as a whole.
  const int64_t n = ordered.rows.num_rows();
  const int64_t bytes = std::max<int64_t>(1, SliceBytes(ordered.rows));
  const int64_t chunk = std::clamp<int64_t>(n * SpillBatchBytes(reservation_.manager()) / bytes, 64,
                                            context_->morsel_size());
  for (int64_t offset = 0; offset < n; offset += chunk) {
    FLOTILLA_ASSIGN_OR_RETURN(
        RecordBatch piece,
        compute::Take(ordered.rows, ordered.order.Slice(offset, std::min(chunk, n - offset))));
    FLOTILLA_RETURN_NOT_OK(writer->Write(piece));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto file, writer->Finish());
  stats_->spilled_bytes += file->size_bytes();
  std::lock_guard<std::mutex> lock(mutex_);
  runs_.push_back(std::move(file));
  spill_chunk_rows_ = std::min(spill_chunk_rows_, chunk);
  return Status::OK();
}

}  // namespace flotilla::exec
