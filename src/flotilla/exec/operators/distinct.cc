// Distinct: an aggregation grouped by the distinct columns.
//
// Distinct over a subset of the columns keeps, of each key's rows, the first in input order. The
// sink tags every row with its input position (morsel sequence number << 32 + row) and the other
// columns are arg_min(column, position): right whatever thread or spill partition saw the row,
// and for columns of any type.
#include "flotilla/compute/take.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/exec/pipeline/exec_context.h"

namespace flotilla::exec {

namespace {

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
        FLOTILLA_ASSIGN_OR_RETURN(
            Array position,
            compute::TakeIndices(b.num_rows(), [&](int64_t i) { return first + i; }));
        row += b.num_rows();
        std::vector<Array> columns = b.columns();
        columns.push_back(std::move(position));
        FLOTILLA_ASSIGN_OR_RETURN(b,
                                  RecordBatch::Make(positioned_, std::move(columns), b.num_rows()));
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
  return std::unique_ptr<SinkOperator>(new DistinctSink(node.schema(), std::move(aggregate),
                                                        std::move(inner), std::move(order),
                                                        std::move(positioned)));
}

}  // namespace flotilla::exec
