// Top-N: each thread keeps its best rows, compacting (sort, keep the first offset + limit) when
// its buffer grows past a few times that, so memory stays O(threads * N) whatever the input
// size. Every row carries its input position as a last sort key, so equal keys resolve to the
// earliest rows, as a stable sort followed by a limit would. Once a buffer holds N rows, its
// N-th row is a boundary: incoming rows that sort after it can never make the top and are
// dropped before they are buffered, so most morsels cost one comparison per row.
//
// The buffers are reserved from the memory budget. When N rows do not fit (a limit of millions
// of wide rows), the rows go to an external sort instead (external_sort.h), which spills, and
// the output is the merge's rows offset..offset + limit. Boundaries keep pruning either way.
#include <atomic>
#include <mutex>
#include <optional>

#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/operators/external_sort.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sort_support.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {

struct TopNBuffer {
  std::vector<RecordBatch> batches;  // positioned batches
  int64_t rows = 0;
  int64_t bytes = 0;
  // After a compaction that kept N rows: the N-th of them (extended schema, one row).
  std::optional<RecordBatch> boundary;
};

struct TopNThread final : ThreadState {
  explicit TopNThread(MemoryManager* memory) : reservation(memory) {}
  TopNBuffer buffer;
  MemoryReservation reservation;
};

struct TopNState final : GlobalState {
  explicit TopNState(ExecContext* context) : context(context), reservation(context->memory()) {}
  ExecContext* context;
  std::mutex mutex;
  TopNBuffer buffer;
  MemoryReservation reservation;
  OperatorStats* stats = nullptr;
  // Created (under `mutex`) when some buffer did not fit the budget; every row goes there after.
  std::unique_ptr<ExternalSortBuffer> external;
  std::atomic<bool> overflowed{false};
};

class TopNSink final : public SinkOperator {
 public:
  TopNSink(SchemaPtr schema, BoundSortKeys keys, int64_t limit, int64_t offset)
      : schema_(std::move(schema)),
        keys_(std::make_shared<const BoundSortKeys>(std::move(keys))),
        keep_(limit + offset),
        limit_(limit),
        offset_(offset) {
    std::vector<Field> fields = keys_->extended_schema()->fields();
    fields.push_back(Field{"__position", int64(), false});
    const int position = static_cast<int>(fields.size()) - 1;
    positioned_ = std::make_shared<Schema>(std::move(fields));
    sort_keys_ = keys_->keys();
    sort_keys_.push_back(compute::SortKey{position, true, false});
  }
  std::string name() const override { return "TopN"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    auto state = std::make_unique<TopNState>(context);
    state->stats = stats;
    return std::unique_ptr<GlobalState>(std::move(state));
  }
  Result<std::unique_ptr<ThreadState>> MakeThreadState(GlobalState* global) const override {
    return std::unique_ptr<ThreadState>(
        new TopNThread(static_cast<TopNState*>(global)->context->memory()));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState* thread) const override {
    if (keep_ == 0) return Status::OK();
    auto* state = static_cast<TopNState*>(global);
    auto* local = static_cast<TopNThread*>(thread);
    auto* buffer = &local->buffer;
    int64_t row_base = 0;
    for (const RecordBatch& batch : input.batches) {
      if (batch.num_rows() == 0) continue;
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch extended, keys_->Extend(batch));
      std::optional<Array> kept;
      if (buffer->boundary.has_value()) {
        FLOTILLA_ASSIGN_OR_RETURN(kept, RowsWithin(extended, *buffer->boundary));
        if (kept->length() == 0) {
          row_base += batch.num_rows();
          continue;
        }
        FLOTILLA_ASSIGN_OR_RETURN(extended, compute::Take(extended, *kept));
      }
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch positioned,
                                Position(extended, input.seq, row_base, kept));
      row_base += batch.num_rows();
      if (state->overflowed.load()) {
        FLOTILLA_RETURN_NOT_OK(state->external->AddPositioned(std::move(positioned)));
        continue;
      }
      buffer->rows += positioned.num_rows();
      buffer->bytes += SliceBytes(positioned);
      buffer->batches.push_back(std::move(positioned));
    }
    if (buffer->rows > std::max<int64_t>(4 * keep_, 8192)) FLOTILLA_RETURN_NOT_OK(Compact(buffer));
    // Sorting a buffer needs about as much again as it holds. Refused, a buffer first keeps
    // only its best rows; when even those do not fit, the rows go to the external sort.
    if (!state->overflowed.load() && !local->reservation.TryResize(2 * buffer->bytes) &&
        buffer->rows > keep_) {
      FLOTILLA_RETURN_NOT_OK(Compact(buffer));
    }
    if (state->overflowed.load() || !local->reservation.TryResize(2 * buffer->bytes)) {
      FLOTILLA_RETURN_NOT_OK(ToExternal(state, buffer, &local->reservation));
    }
    return Status::OK();
  }

  Status Combine(GlobalState* global, ThreadState* thread) const override {
    auto* local = static_cast<TopNThread*>(thread);
    FLOTILLA_RETURN_NOT_OK(Compact(&local->buffer));
    auto* state = static_cast<TopNState*>(global);
    if (state->overflowed.load()) return ToExternal(state, &local->buffer, &local->reservation);
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->external != nullptr) {
      return ToExternalLocked(state, &local->buffer, &local->reservation);
    }
    TopNBuffer* global_buffer = &state->buffer;
    for (RecordBatch& b : local->buffer.batches)
      global_buffer->batches.push_back(std::move(b));
    global_buffer->rows += local->buffer.rows;
    global_buffer->bytes += local->buffer.bytes;
    local->buffer = TopNBuffer();
    local->reservation.Clear();
    FLOTILLA_RETURN_NOT_OK(Compact(global_buffer));
    if (!state->reservation.TryResize(2 * global_buffer->bytes)) {
      return ToExternalLocked(state, global_buffer, &state->reservation);
    }
    state->stats->ObserveMemory(state->reservation.size());
    return Status::OK();
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<TopNState*>(global);
    const int64_t morsel = state->context->morsel_size();
    if (state->external != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(auto merger, state->external->Merge(morsel));
      return MakeMergeSource(schema_, std::move(merger), keys_, morsel,
                             state->external->TakeFiles(), offset_, limit_);
    }
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch sorted,
                              SortBatches(positioned_, state->buffer.batches, sort_keys_, keep_));
    state->buffer = TopNBuffer();
    state->reservation.Clear();
    const int64_t start = std::min(offset_, sorted.num_rows());
    const int64_t length = std::min(limit_, sorted.num_rows() - start);
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch out, keys_->Strip(sorted.Slice(start, length)));
    std::vector<std::vector<RecordBatch>> partitions(1);
    partitions[0].push_back(std::move(out));
    return MakeBatchSource(schema_, std::move(partitions), morsel);
  }

 private:
  // `batch` with each row's input position appended; `rows`: the batch holds only these rows
  // (uint32 indices) of the morsel's batch starting at row_base.
  Result<RecordBatch> Position(const RecordBatch& batch, int64_t seq, int64_t row_base,
                               const std::optional<Array>& rows) const {
    const int64_t n = batch.num_rows();
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
    auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
    const uint32_t* index = rows.has_value() ? rows->values<uint32_t>() : nullptr;
    for (int64_t i = 0; i < n; ++i)
      out[i] = (seq << 32) | (row_base + (index != nullptr ? index[i] : i));
    std::vector<Array> columns = batch.columns();
    columns.push_back(compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values)));
    return RecordBatch::Make(positioned_, std::move(columns), n);
  }

  // The positions (uint32) of the rows of `extended` that may sort before or with `boundary`:
  // exactly those when compared on every key, a superset when only the first key is compared
  // (the fast path for a null-free fixed-width first key). Ties stay: their input positions may
  // still win, as threads buffer morsels out of input order.
  Result<Array> RowsWithin(const RecordBatch& extended, const RecordBatch& boundary) const {
    const int64_t n = extended.num_rows();
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 4));
    auto* kept = reinterpret_cast<uint32_t*>(values->mutable_data());
    const compute::SortKey& first = keys_->keys()[0];
    const Array& column = extended.column(first.column);
    const Array& bound = boundary.column(first.column);
    int64_t count = -1;
    if (column.null_count() == 0 && bound.IsValid(0)) {
      switch (column.type_id()) {
        case TypeId::kInt64:
        case TypeId::kTimestamp:
        case TypeId::kDuration:
        case TypeId::kTime64:
          count = FirstKeyWithin<int64_t>(column, bound, first.ascending, kept);
          break;
        case TypeId::kInt32:
        case TypeId::kDate32:
          count = FirstKeyWithin<int32_t>(column, bound, first.ascending, kept);
          break;
        case TypeId::kFloat64:
          count = FirstKeyWithin<double>(column, bound, first.ascending, kept);
          break;
        default:
          break;
      }
    }
    if (count < 0) {
      FLOTILLA_ASSIGN_OR_RETURN(compute::RowComparator cmp,
                                compute::RowComparator::Make(extended, boundary, keys_->keys()));
      count = 0;
      for (int64_t i = 0; i < n; ++i) {
        kept[count] = static_cast<uint32_t>(i);
        count += cmp.Compare(i, 0) <= 0;
      }
    }
    return compute::MakeFixedWidthArray(uint32(), count, nullptr, 0, std::move(values));
  }

  // Rows whose value is not strictly beyond the bound. Written with negated comparisons so a
  // NaN (which sorts after every number) is kept rather than wrongly dropped.
  template <typename T>
  static int64_t FirstKeyWithin(const Array& column, const Array& bound, bool ascending,
                                uint32_t* kept) {
    const T* v = column.values<T>();
    const T b = bound.values<T>()[0];
    int64_t count = 0;
    for (int64_t i = 0; i < column.length(); ++i) {
      kept[count] = static_cast<uint32_t>(i);
      count += ascending ? !(v[i] > b) : !(v[i] < b);
    }
    return count;
  }

  Status Compact(TopNBuffer* buffer) const {
    if (buffer->rows <= keep_ && buffer->batches.size() <= 1) return Status::OK();
    // Only the kept rows are gathered, so the buffer holds nothing of the rows it dropped.
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch sorted,
                              SortBatches(positioned_, buffer->batches, sort_keys_, keep_));
    buffer->batches.clear();
    const int64_t n = sorted.num_rows();
    buffer->rows = n;
    buffer->bytes = SliceBytes(sorted);
    buffer->batches.push_back(sorted);
    if (n == keep_) {
      std::vector<Array> columns = sorted.Slice(n - 1, 1).columns();
      columns.pop_back();  // the position
      FLOTILLA_ASSIGN_OR_RETURN(buffer->boundary,
                                RecordBatch::Make(keys_->extended_schema(), std::move(columns), 1));
    }
    return Status::OK();
  }

  // Moves `buffer`'s rows to the external sort (made when first needed): they did not fit.
  Status ToExternal(TopNState* state, TopNBuffer* buffer, MemoryReservation* reservation) const {
    std::lock_guard<std::mutex> lock(state->mutex);
    return ToExternalLocked(state, buffer, reservation);
  }
  Status ToExternalLocked(TopNState* state, TopNBuffer* buffer,
                          MemoryReservation* reservation) const {
    if (state->external == nullptr) {
      state->external = std::make_unique<ExternalSortBuffer>(
          state->context, state->stats, keys_->extended_schema(), keys_->keys());
      state->overflowed.store(true);
    }
    for (RecordBatch& b : buffer->batches) {
      FLOTILLA_RETURN_NOT_OK(state->external->AddPositioned(std::move(b)));
    }
    buffer->batches.clear();
    buffer->rows = 0;
    buffer->bytes = 0;
    reservation->Clear();
    return Status::OK();
  }

  SchemaPtr schema_;
  std::shared_ptr<const BoundSortKeys> keys_;
  int64_t keep_;
  int64_t limit_;
  int64_t offset_;
  SchemaPtr positioned_;
  std::vector<compute::SortKey> sort_keys_;
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeTopNSink(const TopNNode& node) {
  FLOTILLA_ASSIGN_OR_RETURN(BoundSortKeys keys, BoundSortKeys::Make(node.schema(), node.keys));
  return std::unique_ptr<SinkOperator>(
      new TopNSink(node.schema(), std::move(keys), node.limit, node.offset));
}

}  // namespace flotilla::exec
