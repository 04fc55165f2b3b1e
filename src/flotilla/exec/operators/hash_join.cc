// Hash join and cross join. The build side (the right input) is collected by a sink; its
// Finalize builds the hash table and hands it to the probe operator through a bridge both
// hold. Probing is a streaming operator on the left input's pipeline: each thread looks its
// morsel's keys up in the shared, read-only table.
//
// Null keys: the table treats null as equal to null; a key whose null_equal flag is off keeps
// rows with a null in it out of the table (build) and away from it (probe).
// Right, full, right semi and right anti joins mark the build rows that found a partner; Finish
// emits the others (right semi: the marked ones). Right semi and anti joins emit nothing while
// probing.
//
// Grace hash join: when the build side does not fit the memory budget, its rows are split by
// key hash into kJoinPartitions spill files per spill, and the probe side is split the same way
// as it arrives (nothing is emitted while probing). Finish then joins one partition at a time:
// the partition's build rows become a table, its probe rows stream through it — equal keys hash
// alike, so every match is inside one partition — and only that partition's table is in memory.
#include <atomic>
#include <mutex>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/filter.h"
#include "flotilla/compute/partition.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/operators/join_table.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"

namespace flotilla::exec {

namespace {

constexpr int kJoinPartitions = 16;
// Not the key table's seed (0), so one partition's keys do not share their low hash bits.
constexpr uint64_t kJoinSpillSeed = 0x4A4F494E5345EDull;

/// Joins whose Finish emits build rows, so probing marks the rows that found a partner.
bool MarksBuildRows(JoinType type) {
  return type == JoinType::kRight || type == JoinType::kFull || type == JoinType::kRightSemi ||
         type == JoinType::kRightAnti;
}

/// What the build side hands to the probe side: the table, or (spilled) the build rows split
/// into hash partitions.
struct JoinBridge {
  JoinTable table;
  bool spilled = false;
  std::vector<std::vector<std::shared_ptr<SpillFile>>> build_partitions;
};

/// Splits `batches` by the hash of their join keys and writes each part to its own spill file.
Status SpillPartitioned(const std::vector<RecordBatch>& batches,
                        const std::vector<expr::BoundExpression>& keys, ExecContext* context,
                        OperatorStats* stats,
                        std::vector<std::vector<std::shared_ptr<SpillFile>>>* partitions) {
  if (batches.empty()) return Status::OK();
  std::vector<std::vector<RecordBatch>> parts(kJoinPartitions);
  for (const RecordBatch& batch : batches) {
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> key_columns, EvaluateJoinKeys(keys, batch));
    std::vector<uint32_t> ids;
    FLOTILLA_RETURN_NOT_OK(
        compute::HashPartitionIds(key_columns, kJoinPartitions, kJoinSpillSeed, &ids));
    FLOTILLA_ASSIGN_OR_RETURN(auto split, compute::ScatterByPartition(batch, ids, kJoinPartitions));
    for (int p = 0; p < kJoinPartitions; ++p)
      if (split[static_cast<size_t>(p)].num_rows() > 0)
        parts[static_cast<size_t>(p)].push_back(std::move(split[static_cast<size_t>(p)]));
  }
  for (int p = 0; p < kJoinPartitions; ++p) {
    if (parts[static_cast<size_t>(p)].empty()) continue;
    FLOTILLA_ASSIGN_OR_RETURN(auto writer,
                              context->spill()->Create(parts[static_cast<size_t>(p)][0].schema()));
    for (const RecordBatch& b : parts[static_cast<size_t>(p)])
      FLOTILLA_RETURN_NOT_OK(writer->Write(b));
    FLOTILLA_ASSIGN_OR_RETURN(auto file, writer->Finish());
    stats->spilled_bytes += file->size_bytes();
    (*partitions)[static_cast<size_t>(p)].push_back(std::move(file));
  }
  return Status::OK();
}

struct BuildState final : GlobalState {
  BuildState(ExecContext* context, OperatorStats* stats)
      : context(context),
        stats(stats),
        reservation(context->memory()),
        partitions(kJoinPartitions) {}
  ExecContext* context;
  OperatorStats* stats;
  std::mutex mutex;
  std::vector<std::pair<int64_t, RecordBatch>> batches;
  int64_t bytes = 0;
  MemoryReservation reservation;
  bool spilled = false;
  std::vector<std::vector<std::shared_ptr<SpillFile>>> partitions;
};

class HashJoinBuild final : public SinkOperator {
 public:
  HashJoinBuild(SchemaPtr build_schema, std::vector<expr::BoundExpression> keys,
                std::vector<bool> null_equal, bool track_matches,
                std::shared_ptr<JoinBridge> bridge)
      : schema_(std::move(build_schema)),
        keys_(std::move(keys)),
        null_equal_(std::move(null_equal)),
        track_matches_(track_matches),
        bridge_(std::move(bridge)) {}
  std::string name() const override { return "HashJoinBuild"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    return std::unique_ptr<GlobalState>(new BuildState(context, stats));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<BuildState*>(global);
    std::lock_guard<std::mutex> lock(state->mutex);
    std::vector<RecordBatch> to_spill;
    for (RecordBatch& batch : input.batches) {
      if (batch.num_rows() == 0) continue;
      if (state->spilled) {
        to_spill.push_back(std::move(batch));
        continue;
      }
      state->bytes += SliceBytes(batch);
      state->batches.emplace_back(input.seq, std::move(batch));
    }
    // The table costs about as much again as the rows.
    if (!state->spilled && !state->reservation.TryResize(state->bytes * 2)) {
      state->spilled = true;
      for (auto& [seq, b] : state->batches)
        to_spill.push_back(std::move(b));
      state->batches.clear();
      state->bytes = 0;
      state->reservation.Clear();
    }
    state->stats->ObserveMemory(state->reservation.size());
    return SpillPartitioned(to_spill, keys_, state->context, state->stats, &state->partitions);
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<BuildState*>(global);
    JoinBridge& bridge = *bridge_;
    if (state->spilled) {
      bridge.spilled = true;
      bridge.build_partitions = std::move(state->partitions);
      return MakeBatchSource(schema_, {}, 1);
    }
    std::sort(state->batches.begin(), state->batches.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RecordBatch> batches;
    for (auto& [seq, b] : state->batches)
      batches.push_back(std::move(b));
    state->batches.clear();
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch build, compute::ConcatBatches(schema_, batches));
    FLOTILLA_RETURN_NOT_OK(JoinTable::Build(std::move(build), keys_, null_equal_, track_matches_,
                                            {state->context->pool(), state->context->num_threads()},
                                            &bridge.table));
    state->reservation.ForceResize(SliceBytes(bridge.table.build) + bridge.table.memory_bytes());
    state->stats->ObserveMemory(state->reservation.size());
    return MakeBatchSource(schema_, {}, 1);
  }

 private:
  SchemaPtr schema_;
  std::vector<expr::BoundExpression> keys_;
  std::vector<bool> null_equal_;
  bool track_matches_;
  std::shared_ptr<JoinBridge> bridge_;
};

class HashJoinProbe final : public IntermediateOperator {
 public:
  HashJoinProbe(SchemaPtr schema, JoinType type, std::vector<expr::BoundExpression> keys,
                std::vector<bool> null_equal, std::optional<expr::BoundExpression> residual,
                SchemaPtr joined_schema, int num_left, std::shared_ptr<JoinBridge> bridge,
                SchemaPtr build_schema, std::vector<expr::BoundExpression> build_keys)
      : build_schema_(std::move(build_schema)),
        build_keys_(std::move(build_keys)),
        schema_(std::move(schema)),
        type_(type),
        keys_(std::move(keys)),
        null_equal_(std::move(null_equal)),
        residual_(std::move(residual)),
        joined_schema_(std::move(joined_schema)),
        num_left_(num_left),
        bridge_(std::move(bridge)) {}
  std::string name() const override { return "HashJoinProbe"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    return std::unique_ptr<GlobalState>(new ProbeState(context, stats));
  }

  Status Execute(const RecordBatch& input, GlobalState* global, ThreadState*,
                 std::vector<RecordBatch>* out) const override {
    if (!bridge_->spilled) return Probe(bridge_->table, input, out);
    // Grace join: park the probe rows in their hash partitions until Finish.
    auto* state = static_cast<ProbeState*>(global);
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> key_columns, EvaluateJoinKeys(keys_, input));
    std::vector<uint32_t> ids;
    FLOTILLA_RETURN_NOT_OK(
        compute::HashPartitionIds(key_columns, kJoinPartitions, kJoinSpillSeed, &ids));
    FLOTILLA_ASSIGN_OR_RETURN(auto parts, compute::ScatterByPartition(input, ids, kJoinPartitions));
    for (int p = 0; p < kJoinPartitions; ++p) {
      const RecordBatch& part = parts[static_cast<size_t>(p)];
      if (part.num_rows() == 0) continue;
      std::lock_guard<std::mutex> lock(state->mutexes[static_cast<size_t>(p)]);
      auto& writer = state->writers[static_cast<size_t>(p)];
      if (writer == nullptr) {
        FLOTILLA_ASSIGN_OR_RETURN(writer, state->context->spill()->Create(input.schema()));
      }
      FLOTILLA_RETURN_NOT_OK(writer->Write(part));
    }
    return Status::OK();
  }

  Status Probe(const JoinTable& bridge, const RecordBatch& input,
               std::vector<RecordBatch>* out) const {
    const int64_t n = input.num_rows();
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> keys, EvaluateJoinKeys(keys_, input));
    std::vector<uint32_t> ids(static_cast<size_t>(n));
    FLOTILLA_RETURN_NOT_OK(bridge.Find(keys, ids.data()));
    bool any = false;
    const std::vector<bool> never = NeverMatch(keys, null_equal_, n, &any);
    // Candidate pairs (probe row, build row).
    std::vector<int64_t> left, right;
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t id = ids[static_cast<size_t>(i)];
      if (id == KeyTable::kNotFound || (any && never[static_cast<size_t>(i)])) continue;
      for (uint32_t r = bridge.offsets[id]; r < bridge.offsets[id + 1]; ++r) {
        left.push_back(i);
        right.push_back(bridge.rows[r]);
      }
    }
    std::vector<bool> keep;  // per candidate, after the residual
    if (residual_ && !left.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch joined, Joined(bridge, input, left, right));
      FLOTILLA_ASSIGN_OR_RETURN(expr::Datum mask, expr::Evaluate(*residual_, joined));
      FLOTILLA_ASSIGN_OR_RETURN(Array m, mask.ToColumn(joined.num_rows()));
      keep.resize(left.size());
      for (size_t c = 0; c < left.size(); ++c)
        keep[c] = m.IsValid(static_cast<int64_t>(c)) && m.BoolValue(static_cast<int64_t>(c));
      size_t w = 0;
      for (size_t c = 0; c < left.size(); ++c) {
        if (!keep[c]) continue;
        left[w] = left[c];
        right[w] = right[c];
        ++w;
      }
      left.resize(w);
      right.resize(w);
    }
    if (bridge.matched) {
      for (int64_t r : right)
        bridge.matched[static_cast<size_t>(r)].store(1, std::memory_order_relaxed);
    }
    switch (type_) {
      case JoinType::kRightSemi:
      case JoinType::kRightAnti:
        return Status::OK();  // the build rows are emitted by Finish
      case JoinType::kSemi:
      case JoinType::kAnti: {
        std::vector<bool> has(static_cast<size_t>(n), false);
        for (int64_t l : left)
          has[static_cast<size_t>(l)] = true;
        std::vector<int64_t> rows;
        for (int64_t i = 0; i < n; ++i)
          if (has[static_cast<size_t>(i)] == (type_ == JoinType::kSemi)) rows.push_back(i);
        if (rows.empty()) return Status::OK();
        FLOTILLA_ASSIGN_OR_RETURN(Array indices, compute::TakeIndices(rows));
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, compute::Take(input, indices));
        out->push_back(std::move(batch));
        return Status::OK();
      }
      case JoinType::kLeft:
      case JoinType::kFull: {
        // Matched pairs in probe order, each unmatched probe row once with nulls.
        std::vector<int64_t> l2, r2;
        size_t c = 0;
        for (int64_t i = 0; i < n; ++i) {
          bool found = false;
          while (c < left.size() && left[c] == i) {
            l2.push_back(i);
            r2.push_back(right[c]);
            ++c;
            found = true;
          }
          if (!found) {
            l2.push_back(i);
            r2.push_back(-1);
          }
        }
        left = std::move(l2);
        right = std::move(r2);
        break;
      }
      default:
        break;
    }
    if (left.empty()) return Status::OK();
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch joined, Joined(bridge, input, left, right));
    out->push_back(std::move(joined));
    return Status::OK();
  }

  Status Finish(GlobalState* global, const Emit& emit) const override {
    if (!bridge_->spilled) return EmitUnmatched(bridge_->table, emit);
    auto* state = static_cast<ProbeState*>(global);
    for (int p = 0; p < kJoinPartitions; ++p) {
      std::vector<RecordBatch> build;
      for (const auto& file : bridge_->build_partitions[static_cast<size_t>(p)]) {
        FLOTILLA_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, file->ReadAll());
        for (RecordBatch& b : batches)
          build.push_back(std::move(b));
      }
      bridge_->build_partitions[static_cast<size_t>(p)].clear();
      JoinTable table;
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch rows, compute::ConcatBatches(build_schema_, build));
      build.clear();
      FLOTILLA_RETURN_NOT_OK(
          JoinTable::Build(std::move(rows), build_keys_, null_equal_, MarksBuildRows(type_),
                           {state->context->pool(), state->context->num_threads()}, &table));
      MemoryReservation reservation(state->context->memory());
      reservation.ForceResize(SliceBytes(table.build) + table.memory_bytes());
      state->stats->ObserveMemory(reservation.size());
      auto& writer = state->writers[static_cast<size_t>(p)];
      if (writer != nullptr) {
        FLOTILLA_ASSIGN_OR_RETURN(auto file, writer->Finish());
        writer.reset();
        state->stats->spilled_bytes += file->size_bytes();
        FLOTILLA_ASSIGN_OR_RETURN(auto reader, file->OpenReader());
        while (true) {
          FLOTILLA_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
          if (!batch) break;
          std::vector<RecordBatch> out;
          FLOTILLA_RETURN_NOT_OK(Probe(table, *batch, &out));
          if (!out.empty()) FLOTILLA_RETURN_NOT_OK(emit(std::move(out)));
        }
      }
      FLOTILLA_RETURN_NOT_OK(EmitUnmatched(table, emit));
    }
    return Status::OK();
  }

 private:
  struct ProbeState final : GlobalState {
    ProbeState(ExecContext* context, OperatorStats* stats)
        : context(context), stats(stats), mutexes(kJoinPartitions), writers(kJoinPartitions) {}
    ExecContext* context;
    OperatorStats* stats;
    std::vector<std::mutex> mutexes;
    std::vector<std::unique_ptr<SpillWriter>> writers;
  };

  /// The build rows Finish emits: a right or full join's rows that found no partner, with nulls
  /// on the left; a right anti join's the same, alone; a right semi join's rows that found one.
  Status EmitUnmatched(const JoinTable& bridge, const Emit& emit) const {
    if (!MarksBuildRows(type_)) return Status::OK();
    const bool want = type_ == JoinType::kRightSemi;
    std::vector<int64_t> right;
    for (int64_t r = 0; r < bridge.build.num_rows(); ++r) {
      if ((bridge.matched[static_cast<size_t>(r)].load(std::memory_order_relaxed) != 0) == want) {
        right.push_back(r);
      }
    }
    if (right.empty()) return Status::OK();
    FLOTILLA_ASSIGN_OR_RETURN(Array r, compute::TakeIndices(right));
    std::vector<Array> columns;
    if (type_ == JoinType::kRight || type_ == JoinType::kFull) {
      // The left columns are all null.
      for (int c = 0; c < num_left_; ++c) {
        FLOTILLA_ASSIGN_OR_RETURN(Array nulls, Array::MakeNull(schema_->field(c).type,
                                                               static_cast<int64_t>(right.size())));
        columns.push_back(std::move(nulls));
      }
    }
    FLOTILLA_RETURN_NOT_OK(AppendBuildColumns(bridge, r, &columns));
    FLOTILLA_ASSIGN_OR_RETURN(
        RecordBatch batch,
        RecordBatch::Make(schema_, std::move(columns), static_cast<int64_t>(right.size())));
    std::vector<RecordBatch> out;
    out.push_back(std::move(batch));
    return emit(std::move(out));
  }

  Status AppendBuildColumns(const JoinTable& bridge, const Array& indices,
                            std::vector<Array>* columns) const {
    const int num_right = bridge.build.num_columns();
    for (int c = 0; c < num_right; ++c) {
      FLOTILLA_ASSIGN_OR_RETURN(Array column, compute::Take(bridge.build.column(c), indices));
      columns->push_back(std::move(column));
    }
    return Status::OK();
  }

  /// Left row left[i] next to build row right[i] (-1: nulls) as one batch of the join's
  /// inner schema.
  Result<RecordBatch> Joined(const JoinTable& bridge, const RecordBatch& input,
                             const std::vector<int64_t>& left,
                             const std::vector<int64_t>& right) const {
    FLOTILLA_ASSIGN_OR_RETURN(Array l, compute::TakeIndices(left));
    FLOTILLA_ASSIGN_OR_RETURN(Array r, compute::TakeIndices(right));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch probe, compute::Take(input, l));
    std::vector<Array> columns = probe.columns();
    FLOTILLA_RETURN_NOT_OK(AppendBuildColumns(bridge, r, &columns));
    return RecordBatch::Make(type_ == JoinType::kInner ? schema_ : joined_schema_,
                             std::move(columns), static_cast<int64_t>(left.size()));
  }

  SchemaPtr build_schema_;
  std::vector<expr::BoundExpression> build_keys_;
  SchemaPtr schema_;
  JoinType type_;
  std::vector<expr::BoundExpression> keys_;
  std::vector<bool> null_equal_;
  std::optional<expr::BoundExpression> residual_;
  SchemaPtr joined_schema_;
  int num_left_;
  std::shared_ptr<JoinBridge> bridge_;
};

}  // namespace

Result<JoinOperators> MakeHashJoinOperators(const JoinNode& node) {
  const SchemaPtr& left = node.children()[0]->schema();
  const SchemaPtr& right = node.children()[1]->schema();
  std::vector<expr::BoundExpression> left_keys, right_keys;
  for (const auto& k : node.left_keys) {
    FLOTILLA_ASSIGN_OR_RETURN(auto b, expr::Bind(k, *left));
    left_keys.push_back(std::move(b));
  }
  for (const auto& k : node.right_keys) {
    FLOTILLA_ASSIGN_OR_RETURN(auto b, expr::Bind(k, *right));
    right_keys.push_back(std::move(b));
  }
  SchemaPtr joined = JoinOutputSchema(*left, *right, JoinType::kInner);
  std::optional<expr::BoundExpression> residual;
  if (node.residual != nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(auto b, expr::Bind(node.residual, *joined));
    residual = std::move(b);
  }
  // Outer joins' schemas differ from the inner one only in nullability; the batch built from
  // the joined rows takes the node's schema.
  SchemaPtr joined_for_output = (node.type == JoinType::kLeft || node.type == JoinType::kFull ||
                                 node.type == JoinType::kRight)
                                    ? node.schema()
                                    : joined;
  auto bridge = std::make_shared<JoinBridge>();
  const bool track = MarksBuildRows(node.type);
  JoinOperators ops;
  ops.build = std::make_unique<HashJoinBuild>(right, right_keys, node.null_equal, track, bridge);
  ops.probe = std::make_unique<HashJoinProbe>(
      node.schema(), node.type, std::move(left_keys), node.null_equal, std::move(residual),
      joined_for_output, left->num_fields(), bridge, right, std::move(right_keys));
  return ops;
}

}  // namespace flotilla::exec
