// Pivot: one row per group, one column per name, each holding the function over the group's
// rows whose pivot value (cast to utf8) is that name. It runs as a hash aggregation with one
// aggregate per name and the rows routed to them (aggregate.cc), so it shares that operator's
// memory budget and spilling.
//
// A name no row of a group matched gets what the function gives for an empty group: null for
// every function except the counts, which give 0. Rows whose pivot value is null or matches no
// name are ignored (their group still exists, so a group with only such rows gives a row of
// empty aggregates). Without group keys there is one group, so the output is one row even for
// empty input (as an ungrouped aggregate).
#include "flotilla/compute/cast.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"

namespace flotilla::exec {

Result<std::unique_ptr<SinkOperator>> MakePivotSink(const PivotNode& node) {
  const PlanPtr& input = node.children()[0];
  FLOTILLA_ASSIGN_OR_RETURN(auto pivot, expr::Bind(node.pivot_column, *input->schema()));
  FLOTILLA_ASSIGN_OR_RETURN(auto value, expr::Bind(node.value_column, *input->schema()));
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
  std::vector<AggregateSpec> aggregates;
  for (const std::string& name : node.names) {
    aggregates.push_back({node.function, {node.value_column}, name});
  }
  AggregateNode aggregate(node.schema(), input, node.group_by, std::move(aggregates),
                          AggregateMode::kSingle,
                          std::vector<std::vector<TypePtr>>(node.names.size(), argument_types));
  return MakeRoutedAggregateSink(aggregate, node.pivot_column, node.names);
}

}  // namespace flotilla::exec
