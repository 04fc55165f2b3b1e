// Cross join: every left row with every right row. The right side is gathered whole; each left
// morsel is multiplied by it in batches of about 128K rows.
#include <mutex>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {

struct CrossBridge {
  RecordBatch right;
  int64_t limit = 0;  // HeldOutputLimit: also what one left morsel may turn into
};

struct CrossBuildState final : GlobalState {
  std::mutex mutex;
  std::vector<std::pair<int64_t, RecordBatch>> batches;
  int64_t bytes = 0;
  int64_t limit = 0;  // HeldOutputLimit: the right side is held whole
};

class CrossJoinBuild final : public SinkOperator {
 public:
  CrossJoinBuild(SchemaPtr schema, std::shared_ptr<CrossBridge> bridge)
      : schema_(std::move(schema)), bridge_(std::move(bridge)) {}
  std::string name() const override { return "CrossJoinBuild"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats*) const override {
    auto state = std::make_unique<CrossBuildState>();
    state->limit = HeldOutputLimit(*context->memory());
    return std::unique_ptr<GlobalState>(std::move(state));
  }
  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<CrossBuildState*>(global);
    std::lock_guard<std::mutex> lock(state->mutex);
    for (RecordBatch& b : input.batches) {
      if (b.num_rows() == 0) continue;
      state->bytes += SliceBytes(b);
      if (state->bytes > state->limit) {
        return Status::OutOfMemory(
            "the right side of a join without conditions is held whole and "
            "passed the memory limit (" +
            FormatBytes(state->limit) + "); give the join a condition or make that side smaller");
      }
      state->batches.emplace_back(input.seq, std::move(b));
    }
    return Status::OK();
  }
  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<CrossBuildState*>(global);
    std::sort(state->batches.begin(), state->batches.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RecordBatch> batches;
    for (auto& [seq, b] : state->batches)
      batches.push_back(std::move(b));
    FLOTILLA_ASSIGN_OR_RETURN(bridge_->right, compute::ConcatBatches(schema_, batches));
    bridge_->limit = state->limit;
    return MakeBatchSource(schema_, {}, 1);
  }

 private:
  SchemaPtr schema_;
  std::shared_ptr<CrossBridge> bridge_;
};

class CrossJoinProbe final : public IntermediateOperator {
 public:
  CrossJoinProbe(SchemaPtr schema, std::shared_ptr<CrossBridge> bridge)
      : schema_(std::move(schema)), bridge_(std::move(bridge)) {}
  std::string name() const override { return "CrossJoinProbe"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Status Execute(const RecordBatch& input, GlobalState*, ThreadState*,
                 std::vector<RecordBatch>* out) const override {
    const RecordBatch& right = bridge_->right;
    const int64_t m = right.num_rows();
    if (m == 0) return Status::OK();
    // About 128K output rows per batch, at least one left row.
    const int64_t step = std::max<int64_t>(1, 131072 / m);
    // The output of one morsel is held whole until it is delivered: stop at the memory limit
    // rather than build it all first.
    int64_t bytes = 0;
    for (int64_t start = 0; start < input.num_rows(); start += step) {
      const int64_t rows = std::min(step, input.num_rows() - start);
      FLOTILLA_ASSIGN_OR_RETURN(
          Array l, compute::TakeIndices(rows * m, [&](int64_t i) { return start + i / m; }));
      FLOTILLA_ASSIGN_OR_RETURN(Array r,
                                compute::TakeIndices(rows * m, [&](int64_t i) { return i % m; }));
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch left_rows, compute::Take(input, l));
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch right_rows, compute::Take(right, r));
      std::vector<Array> columns = left_rows.columns();
      for (const Array& c : right_rows.columns())
        columns.push_back(c);
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch,
                                RecordBatch::Make(schema_, std::move(columns), rows * m));
      bytes += SliceBytes(batch);
      out->push_back(std::move(batch));
      if (bytes > bridge_->limit) {
        return Status::OutOfMemory("one input morsel became more output than the memory limit (" +
                                   FormatBytes(bridge_->limit) +
                                   "); a join without conditions multiplies rows past "
                                   "what can be held");
      }
    }
    return Status::OK();
  }

 private:
  SchemaPtr schema_;
  std::shared_ptr<CrossBridge> bridge_;
};

}  // namespace

Result<JoinOperators> MakeCrossJoinOperators(const PlanNode& node) {
  auto bridge = std::make_shared<CrossBridge>();
  JoinOperators ops;
  ops.build = std::make_unique<CrossJoinBuild>(node.children()[1]->schema(), bridge);
  ops.probe = std::make_unique<CrossJoinProbe>(node.schema(), bridge);
  return ops;
}

}  // namespace flotilla::exec
