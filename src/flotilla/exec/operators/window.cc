// Window: collects its input, sorts it by (partition keys, order keys) and computes each
// window function over the sorted rows (window/window_kernels.h). The output comes in that
// sorted order.
#include <mutex>

#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sequenced_batches.h"
#include "flotilla/exec/operators/sort_support.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {

struct WindowState final : GlobalState {
  std::mutex mutex;
  SequencedBatches batches;
  int64_t morsel_size = 0;
};

class WindowSink final : public SinkOperator {
 public:
  WindowSink(const WindowNode& node, BoundSortKeys keys, std::vector<WindowFunctionSpec> specs)
      : schema_(node.schema()),
        keys_(std::move(keys)),
        num_partition_keys_(node.partition_by.size()),
        num_order_keys_(node.order_by.size()),
        specs_(std::move(specs)) {}
  std::string name() const override { return "Window"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats*) const override {
    auto state = std::make_unique<WindowState>();
    state->morsel_size = context->morsel_size();
    return std::unique_ptr<GlobalState>(std::move(state));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    for (RecordBatch& batch : input.batches) {
      FLOTILLA_ASSIGN_OR_RETURN(batch, keys_.Extend(batch));
    }
    auto* state = static_cast<WindowState*>(global);
    std::lock_guard<std::mutex> lock(state->mutex);
    state->batches.Add(std::move(input));
    return Status::OK();
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<WindowState*>(global);
    std::vector<RecordBatch> batches;
    for (auto& partition : state->batches.TakeAllByPartition())
      for (RecordBatch& b : partition)
        batches.push_back(std::move(b));
    const std::vector<SortKey>& all = keys_.keys();
    std::vector<SortKey> sort_keys(
        all.begin(), all.begin() + static_cast<long>(num_partition_keys_ + num_order_keys_));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch sorted,
                              SortBatches(keys_.extended_schema(), batches, sort_keys));
    std::vector<int> partition_columns;
    for (size_t i = 0; i < num_partition_keys_; ++i)
      partition_columns.push_back(all[i].column);
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                              PartitionStarts(sorted, partition_columns));
    std::vector<SortKey> order_keys(sort_keys.begin() + static_cast<long>(num_partition_keys_),
                                    sort_keys.end());
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch stripped, keys_.Strip(sorted));
    std::vector<Array> columns = stripped.columns();
    for (const WindowFunctionSpec& spec : specs_) {
      FLOTILLA_ASSIGN_OR_RETURN(Array values,
                                ComputeWindowFunction(sorted, starts, order_keys, spec));
      columns.push_back(std::move(values));
    }
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch out,
                              RecordBatch::Make(schema_, std::move(columns), sorted.num_rows()));
    std::vector<std::vector<RecordBatch>> partitions(1);
    partitions[0].push_back(std::move(out));
    return MakeBatchSource(schema_, std::move(partitions), state->morsel_size);
  }

 private:
  SchemaPtr schema_;
  BoundSortKeys keys_;
  size_t num_partition_keys_;
  size_t num_order_keys_;
  std::vector<WindowFunctionSpec> specs_;
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeWindowSink(const WindowNode& node) {
  // Partition keys, order keys and non-literal function arguments all become columns of the
  // extended batch: the keys for sorting, the arguments for the kernels.
  std::vector<SortSpec> columns;
  for (const auto& key : node.partition_by)
    columns.push_back({key, true, true});
  for (const SortSpec& key : node.order_by)
    columns.push_back(key);
  std::vector<std::vector<size_t>> argument_slots;
  for (const WindowExpression& w : node.functions) {
    std::vector<size_t> slots;
    for (const auto& argument : w.arguments) {
      if (argument->kind() == expr::ExprKind::kLiteral) continue;
      slots.push_back(columns.size());
      columns.push_back({argument, true, false});
    }
    argument_slots.push_back(std::move(slots));
  }
  const SchemaPtr& input = node.children()[0]->schema();
  FLOTILLA_ASSIGN_OR_RETURN(BoundSortKeys keys, BoundSortKeys::Make(input, columns));
  std::vector<WindowFunctionSpec> specs;
  for (size_t f = 0; f < node.functions.size(); ++f) {
    const WindowExpression& w = node.functions[f];
    WindowFunctionSpec spec;
    spec.name = w.function;
    spec.frame = w.frame;
    for (size_t slot : argument_slots[f])
      spec.arguments.push_back(keys.keys()[slot].column);
    for (const auto& argument : w.arguments) {
      if (argument->kind() == expr::ExprKind::kLiteral)
        spec.constants.push_back(argument->literal());
    }
    specs.push_back(std::move(spec));
  }
  return std::unique_ptr<SinkOperator>(new WindowSink(node, std::move(keys), std::move(specs)));
}

}  // namespace flotilla::exec
