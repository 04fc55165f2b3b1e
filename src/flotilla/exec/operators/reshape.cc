// Row-reshaping streaming operators: explode, unpivot, sample by fraction, and the UDF project.
#include "flotilla/compute/explode.h"
#include "flotilla/compute/sample.h"
#include "flotilla/compute/unpivot.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"

namespace flotilla::exec {

namespace {

/// An operator that is one batch function.
class BatchOperator final : public IntermediateOperator {
 public:
  using Function = std::function<Result<RecordBatch>(const RecordBatch& input)>;
  BatchOperator(std::string name, SchemaPtr schema, Function function)
      : name_(std::move(name)), schema_(std::move(schema)), function_(std::move(function)) {}
  std::string name() const override { return name_; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Status Execute(const RecordBatch& input, GlobalState*, ThreadState*,
                 std::vector<RecordBatch>* out) const override {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, function_(input));
    if (batch.num_rows() > 0) out->push_back(std::move(batch));
    return Status::OK();
  }

 private:
  std::string name_;
  SchemaPtr schema_;
  Function function_;
};

std::vector<int> Indices(const Schema& schema, const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const std::string& name : names)
    out.push_back(schema.GetFieldIndex(name));
  return out;
}

/// Each morsel draws from its own random stream, keyed by its sequence number: the same seed and
/// morsel size give the same sample with any number of threads.
class SampleOperator final : public IntermediateOperator {
 public:
  SampleOperator(SchemaPtr schema, double fraction, bool with_replacement, uint64_t seed)
      : schema_(std::move(schema)),
        fraction_(fraction),
        with_replacement_(with_replacement),
        seed_(seed) {}
  std::string name() const override { return "Sample"; }
  const SchemaPtr& output_schema() const override { return schema_; }
  Status Execute(const RecordBatch& input, GlobalState* global, ThreadState* thread,
                 std::vector<RecordBatch>* out) const override {
    return ExecuteSequenced(input, 0, global, thread, out);
  }
  Status ExecuteSequenced(const RecordBatch& input, int64_t seq, GlobalState*, ThreadState*,
                          std::vector<RecordBatch>* out) const override {
    FLOTILLA_ASSIGN_OR_RETURN(
        RecordBatch sampled,
        compute::SampleFraction(input, fraction_, with_replacement_, seed_, seq));
    if (sampled.num_rows() > 0) out->push_back(std::move(sampled));
    return Status::OK();
  }

 private:
  SchemaPtr schema_;
  double fraction_;
  bool with_replacement_;
  uint64_t seed_;
};

class UdfOperator final : public IntermediateOperator {
 public:
  UdfOperator(const UdfProjectNode& node, std::vector<expr::BoundExpression> arguments,
              std::vector<int> passthrough)
      : node_(node), arguments_(std::move(arguments)), passthrough_(std::move(passthrough)) {}
  std::string name() const override {
    return node_.concurrency > 0 ? "ActorPoolProject" : "UdfProject";
  }
  const SchemaPtr& output_schema() const override { return node_.schema(); }
  Status Execute(const RecordBatch& input, GlobalState*, ThreadState*,
                 std::vector<RecordBatch>* out) const override {
    std::vector<Array> args;
    for (const auto& a : arguments_) {
      FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(a, input));
      FLOTILLA_ASSIGN_OR_RETURN(Array column, d.ToColumn(input.num_rows()));
      args.push_back(std::move(column));
    }
    auto result = node_.function(args);
    const std::string where = "UDF '" + node_.function_name + "' on a batch of " +
                              std::to_string(input.num_rows()) + " rows";
    if (!result.ok()) return result.status().WithContext(where);
    if (result->length() != input.num_rows() || !result->type()->Equals(*node_.return_type)) {
      return Status::Invalid(where + " returned " + std::to_string(result->length()) + " rows of " +
                             result->type()->ToString() + "; it must return " +
                             std::to_string(input.num_rows()) + " rows of " +
                             node_.return_type->ToString());
    }
    std::vector<Array> columns;
    for (int i : passthrough_)
      columns.push_back(input.column(i));
    columns.push_back(std::move(result).ValueOrDie());
    FLOTILLA_ASSIGN_OR_RETURN(
        RecordBatch batch, RecordBatch::Make(node_.schema(), std::move(columns), input.num_rows()));
    out->push_back(std::move(batch));
    return Status::OK();
  }

 private:
  const UdfProjectNode& node_;
  std::vector<expr::BoundExpression> arguments_;
  std::vector<int> passthrough_;
};

}  // namespace

Result<std::unique_ptr<IntermediateOperator>> MakeExplodeOperator(const ExplodeNode& node) {
  std::vector<int> columns = Indices(*node.children()[0]->schema(), node.columns);
  SchemaPtr schema = node.schema();
  return std::unique_ptr<IntermediateOperator>(new BatchOperator(
      "Explode", schema, [columns, schema](const RecordBatch& input) -> Result<RecordBatch> {
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch exploded, compute::Explode(input, columns));
        // The kernel names and types the columns as the plan does; adopt the plan's schema
        // object (nullability may differ).
        return RecordBatch::Make(schema, exploded.columns(), exploded.num_rows());
      }));
}

Result<std::unique_ptr<IntermediateOperator>> MakeUnpivotOperator(const UnpivotNode& node) {
  const Schema& input = *node.children()[0]->schema();
  std::vector<int> ids = Indices(input, node.ids);
  std::vector<int> values = Indices(input, node.values);
  SchemaPtr schema = node.schema();
  const std::string variable = node.variable_name;
  const std::string value = node.value_name;
  return std::unique_ptr<IntermediateOperator>(
      new BatchOperator("Unpivot", schema, [=](const RecordBatch& batch) -> Result<RecordBatch> {
        FLOTILLA_ASSIGN_OR_RETURN(RecordBatch out,
                                  compute::Unpivot(batch, ids, values, variable, value));
        return RecordBatch::Make(schema, out.columns(), out.num_rows());
      }));
}

Result<std::unique_ptr<IntermediateOperator>> MakeSampleFractionOperator(const SampleNode& node) {
  return std::unique_ptr<IntermediateOperator>(
      new SampleOperator(node.schema(), *node.fraction, node.with_replacement, node.seed));
}

Result<std::unique_ptr<IntermediateOperator>> MakeUdfProjectOperator(const UdfProjectNode& node) {
  const Schema& input = *node.children()[0]->schema();
  std::vector<expr::BoundExpression> arguments;
  for (const auto& a : node.arguments) {
    FLOTILLA_ASSIGN_OR_RETURN(auto b, expr::Bind(a, input));
    arguments.push_back(std::move(b));
  }
  return std::unique_ptr<IntermediateOperator>(
      new UdfOperator(node, std::move(arguments), Indices(input, node.passthrough)));
}

}  // namespace flotilla::exec
