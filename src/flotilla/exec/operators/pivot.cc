// Pivot: hash aggregation with one accumulator per output name.
//
// The group keys get dense ids from a key table (nulls group together). Each row's pivot value
// is cast to utf8 and looked up among the names; the row's value is folded into that name's
// accumulator under the row's group id. Rows whose pivot value is null or matches no name are
// ignored (their group still exists, so a group with only such rows gives a row of empty
// aggregates). As in aggregate.cc, each thread fills its own table and accumulators; Combine
// merges them into the global ones under a lock.
//
// A name no row of a group matched gets what the function gives for an empty group: null for
// every function except the counts, which give 0. Without group keys there is one group, so
// the output is one row even for empty input (as an ungrouped aggregate).
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "flotilla/compute/cast.h"
#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/hash/key_table.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/pipeline/exec_context.h"
#include "flotilla/exec/stats/operator_stats.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"

namespace flotilla::exec {

namespace {

// A rough per-group state size per name: accumulators do not report their memory.
constexpr int64_t kStateBytesPerGroup = 24;

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

/// A key table (absent without group keys) and one accumulator per name.
struct PivotGroups {
  std::unique_ptr<KeyTable> table;
  std::vector<std::unique_ptr<expr::GroupedAccumulator>> accumulators;
  int64_t num_groups = 0;
};

struct PivotThread final : ThreadState {
  explicit PivotThread(MemoryManager* memory) : reservation(memory) {}
  PivotGroups groups;
  MemoryReservation reservation;
  std::vector<uint32_t> ids;
};

struct PivotGlobal final : GlobalState {
  PivotGlobal(ExecContext* context, OperatorStats* stats)
      : context(context), stats(stats), reservation(context->memory()) {}
  ExecContext* context;
  OperatorStats* stats;
  std::mutex mutex;
  PivotGroups groups;
  MemoryReservation reservation;
};

Result<Array> Int64Indices(const std::vector<int64_t>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
  std::copy(rows.begin(), rows.end(), reinterpret_cast<int64_t*>(values->mutable_data()));
  return compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values));
}

Result<Array> EvaluateColumn(const expr::BoundExpression& e, const RecordBatch& batch) {
  FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(e, batch));
  return d.ToColumn(batch.num_rows());
}

class PivotSink final : public SinkOperator {
 public:
  PivotSink(const PivotNode& node, std::vector<expr::BoundExpression> keys,
            std::vector<TypePtr> key_types, expr::BoundExpression pivot,
            expr::BoundExpression value, const expr::AggregateFunction* function,
            std::vector<TypePtr> argument_types, std::vector<Array> constants)
      : schema_(node.schema()),
        keys_(std::move(keys)),
        key_types_(std::move(key_types)),
        pivot_(std::move(pivot)),
        value_(std::move(value)),
        function_(function),
        argument_types_(std::move(argument_types)),
        constants_(std::move(constants)) {
    for (size_t i = 0; i < node.names.size(); ++i)
      names_.emplace(node.names[i], static_cast<int>(i));
    num_names_ = node.names.size();
  }

  std::string name() const override { return "Pivot"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    auto state = std::make_unique<PivotGlobal>(context, stats);
    FLOTILLA_ASSIGN_OR_RETURN(state->groups, NewGroups());
    return std::unique_ptr<GlobalState>(std::move(state));
  }

  Result<std::unique_ptr<ThreadState>> MakeThreadState(GlobalState* global) const override {
    auto* g = static_cast<PivotGlobal*>(global);
    auto state = std::make_unique<PivotThread>(g->context->memory());
    FLOTILLA_ASSIGN_OR_RETURN(state->groups, NewGroups());
    return std::unique_ptr<ThreadState>(std::move(state));
  }

  Status Consume(MorselOutput input, GlobalState* global, ThreadState* thread) const override {
    auto* g = static_cast<PivotGlobal*>(global);
    auto* t = static_cast<PivotThread*>(thread);
    for (const RecordBatch& batch : input.batches) {
      if (batch.num_rows() == 0) continue;
      FLOTILLA_RETURN_NOT_OK(UpdateRows(batch, &t->groups, &t->ids));
    }
    // Pivot does not spill: what it holds is reserved whatever the budget.
    t->reservation.ForceResize(GroupBytes(t->groups));
    g->stats->ObserveMemory(t->reservation.size());
    return Status::OK();
  }

  Status Combine(GlobalState* global, ThreadState* thread) const override {
    auto* g = static_cast<PivotGlobal*>(global);
    auto* t = static_cast<PivotThread*>(thread);
    std::lock_guard<std::mutex> lock(g->mutex);
    FLOTILLA_RETURN_NOT_OK(MergeGroups(t->groups, &g->groups));
    t->groups = PivotGroups();
    t->reservation.Clear();
    g->reservation.ForceResize(GroupBytes(g->groups));
    g->stats->ObserveMemory(g->reservation.size());
    return Status::OK();
  }

  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* g = static_cast<PivotGlobal*>(global);
    std::vector<Array> columns;
    if (g->groups.table != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(columns, g->groups.table->Keys());
    }
    for (const auto& acc : g->groups.accumulators) {
      auto value = acc->Finalize();
      if (!value.ok()) return value.status().WithContext("in pivot " + function_->name + "()");
      columns.push_back(std::move(value).ValueOrDie());
    }
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch out,
                              RecordBatch::Make(schema_, std::move(columns), g->groups.num_groups));
    g->groups = PivotGroups();
    g->reservation.Clear();
    std::vector<std::vector<RecordBatch>> partitions(1);
    partitions[0].push_back(std::move(out));
    return MakeBatchSource(schema_, std::move(partitions), g->context->morsel_size());
  }

 private:
  Result<PivotGroups> NewGroups() const {
    PivotGroups set;
    if (!key_types_.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(set.table, KeyTable::Make(key_types_, /*nulls_equal=*/true));
    }
    for (size_t i = 0; i < num_names_; ++i) {
      FLOTILLA_ASSIGN_OR_RETURN(auto acc, function_->MakeAccumulator(argument_types_, constants_));
      set.accumulators.push_back(std::move(acc));
    }
    if (key_types_.empty()) FLOTILLA_RETURN_NOT_OK(Resize(&set, 1));
    return set;
  }

  static Status Resize(PivotGroups* set, int64_t groups) {
    if (groups == set->num_groups) return Status::OK();
    for (auto& acc : set->accumulators)
      FLOTILLA_RETURN_NOT_OK(acc->Resize(groups));
    set->num_groups = groups;
    return Status::OK();
  }

  /// Group ids of `keys` in `set` (all 0 without keys), growing the accumulators.
  Status AssignIds(const std::vector<Array>& keys, int64_t n, PivotGroups* set,
                   std::vector<uint32_t>* ids) const {
    ids->resize(static_cast<size_t>(n));
    if (set->table == nullptr) {
      std::fill(ids->begin(), ids->end(), 0u);
      return Status::OK();
    }
    FLOTILLA_RETURN_NOT_OK(set->table->Insert(keys, ids->data()));
    return Resize(set, set->table->size());
  }

  Status UpdateRows(const RecordBatch& batch, PivotGroups* set, std::vector<uint32_t>* ids) const {
    const int64_t n = batch.num_rows();
    std::vector<Array> keys;
    for (const auto& k : keys_) {
      FLOTILLA_ASSIGN_OR_RETURN(Array column, EvaluateColumn(k, batch));
      keys.push_back(std::move(column));
    }
    FLOTILLA_RETURN_NOT_OK(AssignIds(keys, n, set, ids));
    if (num_names_ == 0) return Status::OK();
    FLOTILLA_ASSIGN_OR_RETURN(Array pivot, EvaluateColumn(pivot_, batch));
    auto cast = compute::Cast(pivot, utf8());
    if (!cast.ok()) return cast.status().WithContext("casting the pivot column to utf8");
    const Array names = std::move(cast).ValueOrDie();
    // The rows of each name, in input order (order-sensitive functions see them in order).
    std::vector<std::vector<int64_t>> rows(num_names_);
    for (int64_t i = 0; i < n; ++i) {
      if (names.IsNull(i)) continue;
      auto it = names_.find(names.GetView(i));
      if (it == names_.end()) continue;
      rows[static_cast<size_t>(it->second)].push_back(i);
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array value, EvaluateColumn(value_, batch));
    std::vector<uint32_t> selected_ids;
    for (size_t name = 0; name < num_names_; ++name) {
      const std::vector<int64_t>& selected = rows[name];
      if (selected.empty()) continue;
      Status status;
      const int64_t count = static_cast<int64_t>(selected.size());
      if (count == n) {
        status = set->accumulators[name]->Update({value}, ids->data(), n);
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(Array indices, Int64Indices(selected));
        FLOTILLA_ASSIGN_OR_RETURN(Array taken, Take(value, indices));
        selected_ids.resize(selected.size());
        for (size_t r = 0; r < selected.size(); ++r)
          selected_ids[r] = (*ids)[static_cast<size_t>(selected[r])];
        status = set->accumulators[name]->Update({taken}, selected_ids.data(), count);
      }
      if (!status.ok()) return status.WithContext("in pivot " + function_->name + "()");
    }
    return Status::OK();
  }

  /// Folds the groups of `from` into `into`.
  Status MergeGroups(const PivotGroups& from, PivotGroups* into) const {
    if (from.num_groups == 0) return Status::OK();
    std::vector<uint32_t> map;
    if (from.table != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> keys, from.table->Keys());
      FLOTILLA_RETURN_NOT_OK(AssignIds(keys, from.num_groups, into, &map));
    } else {
      map.assign(1, 0);
    }
    for (size_t a = 0; a < num_names_; ++a) {
      FLOTILLA_RETURN_NOT_OK(into->accumulators[a]->Merge(*from.accumulators[a], map.data()));
    }
    return Status::OK();
  }

  int64_t GroupBytes(const PivotGroups& set) const {
    return (set.table != nullptr ? set.table->memory_bytes() : 0) +
           set.num_groups * kStateBytesPerGroup * static_cast<int64_t>(num_names_);
  }

  SchemaPtr schema_;
  std::vector<expr::BoundExpression> keys_;
  std::vector<TypePtr> key_types_;
  expr::BoundExpression pivot_;
  expr::BoundExpression value_;
  const expr::AggregateFunction* function_;
  std::vector<TypePtr> argument_types_;
  std::vector<Array> constants_;
  std::unordered_map<std::string, int, NameHash, std::equal_to<>> names_;
  size_t num_names_ = 0;
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakePivotSink(const PivotNode& node) {
  const Schema& input = *node.children()[0]->schema();
  std::vector<expr::BoundExpression> keys;
  std::vector<TypePtr> key_types;
  for (const auto& e : node.group_by) {
    FLOTILLA_ASSIGN_OR_RETURN(auto bound, expr::Bind(e, input));
    key_types.push_back(bound.type());
    keys.push_back(std::move(bound));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto pivot, expr::Bind(node.pivot_column, input));
  FLOTILLA_ASSIGN_OR_RETURN(auto value, expr::Bind(node.value_column, input));
  if (!compute::CanCast(*pivot.type(), *utf8())) {
    return Status::TypeError("pivot: the pivot column `" + node.pivot_column->ToString() +
                             "` has type " + pivot.type()->ToString() +
                             ", which cannot be cast to utf8 to compare with the names");
  }
  FLOTILLA_ASSIGN_OR_RETURN(const expr::AggregateFunction* function,
                            expr::DefaultAggregateRegistry().Find(node.function));
  std::vector<TypePtr> argument_types = {value.type()};
  std::vector<Array> constants = {node.value_column->kind() == expr::ExprKind::kLiteral
                                      ? node.value_column->literal()
                                      : Array()};
  // Fails here (at plan lowering) for a function that does not take one argument of this type.
  FLOTILLA_RETURN_NOT_OK(
      function->MakeAccumulator(argument_types, constants).status().WithContext("pivot"));
  return std::unique_ptr<SinkOperator>(
      new PivotSink(node, std::move(keys), std::move(key_types), std::move(pivot), std::move(value),
                    function, std::move(argument_types), std::move(constants)));
}

}  // namespace flotilla::exec
