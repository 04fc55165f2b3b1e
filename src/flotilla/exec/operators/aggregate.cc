// Hash aggregation in single, partial and final mode.
//
// Each thread aggregates its morsels into its own key table and accumulators (no locks on the
// hot path); when a thread is done its groups are merged into the global table. Partial mode
// emits the group keys and each aggregate's serialized state; final mode reads such rows and
// merges the states.
//
// Memory: a thread reserves what its table and accumulators hold. When the budget refuses,
// the thread's groups are serialized as partial state, split by key hash and appended to
// kSpillPartitions spill files (one open file per partition, shared by the threads), and the
// thread starts over empty. Once anything spilled, the
// remaining groups are spilled the same way at the end, and the output is produced one hash
// partition at a time: all partial rows of a partition are merged (its keys cannot occur in any
// other partition), finalized, emitted, and freed before the next — so memory holds one
// partition's groups at a time.
#include <array>
#include <mutex>

#include "flotilla/compute/partition.h"
#include "flotilla/exec/hash/key_table.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"

namespace flotilla::exec {

namespace {

constexpr int kSpillPartitions = 16;
// Not the key table's hash seed (0): partitions routed by the table's own hash would all share
// their low bits and crowd its slots when a partition is re-aggregated.
constexpr uint64_t kSpillSeed = 0x5350494C4C5EEDull;
// A rough per-group, per-aggregate state size: accumulators do not report their memory.
constexpr int64_t kStateBytesPerGroup = 24;

struct BoundAggregate {
  const expr::AggregateFunction* function = nullptr;
  std::vector<expr::BoundExpression> arguments;  // non-constant arguments
  std::vector<TypePtr> argument_types;
  std::vector<Array> constants;  // per argument: a one-row array or invalid
  int num_state_columns = 0;
};

/// One set of groups: a key table (absent when there are no keys) and one accumulator per
/// aggregate.
struct GroupSet {
  std::unique_ptr<KeyTable> table;
  std::vector<std::unique_ptr<expr::GroupedAccumulator>> accumulators;
  int64_t num_groups = 0;
};

class AggregateSink;

struct AggregateThread final : ThreadState {
  explicit AggregateThread(MemoryManager* memory) : reservation(memory) {}
  GroupSet groups;
  MemoryReservation reservation;
  std::vector<uint32_t> ids;
};

struct AggregateGlobal final : GlobalState {
  AggregateGlobal(ExecContext* context, OperatorStats* stats)
      : context(context), stats(stats), reservation(context->memory()) {}
  ExecContext* context;
  OperatorStats* stats;
  std::mutex mutex;
  GroupSet groups;
  MemoryReservation reservation;
  bool spilled = false;
  // While spilling: one open file per hash partition, each under its own lock.
  std::array<std::mutex, kSpillPartitions> writer_mutex;
  std::array<std::unique_ptr<SpillWriter>, kSpillPartitions> writers;
  // After the input: the finished files of each partition.
  std::vector<std::vector<std::shared_ptr<SpillFile>>> partitions{kSpillPartitions};
};

class AggregateSink final : public SinkOperator {
 public:
  AggregateSink(const AggregateNode& node, std::vector<expr::BoundExpression> keys,
                std::vector<TypePtr> key_types, std::vector<BoundAggregate> aggregates,
                SchemaPtr partial_schema)
      : schema_(node.schema()),
        mode_(node.mode),
        keys_(std::move(keys)),
        key_types_(std::move(key_types)),
        aggregates_(std::move(aggregates)),
        partial_schema_(std::move(partial_schema)) {}

  std::string name() const override { return "Aggregate"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    auto state = std::make_unique<AggregateGlobal>(context, stats);
    FLOTILLA_ASSIGN_OR_RETURN(state->groups, NewGroups());
    return std::unique_ptr<GlobalState>(std::move(state));
  }

  Result<std::unique_ptr<ThreadState>> MakeThreadState(GlobalState* global) const override {
    auto* g = static_cast<AggregateGlobal*>(global);
    auto state = std::make_unique<AggregateThread>(g->context->memory());
    FLOTILLA_ASSIGN_OR_RETURN(state->groups, NewGroups());
    return std::unique_ptr<ThreadState>(std::move(state));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState* thread) const override {
    auto* g = static_cast<AggregateGlobal*>(global);
    auto* t = static_cast<AggregateThread*>(thread);
    for (const RecordBatch& batch : input.batches) {
      if (batch.num_rows() == 0) continue;
      if (mode_ == AggregateMode::kFinal) {
        FLOTILLA_RETURN_NOT_OK(MergePartialRows(batch, &t->groups, &t->ids));
      } else {
        FLOTILLA_RETURN_NOT_OK(UpdateRows(batch, &t->groups, &t->ids));
      }
    }
    if (!t->reservation.TryResize(GroupBytes(t->groups))) {
      FLOTILLA_RETURN_NOT_OK(SpillGroups(g, &t->groups));
      t->reservation.Clear();
    }
    g->stats->ObserveMemory(t->reservation.size());
    return Status::OK();
  }

  Status Combine(GlobalState* global, ThreadState* thread) const override {
    auto* g = static_cast<AggregateGlobal*>(global);
    auto* t = static_cast<AggregateThread*>(thread);
    std::lock_guard<std::mutex> lock(g->mutex);
    if (g->spilled) return SpillGroups(g, &t->groups, /*locked=*/true);
    FLOTILLA_RETURN_NOT_OK(MergeGroups(&t->groups, &g->groups));
    t->groups = GroupSet();
    t->reservation.Clear();
    if (!g->reservation.TryResize(GroupBytes(g->groups))) {
      FLOTILLA_RETURN_NOT_OK(SpillGroups(g, &g->groups, /*locked=*/true));
      g->reservation.Clear();
    }
    g->stats->ObserveMemory(g->reservation.size());
    return Status::OK();
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override;

  // --- the pieces, shared by the spilled output source ---

  Result<GroupSet> NewGroups() const {
    GroupSet set;
    if (!key_types_.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(set.table, KeyTable::Make(key_types_, /*nulls_equal=*/true));
    }
    for (const BoundAggregate& a : aggregates_) {
      FLOTILLA_ASSIGN_OR_RETURN(auto acc,
                                a.function->MakeAccumulator(a.argument_types, a.constants));
      set.accumulators.push_back(std::move(acc));
    }
    if (key_types_.empty()) FLOTILLA_RETURN_NOT_OK(Resize(&set, 1));
    return set;
  }

  /// Group ids of `keys` in `set` (all 0 without keys), growing the accumulators.
  Status AssignIds(const std::vector<Array>& keys, int64_t n, GroupSet* set,
                   std::vector<uint32_t>* ids) const {
    ids->resize(static_cast<size_t>(n));
    if (set->table == nullptr) {
      std::fill(ids->begin(), ids->end(), 0u);
      return Status::OK();
    }
    FLOTILLA_RETURN_NOT_OK(set->table->Insert(keys, ids->data()));
    return Resize(set, set->table->size());
  }

  static Status Resize(GroupSet* set, int64_t groups) {
    if (groups == set->num_groups) return Status::OK();
    for (auto& acc : set->accumulators)
      FLOTILLA_RETURN_NOT_OK(acc->Resize(groups));
    set->num_groups = groups;
    return Status::OK();
  }

  Status UpdateRows(const RecordBatch& batch, GroupSet* set, std::vector<uint32_t>* ids) const {
    std::vector<Array> keys;
    for (const auto& k : keys_) {
      FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(k, batch));
      FLOTILLA_ASSIGN_OR_RETURN(Array column, d.ToColumn(batch.num_rows()));
      keys.push_back(std::move(column));
    }
    FLOTILLA_RETURN_NOT_OK(AssignIds(keys, batch.num_rows(), set, ids));
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      std::vector<Array> args;
      for (const auto& e : aggregates_[a].arguments) {
        FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(e, batch));
        FLOTILLA_ASSIGN_OR_RETURN(Array column, d.ToColumn(batch.num_rows()));
        args.push_back(std::move(column));
      }
      Status status = set->accumulators[a]->Update(args, ids->data(), batch.num_rows());
      if (!status.ok()) return status.WithContext("in " + aggregates_[a].function->name + "()");
    }
    return Status::OK();
  }

  /// Rows of partial state (keys, then each aggregate's state columns) folded into `set`.
  Status MergePartialRows(const RecordBatch& batch, GroupSet* set,
                          std::vector<uint32_t>* ids) const {
    const int num_keys = static_cast<int>(key_types_.size());
    std::vector<Array> keys(batch.columns().begin(), batch.columns().begin() + num_keys);
    FLOTILLA_RETURN_NOT_OK(AssignIds(keys, batch.num_rows(), set, ids));
    int column = num_keys;
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      const int n = aggregates_[a].num_state_columns;
      std::vector<Array> state(batch.columns().begin() + column,
                               batch.columns().begin() + column + n);
      column += n;
      FLOTILLA_RETURN_NOT_OK(
          set->accumulators[a]->MergePartial(state, ids->data(), batch.num_rows()));
    }
    return Status::OK();
  }

  /// Moves the groups of `from` into `into`.
  Status MergeGroups(GroupSet* from, GroupSet* into) const {
    if (from->num_groups == 0) return Status::OK();
    std::vector<uint32_t> map;
    if (from->table != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> keys, from->table->Keys());
      FLOTILLA_RETURN_NOT_OK(AssignIds(keys, from->num_groups, into, &map));
    } else {
      map.assign(1, 0);
    }
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      FLOTILLA_RETURN_NOT_OK(into->accumulators[a]->Merge(*from->accumulators[a], map.data()));
    }
    return Status::OK();
  }

  /// The groups of `set` as partial-state rows (keys, then state columns).
  Result<RecordBatch> PartialBatch(const GroupSet& set) const {
    std::vector<Array> columns;
    if (set.table != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(columns, set.table->Keys());
    }
    for (const auto& acc : set.accumulators) {
      FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> state, acc->SerializePartial());
      for (Array& s : state)
        columns.push_back(std::move(s));
    }
    return RecordBatch::Make(partial_schema_, std::move(columns), set.num_groups);
  }

  /// The groups of `set` as result rows (keys, then each aggregate's value).
  Result<RecordBatch> ResultBatch(const GroupSet& set) const {
    if (mode_ == AggregateMode::kPartial) return PartialBatch(set);
    std::vector<Array> columns;
    if (set.table != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(columns, set.table->Keys());
    }
    for (size_t a = 0; a < set.accumulators.size(); ++a) {
      auto value = set.accumulators[a]->Finalize();
      if (!value.ok())
        return value.status().WithContext("in " + aggregates_[a].function->name + "()");
      columns.push_back(std::move(value).ValueOrDie());
    }
    return RecordBatch::Make(schema_, std::move(columns), set.num_groups);
  }

  /// Writes `set`'s groups as partial state, split by key hash, and empties it.
  Status SpillGroups(AggregateGlobal* g, GroupSet* set, bool locked = false) const {
    if (set->num_groups > 0) {
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch partial, PartialBatch(*set));
      std::vector<int> key_columns;
      for (size_t k = 0; k < key_types_.size(); ++k)
        key_columns.push_back(static_cast<int>(k));
      std::vector<RecordBatch> parts;
      if (key_columns.empty()) {
        parts.assign(kSpillPartitions, partial.Slice(0, 0));
        parts[0] = partial;
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(
            parts, PartitionByHash(partial, key_columns, kSpillPartitions, kSpillSeed));
      }
      for (int p = 0; p < kSpillPartitions; ++p) {
        const RecordBatch& part = parts[static_cast<size_t>(p)];
        if (part.num_rows() == 0) continue;
        std::lock_guard<std::mutex> lock(g->writer_mutex[static_cast<size_t>(p)]);
        auto& writer = g->writers[static_cast<size_t>(p)];
        if (writer == nullptr) {
          FLOTILLA_ASSIGN_OR_RETURN(writer, g->context->spill()->Create(partial_schema_));
        }
        FLOTILLA_RETURN_NOT_OK(writer->Write(part));
      }
      std::unique_lock<std::mutex> lock(g->mutex, std::defer_lock);
      if (!locked) lock.lock();
      g->spilled = true;
    } else if (!locked) {
      std::lock_guard<std::mutex> lock(g->mutex);
      g->spilled = true;
    } else {
      g->spilled = true;
    }
    FLOTILLA_ASSIGN_OR_RETURN(*set, NewGroups());
    return Status::OK();
  }

 private:
  int64_t GroupBytes(const GroupSet& set) const {
    return (set.table != nullptr ? set.table->memory_bytes() : 0) +
           set.num_groups * kStateBytesPerGroup * static_cast<int64_t>(aggregates_.size());
  }

  SchemaPtr schema_;
  AggregateMode mode_;
  std::vector<expr::BoundExpression> keys_;
  std::vector<TypePtr> key_types_;
  std::vector<BoundAggregate> aggregates_;
  SchemaPtr partial_schema_;
};

/// After spilling: each hash partition's partial rows merged, finalized and emitted in turn.
class SpilledAggregateSource final : public Source {
 public:
  SpilledAggregateSource(const AggregateSink* sink, AggregateGlobal* global, SchemaPtr schema,
                         int64_t morsel_size)
      : sink_(sink), global_(global), schema_(std::move(schema)), morsel_size_(morsel_size) {}
  const SchemaPtr& schema() const override { return schema_; }

  Result<std::optional<Morsel>> Next() override {
    std::lock_guard<std::mutex> lock(mutex_);
    while (offset_ >= current_.num_rows()) {
      if (partition_ >= kSpillPartitions) return std::optional<Morsel>();
      FLOTILLA_ASSIGN_OR_RETURN(GroupSet set, sink_->NewGroups());
      std::vector<uint32_t> ids;
      auto& files = global_->partitions[static_cast<size_t>(partition_)];
      for (const auto& file : files) {
        FLOTILLA_ASSIGN_OR_RETURN(auto reader, file->OpenReader());
        while (true) {
          FLOTILLA_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
          if (!batch) break;
          FLOTILLA_RETURN_NOT_OK(sink_->MergePartialRows(*batch, &set, &ids));
        }
      }
      files.clear();
      ++partition_;
      // Without keys the single group lives in partition 0 (empty input included).
      if (set.num_groups == 0 || (set.table == nullptr && partition_ != 1)) continue;
      FLOTILLA_ASSIGN_OR_RETURN(current_, sink_->ResultBatch(set));
      offset_ = 0;
    }
    const int64_t n = std::min(morsel_size_, current_.num_rows() - offset_);
    Morsel morsel{seq_++, 0, current_.Slice(offset_, n)};
    offset_ += n;
    return std::optional<Morsel>(std::move(morsel));
  }

 private:
  const AggregateSink* sink_;
  AggregateGlobal* global_;
  SchemaPtr schema_;
  int64_t morsel_size_;
  std::mutex mutex_;
  int partition_ = 0;
  RecordBatch current_;
  int64_t offset_ = 0;
  int64_t seq_ = 0;
};

/// Keeps the global state alive for the spilled source.
class OwningSource final : public Source {
 public:
  OwningSource(std::unique_ptr<AggregateGlobal> state, std::unique_ptr<Source> inner)
      : state_(std::move(state)), inner_(std::move(inner)) {}
  const SchemaPtr& schema() const override { return inner_->schema(); }
  Result<std::optional<Morsel>> Next() override { return inner_->Next(); }

 private:
  std::unique_ptr<AggregateGlobal> state_;
  std::unique_ptr<Source> inner_;
};

Result<std::unique_ptr<Source>> AggregateSink::Finalize(GlobalState* global) const {
  auto* g = static_cast<AggregateGlobal*>(global);
  const int64_t morsel = g->context->morsel_size();
  if (!g->spilled) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch out, ResultBatch(g->groups));
    g->groups = GroupSet();
    std::vector<std::vector<RecordBatch>> partitions(1);
    partitions[0].push_back(std::move(out));
    return MakeBatchSource(schema_, std::move(partitions), morsel);
  }
  FLOTILLA_RETURN_NOT_OK(SpillGroups(g, &g->groups, /*locked=*/true));
  g->reservation.Clear();
  for (int p = 0; p < kSpillPartitions; ++p) {
    auto& writer = g->writers[static_cast<size_t>(p)];
    if (writer == nullptr) continue;
    FLOTILLA_ASSIGN_OR_RETURN(auto file, writer->Finish());
    writer.reset();
    g->stats->spilled_bytes += file->size_bytes();
    g->partitions[static_cast<size_t>(p)].push_back(std::move(file));
  }
  // The source outlives this call; it takes over the spill files (the state object is
  // destroyed by the executor after Finalize, so move what the source needs into a new one).
  auto kept = std::make_unique<AggregateGlobal>(g->context, g->stats);
  kept->partitions = std::move(g->partitions);
  auto source = std::make_unique<SpilledAggregateSource>(this, kept.get(), schema_, morsel);
  return std::unique_ptr<Source>(new OwningSource(std::move(kept), std::move(source)));
}

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeAggregateSink(const AggregateNode& node) {
  const PlanNode& input = *node.children()[0];
  // The expressions are bound against what the aggregation reads: the rows (single, partial)
  // or the partial aggregate's input (final mode reads state columns by position).
  std::vector<expr::BoundExpression> keys;
  std::vector<TypePtr> key_types;
  std::vector<Field> partial_fields;
  if (node.mode == AggregateMode::kFinal) {
    for (size_t k = 0; k < node.group_by.size(); ++k) {
      const Field& f = input.schema()->field(static_cast<int>(k));
      key_types.push_back(f.type);
      partial_fields.push_back(f);
    }
  } else {
    for (const auto& e : node.group_by) {
      FLOTILLA_ASSIGN_OR_RETURN(auto bound, expr::Bind(e, *input.schema()));
      key_types.push_back(bound.type());
      partial_fields.push_back(Field{bound.name, bound.type(), true});
      keys.push_back(std::move(bound));
    }
  }
  std::vector<BoundAggregate> aggregates;
  for (size_t a = 0; a < node.aggregates.size(); ++a) {
    const AggregateSpec& spec = node.aggregates[a];
    BoundAggregate bound;
    FLOTILLA_ASSIGN_OR_RETURN(bound.function, expr::DefaultAggregateRegistry().Find(spec.function));
    bound.argument_types = node.argument_types[a];
    for (const auto& argument : spec.arguments) {
      if (argument->kind() == expr::ExprKind::kLiteral) {
        bound.constants.push_back(argument->literal());
      } else {
        bound.constants.push_back(Array());
      }
      if (node.mode != AggregateMode::kFinal) {
        FLOTILLA_ASSIGN_OR_RETURN(auto b, expr::Bind(argument, *input.schema()));
        bound.arguments.push_back(std::move(b));
      }
    }
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<TypePtr> state,
                              bound.function->state_types(bound.argument_types));
    bound.num_state_columns = static_cast<int>(state.size());
    for (size_t s = 0; s < state.size(); ++s)
      partial_fields.push_back(Field{spec.name + "." + std::to_string(s), state[s], true});
    aggregates.push_back(std::move(bound));
  }
  return std::unique_ptr<SinkOperator>(
      new AggregateSink(node, std::move(keys), std::move(key_types), std::move(aggregates),
                        std::make_shared<Schema>(std::move(partial_fields))));
}

}  // namespace flotilla::exec
