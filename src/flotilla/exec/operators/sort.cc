// Sort: an external merge sort (external_sort.h keeps the rows under the memory budget). With
// nothing spilled, the buffered rows are sorted in parallel pieces; otherwise every spilled run
// and the rows still in memory are merged as the output is read.
#include "flotilla/exec/operators/external_sort.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sort_support.h"
#include "flotilla/exec/pipeline/exec_context.h"

namespace flotilla::exec {

namespace {

struct SortState final : GlobalState {
  SortState(ExecContext* context, OperatorStats* stats, const BoundSortKeys& keys)
      : context(context), rows(context, stats, keys.extended_schema(), keys.keys()) {}
  ExecContext* context;
  ExternalSortBuffer rows;
};

class SortSink final : public SinkOperator {
 public:
  SortSink(SchemaPtr schema, std::shared_ptr<const BoundSortKeys> keys)
      : schema_(std::move(schema)), keys_(std::move(keys)) {}
  std::string name() const override { return "Sort"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    return std::unique_ptr<GlobalState>(new SortState(context, stats, *keys_));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<SortState*>(global);
    for (RecordBatch& batch : input.batches) {
      if (batch.num_rows() == 0) continue;
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch extended, keys_->Extend(batch));
      FLOTILLA_RETURN_NOT_OK(state->rows.Add(input.seq, std::move(extended)));
    }
    return Status::OK();
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<SortState*>(global);
    const int64_t morsel = state->context->morsel_size();
    if (!state->rows.spilled()) {
      FLOTILLA_ASSIGN_OR_RETURN(
          std::vector<RecordBatch> sorted,
          SortBatches(keys_->extended_schema(), state->rows.TakeInOrder(), keys_->keys(),
                      state->context->pool(), std::max<int64_t>(morsel, 1 << 20)));
      std::vector<std::vector<RecordBatch>> partitions(1);
      for (const RecordBatch& piece : sorted) {
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch stripped, keys_->Strip(piece));
        partitions[0].push_back(std::move(stripped));
      }
      return MakeBatchSource(schema_, std::move(partitions), morsel);
    }
    FLOTILLA_ASSIGN_OR_RETURN(auto merger, state->rows.Merge(morsel));
    // Strip drops the computed keys and the position column alike (it keeps the input's).
    return MakeMergeSource(schema_, std::move(merger), keys_, morsel, state->rows.TakeFiles());
  }

 private:
  SchemaPtr schema_;
  std::shared_ptr<const BoundSortKeys> keys_;
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeSortSink(const SchemaPtr& schema,
                                                   const std::vector<SortSpec>& keys) {
  FLOTILLA_ASSIGN_OR_RETURN(BoundSortKeys bound, BoundSortKeys::Make(schema, keys));
  return std::unique_ptr<SinkOperator>(
      new SortSink(schema, std::make_shared<const BoundSortKeys>(std::move(bound))));
}

}  // namespace flotilla::exec
