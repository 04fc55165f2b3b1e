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
//
// Pivot (pivot.cc) is this operator with routed rows: one aggregate per pivot name, each fed
// only the rows whose pivot value is its name, so it spills like any aggregation.
#include <array>
#include <deque>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/partition.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/hash/key_table.h"
#include "flotilla/exec/memory/batch_size.h"
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

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

/// Pivot's routing: aggregate i reads only the rows whose `pivot` value (utf8) is names[i].
struct PivotRouting {
  expr::BoundExpression pivot;
  std::unordered_map<std::string, int, NameHash, std::equal_to<>> names;
};

Result<Array> EvaluateColumn(const expr::BoundExpression& e, const RecordBatch& batch) {
  FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(e, batch));
  return d.ToColumn(batch.num_rows());
}

Result<Array> Int64Indices(const std::vector<int64_t>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
  std::copy(rows.begin(), rows.end(), reinterpret_cast<int64_t*>(values->mutable_data()));
  return compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values));
}

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
                SchemaPtr partial_schema, std::unique_ptr<PivotRouting> routing)
      : schema_(node.schema()),
        mode_(node.mode),
        keys_(std::move(keys)),
        key_types_(std::move(key_types)),
        aggregates_(std::move(aggregates)),
        partial_schema_(std::move(partial_schema)),
        routing_(std::move(routing)) {}

  std::string name() const override { return routing_ != nullptr ? "Pivot" : "Aggregate"; }
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
      // A growing key table holds its old and new arrays at once: reserve that first, and
      // spill instead when it is refused.
      if (t->groups.table != nullptr) {
        const int64_t growth = t->groups.table->GrowthBytes(batch.num_rows(), SliceBytes(batch));
        if (growth > 0 && !t->reservation.TryResize(GroupBytes(t->groups) + growth)) {
          FLOTILLA_RETURN_NOT_OK(SpillGroups(g, &t->groups));
          t->reservation.Clear();
        }
      }
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
    if (g->groups.num_groups == 0) {
      // The first thread's groups become the global ones, reservation and all.
      std::swap(g->groups, t->groups);
      t->reservation.Clear();
      g->reservation.ForceResize(GroupBytes(g->groups));
    } else {
      // Merging adds at most this thread's groups (half of what it reserved, the rest being
      // room to spill them) to the global ones, reserved before merging: refused, this
      // thread's groups go to disk (and at the end the global ones follow them).
      if (!g->reservation.TryResize(GroupBytes(g->groups) + GroupBytes(t->groups) / 2)) {
        FLOTILLA_RETURN_NOT_OK(SpillGroups(g, &t->groups, /*locked=*/true));
        t->reservation.Clear();
        return Status::OK();
      }
      FLOTILLA_RETURN_NOT_OK(MergeGroups(&t->groups, &g->groups));
      t->groups = GroupSet();
      t->reservation.Clear();
      g->reservation.ForceResize(GroupBytes(g->groups));
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
    if (routing_ != nullptr) return UpdateRoutedRows(batch, set, *ids);
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

  /// Pivot: each name's rows (in input order: order-sensitive functions see them in order) into
  /// its aggregate. Every aggregate reads the same value column.
  Status UpdateRoutedRows(const RecordBatch& batch, GroupSet* set,
                          const std::vector<uint32_t>& ids) const {
    const int64_t n = batch.num_rows();
    if (aggregates_.empty()) return Status::OK();
    auto pivot = EvaluateColumn(routing_->pivot, batch);
    if (!pivot.ok()) return pivot.status().WithContext("casting the pivot column to utf8");
    std::vector<std::vector<int64_t>> rows(aggregates_.size());
    for (int64_t i = 0; i < n; ++i) {
      if (pivot->IsNull(i)) continue;
      auto it = routing_->names.find(pivot->GetView(i));
      if (it != routing_->names.end()) rows[static_cast<size_t>(it->second)].push_back(i);
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array value, EvaluateColumn(aggregates_[0].arguments[0], batch));
    std::vector<uint32_t> selected_ids;
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      const std::vector<int64_t>& selected = rows[a];
      if (selected.empty()) continue;
      const auto count = static_cast<int64_t>(selected.size());
      Status status;
      if (count == n) {
        status = set->accumulators[a]->Update({value}, ids.data(), n);
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(Array indices, Int64Indices(selected));
        FLOTILLA_ASSIGN_OR_RETURN(Array taken, compute::Take(value, indices));
        selected_ids.resize(selected.size());
        for (size_t r = 0; r < selected.size(); ++r)
          selected_ids[r] = ids[static_cast<size_t>(selected[r])];
        status = set->accumulators[a]->Update({taken}, selected_ids.data(), count);
      }
      if (!status.ok())
        return status.WithContext("in pivot " + aggregates_[a].function->name + "()");
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
      // One partition at a time, each dropped once written: spilling holds the serialized
      // groups and one partition's copy, not a second copy of everything.
      std::vector<uint32_t> partition_of(static_cast<size_t>(partial.num_rows()), 0);
      if (!key_types_.empty()) {
        std::vector<Array> keys(
            partial.columns().begin(),
            partial.columns().begin() + static_cast<int64_t>(key_types_.size()));
        FLOTILLA_RETURN_NOT_OK(
            compute::HashPartitionIds(keys, kSpillPartitions, kSpillSeed, &partition_of));
      }
      for (int p = 0; p < kSpillPartitions; ++p) {
        std::vector<int64_t> rows;
        for (size_t i = 0; i < partition_of.size(); ++i) {
          if (partition_of[i] == static_cast<uint32_t>(p)) rows.push_back(static_cast<int64_t>(i));
        }
        if (rows.empty()) continue;
        FLOTILLA_ASSIGN_OR_RETURN(Array indices, Int64Indices(rows));
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch part, compute::Take(partial, indices));
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

  size_t num_keys() const { return key_types_.size(); }

  // What a set of groups holds, and as much again: spilling serializes the groups (keys and
  // states) before it frees them.
  static int64_t GroupBytes(const GroupSet& set) {
    int64_t bytes = set.table != nullptr ? set.table->memory_bytes() : 0;
    for (const auto& acc : set.accumulators)
      bytes += acc->memory_bytes();
    return 2 * bytes;
  }

 private:
  SchemaPtr schema_;
  AggregateMode mode_;
  std::vector<expr::BoundExpression> keys_;
  std::vector<TypePtr> key_types_;
  std::vector<BoundAggregate> aggregates_;
  SchemaPtr partial_schema_;
  std::unique_ptr<PivotRouting> routing_;
};

/// After spilling: each hash partition's partial rows merged, finalized and emitted in turn. A
/// partition whose groups outgrow the budget while being merged is split again by another hash
/// (a deeper level's seed) into kSpillPartitions smaller ones, as often as needed up to
/// kMaxSplitLevels; past that (one key's rows, or many levels of bad luck), or when it is
/// smaller on disk than kMinSplitBytes, it is merged whatever the budget: a tiny budget would
/// otherwise split every partition down to thousands of files of a few groups each.
class SpilledAggregateSource final : public Source {
 public:
  SpilledAggregateSource(const AggregateSink* sink, AggregateGlobal* global, SchemaPtr schema,
                         int64_t morsel_size)
      : sink_(sink),
        global_(global),
        schema_(std::move(schema)),
        morsel_size_(morsel_size),
        reservation_(global->context->memory()) {
    for (auto& files : global_->partitions)
      pending_.push_back({std::move(files), 0});
  }
  const SchemaPtr& schema() const override { return schema_; }

  Result<std::optional<Morsel>> Next() override {
    std::lock_guard<std::mutex> lock(mutex_);
    while (offset_ >= current_.num_rows()) {
      current_ = RecordBatch();
      reservation_.Clear();
      if (pending_.empty()) return std::optional<Morsel>();
      Pending partition = std::move(pending_.front());
      pending_.pop_front();
      FLOTILLA_ASSIGN_OR_RETURN(GroupSet set, sink_->NewGroups());
      FLOTILLA_ASSIGN_OR_RETURN(bool merged, Merge(partition, &set));
      if (!merged) {
        set = GroupSet();
        reservation_.Clear();
        FLOTILLA_RETURN_NOT_OK(Split(std::move(partition)));
        continue;
      }
      const bool first = first_partition_;
      first_partition_ = false;
      // Without keys the single group lives in the first partition (empty input included).
      if (set.num_groups == 0 || (set.table == nullptr && !first)) continue;
      FLOTILLA_ASSIGN_OR_RETURN(current_, sink_->ResultBatch(set));
      offset_ = 0;
    }
    const int64_t n = std::min(morsel_size_, current_.num_rows() - offset_);
    Morsel morsel{seq_++, 0, current_.Slice(offset_, n)};
    offset_ += n;
    return std::optional<Morsel>(std::move(morsel));
  }

 private:
  static constexpr int kMaxSplitLevels = 4;
  static constexpr int64_t kMinSplitBytes = int64_t{1} << 20;
  struct Pending {
    std::vector<std::shared_ptr<SpillFile>> files;
    int level;
  };

  static int64_t SizeOnDisk(const Pending& partition) {
    int64_t bytes = 0;
    for (const auto& file : partition.files)
      bytes += file->size_bytes();
    return bytes;
  }

  // Folds the partition's rows into `set`; false (and the files kept) when its groups outgrew
  // the budget and it may be split further.
  Result<bool> Merge(const Pending& partition, GroupSet* set) {
    const bool may_split = set->table != nullptr && partition.level < kMaxSplitLevels &&
                           SizeOnDisk(partition) >= kMinSplitBytes;
    std::vector<uint32_t> ids;
    for (const auto& file : partition.files) {
      FLOTILLA_ASSIGN_OR_RETURN(auto reader, file->OpenReader());
      while (true) {
        FLOTILLA_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
        if (!batch) break;
        FLOTILLA_RETURN_NOT_OK(sink_->MergePartialRows(*batch, set, &ids));
        if (!reservation_.TryResize(AggregateSink::GroupBytes(*set))) {
          if (may_split) return false;
          reservation_.ForceResize(AggregateSink::GroupBytes(*set));
        }
        global_->stats->ObserveMemory(reservation_.size());
      }
    }
    return true;
  }

  // Rewrites the partition's rows as kSpillPartitions partitions of the next level.
  Status Split(Pending partition) {
    const int level = partition.level + 1;
    const uint64_t seed = kSpillSeed + static_cast<uint64_t>(level);
    std::vector<std::unique_ptr<SpillWriter>> writers(kSpillPartitions);
    const size_t num_keys = sink_->num_keys();
    for (const auto& file : partition.files) {
      FLOTILLA_ASSIGN_OR_RETURN(auto reader, file->OpenReader());
      while (true) {
        FLOTILLA_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
        if (!batch) break;
        std::vector<Array> keys(batch->columns().begin(),
                                batch->columns().begin() + static_cast<int64_t>(num_keys));
        std::vector<uint32_t> ids;
        FLOTILLA_RETURN_NOT_OK(compute::HashPartitionIds(keys, kSpillPartitions, seed, &ids));
        FLOTILLA_ASSIGN_OR_RETURN(std::vector<RecordBatch> parts,
                                  compute::ScatterByPartition(*batch, ids, kSpillPartitions));
        for (int p = 0; p < kSpillPartitions; ++p) {
          if (parts[static_cast<size_t>(p)].num_rows() == 0) continue;
          auto& writer = writers[static_cast<size_t>(p)];
          if (writer == nullptr) {
            FLOTILLA_ASSIGN_OR_RETURN(writer, global_->context->spill()->Create(batch->schema()));
          }
          FLOTILLA_RETURN_NOT_OK(writer->Write(parts[static_cast<size_t>(p)]));
        }
      }
    }
    partition.files.clear();  // read once more: they can go
    for (auto& writer : writers) {
      if (writer == nullptr) continue;
      FLOTILLA_ASSIGN_OR_RETURN(auto file, writer->Finish());
      global_->stats->spilled_bytes += file->size_bytes();
      pending_.push_back({{std::move(file)}, level});
    }
    return Status::OK();
  }

  const AggregateSink* sink_;
  AggregateGlobal* global_;
  SchemaPtr schema_;
  int64_t morsel_size_;
  MemoryReservation reservation_;
  std::mutex mutex_;
  std::deque<Pending> pending_;
  bool first_partition_ = true;
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
  return MakeRoutedAggregateSink(node, nullptr, {});
}

Result<std::unique_ptr<SinkOperator>> MakeRoutedAggregateSink(
    const AggregateNode& node, const expr::ExprPtr& pivot, const std::vector<std::string>& names) {
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
  std::unique_ptr<PivotRouting> routing;
  if (pivot != nullptr) {
    routing = std::make_unique<PivotRouting>();
    FLOTILLA_ASSIGN_OR_RETURN(routing->pivot,
                              expr::Bind(expr::Cast(pivot, utf8()), *input.schema()));
    for (size_t i = 0; i < names.size(); ++i)
      routing->names.emplace(names[i], static_cast<int>(i));
  }
  return std::unique_ptr<SinkOperator>(
      new AggregateSink(node, std::move(keys), std::move(key_types), std::move(aggregates),
                        std::make_shared<Schema>(std::move(partial_fields)), std::move(routing)));
}

}  // namespace flotilla::exec
