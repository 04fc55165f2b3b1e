// Limit: the first `limit` rows after skipping `offset`, in input order, and the scan stopped
// as soon as enough rows have arrived.
#include <atomic>
#include <mutex>

#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sequenced_batches.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {

struct LimitState final : GlobalState {
  std::mutex mutex;
  SequencedBatches pending;
  std::vector<RecordBatch> kept;  // in order, at most offset + limit rows
  int64_t rows = 0;               // in `kept`
  int64_t rows_received = 0;      // in every morsel consumed, in order or not
  std::atomic<bool> satisfied{false};
};

class LimitSink final : public SinkOperator {
 public:
  LimitSink(SchemaPtr schema, int64_t limit, int64_t offset, bool ordered)
      : schema_(std::move(schema)), limit_(limit), offset_(offset), ordered_(ordered) {}
  std::string name() const override { return "Limit"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext*,
                                                       OperatorStats*) const override {
    auto state = std::make_unique<LimitState>();
    if (limit_ == 0) state->satisfied = true;
    return std::unique_ptr<GlobalState>(std::move(state));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<LimitState*>(global);
    std::lock_guard<std::mutex> lock(state->mutex);
    const int64_t wanted = limit_ < 0 ? INT64_MAX : offset_ + limit_;
    if (state->rows >= wanted) return Status::OK();
    for (const RecordBatch& batch : input.batches)
      state->rows_received += batch.num_rows();
    // Sources hand out sequence numbers in increasing order, so every morsel not yet taken
    // from the source comes after every morsel received. Once the received ones hold enough
    // rows, the answer lies among them and the morsels still being processed (which arrive
    // before the run ends): the source need not be read further, even in order while an
    // early morsel is still on its way.
    if (state->rows_received >= wanted) state->satisfied = true;
    std::vector<MorselOutput> ready;
    if (ordered_) {
      state->pending.Add(std::move(input));
      ready = state->pending.TakeReady();
    } else {
      ready.push_back(std::move(input));
    }
    for (MorselOutput& output : ready) {
      for (RecordBatch& batch : output.batches) {
        if (state->rows >= wanted) break;
        const int64_t take = std::min(batch.num_rows(), wanted - state->rows);
        state->kept.push_back(batch.Slice(0, take));
        state->rows += take;
      }
    }
    return Status::OK();
  }

  bool Satisfied(const GlobalState* global) const override {
    return static_cast<const LimitState*>(global)->satisfied.load();
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<LimitState*>(global);
    std::vector<RecordBatch> out;
    int64_t skip = offset_;
    for (const RecordBatch& batch : state->kept) {
      if (skip >= batch.num_rows()) {
        skip -= batch.num_rows();
        continue;
      }
      out.push_back(batch.Slice(skip, batch.num_rows() - skip));
      skip = 0;
    }
    std::vector<std::vector<RecordBatch>> partitions;
    partitions.push_back(std::move(out));
    return MakeBatchSource(schema_, std::move(partitions), INT64_MAX);
  }

 private:
  SchemaPtr schema_;
  int64_t limit_;
  int64_t offset_;
  bool ordered_;
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeLimitSink(const LimitNode& node, bool ordered) {
  return std::unique_ptr<SinkOperator>(
      new LimitSink(node.schema(), node.limit, node.offset, ordered));
}

}  // namespace flotilla::exec
