// Collect (materialize an input in order), chain (concat's source), limit and monotonically
// increasing id: the order-keeping sinks.
#include <mutex>

#include "flotilla/compute/elementwise.h"
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
    for (const RecordBatch& batch : input.batches) state->rows_received += batch.num_rows();
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

std::unique_ptr<SinkOperator> MakeCollectSink(SchemaPtr schema) {
  return std::make_unique<CollectSink>(std::move(schema));
}

CombineFactory MakeChainCombine(SchemaPtr schema) {
  return [schema](std::vector<std::unique_ptr<Source>> sources,
                  ExecContext*) -> Result<std::unique_ptr<Source>> {
    return std::unique_ptr<Source>(new ChainSource(schema, std::move(sources)));
  };
}

Result<std::unique_ptr<SinkOperator>> MakeLimitSink(const LimitNode& node, bool ordered) {
  return std::unique_ptr<SinkOperator>(
      new LimitSink(node.schema(), node.limit, node.offset, ordered));
}

Result<std::unique_ptr<SinkOperator>> MakeMonotonicIdSink(const MonotonicIdNode& node) {
  return std::unique_ptr<SinkOperator>(new MonotonicIdSink(node.schema(), node.first_partition));
}

}  // namespace flotilla::exec
