// Collect (materialize an input in order) and chain (concat's source).
#include <mutex>

#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sequenced_batches.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::exec {

namespace {

struct CollectState final : GlobalState {
  std::mutex mutex;
  SequencedBatches batches;
};

class CollectSink final : public SinkOperator {
 public:
  explicit CollectSink(SchemaPtr schema) : schema_(std::move(schema)) {}
  std::string name() const override { return "Collect"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext*,
                                                       OperatorStats*) const override {
    return std::unique_ptr<GlobalState>(new CollectState());
  }
  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<CollectState*>(global);
    std::lock_guard<std::mutex> lock(state->mutex);
    state->batches.Add(std::move(input));
    return Status::OK();
  }
  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<CollectState*>(global);
    return MakeBatchSource(schema_, state->batches.TakeAllByPartition(), INT64_MAX);
  }

 private:
  SchemaPtr schema_;
};

/// The upstream sources one after another, renumbered into one sequence.
class ChainSource final : public Source {
 public:
  ChainSource(SchemaPtr schema, std::vector<std::unique_ptr<Source>> sources)
      : schema_(std::move(schema)), sources_(std::move(sources)) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<std::optional<Morsel>> Next() override {
    std::lock_guard<std::mutex> lock(mutex_);
    while (current_ < sources_.size()) {
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<Morsel> morsel, sources_[current_]->Next());
      if (morsel) {
        morsel->seq = seq_++;
        return morsel;
      }
      sources_[current_].reset();
      ++current_;
    }
    return std::optional<Morsel>();
  }

 private:
  SchemaPtr schema_;
  std::vector<std::unique_ptr<Source>> sources_;
  std::mutex mutex_;
  size_t current_ = 0;
  int64_t seq_ = 0;
};

}  // namespace

std::unique_ptr<SinkOperator> MakeCollectSink(SchemaPtr schema) {
  return std::make_unique<CollectSink>(std::move(schema));
}

CombineFactory MakeChainCombine(SchemaPtr schema) {
  return [schema](std::vector<std::unique_ptr<Source>> sources,
                  ExecContext*) -> Result<std::unique_ptr<Source>> {
    return std::unique_ptr<Source>(new ChainSource(schema, std::move(sources)));
  };
}

}  // namespace flotilla::exec
