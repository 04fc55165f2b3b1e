#include "flotilla/exec/plan/physical_plan.h"

#include <functional>
#include <set>

#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"

namespace flotilla::exec {

namespace {

Status NodeError(const char* node, const Status& status) {
  return status.WithContext(std::string("building ") + node);
}

std::string JoinTexts(const std::vector<expr::ExprPtr>& expressions) {
  std::string out;
  for (size_t i = 0; i < expressions.size(); ++i) {
    if (i > 0) out += ", ";
    out += expressions[i]->ToString();
  }
  return out;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i > 0 ? ", " : "") + names[i];
  return out;
}

/// The output field of each expression bound against `schema`.
Result<std::vector<Field>> BindFields(const std::vector<expr::ExprPtr>& expressions,
                                      const Schema& schema) {
  std::vector<Field> fields;
  for (const auto& e : expressions) {
    FLOTILLA_ASSIGN_OR_RETURN(expr::BoundExpression bound, expr::Bind(e, schema));
    fields.push_back(Field{bound.name, bound.type(), true});
  }
  return fields;
}

Status CheckDistinctNames(const std::vector<Field>& fields) {
  std::set<std::string> seen;
  for (const Field& f : fields) {
    if (!seen.insert(f.name).second) {
      return Status::Invalid("the output has two columns called '" + f.name +
                             "'; give one of them another name with an alias");
    }
  }
  return Status::OK();
}

Status CheckColumns(const Schema& schema, const std::vector<std::string>& names) {
  for (const std::string& name : names)
    FLOTILLA_RETURN_NOT_OK(schema.FindField(name).status());
  return Status::OK();
}

Status CheckSortKeys(const Schema& schema, const std::vector<SortSpec>& keys) {
  for (const SortSpec& key : keys) {
    FLOTILLA_ASSIGN_OR_RETURN(expr::BoundExpression bound, expr::Bind(key.key, schema));
    FLOTILLA_RETURN_NOT_OK(compute::internal::CheckSortable(*bound.type(), bound.name));
  }
  return Status::OK();
}

}  // namespace

const char* PlanKindName(PlanKind kind) {
  switch (kind) {
    case PlanKind::kInMemorySource:
      return "InMemorySource";
    case PlanKind::kScan:
      return "Scan";
    case PlanKind::kProject:
      return "Project";
    case PlanKind::kFilter:
      return "Filter";
    case PlanKind::kLimit:
      return "Limit";
    case PlanKind::kSample:
      return "Sample";
    case PlanKind::kExplode:
      return "Explode";
    case PlanKind::kUnpivot:
      return "Unpivot";
    case PlanKind::kConcat:
      return "Concat";
    case PlanKind::kMonotonicId:
      return "MonotonicallyIncreasingId";
    case PlanKind::kAggregate:
      return "Aggregate";
    case PlanKind::kDistinct:
      return "Distinct";
    case PlanKind::kHashJoin:
      return "HashJoin";
    case PlanKind::kCrossJoin:
      return "CrossJoin";
    case PlanKind::kSortMergeJoin:
      return "SortMergeJoin";
    case PlanKind::kSort:
      return "Sort";
    case PlanKind::kTopN:
      return "TopN";
    case PlanKind::kWindow:
      return "Window";
    case PlanKind::kPivot:
      return "Pivot";
    case PlanKind::kRepartition:
      return "Repartition";
    case PlanKind::kUdfProject:
      return "UdfProject";
  }
  return "?";
}

const char* AggregateModeName(AggregateMode mode) {
  switch (mode) {
    case AggregateMode::kSingle:
      return "single";
    case AggregateMode::kPartial:
      return "partial";
    case AggregateMode::kFinal:
      return "final";
  }
  return "?";
}

const char* JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner:
      return "inner";
    case JoinType::kLeft:
      return "left";
    case JoinType::kRight:
      return "right";
    case JoinType::kFull:
      return "full";
    case JoinType::kSemi:
      return "semi";
    case JoinType::kAnti:
      return "anti";
    case JoinType::kRightSemi:
      return "right semi";
    case JoinType::kRightAnti:
      return "right anti";
  }
  return "?";
}

const char* PartitionSchemeName(PartitionScheme scheme) {
  switch (scheme) {
    case PartitionScheme::kHash:
      return "hash";
    case PartitionScheme::kRandom:
      return "random";
    case PartitionScheme::kRange:
      return "range";
    case PartitionScheme::kInto:
      return "into";
  }
  return "?";
}

std::string PlanToString(const PlanNode& root) {
  std::string out;
  std::function<void(const PlanNode&, int)> visit = [&](const PlanNode& node, int depth) {
    out += std::string(static_cast<size_t>(depth) * 2, ' ') + node.Describe() + "\n";
    for (const PlanPtr& child : node.children())
      visit(*child, depth + 1);
  };
  visit(root, 0);
  return out;
}

std::string SortSpecsToString(const std::vector<SortSpec>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) out += ", ";
    out += keys[i].key->ToString() + (keys[i].ascending ? " ASC" : " DESC") +
           (keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  return out;
}

// --- Describe -----------------------------------------------------------------------------------

std::string InMemorySourceNode::Describe() const {
  int64_t rows = 0;
  for (const MicroPartition& p : partitions)
    rows += p.num_rows();
  return "InMemorySource: " + std::to_string(partitions.size()) + " partition(s), " +
         std::to_string(rows) + " rows";
}
std::string ScanNode::Describe() const {
  std::string out = "Scan: " + std::to_string(tasks.size()) + " task(s)";
  if (!tasks.empty())
    out += " [" + tasks.front()->ToString() + (tasks.size() > 1 ? ", ..." : "") + "]";
  const std::string pushed = pushdowns.ToString();
  return pushed.empty() ? out : out + " " + pushed;
}
std::string ProjectNode::Describe() const {
  return "Project: " + JoinTexts(expressions);
}
std::string FilterNode::Describe() const {
  return "Filter: " + predicate->ToString();
}
std::string LimitNode::Describe() const {
  return "Limit: " + (limit < 0 ? std::string("all") : std::to_string(limit)) +
         (offset > 0 ? " offset " + std::to_string(offset) : "");
}
std::string SampleNode::Describe() const {
  return "Sample: " +
         (fraction ? "fraction " + std::to_string(*fraction) : "size " + std::to_string(*size)) +
         (with_replacement ? " with replacement" : "") + " seed " + std::to_string(seed);
}
std::string ExplodeNode::Describe() const {
  return "Explode: " + JoinNames(columns);
}
std::string UnpivotNode::Describe() const {
  return "Unpivot: ids [" + JoinNames(ids) + "] values [" + JoinNames(values) + "] -> " +
         variable_name + ", " + value_name;
}
std::string ConcatNode::Describe() const {
  return "Concat: " + std::to_string(children().size()) + " inputs";
}
std::string MonotonicIdNode::Describe() const {
  std::string out = "MonotonicallyIncreasingId: " + column_name;
  if (first_partition > 0) out += " from partition " + std::to_string(first_partition);
  return out;
}
std::string UdfProjectNode::Describe() const {
  const std::string call = output_name + " = " + function_name + "(" + JoinTexts(arguments) + ")";
  if (concurrency > 0)
    return "ActorPoolProject (" + std::to_string(concurrency) + " instances): " + call;
  return "UdfProject: " + call;
}
std::string AggregateNode::Describe() const {
  std::string out = std::string("Aggregate (") + AggregateModeName(mode) + "): ";
  for (size_t i = 0; i < aggregates.size(); ++i) {
    if (i > 0) out += ", ";
    out += aggregates[i].function + "(" + JoinTexts(aggregates[i].arguments) + ") AS " +
           aggregates[i].name;
  }
  if (!group_by.empty()) out += " BY " + JoinTexts(group_by);
  return out;
}
std::string DistinctNode::Describe() const {
  return "Distinct" + (columns.empty() ? std::string() : ": " + JoinNames(columns));
}
std::string PivotNode::Describe() const {
  return "Pivot: " + function + "(" + value_column->ToString() + ") FOR " +
         pivot_column->ToString() + " IN (" + JoinNames(names) + ") BY " + JoinTexts(group_by);
}
std::string JoinNode::Describe() const {
  std::string out = std::string(PlanKindName(kind())) + " (" + JoinTypeName(type) + "): ";
  for (size_t i = 0; i < left_keys.size(); ++i) {
    if (i > 0) out += " AND ";
    out += left_keys[i]->ToString() + (null_equal[i] ? " <=> " : " = ") + right_keys[i]->ToString();
  }
  if (residual != nullptr) out += " AND " + residual->ToString();
  return out;
}
std::string SortNode::Describe() const {
  return "Sort: " + SortSpecsToString(keys);
}
std::string TopNNode::Describe() const {
  return "TopN: " + std::to_string(limit) +
         (offset > 0 ? " offset " + std::to_string(offset) : "") + " by " + SortSpecsToString(keys);
}
std::string WindowNode::Describe() const {
  std::string out = "Window: ";
  for (size_t i = 0; i < functions.size(); ++i) {
    if (i > 0) out += ", ";
    out += functions[i].function + "(" + JoinTexts(functions[i].arguments) + ") AS " +
           functions[i].output_name;
  }
  if (!partition_by.empty()) out += " PARTITION BY " + JoinTexts(partition_by);
  if (!order_by.empty()) out += " ORDER BY " + SortSpecsToString(order_by);
  return out;
}
std::string RepartitionNode::Describe() const {
  std::string out = std::string("Repartition (") + PartitionSchemeName(scheme) +
                    "): " + (num_partitions > 0 ? std::to_string(num_partitions) : "runner's") +
                    " partitions";
  if (!keys.empty()) out += " by " + JoinTexts(keys);
  if (!sort_keys.empty()) out += " by " + SortSpecsToString(sort_keys);
  if (boundaries) out += " at " + std::to_string(boundaries->num_rows()) + " given boundaries";
  return out;
}

// --- Factories ----------------------------------------------------------------------------------

Result<PlanPtr> MakeInMemorySource(SchemaPtr schema, std::vector<MicroPartition> partitions) {
  for (size_t i = 0; i < partitions.size(); ++i) {
    if (!partitions[i].is_loaded()) {
      FLOTILLA_ASSIGN_OR_RETURN(partitions[i], partitions[i].Load());
    }
    if (!partitions[i].schema()->Equals(*schema)) {
      return Status::Invalid("in-memory source: partition " + std::to_string(i) + " has schema\n" +
                             partitions[i].schema()->ToString() + "\nexpected\n" +
                             schema->ToString());
    }
  }
  return PlanPtr(std::make_shared<InMemorySourceNode>(std::move(schema), std::move(partitions)));
}

Result<PlanPtr> MakeInMemorySource(SchemaPtr schema, std::vector<RecordBatch> batches) {
  FLOTILLA_ASSIGN_OR_RETURN(MicroPartition partition,
                            MicroPartition::FromBatches(schema, std::move(batches)));
  std::vector<MicroPartition> partitions;
  partitions.push_back(std::move(partition));
  return MakeInMemorySource(std::move(schema), std::move(partitions));
}

Result<PlanPtr> MakeScan(SchemaPtr file_schema, std::vector<std::shared_ptr<const ScanTask>> tasks,
                         ScanPushdowns pushdowns) {
  SchemaPtr schema = file_schema;
  if (pushdowns.columns) {
    std::vector<Field> fields;
    for (const std::string& name : *pushdowns.columns) {
      auto index = file_schema->FindField(name);
      if (!index.ok()) return NodeError("Scan", index.status());
      fields.push_back(file_schema->field(*index));
    }
    schema = std::make_shared<Schema>(std::move(fields));
  }
  if (pushdowns.filter != nullptr) {
    auto bound = expr::Bind(pushdowns.filter, *file_schema);
    if (!bound.ok()) return NodeError("Scan filter", bound.status());
  }
  return PlanPtr(std::make_shared<ScanNode>(std::move(schema), std::move(file_schema),
                                            std::move(tasks), std::move(pushdowns)));
}

Result<PlanPtr> MakeProject(PlanPtr input, std::vector<expr::ExprPtr> expressions) {
  auto fields = BindFields(expressions, *input->schema());
  if (!fields.ok()) return NodeError("Project", fields.status());
  FLOTILLA_RETURN_NOT_OK(NodeError("Project", CheckDistinctNames(*fields)));
  return PlanPtr(std::make_shared<ProjectNode>(std::make_shared<Schema>(std::move(*fields)),
                                               std::move(input), std::move(expressions)));
}

Result<PlanPtr> MakeFilter(PlanPtr input, expr::ExprPtr predicate) {
  auto bound = expr::Bind(predicate, *input->schema());
  if (!bound.ok()) return NodeError("Filter", bound.status());
  if (bound->type()->id() != TypeId::kBool && bound->type()->id() != TypeId::kNull) {
    return Status::TypeError("a filter predicate must be boolean, got " +
                             bound->type()->ToString() + " for `" + predicate->ToString() + "`");
  }
  return PlanPtr(std::make_shared<FilterNode>(std::move(input), std::move(predicate)));
}

Result<PlanPtr> MakeLimit(PlanPtr input, int64_t limit, int64_t offset) {
  if (offset < 0) return Status::Invalid("limit: the offset must not be negative");
  return PlanPtr(std::make_shared<LimitNode>(std::move(input), limit, offset));
}

Result<PlanPtr> MakeSampleFraction(PlanPtr input, double fraction, bool with_replacement,
                                   uint64_t seed) {
  if (!(fraction >= 0) || (!with_replacement && fraction > 1)) {
    return Status::Invalid(
        "sample: the fraction must be in [0, 1] (any non-negative value with "
        "replacement), got " +
        std::to_string(fraction));
  }
  return PlanPtr(std::make_shared<SampleNode>(std::move(input), fraction, std::nullopt,
                                              with_replacement, seed));
}

Result<PlanPtr> MakeSampleSize(PlanPtr input, int64_t size, bool with_replacement, uint64_t seed) {
  if (size < 0) return Status::Invalid("sample: the size must not be negative");
  return PlanPtr(
      std::make_shared<SampleNode>(std::move(input), std::nullopt, size, with_replacement, seed));
}

Result<PlanPtr> MakeExplode(PlanPtr input, std::vector<std::string> columns) {
  if (columns.empty()) return Status::Invalid("explode needs at least one column");
  std::vector<Field> fields = input->schema()->fields();
  for (const std::string& name : columns) {
    auto index = input->schema()->FindField(name);
    if (!index.ok()) return NodeError("Explode", index.status());
    const TypePtr& type = fields[static_cast<size_t>(*index)].type;
    if (type->id() != TypeId::kList && type->id() != TypeId::kFixedSizeList) {
      return Status::TypeError("explode: column '" + name + "' is " + type->ToString() +
                               ", not a list");
    }
    fields[static_cast<size_t>(*index)] = Field{name, type->value_type(), true};
  }
  return PlanPtr(std::make_shared<ExplodeNode>(std::make_shared<Schema>(std::move(fields)),
                                               std::move(input), std::move(columns)));
}

Result<PlanPtr> MakeUnpivot(PlanPtr input, std::vector<std::string> ids,
                            std::vector<std::string> values, std::string variable_name,
                            std::string value_name) {
  if (values.empty()) return Status::Invalid("unpivot needs at least one value column");
  const Schema& in = *input->schema();
  if (auto s = CheckColumns(in, ids); !s.ok()) return NodeError("Unpivot", s);
  if (auto s = CheckColumns(in, values); !s.ok()) return NodeError("Unpivot", s);
  std::vector<Field> fields;
  for (const std::string& id : ids)
    fields.push_back(in.field(in.GetFieldIndex(id)));
  fields.push_back(Field{variable_name, utf8(), false});
  TypePtr value_type = in.field(in.GetFieldIndex(values[0])).type;
  for (const std::string& v : values) {
    const TypePtr& t = in.field(in.GetFieldIndex(v)).type;
    if (!t->Equals(*value_type)) {
      return Status::TypeError("unpivot: value columns must share one type; '" + values[0] +
                               "' is " + value_type->ToString() + " and '" + v + "' is " +
                               t->ToString() + " (cast them first)");
    }
  }
  fields.push_back(Field{value_name, value_type, true});
  FLOTILLA_RETURN_NOT_OK(NodeError("Unpivot", CheckDistinctNames(fields)));
  return PlanPtr(std::make_shared<UnpivotNode>(std::make_shared<Schema>(std::move(fields)),
                                               std::move(input), std::move(ids), std::move(values),
                                               std::move(variable_name), std::move(value_name)));
}

Result<PlanPtr> MakeConcat(std::vector<PlanPtr> inputs) {
  if (inputs.empty()) return Status::Invalid("concat needs at least one input");
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (!inputs[i]->schema()->Equals(*inputs[0]->schema())) {
      return Status::TypeError("concat: input " + std::to_string(i) + " has schema\n" +
                               inputs[i]->schema()->ToString() + "\nbut input 0 has\n" +
                               inputs[0]->schema()->ToString());
    }
  }
  SchemaPtr schema = inputs[0]->schema();
  return PlanPtr(std::make_shared<ConcatNode>(std::move(schema), std::move(inputs)));
}

Result<PlanPtr> MakeMonotonicId(PlanPtr input, std::string column_name, int64_t first_partition) {
  std::vector<Field> fields = input->schema()->fields();
  fields.push_back(Field{column_name, int64(), false});
  FLOTILLA_RETURN_NOT_OK(NodeError("MonotonicallyIncreasingId", CheckDistinctNames(fields)));
  // Partition p's ids start at p * 2^36: beyond 2^27 partitions they would overflow.
  if (first_partition < 0 || first_partition >= (int64_t{1} << 27)) {
    return Status::Invalid("MonotonicallyIncreasingId: first partition " +
                           std::to_string(first_partition) + " is out of range");
  }
  return PlanPtr(std::make_shared<MonotonicIdNode>(std::make_shared<Schema>(std::move(fields)),
                                                   std::move(input), std::move(column_name),
                                                   first_partition));
}

Result<PlanPtr> MakeUdfProject(PlanPtr input, std::string function_name, BatchFunction function,
                               std::vector<expr::ExprPtr> arguments,
                               std::vector<std::string> passthrough, std::string output_name,
                               TypePtr return_type, int concurrency) {
  if (!function) return Status::Invalid("UDF '" + function_name + "' has no function");
  if (concurrency < 0)
    return Status::Invalid("UDF '" + function_name + "': concurrency must be >= 0");
  auto arg_fields = BindFields(arguments, *input->schema());
  if (!arg_fields.ok()) return NodeError("UdfProject", arg_fields.status());
  const Schema& in = *input->schema();
  if (auto s = CheckColumns(in, passthrough); !s.ok()) return NodeError("UdfProject", s);
  std::vector<Field> fields;
  for (const std::string& name : passthrough)
    fields.push_back(in.field(in.GetFieldIndex(name)));
  fields.push_back(Field{output_name, return_type, true});
  FLOTILLA_RETURN_NOT_OK(NodeError("UdfProject", CheckDistinctNames(fields)));
  return PlanPtr(std::make_shared<UdfProjectNode>(
      std::make_shared<Schema>(std::move(fields)), std::move(input), std::move(function_name),
      std::move(function), std::move(arguments), std::move(passthrough), std::move(output_name),
      std::move(return_type), concurrency));
}

namespace {

/// Argument types of each aggregate over `schema`.
Result<std::vector<std::vector<TypePtr>>> AggregateArgumentTypes(
    const std::vector<AggregateSpec>& aggregates, const Schema& schema) {
  std::vector<std::vector<TypePtr>> types;
  for (const AggregateSpec& spec : aggregates) {
    auto fields = BindFields(spec.arguments, schema);
    if (!fields.ok()) return fields.status().WithContext("in " + spec.function + "()");
    std::vector<TypePtr> t;
    for (const Field& f : *fields)
      t.push_back(f.type);
    types.push_back(std::move(t));
  }
  return types;
}

}  // namespace

Result<PlanPtr> MakeAggregate(PlanPtr input, std::vector<expr::ExprPtr> group_by,
                              std::vector<AggregateSpec> aggregates, AggregateMode mode) {
  if (mode == AggregateMode::kFinal) {
    return Status::Invalid("use MakeFinalAggregate for the final phase of an aggregation");
  }
  const Schema& in = *input->schema();
  auto key_fields = BindFields(group_by, in);
  if (!key_fields.ok()) return NodeError("Aggregate", key_fields.status());
  auto arg_types = AggregateArgumentTypes(aggregates, in);
  if (!arg_types.ok()) return NodeError("Aggregate", arg_types.status());
  std::vector<Field> fields = std::move(*key_fields);
  for (size_t i = 0; i < aggregates.size(); ++i) {
    auto function = expr::DefaultAggregateRegistry().Find(aggregates[i].function);
    if (!function.ok()) return NodeError("Aggregate", function.status());
    const std::vector<TypePtr>& types = (*arg_types)[i];
    if (static_cast<int>(types.size()) < (*function)->min_args ||
        static_cast<int>(types.size()) > (*function)->max_args) {
      return Status::TypeError(aggregates[i].function + "() takes " +
                               std::to_string((*function)->min_args) + " to " +
                               std::to_string((*function)->max_args) + " arguments, got " +
                               std::to_string(types.size()));
    }
    if (mode == AggregateMode::kSingle) {
      auto type = (*function)->resolve(types);
      if (!type.ok()) return NodeError("Aggregate", type.status());
      fields.push_back(Field{aggregates[i].name, *type, true});
    } else {
      auto state = (*function)->state_types(types);
      if (!state.ok()) return NodeError("Aggregate", state.status());
      for (size_t s = 0; s < state->size(); ++s) {
        fields.push_back(Field{aggregates[i].name + "." + std::to_string(s), (*state)[s], true});
      }
    }
  }
  FLOTILLA_RETURN_NOT_OK(NodeError("Aggregate", CheckDistinctNames(fields)));
  return PlanPtr(std::make_shared<AggregateNode>(
      std::make_shared<Schema>(std::move(fields)), std::move(input), std::move(group_by),
      std::move(aggregates), mode, std::move(*arg_types)));
}

Result<PlanPtr> MakeFinalAggregate(PlanPtr input, const AggregateNode& partial) {
  if (partial.mode != AggregateMode::kPartial) {
    return Status::Invalid("MakeFinalAggregate needs a partial aggregate");
  }
  if (!input->schema()->Equals(*partial.schema())) {
    return Status::TypeError("final aggregate: the input schema\n" + input->schema()->ToString() +
                             "\nis not the partial aggregate's\n" + partial.schema()->ToString());
  }
  const Schema& partial_schema = *partial.children()[0]->schema();
  auto key_fields = BindFields(partial.group_by, partial_schema);
  if (!key_fields.ok()) return NodeError("Aggregate", key_fields.status());
  std::vector<Field> fields = std::move(*key_fields);
  std::vector<expr::ExprPtr> keys;
  for (size_t k = 0; k < fields.size(); ++k)
    keys.push_back(expr::Column(fields[k].name));
  for (size_t i = 0; i < partial.aggregates.size(); ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(
        auto function, expr::DefaultAggregateRegistry().Find(partial.aggregates[i].function));
    FLOTILLA_ASSIGN_OR_RETURN(TypePtr type, function->resolve(partial.argument_types[i]));
    fields.push_back(Field{partial.aggregates[i].name, type, true});
  }
  return PlanPtr(std::make_shared<AggregateNode>(
      std::make_shared<Schema>(std::move(fields)), std::move(input), std::move(keys),
      partial.aggregates, AggregateMode::kFinal, partial.argument_types));
}

Result<PlanPtr> MakeDistinct(PlanPtr input, std::vector<std::string> columns) {
  if (auto s = CheckColumns(*input->schema(), columns); !s.ok()) return NodeError("Distinct", s);
  return PlanPtr(std::make_shared<DistinctNode>(std::move(input), std::move(columns)));
}

Result<PlanPtr> MakePivot(PlanPtr input, std::vector<expr::ExprPtr> group_by,
                          expr::ExprPtr pivot_column, expr::ExprPtr value_column,
                          std::string function, std::vector<std::string> names) {
  const Schema& in = *input->schema();
  auto key_fields = BindFields(group_by, in);
  if (!key_fields.ok()) return NodeError("Pivot", key_fields.status());
  auto pivot = expr::Bind(pivot_column, in);
  if (!pivot.ok()) return NodeError("Pivot", pivot.status());
  auto value = expr::Bind(value_column, in);
  if (!value.ok()) return NodeError("Pivot", value.status());
  FLOTILLA_ASSIGN_OR_RETURN(auto aggregate, expr::DefaultAggregateRegistry().Find(function));
  auto type = aggregate->resolve({value->type()});
  if (!type.ok()) return NodeError("Pivot", type.status());
  std::vector<Field> fields = std::move(*key_fields);
  for (const std::string& name : names)
    fields.push_back(Field{name, *type, true});
  FLOTILLA_RETURN_NOT_OK(NodeError("Pivot", CheckDistinctNames(fields)));
  return PlanPtr(std::make_shared<PivotNode>(
      std::make_shared<Schema>(std::move(fields)), std::move(input), std::move(group_by),
      std::move(pivot_column), std::move(value_column), std::move(function), std::move(names)));
}

SchemaPtr JoinOutputSchema(const Schema& left, const Schema& right, JoinType type) {
  std::vector<Field> fields = left.fields();
  if (type == JoinType::kSemi || type == JoinType::kAnti) {
    return std::make_shared<Schema>(std::move(fields));
  }
  if (type == JoinType::kRightSemi || type == JoinType::kRightAnti) {
    return std::make_shared<Schema>(right.fields());
  }
  std::set<std::string> taken;
  for (const Field& f : fields)
    taken.insert(f.name);
  for (Field f : right.fields()) {
    while (taken.count(f.name))
      f.name = "right." + f.name;
    taken.insert(f.name);
    fields.push_back(std::move(f));
  }
  // Outer joins fill the other side with nulls.
  if (type == JoinType::kRight || type == JoinType::kFull) {
    for (size_t i = 0; i < static_cast<size_t>(left.num_fields()); ++i)
      fields[i].nullable = true;
  }
  if (type == JoinType::kLeft || type == JoinType::kFull) {
    for (size_t i = static_cast<size_t>(left.num_fields()); i < fields.size(); ++i)
      fields[i].nullable = true;
  }
  return std::make_shared<Schema>(std::move(fields));
}

namespace {

Result<PlanPtr> MakeEquiJoin(PlanKind kind, const char* what, PlanPtr left, PlanPtr right,
                             std::vector<expr::ExprPtr> left_keys,
                             std::vector<expr::ExprPtr> right_keys, JoinType type,
                             expr::ExprPtr residual, std::vector<bool> null_equal,
                             JoinStrategy strategy = JoinStrategy::kAuto) {
  if (left_keys.size() != right_keys.size() || left_keys.empty()) {
    return Status::Invalid(std::string(what) + ": needs as many left keys as right keys (" +
                           std::to_string(left_keys.size()) + " and " +
                           std::to_string(right_keys.size()) + "), at least one");
  }
  if (null_equal.empty()) null_equal.assign(left_keys.size(), false);
  if (null_equal.size() != left_keys.size()) {
    return Status::Invalid(std::string(what) + ": null_equal needs one flag per key");
  }
  auto lf = BindFields(left_keys, *left->schema());
  if (!lf.ok()) return NodeError(what, lf.status().WithContext("left key"));
  auto rf = BindFields(right_keys, *right->schema());
  if (!rf.ok()) return NodeError(what, rf.status().WithContext("right key"));
  for (size_t i = 0; i < lf->size(); ++i) {
    if (!(*lf)[i].type->Equals(*(*rf)[i].type)) {
      return Status::TypeError(std::string(what) + ": key " + std::to_string(i) + " has type " +
                               (*lf)[i].type->ToString() + " on the left (`" +
                               left_keys[i]->ToString() + "`) and " + (*rf)[i].type->ToString() +
                               " on the right (`" + right_keys[i]->ToString() +
                               "`); cast one side");
    }
  }
  SchemaPtr schema = JoinOutputSchema(*left->schema(), *right->schema(), type);
  if (residual != nullptr) {
    const SchemaPtr joined = JoinOutputSchema(*left->schema(), *right->schema(), JoinType::kInner);
    auto bound = expr::Bind(residual, *joined);
    if (!bound.ok()) return NodeError(what, bound.status().WithContext("residual predicate"));
    if (bound->type()->id() != TypeId::kBool) {
      return Status::TypeError(std::string(what) + ": the residual predicate must be boolean");
    }
  }
  return PlanPtr(std::make_shared<JoinNode>(
      kind, std::move(schema), std::move(left), std::move(right), std::move(left_keys),
      std::move(right_keys), std::move(null_equal), type, std::move(residual), strategy));
}

}  // namespace

Result<PlanPtr> MakeHashJoin(PlanPtr left, PlanPtr right, std::vector<expr::ExprPtr> left_keys,
                             std::vector<expr::ExprPtr> right_keys, JoinType type,
                             expr::ExprPtr residual, std::vector<bool> null_equal,
                             JoinStrategy strategy) {
  return MakeEquiJoin(PlanKind::kHashJoin, "HashJoin", std::move(left), std::move(right),
                      std::move(left_keys), std::move(right_keys), type, std::move(residual),
                      std::move(null_equal), strategy);
}

Result<PlanPtr> MakeSortMergeJoin(PlanPtr left, PlanPtr right, std::vector<expr::ExprPtr> left_keys,
                                  std::vector<expr::ExprPtr> right_keys, JoinType type,
                                  std::vector<bool> null_equal) {
  if (type == JoinType::kSemi || type == JoinType::kAnti || type == JoinType::kRightSemi ||
      type == JoinType::kRightAnti) {
    return Status::NotImplemented("sort-merge join supports inner, left, right and full joins");
  }
  return MakeEquiJoin(PlanKind::kSortMergeJoin, "SortMergeJoin", std::move(left), std::move(right),
                      std::move(left_keys), std::move(right_keys), type, nullptr,
                      std::move(null_equal));
}

namespace {
struct CrossJoinNode final : PlanNode {
  CrossJoinNode(SchemaPtr schema, PlanPtr left, PlanPtr right)
      : PlanNode(PlanKind::kCrossJoin, std::move(schema), {std::move(left), std::move(right)}) {}
  std::string Describe() const override { return "CrossJoin"; }
};
}  // namespace

Result<PlanPtr> MakeCrossJoin(PlanPtr left, PlanPtr right) {
  SchemaPtr schema = JoinOutputSchema(*left->schema(), *right->schema(), JoinType::kInner);
  return PlanPtr(
      std::make_shared<CrossJoinNode>(std::move(schema), std::move(left), std::move(right)));
}

Result<PlanPtr> MakeSort(PlanPtr input, std::vector<SortSpec> keys) {
  if (keys.empty()) return Status::Invalid("sort needs at least one key");
  if (auto s = CheckSortKeys(*input->schema(), keys); !s.ok()) return NodeError("Sort", s);
  return PlanPtr(std::make_shared<SortNode>(std::move(input), std::move(keys)));
}

Result<PlanPtr> MakeTopN(PlanPtr input, std::vector<SortSpec> keys, int64_t limit, int64_t offset) {
  if (keys.empty()) return Status::Invalid("top-N needs at least one key");
  if (limit < 0 || offset < 0) return Status::Invalid("top-N: limit and offset must be >= 0");
  if (auto s = CheckSortKeys(*input->schema(), keys); !s.ok()) return NodeError("TopN", s);
  return PlanPtr(std::make_shared<TopNNode>(std::move(input), std::move(keys), limit, offset));
}

bool WindowExpression::IsConstantArgument(size_t i) const {
  if (arguments[i]->kind() != expr::ExprKind::kLiteral) return false;
  return i > 0 || function == "ntile";
}

Result<PlanPtr> MakeWindow(PlanPtr input, std::vector<expr::ExprPtr> partition_by,
                           std::vector<SortSpec> order_by,
                           std::vector<WindowExpression> functions) {
  const Schema& in = *input->schema();
  auto partition_fields = BindFields(partition_by, in);
  if (!partition_fields.ok()) return NodeError("Window", partition_fields.status());
  if (auto s = CheckSortKeys(in, order_by); !s.ok()) return NodeError("Window", s);
  // The function's type is resolved over the columns the window operator materializes: the
  // input, then the partition keys, order keys and arguments.
  std::vector<Field> fields = in.fields();
  for (const WindowExpression& w : functions) {
    auto arg_fields = BindFields(w.arguments, in);
    if (!arg_fields.ok()) return NodeError("Window", arg_fields.status());
    std::vector<Field> scratch = *arg_fields;
    WindowFunctionSpec spec;
    spec.name = w.function;
    spec.frame = w.frame;
    for (size_t a = 0; a < w.arguments.size(); ++a) {
      if (w.IsConstantArgument(a)) {
        spec.constants.push_back(w.arguments[a]->literal());
      } else {
        spec.arguments.push_back(static_cast<int>(a));
      }
    }
    auto type = WindowFunctionType(Schema(scratch), spec);
    if (!type.ok()) return NodeError("Window", type.status());
    fields.push_back(Field{w.output_name, *type, true});
  }
  FLOTILLA_RETURN_NOT_OK(NodeError("Window", CheckDistinctNames(fields)));
  return PlanPtr(std::make_shared<WindowNode>(std::make_shared<Schema>(std::move(fields)),
                                              std::move(input), std::move(partition_by),
                                              std::move(order_by), std::move(functions)));
}

namespace {
Status CheckPartitions(int n) {
  if (n < 1) return Status::Invalid("repartition: the number of partitions must be at least 1");
  return Status::OK();
}
}  // namespace

Result<PlanPtr> MakeRepartitionByHash(PlanPtr input, int num_partitions,
                                      std::vector<expr::ExprPtr> keys) {
  if (num_partitions != 0) FLOTILLA_RETURN_NOT_OK(CheckPartitions(num_partitions));
  if (keys.empty()) return Status::Invalid("hash repartition needs at least one key");
  auto fields = BindFields(keys, *input->schema());
  if (!fields.ok()) return NodeError("Repartition", fields.status());
  return PlanPtr(std::make_shared<RepartitionNode>(std::move(input), PartitionScheme::kHash,
                                                   num_partitions, std::move(keys),
                                                   std::vector<SortSpec>{}, 0));
}

Result<PlanPtr> MakeRepartitionRandom(PlanPtr input, int num_partitions, uint64_t seed) {
  FLOTILLA_RETURN_NOT_OK(CheckPartitions(num_partitions));
  return PlanPtr(std::make_shared<RepartitionNode>(std::move(input), PartitionScheme::kRandom,
                                                   num_partitions, std::vector<expr::ExprPtr>{},
                                                   std::vector<SortSpec>{}, seed));
}

Result<PlanPtr> MakeRepartitionByRange(PlanPtr input, int num_partitions,
                                       std::vector<SortSpec> keys,
                                       std::optional<RecordBatch> boundaries) {
  FLOTILLA_RETURN_NOT_OK(CheckPartitions(num_partitions));
  if (keys.empty()) return Status::Invalid("range repartition needs at least one key");
  if (auto s = CheckSortKeys(*input->schema(), keys); !s.ok()) return NodeError("Repartition", s);
  if (boundaries && (boundaries->num_rows() != num_partitions - 1 ||
                     boundaries->num_columns() != static_cast<int>(keys.size()))) {
    return Status::Invalid("Repartition: " + std::to_string(num_partitions) +
                           " range partitions need " + std::to_string(num_partitions - 1) +
                           " boundaries of " + std::to_string(keys.size()) + " columns, got " +
                           std::to_string(boundaries->num_rows()) + " of " +
                           std::to_string(boundaries->num_columns()));
  }
  auto node =
      std::make_shared<RepartitionNode>(std::move(input), PartitionScheme::kRange, num_partitions,
                                        std::vector<expr::ExprPtr>{}, std::move(keys), 0);
  node->boundaries = std::move(boundaries);
  return PlanPtr(std::move(node));
}

Result<PlanPtr> MakeIntoPartitions(PlanPtr input, int num_partitions) {
  FLOTILLA_RETURN_NOT_OK(CheckPartitions(num_partitions));
  return PlanPtr(std::make_shared<RepartitionNode>(std::move(input), PartitionScheme::kInto,
                                                   num_partitions, std::vector<expr::ExprPtr>{},
                                                   std::vector<SortSpec>{}, 0));
}

}  // namespace flotilla::exec
