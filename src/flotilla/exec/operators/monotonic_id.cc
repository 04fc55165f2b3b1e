// Monotonically increasing id: row ids unique across partitions (the partition index in the high
// bits), assigned in input order.
#include <mutex>

#include "flotilla/compute/elementwise.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sequenced_batches.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {

struct MonotonicIdState final : GlobalState {
  std::mutex mutex;
  SequencedBatches batches;
};

class MonotonicIdSink final : public SinkOperator {
 public:
  MonotonicIdSink(SchemaPtr schema, int64_t first_partition)
      : schema_(std::move(schema)), first_partition_(first_partition) {}
  std::string name() const override { return "MonotonicallyIncreasingId"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext*,
                                                       OperatorStats*) const override {
    return std::unique_ptr<GlobalState>(new MonotonicIdState());
  }
  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<MonotonicIdState*>(global);
    std::lock_guard<std::mutex> lock(state->mutex);
    state->batches.Add(std::move(input));
    return Status::OK();
  }
  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<MonotonicIdState*>(global);
    auto partitions = state->batches.TakeAllByPartition();
    for (size_t p = 0; p < partitions.size(); ++p) {
      int64_t next = (first_partition_ + static_cast<int64_t>(p)) << 36;
      for (RecordBatch& batch : partitions[p]) {
        FLOTILLA_ASSIGN_OR_RETURN(auto ids, AllocateIds(batch.num_rows(), next));
        next += batch.num_rows();
        std::vector<Array> columns = batch.columns();
        columns.push_back(std::move(ids));
        FLOTILLA_ASSIGN_OR_RETURN(batch,
                                  RecordBatch::Make(schema_, std::move(columns), batch.num_rows()));
      }
    }
    return MakeBatchSource(schema_, std::move(partitions), INT64_MAX);
  }

 private:
  static Result<Array> AllocateIds(int64_t n, int64_t first);
  SchemaPtr schema_;
  int64_t first_partition_;
};

Result<Array> MonotonicIdSink::AllocateIds(int64_t n, int64_t first) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
  auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
  for (int64_t i = 0; i < n; ++i)
    out[i] = first + i;
  return compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values));
}

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeMonotonicIdSink(const MonotonicIdNode& node) {
  return std::unique_ptr<SinkOperator>(new MonotonicIdSink(node.schema(), node.first_partition));
}

}  // namespace flotilla::exec
