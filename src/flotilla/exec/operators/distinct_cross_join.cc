// Distinct (an aggregation grouped by the distinct columns) and cross join (every left row with
// every right row).
//
// Distinct over a subset of the columns keeps, of each key's rows, the first in input order. The
// sink tags every row with its input position (morsel sequence number << 32 + row) and the other
// columns are arg_min(column, position): right whatever thread or spill partition saw the row,
// and for columns of any type.
#include <mutex>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/pipeline/exec_context.h"

namespace flotilla::exec {

namespace {

Result<Array> Indices(int64_t n, const std::function<int64_t(int64_t)>& at) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
  auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
  for (int64_t i = 0; i < n; ++i)
    out[i] = at(i);
  return compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values));
}

/// A source whose batches are another source's with the columns put in a given order.
class ReorderSource final : public Source {
 public:
  ReorderSource(SchemaPtr schema, std::unique_ptr<Source> inner, std::vector<int> order)
      : schema_(std::move(schema)), inner_(std::move(inner)), order_(std::move(order)) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<std::optional<Morsel>> Next() override {
    FLOTILLA_ASSIGN_OR_RETURN(std::optional<Morsel> morsel, inner_->Next());
    if (!morsel) return morsel;
    std::vector<Array> columns;
    for (int i : order_)
      columns.push_back(morsel->batch.column(i));
    FLOTILLA_ASSIGN_OR_RETURN(
        morsel->batch, RecordBatch::Make(schema_, std::move(columns), morsel->batch.num_rows()));
    return morsel;
  }

 private:
  SchemaPtr schema_;
  std::unique_ptr<Source> inner_;
  std::vector<int> order_;
};

constexpr const char* kPositionColumn = "__flotilla_input_position";

class DistinctSink final : public SinkOperator {
 public:
  DistinctSink(SchemaPtr schema, PlanPtr aggregate, std::unique_ptr<SinkOperator> inner,
               std::vector<int> order, SchemaPtr positioned)
      : schema_(std::move(schema)),
        aggregate_(std::move(aggregate)),
        inner_(std::move(inner)),
        order_(std::move(order)),
        positioned_(std::move(positioned)) {}
  std::string name() const override { return "Distinct"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                       OperatorStats* stats) const override {
    return inner_->MakeGlobalState(context, stats);
  }
  Result<std::unique_ptr<ThreadState>> MakeThreadState(GlobalState* global) const override {
    return inner_->MakeThreadState(global);
  }
  Status Consume(MorselOutput input, GlobalState* global, ThreadState* thread) const override {
    if (positioned_ != nullptr) {
      int64_t row = input.seq << 32;
      for (RecordBatch& b : input.batches) {
        const int64_t first = row;
        FLOTILLA_ASSIGN_OR_RETURN(Array position,
                                  Indices(b.num_rows(), [&](int64_t i) { return first + i; }));
        row += b.num_rows();
        std::vector<Array> columns = b.columns();
        columns.push_back(std::move(position));
        FLOTILLA_ASSIGN_OR_RETURN(b, RecordBatch::Make(positioned_, std::move(columns),
                                                       b.num_rows()));
      }
    }
    return inner_->Consume(std::move(input), global, thread);
  }
  Status Combine(GlobalState* global, ThreadState* thread) const override {
    return inner_->Combine(global, thread);
  }
  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    FLOTILLA_ASSIGN_OR_RETURN(auto source, inner_->Finalize(global));
    return std::unique_ptr<Source>(new ReorderSource(schema_, std::move(source), order_));
  }

 private:
  SchemaPtr schema_;
  PlanPtr aggregate_;  // the node the inner sink reads its parameters from
  std::unique_ptr<SinkOperator> inner_;
  std::vector<int> order_;
  SchemaPtr positioned_;  // the input schema plus the position column, when positions are kept
};

struct CrossBridge {
  RecordBatch right;
};

struct CrossBuildState final : GlobalState {
  std::mutex mutex;
  std::vector<std::pair<int64_t, RecordBatch>> batches;
};

class CrossJoinBuild final : public SinkOperator {
 public:
  CrossJoinBuild(SchemaPtr schema, std::shared_ptr<CrossBridge> bridge)
      : schema_(std::move(schema)), bridge_(std::move(bridge)) {}
  std::string name() const override { return "CrossJoinBuild"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext*,
                                                       OperatorStats*) const override {
    return std::unique_ptr<GlobalState>(new CrossBuildState());
  }
  Status Consume(MorselOutput input, GlobalState* global, ThreadState*) const override {
    auto* state = static_cast<CrossBuildState*>(global);
    std::lock_guard<std::mutex> lock(state->mutex);
    for (RecordBatch& b : input.batches)
      if (b.num_rows() > 0) state->batches.emplace_back(input.seq, std::move(b));
    return Status::OK();
  }
  Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const override {
    auto* state = static_cast<CrossBuildState*>(global);
    std::sort(state->batches.begin(), state->batches.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RecordBatch> batches;
    for (auto& [seq, b] : state->batches)
      batches.push_back(std::move(b));
    if (batches.empty()) {
      std::vector<Array> columns;
      for (const Field& f : schema_->fields()) {
        FLOTILLA_ASSIGN_OR_RETURN(Array empty, Array::MakeEmpty(f.type));
        columns.push_back(std::move(empty));
      }
      FLOTILLA_ASSIGN_OR_RETURN(bridge_->right, RecordBatch::Make(schema_, std::move(columns), 0));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(bridge_->right, ConcatBatches(batches));
    }
    return MakeBatchSource(schema_, {}, 1);
  }

 private:
  SchemaPtr schema_;
  std::shared_ptr<CrossBridge> bridge_;
};

class CrossJoinProbe final : public IntermediateOperator {
 public:
  CrossJoinProbe(SchemaPtr schema, std::shared_ptr<CrossBridge> bridge)
      : schema_(std::move(schema)), bridge_(std::move(bridge)) {}
  std::string name() const override { return "CrossJoinProbe"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Status Execute(const RecordBatch& input, GlobalState*, ThreadState*,
                 std::vector<RecordBatch>* out) const override {
    const RecordBatch& right = bridge_->right;
    const int64_t m = right.num_rows();
    if (m == 0) return Status::OK();
    // About 128K output rows per batch, at least one left row.
    const int64_t step = std::max<int64_t>(1, 131072 / m);
    for (int64_t start = 0; start < input.num_rows(); start += step) {
      const int64_t rows = std::min(step, input.num_rows() - start);
      FLOTILLA_ASSIGN_OR_RETURN(Array l,
                                Indices(rows * m, [&](int64_t i) { return start + i / m; }));
      FLOTILLA_ASSIGN_OR_RETURN(Array r, Indices(rows * m, [&](int64_t i) { return i % m; }));
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch left_rows, Take(input, l));
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch right_rows, Take(right, r));
      std::vector<Array> columns = left_rows.columns();
      for (const Array& c : right_rows.columns())
        columns.push_back(c);
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch,
                                RecordBatch::Make(schema_, std::move(columns), rows * m));
      out->push_back(std::move(batch));
    }
    return Status::OK();
  }

 private:
  SchemaPtr schema_;
  std::shared_ptr<CrossBridge> bridge_;
};

}  // namespace

Result<std::unique_ptr<SinkOperator>> MakeDistinctSink(const DistinctNode& node) {
  const Schema& schema = *node.schema();
  std::vector<std::string> keys = node.columns;
  if (keys.empty()) keys = schema.field_names();
  std::vector<expr::ExprPtr> group_by;
  for (const std::string& k : keys)
    group_by.push_back(expr::Column(k));
  std::vector<AggregateSpec> others;
  for (const Field& f : schema.fields()) {
    if (std::find(keys.begin(), keys.end(), f.name) != keys.end()) continue;
    others.push_back({"arg_min", {expr::Column(f.name), expr::Column(kPositionColumn)}, f.name});
  }
  // The aggregate binds against the input plus the position column the sink adds; the node
  // stands for that input only to give it a schema.
  PlanPtr input = node.children()[0];
  SchemaPtr positioned;
  if (!others.empty()) {
    std::vector<Field> fields = schema.fields();
    fields.push_back({kPositionColumn, int64(), false});
    positioned = std::make_shared<Schema>(std::move(fields));
    FLOTILLA_ASSIGN_OR_RETURN(input, MakeInMemorySource(positioned, std::vector<RecordBatch>{}));
  }
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr aggregate, MakeAggregate(input, group_by, others));
  FLOTILLA_ASSIGN_OR_RETURN(auto inner,
                            MakeAggregateSink(static_cast<const AggregateNode&>(*aggregate)));
  std::vector<int> order;
  for (const Field& f : schema.fields())
    order.push_back(aggregate->schema()->GetFieldIndex(f.name));
  return std::unique_ptr<SinkOperator>(
      new DistinctSink(node.schema(), std::move(aggregate), std::move(inner), std::move(order),
                       std::move(positioned)));
}

Result<JoinOperators> MakeCrossJoinOperators(const PlanNode& node) {
  auto bridge = std::make_shared<CrossBridge>();
  JoinOperators ops;
  ops.build = std::make_unique<CrossJoinBuild>(node.children()[1]->schema(), bridge);
  ops.probe = std::make_unique<CrossJoinProbe>(node.schema(), bridge);
  return ops;
}

}  // namespace flotilla::exec
