// Window: collects its input under the memory budget (external_sort.h), sorted by (partition
// keys, order keys), and computes each window function over the sorted rows
// (window/window_kernels.h). The output comes in that sorted order.
//
// When the rows fit, they are sorted and computed at once. When they spilled, the sorted runs are
// merged as the output is read and the functions are computed a few window partitions at a
// time, as each partition is complete: memory holds one partition (and a merge batch), not the
// input. A window without PARTITION BY is one partition and is held whole.
#include <deque>
#include <mutex>

#include "flotilla/compute/concat.h"
#include "flotilla/exec/operators/external_sort.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sort_support.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/window/window_kernels.h"

namespace flotilla::exec {

namespace {

// How the window functions are computed over sorted rows (extended, or positioned: the same
// columns with the position last).
struct WindowComputation {
  SchemaPtr schema;  // the output
  std::shared_ptr<const BoundSortKeys> keys;
  std::vector<int> partition_columns;
  std::vector<compute::SortKey> order_keys;
  std::vector<WindowFunctionSpec> specs;

  /// The input columns of `sorted` (whole window partitions) with a column per function.
  Result<RecordBatch> Compute(const RecordBatch& sorted) const {
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                              PartitionStarts(sorted, partition_columns));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch stripped, keys->Strip(sorted));
    std::vector<Array> columns = stripped.columns();
    for (const WindowFunctionSpec& spec : specs) {
      FLOTILLA_ASSIGN_OR_RETURN(Array values,
                                ComputeWindowFunction(sorted, starts, order_keys, spec));
      columns.push_back(std::move(values));
    }
    return RecordBatch::Make(schema, std::move(columns), sorted.num_rows());
  }
};

// The spilled path's output: merged rows in, computed rows out, a group of complete window
// partitions at a time (a partition is complete once a merge batch starts another after it).
class PartitionWiseSource final : public Source {
 public:
  PartitionWiseSource(std::shared_ptr<const WindowComputation> window,
                      std::unique_ptr<RunMerger> merger, int64_t morsel_size,
                      std::vector<std::shared_ptr<SpillFile>> files)
      : window_(std::move(window)),
        merger_(std::move(merger)),
        morsel_size_(morsel_size),
        files_(std::move(files)) {}
  const SchemaPtr& schema() const override { return window_->schema; }

  Result<std::optional<Morsel>> Next() override {
    std::lock_guard<std::mutex> lock(mutex_);
    while (ready_.empty() && !done_) {
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, merger_->Next(morsel_size_));
      if (!batch) {
        done_ = true;
        files_.clear();  // the spill files can go now
        FLOTILLA_RETURN_NOT_OK(Emit());
        break;
      }
      FLOTILLA_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                                PartitionStarts(*batch, window_->partition_columns));
      const int64_t last = starts.empty() ? 0 : starts.back();
      if (last == 0) {
        pending_.push_back(std::move(*batch));
        continue;
      }
      pending_.push_back(batch->Slice(0, last));
      FLOTILLA_RETURN_NOT_OK(Emit());
      pending_.push_back(batch->Slice(last, batch->num_rows() - last));
    }
    if (ready_.empty()) return std::optional<Morsel>();
    RecordBatch out = std::move(ready_.front());
    ready_.pop_front();
    return std::optional<Morsel>(Morsel{seq_++, 0, std::move(out)});
  }

 private:
  // Computes the pending rows (whole partitions) into ready morsels.
  Status Emit() {
    if (pending_.empty()) return Status::OK();
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch rows, compute::ConcatBatches(pending_));
    pending_.clear();
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch out, window_->Compute(rows));
    for (int64_t offset = 0; offset < out.num_rows(); offset += morsel_size_)
      ready_.push_back(out.Slice(offset, std::min(morsel_size_, out.num_rows() - offset)));
    return Status::OK();
  }

  std::shared_ptr<const WindowComputation> window_;
  std::unique_ptr<RunMerger> merger_;
  int64_t morsel_size_;
  std::vector<std::shared_ptr<SpillFile>> files_;
  std::mutex mutex_;
  std::vector<RecordBatch> pending_;
  std::deque<RecordBatch> ready_;
  bool done_ = false;
  int64_t seq_ = 0;
};

struct WindowState final : GlobalState {
  WindowState(ExecContext* context, OperatorStats* stats, const BoundSortKeys& keys,
              std::vector<compute::SortKey> sort_keys)
      : context(context), rows(context, stats, keys.extended_schema(), std::move(sort_keys)) {}
  ExecContext* context;
  ExternalSortBuffer rows;
};

class WindowSink final : public SinkOperator {
 public:
  WindowSink(std::shared_ptr<const WindowComputation> window,
             std::vector<compute::SortKey> sort_keys)
      : window_(std::move(window)), sort_keys_(std::move(sort_keys)) {}
  std::string name() const override { return "Window"; }
  const SchemaPtr& output_schema() const override { return window_->schema; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    return std::unique_ptr<GlobalState>(
        new WindowState(context, stats, *window_->keys, sort_keys_));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<WindowState*>(global);
    for (RecordBatch& batch : input.batches) {
      if (batch.num_rows() == 0) continue;
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch extended, window_->keys->Extend(batch));
      FLOTILLA_RETURN_NOT_OK(state->rows.Add(input.seq, std::move(extended)));
    }
    return Status::OK();
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<WindowState*>(global);
    const int64_t morsel = state->context->morsel_size();
    if (state->rows.spilled()) {
      FLOTILLA_ASSIGN_OR_RETURN(auto merger, state->rows.Merge(morsel));
      return std::unique_ptr<Source>(
          new PartitionWiseSource(window_, std::move(merger), morsel, state->rows.TakeFiles()));
    }
    FLOTILLA_ASSIGN_OR_RETURN(
        RecordBatch sorted,
        SortBatches(window_->keys->extended_schema(), state->rows.TakeInOrder(), sort_keys_));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch out, window_->Compute(sorted));
    std::vector<std::vector<RecordBatch>> partitions(1);
    partitions[0].push_back(std::move(out));
    return MakeBatchSource(window_->schema, std::move(partitions), morsel);
  }

 private:
  std::shared_ptr<const WindowComputation> window_;
  std::vector<compute::SortKey> sort_keys_;  // partition keys, then order keys
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeWindowSink(const WindowNode& node) {
  // Partition keys, order keys and the functions' value arguments all become columns of the
  // extended batch: the keys for sorting, the arguments for the kernels (constants stay
  // apart: WindowExpression::IsConstantArgument).
  std::vector<SortSpec> columns;
  for (const auto& key : node.partition_by)
    columns.push_back({key, true, true});
  for (const SortSpec& key : node.order_by)
    columns.push_back(key);
  std::vector<std::vector<size_t>> argument_slots;
  for (const WindowExpression& w : node.functions) {
    std::vector<size_t> slots;
    for (size_t i = 0; i < w.arguments.size(); ++i) {
      if (w.IsConstantArgument(i)) continue;
      slots.push_back(columns.size());
      columns.push_back({w.arguments[i], true, false});
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
    for (size_t i = 0; i < w.arguments.size(); ++i) {
      if (w.IsConstantArgument(i)) spec.constants.push_back(w.arguments[i]->literal());
    }
    specs.push_back(std::move(spec));
  }
  auto window = std::make_shared<WindowComputation>();
  window->schema = node.schema();
  const std::vector<compute::SortKey>& all = keys.keys();
  const size_t num_partition_keys = node.partition_by.size();
  const size_t num_sort_keys = num_partition_keys + node.order_by.size();
  for (size_t i = 0; i < num_partition_keys; ++i)
    window->partition_columns.push_back(all[i].column);
  window->order_keys.assign(all.begin() + static_cast<long>(num_partition_keys),
                            all.begin() + static_cast<long>(num_sort_keys));
  std::vector<compute::SortKey> sort_keys(all.begin(),
                                          all.begin() + static_cast<long>(num_sort_keys));
  window->specs = std::move(specs);
  window->keys = std::make_shared<const BoundSortKeys>(std::move(keys));
  return std::unique_ptr<SinkOperator>(new WindowSink(std::move(window), std::move(sort_keys)));
}

}  // namespace flotilla::exec
