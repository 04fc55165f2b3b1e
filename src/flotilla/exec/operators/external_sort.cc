#include "flotilla/exec/operators/external_sort.h"

#include <algorithm>

#include "flotilla/compute/elementwise.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {
// The bytes of one batch of a spilled run.
constexpr int64_t kSpillBatchBytes = 1 << 20;
}  // namespace

ExternalSortBuffer::ExternalSortBuffer(ExecContext* context, OperatorStats* stats,
                                       SchemaPtr schema, std::vector<SortKey> keys)
    : context_(context),
      stats_(stats),
      schema_(std::move(schema)),
      positioned_keys_(std::move(keys)),
      reservation_(context->memory()) {
  std::vector<Field> fields = schema_->fields();
  fields.push_back(Field{"__position", int64(), false});
  positioned_keys_.push_back(SortKey{static_cast<int>(fields.size()) - 1, true, false});
  positioned_schema_ = std::make_shared<Schema>(std::move(fields));
}

Status ExternalSortBuffer::Add(int64_t seq, RecordBatch batch) {
  if (batch.num_rows() == 0) return Status::OK();
  const int64_t bytes = SliceBytes(batch);
  std::vector<std::pair<int64_t, RecordBatch>> to_spill;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    buffered_.emplace_back(seq, std::move(batch));
    buffered_bytes_ += bytes;
    // Sorting needs about as much again as the rows (the sorted copy).
    if (!reservation_.TryResize(2 * buffered_bytes_)) {
      to_spill = std::move(buffered_);
      buffered_.clear();
      buffered_bytes_ = 0;
      reservation_.ForceResize(0);
    }
    stats_->ObserveMemory(reservation_.size());
  }
  if (!to_spill.empty()) return SpillRun(std::move(to_spill));
  return Status::OK();
}

std::vector<RecordBatch> ExternalSortBuffer::TakeInOrder() {
  std::stable_sort(buffered_.begin(), buffered_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<RecordBatch> out;
  for (auto& [seq, batch] : buffered_) out.push_back(std::move(batch));
  buffered_.clear();
  return out;
}

Result<std::unique_ptr<RunMerger>> ExternalSortBuffer::Merge(int64_t chunk_rows) {
  std::vector<std::unique_ptr<SortedRun>> runs;
  for (const auto& file : runs_) {
    FLOTILLA_ASSIGN_OR_RETURN(auto run, MakeSpilledRun(file));
    runs.push_back(std::move(run));
  }
  if (!buffered_.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch rest, SortPositioned(std::move(buffered_)));
    buffered_.clear();
    runs.push_back(MakeMemoryRun(std::move(rest), chunk_rows));
  }
  return RunMerger::Make(positioned_schema_, std::move(runs), positioned_keys_);
}

Result<RecordBatch> ExternalSortBuffer::DropPosition(const RecordBatch& positioned) const {
  std::vector<Array> columns(positioned.columns().begin(), positioned.columns().end() - 1);
  return RecordBatch::Make(schema_, std::move(columns), positioned.num_rows());
}

Result<RecordBatch> ExternalSortBuffer::SortPositioned(
    std::vector<std::pair<int64_t, RecordBatch>> batches) const {
  std::vector<RecordBatch> positioned;
  for (auto& [seq, batch] : batches) {
    const int64_t n = batch.num_rows();
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
    auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
    for (int64_t i = 0; i < n; ++i) out[i] = (seq << 32) | i;
    std::vector<Array> columns = batch.columns();
    columns.push_back(compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values)));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch with_position,
                              RecordBatch::Make(positioned_schema_, std::move(columns), n));
    positioned.push_back(std::move(with_position));
    batch = RecordBatch();
  }
  return SortBatches(positioned_schema_, positioned, positioned_keys_);
}

Status ExternalSortBuffer::SpillRun(std::vector<std::pair<int64_t, RecordBatch>> batches) {
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch sorted, SortPositioned(std::move(batches)));
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, context_->spill()->Create(positioned_schema_));
  // Small batches: the merge holds one batch of every run at once, and there may be dozens.
  const int64_t bytes = std::max<int64_t>(1, SliceBytes(sorted));
  const int64_t chunk = std::clamp<int64_t>(sorted.num_rows() * kSpillBatchBytes / bytes, 64,
                                            context_->morsel_size());
  for (int64_t offset = 0; offset < sorted.num_rows(); offset += chunk) {
    FLOTILLA_RETURN_NOT_OK(writer->Write(sorted.Slice(offset, chunk)));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto file, writer->Finish());
  stats_->spilled_bytes += file->size_bytes();
  std::lock_guard<std::mutex> lock(mutex_);
  runs_.push_back(std::move(file));
  return Status::OK();
}

}  // namespace flotilla::exec
