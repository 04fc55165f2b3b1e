// Repartition (hash, random, range, into) and sampling a fixed number of rows: sinks that hand
// out partitions once they have seen the whole input. Hash repartitioning splits each morsel as
// it arrives, on the thread that produced it; the others need the whole input in order first.
#include <map>
#include <mutex>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/partition.h"
#include "flotilla/compute/sample.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/operators/sequenced_batches.h"
#include "flotilla/exec/operators/sort_support.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/pipeline/partition_writer.h"
#include "flotilla/expr/evaluator.h"

namespace flotilla::exec {

namespace {

// The hash tables downstream of a repartition (aggregate, distinct, join) hash the same keys
// with seed 0: partitioning with that seed too would leave each partition's rows congruent
// modulo the partition count in the very bits the tables index by, so a table of a
// power-of-two partition count would use 1/N of its slots.
constexpr uint64_t kRepartitionHashSeed = 0x9c6b1f0e3a5d2847ull;

// The partition of each row of `batch` by the hash of `keys`.
Status HashIds(const std::vector<expr::BoundExpression>& keys, const RecordBatch& batch, int n,
               std::vector<uint32_t>* ids) {
  std::vector<Array> columns;
  for (const auto& k : keys) {
    FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(k, batch));
    FLOTILLA_ASSIGN_OR_RETURN(Array column, d.ToColumn(batch.num_rows()));
    columns.push_back(std::move(column));
  }
  return compute::HashPartitionIds(columns, n, kRepartitionHashSeed, ids);
}

// Every partition shows up in the output, empty ones as one empty batch.
Status AddEmptyBatches(const SchemaPtr& schema, std::vector<std::vector<RecordBatch>>* out) {
  for (auto& part : *out) {
    if (!part.empty()) continue;
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch empty, RecordBatch::MakeEmpty(schema));
    part.push_back(std::move(empty));
  }
  return Status::OK();
}

struct ScatteredState final : GlobalState {
  PartitionWriter* writer = nullptr;  // set: the pieces go there, not into `pieces`
  OperatorStats* stats = nullptr;     // what goes to the writer is the sink's output
  int partitions = 0;
  std::mutex mutex;
  // By (input partition, morsel sequence): each output partition's pieces of that morsel.
  std::map<std::pair<int, int64_t>, std::vector<std::vector<RecordBatch>>> pieces;
  int64_t morsel_size = 0;
};

/// Hash repartitioning: each morsel is split into the output partitions by the thread that
/// produced it (the work spreads over every thread, and the input is not held whole beside its
/// pieces); the pieces are put back in input order at the end, so the output is exactly what
/// splitting the whole input in order gives.
class HashRepartitionSink final : public SinkOperator {
 public:
  HashRepartitionSink(const RepartitionNode& node, std::vector<expr::BoundExpression> keys)
      : schema_(node.schema()), partitions_(node.num_partitions), keys_(std::move(keys)) {}
  std::string name() const override { return "Repartition"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    auto state = std::make_unique<ScatteredState>();
    state->morsel_size = context->morsel_size();
    state->writer = context->options().partition_writer;
    state->stats = stats;
    // A count left to the engine: a partition per thread.
    state->partitions = partitions_ > 0 ? partitions_ : context->num_threads();
    return std::unique_ptr<GlobalState>(std::move(state));
  }
  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<ScatteredState*>(global);
    const int n = state->partitions;
    std::vector<std::vector<RecordBatch>> pieces(static_cast<size_t>(n));
    std::vector<uint32_t> ids;
    for (const RecordBatch& batch : input.batches) {
      if (batch.num_rows() == 0) continue;
      FLOTILLA_RETURN_NOT_OK(HashIds(keys_, batch, n, &ids));
      FLOTILLA_ASSIGN_OR_RETURN(auto parts, compute::ScatterByPartition(batch, ids, n));
      for (int p = 0; p < n; ++p) {
        if (parts[static_cast<size_t>(p)].num_rows() > 0)
          pieces[static_cast<size_t>(p)].push_back(std::move(parts[static_cast<size_t>(p)]));
      }
    }
    if (state->writer != nullptr) {
      if (state->stats != nullptr) {
        int64_t rows = 0, bytes = 0;
        for (const auto& partition : pieces)
          for (const RecordBatch& b : partition) {
            rows += b.num_rows();
            bytes += SliceBytes(b);
          }
        state->stats->AddOutput(rows, bytes);
      }
      return state->writer->Write(std::move(pieces));
    }
    std::lock_guard<std::mutex> lock(state->mutex);
    state->pieces[{input.partition, input.seq}] = std::move(pieces);
    return Status::OK();
  }
  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<ScatteredState*>(global);
    if (state->writer != nullptr) return MakeBatchSource(schema_, {}, state->morsel_size);
    std::vector<std::vector<RecordBatch>> out(static_cast<size_t>(state->partitions));
    for (auto& [_, pieces] : state->pieces) {
      for (size_t p = 0; p < pieces.size(); ++p) {
        for (RecordBatch& b : pieces[p])
          out[p].push_back(std::move(b));
      }
    }
    state->pieces.clear();
    FLOTILLA_RETURN_NOT_OK(AddEmptyBatches(schema_, &out));
    return MakeBatchSource(schema_, std::move(out), state->morsel_size);
  }

 private:
  SchemaPtr schema_;
  int partitions_;
  std::vector<expr::BoundExpression> keys_;
};

struct CollectedState final : GlobalState {
  std::mutex mutex;
  SequencedBatches batches;
  int64_t morsel_size = 0;
};

/// A sink that collects its input in order and transforms it all at the end.
class CollectingSink : public SinkOperator {
 public:
  explicit CollectingSink(SchemaPtr schema) : schema_(std::move(schema)) {}
  const SchemaPtr& output_schema() const override { return schema_; }
  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats*) const override {
    auto state = std::make_unique<CollectedState>();
    state->morsel_size = context->morsel_size();
    return std::unique_ptr<GlobalState>(std::move(state));
  }
  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<CollectedState*>(global);
    std::lock_guard<std::mutex> lock(state->mutex);
    state->batches.Add(std::move(input));
    return Status::OK();
  }
  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<CollectedState*>(global);
    std::vector<RecordBatch> all;
    for (auto& partition : state->batches.TakeAllByPartition())
      for (RecordBatch& b : partition)
        if (b.num_rows() > 0) all.push_back(std::move(b));
    FLOTILLA_ASSIGN_OR_RETURN(auto partitions, Transform(std::move(all)));
    return MakeBatchSource(schema_, std::move(partitions), state->morsel_size);
  }

 protected:
  /// The output partitions from all input rows (in order).
  virtual Result<std::vector<std::vector<RecordBatch>>> Transform(
      std::vector<RecordBatch> batches) const = 0;
  SchemaPtr schema_;
};

class RepartitionSink final : public CollectingSink {
 public:
  explicit RepartitionSink(const RepartitionNode& node, std::vector<expr::BoundExpression> keys)
      : CollectingSink(node.schema()), node_(node), keys_(std::move(keys)) {}
  std::string name() const override { return "Repartition"; }

 protected:
  Result<std::vector<std::vector<RecordBatch>>> Transform(
      std::vector<RecordBatch> batches) const override {
    const int n = node_.num_partitions;
    std::vector<std::vector<RecordBatch>> out(static_cast<size_t>(n));
    RecordBatch boundaries;
    std::shared_ptr<BoundSortKeys> range_keys;
    if (node_.scheme == PartitionScheme::kRange && !batches.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(BoundSortKeys bound, BoundSortKeys::Make(schema_, node_.sort_keys));
      range_keys = std::make_shared<BoundSortKeys>(std::move(bound));
      std::vector<RecordBatch> extended;
      for (const RecordBatch& b : batches) {
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch e, range_keys->Extend(b));
        extended.push_back(std::move(e));
      }
      batches = std::move(extended);
      if (node_.boundaries) {
        boundaries = *node_.boundaries;
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch all, compute::ConcatBatches(batches));
        FLOTILLA_ASSIGN_OR_RETURN(boundaries, compute::RangeBoundaries(all, range_keys->keys(), n));
      }
    }
    int64_t total = 0;
    for (const RecordBatch& b : batches)
      total += b.num_rows();
    int64_t seen = 0;
    for (size_t i = 0; i < batches.size(); ++i) {
      const RecordBatch& batch = batches[i];
      std::vector<uint32_t> ids;
      switch (node_.scheme) {
        case PartitionScheme::kHash:  // (MakeRepartitionSink gives hashing a sink of its own)
          FLOTILLA_RETURN_NOT_OK(HashIds(keys_, batch, n, &ids));
          break;
        case PartitionScheme::kRandom:
          FLOTILLA_RETURN_NOT_OK(compute::RandomPartitionIds(batch.num_rows(), n, node_.seed,
                                                             static_cast<int64_t>(i), &ids));
          break;
        case PartitionScheme::kRange:
          FLOTILLA_RETURN_NOT_OK(
              compute::RangePartitionIds(batch, range_keys->keys(), boundaries, &ids));
          break;
        case PartitionScheme::kInto:
          // Consecutive rows, partition sizes differing by at most one.
          ids.resize(static_cast<size_t>(batch.num_rows()));
          for (int64_t r = 0; r < batch.num_rows(); ++r)
            ids[static_cast<size_t>(r)] =
                static_cast<uint32_t>((seen + r) * n / std::max<int64_t>(total, 1));
          break;
      }
      seen += batch.num_rows();
      FLOTILLA_ASSIGN_OR_RETURN(auto parts, compute::ScatterByPartition(batch, ids, n));
      for (int p = 0; p < n; ++p) {
        RecordBatch part = std::move(parts[static_cast<size_t>(p)]);
        if (part.num_rows() == 0) continue;
        if (range_keys) {
          FLOTILLA_ASSIGN_OR_RETURN(part, range_keys->Strip(part));
        }
        out[static_cast<size_t>(p)].push_back(std::move(part));
      }
    }
    FLOTILLA_RETURN_NOT_OK(AddEmptyBatches(schema_, &out));
    return out;
  }

 private:
  const RepartitionNode& node_;
  std::vector<expr::BoundExpression> keys_;
};

class SampleSizeSink final : public CollectingSink {
 public:
  explicit SampleSizeSink(const SampleNode& node) : CollectingSink(node.schema()), node_(node) {}
  std::string name() const override { return "Sample"; }

 protected:
  Result<std::vector<std::vector<RecordBatch>>> Transform(
      std::vector<RecordBatch> batches) const override {
    FLOTILLA_ASSIGN_OR_RETURN(
        compute::ReservoirSampler sampler,
        compute::ReservoirSampler::Make(schema_, *node_.size, node_.with_replacement, node_.seed));
    for (const RecordBatch& b : batches)
      FLOTILLA_RETURN_NOT_OK(sampler.Add(b));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch sample, sampler.Finish());
    std::vector<std::vector<RecordBatch>> out(1);
    out[0].push_back(std::move(sample));
    return out;
  }

 private:
  const SampleNode& node_;
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeRepartitionSink(const RepartitionNode& node) {
  std::vector<expr::BoundExpression> keys;
  for (const auto& k : node.keys) {
    FLOTILLA_ASSIGN_OR_RETURN(auto b, expr::Bind(k, *node.schema()));
    keys.push_back(std::move(b));
  }
  if (node.scheme == PartitionScheme::kHash) {
    return std::unique_ptr<SinkOperator>(new HashRepartitionSink(node, std::move(keys)));
  }
  return std::unique_ptr<SinkOperator>(new RepartitionSink(node, std::move(keys)));
}

Result<std::unique_ptr<SinkOperator>> MakeSampleSizeSink(const SampleNode& node) {
  return std::unique_ptr<SinkOperator>(new SampleSizeSink(node));
}

}  // namespace flotilla::exec
