// Project and filter: expression evaluation over each morsel.
#include "flotilla/exec/operators/operators.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/predicate_filter.h"

namespace flotilla::exec {

namespace {

class ProjectOperator final : public IntermediateOperator {
 public:
  ProjectOperator(SchemaPtr schema, std::vector<expr::BoundExpression> expressions)
      : schema_(std::move(schema)), expressions_(std::move(expressions)) {}
  std::string name() const override { return "Project"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Status Execute(const RecordBatch& input, GlobalState*, ThreadState*,
                 std::vector<RecordBatch>* out) const override {
    std::vector<Array> columns;
    columns.reserve(expressions_.size());
    for (const auto& e : expressions_) {
      FLOTILLA_ASSIGN_OR_RETURN(expr::Datum value, expr::Evaluate(e, input));
      FLOTILLA_ASSIGN_OR_RETURN(Array column, value.ToColumn(input.num_rows()));
      columns.push_back(std::move(column));
    }
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch,
                              RecordBatch::Make(schema_, std::move(columns), input.num_rows()));
    out->push_back(std::move(batch));
    return Status::OK();
  }

 private:
  SchemaPtr schema_;
  std::vector<expr::BoundExpression> expressions_;
};

class FilterOperator final : public IntermediateOperator {
 public:
  FilterOperator(SchemaPtr schema, expr::PredicateFilter predicate)
      : schema_(std::move(schema)), predicate_(std::move(predicate)) {}
  std::string name() const override { return "Filter"; }
  const SchemaPtr& output_schema() const override { return schema_; }

  Status Execute(const RecordBatch& input, GlobalState*, ThreadState*,
                 std::vector<RecordBatch>* out) const override {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch filtered, predicate_.Apply(input));
    if (filtered.num_rows() > 0) out->push_back(std::move(filtered));
    return Status::OK();
  }

 private:
  SchemaPtr schema_;
  expr::PredicateFilter predicate_;
};

}  // namespace

Result<std::unique_ptr<IntermediateOperator>> MakeProjectOperator(const ProjectNode& node) {
  const Schema& input = *node.children()[0]->schema();
  std::vector<expr::BoundExpression> bound;
  for (const auto& e : node.expressions) {
    FLOTILLA_ASSIGN_OR_RETURN(auto b, expr::Bind(e, input));
    bound.push_back(std::move(b));
  }
  return std::unique_ptr<IntermediateOperator>(
      new ProjectOperator(node.schema(), std::move(bound)));
}

Result<std::unique_ptr<IntermediateOperator>> MakeFilterOperator(const FilterNode& node) {
  FLOTILLA_ASSIGN_OR_RETURN(auto predicate,
                            expr::PredicateFilter::Make(node.predicate, *node.schema()));
  return std::unique_ptr<IntermediateOperator>(
      new FilterOperator(node.schema(), std::move(predicate)));
}

}  // namespace flotilla::exec
