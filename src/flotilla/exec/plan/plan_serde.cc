#include "flotilla/exec/plan/plan_serde.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <vector>

#include "flotilla/columnar/buffer.h"
#include "flotilla/common/suggest.h"
#include "flotilla/exec/plan/plan.pb.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/expression_proto.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::exec {
namespace {

constexpr std::string_view kSubject = "plan proto";
constexpr std::string_view kMemoryTaskKind = "memory";

// --- The enums on both sides -------------------------------------------------------------------
// One table per enum, in enum order; the static_asserts catch a value added to only one side.

struct AggregateModeEntry {
  AggregateMode mode;
  proto::AggregateMode proto;
};
constexpr AggregateModeEntry kAggregateModes[] = {
    {AggregateMode::kSingle, proto::AGGREGATE_MODE_SINGLE},
    {AggregateMode::kPartial, proto::AGGREGATE_MODE_PARTIAL},
    {AggregateMode::kFinal, proto::AGGREGATE_MODE_FINAL},
};
static_assert(std::size(kAggregateModes) == static_cast<size_t>(AggregateMode::kFinal) + 1);

struct JoinTypeEntry {
  JoinType type;
  proto::JoinType proto;
};
constexpr JoinTypeEntry kJoinTypes[] = {
    {JoinType::kInner, proto::JOIN_TYPE_INNER},
    {JoinType::kLeft, proto::JOIN_TYPE_LEFT},
    {JoinType::kRight, proto::JOIN_TYPE_RIGHT},
    {JoinType::kFull, proto::JOIN_TYPE_FULL},
    {JoinType::kSemi, proto::JOIN_TYPE_SEMI},
    {JoinType::kAnti, proto::JOIN_TYPE_ANTI},
    {JoinType::kRightSemi, proto::JOIN_TYPE_RIGHT_SEMI},
    {JoinType::kRightAnti, proto::JOIN_TYPE_RIGHT_ANTI},
};
static_assert(std::size(kJoinTypes) == static_cast<size_t>(JoinType::kRightAnti) + 1);

struct PartitionSchemeEntry {
  PartitionScheme scheme;
  proto::PartitionScheme proto;
};
constexpr PartitionSchemeEntry kPartitionSchemes[] = {
    {PartitionScheme::kHash, proto::PARTITION_SCHEME_HASH},
    {PartitionScheme::kRandom, proto::PARTITION_SCHEME_RANDOM},
    {PartitionScheme::kRange, proto::PARTITION_SCHEME_RANGE},
    {PartitionScheme::kInto, proto::PARTITION_SCHEME_INTO},
};
static_assert(std::size(kPartitionSchemes) == static_cast<size_t>(PartitionScheme::kInto) + 1);

struct FrameTypeEntry {
  WindowFrame::Type type;
  proto::FrameType proto;
};
constexpr FrameTypeEntry kFrameTypes[] = {
    {WindowFrame::kRows, proto::FRAME_TYPE_ROWS},
    {WindowFrame::kRange, proto::FRAME_TYPE_RANGE},
};
static_assert(std::size(kFrameTypes) == static_cast<size_t>(WindowFrame::kRange) + 1);

struct FrameBoundEntry {
  FrameBound::Kind kind;
  proto::FrameBoundKind proto;
};
constexpr FrameBoundEntry kFrameBounds[] = {
    {FrameBound::kUnboundedPreceding, proto::FRAME_BOUND_KIND_UNBOUNDED_PRECEDING},
    {FrameBound::kPreceding, proto::FRAME_BOUND_KIND_PRECEDING},
    {FrameBound::kCurrentRow, proto::FRAME_BOUND_KIND_CURRENT_ROW},
    {FrameBound::kFollowing, proto::FRAME_BOUND_KIND_FOLLOWING},
    {FrameBound::kUnboundedFollowing, proto::FRAME_BOUND_KIND_UNBOUNDED_FOLLOWING},
};
static_assert(std::size(kFrameBounds) == static_cast<size_t>(FrameBound::kUnboundedFollowing) + 1);

// The entry whose `member` is `value`, or nullptr.
template <typename Entry, size_t N, typename Member, typename Value>
const Entry* Find(const Entry (&table)[N], Member Entry::*member, Value value) {
  for (const Entry& e : table) {
    if (e.*member == value) return &e;
  }
  return nullptr;
}

// The oneof case of each plan kind, and the number of inputs it takes (kAnyInputs: one or more).
constexpr int kAnyInputs = -1;
struct KindEntry {
  PlanKind kind;
  proto::PlanNode::NodeCase proto;
  int inputs;
};
constexpr KindEntry kKinds[] = {
    {PlanKind::kInMemorySource, proto::PlanNode::kInMemorySource, 0},
    {PlanKind::kScan, proto::PlanNode::kScan, 0},
    {PlanKind::kProject, proto::PlanNode::kProject, 1},
    {PlanKind::kFilter, proto::PlanNode::kFilter, 1},
    {PlanKind::kLimit, proto::PlanNode::kLimit, 1},
    {PlanKind::kSample, proto::PlanNode::kSample, 1},
    {PlanKind::kExplode, proto::PlanNode::kExplode, 1},
    {PlanKind::kUnpivot, proto::PlanNode::kUnpivot, 1},
    {PlanKind::kConcat, proto::PlanNode::kConcat, kAnyInputs},
    {PlanKind::kMonotonicId, proto::PlanNode::kMonotonicId, 1},
    {PlanKind::kAggregate, proto::PlanNode::kAggregate, 1},
    {PlanKind::kDistinct, proto::PlanNode::kDistinct, 1},
    {PlanKind::kHashJoin, proto::PlanNode::kHashJoin, 2},
    {PlanKind::kCrossJoin, proto::PlanNode::kCrossJoin, 2},
    {PlanKind::kSortMergeJoin, proto::PlanNode::kSortMergeJoin, 2},
    {PlanKind::kSort, proto::PlanNode::kSort, 1},
    {PlanKind::kTopN, proto::PlanNode::kTopN, 1},
    {PlanKind::kWindow, proto::PlanNode::kWindow, 1},
    {PlanKind::kPivot, proto::PlanNode::kPivot, 1},
    {PlanKind::kRepartition, proto::PlanNode::kRepartition, 1},
    {PlanKind::kUdfProject, proto::PlanNode::kUdfProject, 1},
};
static_assert(std::size(kKinds) == static_cast<size_t>(PlanKind::kUdfProject) + 1);

// --- Writing -----------------------------------------------------------------------------------

template <typename Repeated>
void WriteNames(const std::vector<std::string>& names, Repeated* out) {
  for (const std::string& name : names)
    *out->Add() = name;
}

template <typename Repeated>
Status WriteExpressions(const std::vector<expr::ExprPtr>& expressions, std::string_view field,
                        Repeated* out) {
  for (size_t i = 0; i < expressions.size(); ++i) {
    Status status = expr::ToProto(expressions[i], out->Add());
    if (!status.ok()) return status.WithContext(fmt::format("{}[{}]", field, i));
  }
  return Status::OK();
}

template <typename Repeated>
Status WriteSortSpecs(const std::vector<SortSpec>& keys, std::string_view field, Repeated* out) {
  for (size_t i = 0; i < keys.size(); ++i) {
    proto::SortSpec* spec = out->Add();
    Status status = expr::ToProto(keys[i].key, spec->mutable_key());
    if (!status.ok()) return status.WithContext(fmt::format("{}[{}]", field, i));
    spec->set_ascending(keys[i].ascending);
    spec->set_nulls_first(keys[i].nulls_first);
  }
  return Status::OK();
}

Result<std::string> WriteIpcStream(const SchemaPtr& schema,
                                   const std::vector<RecordBatch>& batches) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr stream, ipc::WriteStreamToBuffer(schema, batches));
  return std::string(stream->view());
}

Status WriteScanTask(const std::shared_ptr<const ScanTask>& task, const SchemaPtr& file_schema,
                     proto::ScanTask* out) {
  if (task == nullptr) return Status::Invalid("a scan task is null");
  if (const auto* memory = dynamic_cast<const InMemoryScanTask*>(task.get())) {
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, memory->Read({}));
    const SchemaPtr& schema = batches.empty() ? file_schema : batches.front().schema();
    FLOTILLA_ASSIGN_OR_RETURN(*out->mutable_data(), WriteIpcStream(schema, batches));
    out->set_kind(std::string(kMemoryTaskKind));
    out->set_name(memory->ToString());
    return Status::OK();
  }
  FLOTILLA_ASSIGN_OR_RETURN(*out->mutable_data(), task->Serialize());
  const std::string kind = task->kind();
  if (kind.empty() || kind == kMemoryTaskKind) {
    return Status::Invalid("scan task '" + task->ToString() + "' has kind '" + kind +
                           "'; a serializable task needs its own kind");
  }
  out->set_kind(kind);
  return Status::OK();
}

class PlanWriter {
 public:
  Result<std::string> Write(const PlanPtr& root) {
    FLOTILLA_RETURN_NOT_OK(Visit(root, 1).status());
    plan_.set_num_nodes(static_cast<uint32_t>(plan_.nodes_size()));
    std::string out;
    if (!plan_.SerializeToString(&out)) {
      return Status::Invalid(
          fmt::format("{}: the plan is larger than protobuf's 2 GiB limit", kSubject));
    }
    return out;
  }

 private:
  struct Written {
    uint32_t index;
    int height;
  };

  // Writes the inputs, then the node; returns its index. `depth` is the node's distance from
  // the root, bounded so a plan too deep to read back does not exhaust the stack here either.
  Result<Written> Visit(const PlanPtr& node, int depth) {
    if (node == nullptr) return Status::Invalid(fmt::format("{}: a plan node is null", kSubject));
    if (auto it = written_.find(node.get()); it != written_.end()) return it->second;
    if (depth > kMaxPlanDepth) {
      return Status::Invalid(
          fmt::format("{}: the plan is deeper than {} nodes", kSubject, kMaxPlanDepth));
    }
    std::vector<uint32_t> inputs;
    int height = 1;
    for (const PlanPtr& child : node->children()) {
      FLOTILLA_ASSIGN_OR_RETURN(Written w, Visit(child, depth + 1));
      inputs.push_back(w.index);
      height = std::max(height, w.height + 1);
    }
    if (height > kMaxPlanDepth) {
      return Status::Invalid(
          fmt::format("{}: the plan is deeper than {} nodes", kSubject, kMaxPlanDepth));
    }
    const auto index = static_cast<uint32_t>(plan_.nodes_size());
    proto::PlanNode* out = plan_.add_nodes();
    for (uint32_t input : inputs)
      out->add_inputs(input);
    Status status = WriteNode(*node, out);
    if (!status.ok()) {
      return status.WithContext(
          fmt::format("{}: node {} ({})", kSubject, index, PlanKindName(node->kind())));
    }
    Written w{index, height};
    written_.emplace(node.get(), w);
    return w;
  }

  static Status WriteNode(const PlanNode& node, proto::PlanNode* out) {
    switch (node.kind()) {
      case PlanKind::kInMemorySource: {
        const auto& n = static_cast<const InMemorySourceNode&>(node);
        auto* m = out->mutable_in_memory_source();
        FLOTILLA_RETURN_NOT_OK(expr::ToProto(*n.schema(), m->mutable_schema()));
        for (size_t i = 0; i < n.partitions.size(); ++i) {
          auto written = [&]() -> Result<std::string> {
            FLOTILLA_ASSIGN_OR_RETURN(MicroPartition loaded, n.partitions[i].Load());
            return WriteIpcStream(n.schema(), loaded.batches());
          }();
          if (!written.ok()) return written.status().WithContext(fmt::format("partition {}", i));
          m->add_partitions(std::move(*written));
        }
        return Status::OK();
      }
      case PlanKind::kScan: {
        const auto& n = static_cast<const ScanNode&>(node);
        auto* m = out->mutable_scan();
        const SchemaPtr& file_schema = n.file_schema;
        FLOTILLA_RETURN_NOT_OK(expr::ToProto(*file_schema, m->mutable_file_schema()));
        for (size_t i = 0; i < n.tasks.size(); ++i) {
          Status status = WriteScanTask(n.tasks[i], file_schema, m->add_tasks());
          if (!status.ok()) return status.WithContext(fmt::format("task {}", i));
        }
        if (n.pushdowns.columns)
          WriteNames(*n.pushdowns.columns, m->mutable_columns()->mutable_names());
        if (n.pushdowns.filter != nullptr) {
          FLOTILLA_RETURN_NOT_OK(expr::ToProto(n.pushdowns.filter, m->mutable_filter()));
        }
        if (n.pushdowns.limit) m->set_limit(*n.pushdowns.limit);
        return Status::OK();
      }
      case PlanKind::kProject: {
        const auto& n = static_cast<const ProjectNode&>(node);
        return WriteExpressions(n.expressions, "expressions",
                                out->mutable_project()->mutable_expressions());
      }
      case PlanKind::kFilter: {
        const auto& n = static_cast<const FilterNode&>(node);
        return expr::ToProto(n.predicate, out->mutable_filter()->mutable_predicate());
      }
      case PlanKind::kLimit: {
        const auto& n = static_cast<const LimitNode&>(node);
        out->mutable_limit()->set_limit(n.limit);
        out->mutable_limit()->set_offset(n.offset);
        return Status::OK();
      }
      case PlanKind::kSample: {
        const auto& n = static_cast<const SampleNode&>(node);
        auto* m = out->mutable_sample();
        if (n.fraction) {
          m->set_fraction(*n.fraction);
        } else if (n.size) {
          m->set_size(*n.size);
        } else {
          return Status::Invalid("the sample has neither a fraction nor a size");
        }
        m->set_with_replacement(n.with_replacement);
        m->set_seed(n.seed);
        return Status::OK();
      }
      case PlanKind::kExplode: {
        const auto& n = static_cast<const ExplodeNode&>(node);
        WriteNames(n.columns, out->mutable_explode()->mutable_columns());
        return Status::OK();
      }
      case PlanKind::kUnpivot: {
        const auto& n = static_cast<const UnpivotNode&>(node);
        auto* m = out->mutable_unpivot();
        WriteNames(n.ids, m->mutable_ids());
        WriteNames(n.values, m->mutable_values());
        m->set_variable_name(n.variable_name);
        m->set_value_name(n.value_name);
        return Status::OK();
      }
      case PlanKind::kConcat:
        out->mutable_concat();
        return Status::OK();
      case PlanKind::kMonotonicId: {
        const auto& n = static_cast<const MonotonicIdNode&>(node);
        out->mutable_monotonic_id()->set_column_name(n.column_name);
        out->mutable_monotonic_id()->set_first_partition(n.first_partition);
        return Status::OK();
      }
      case PlanKind::kUdfProject: {
        const auto& n = static_cast<const UdfProjectNode&>(node);
        auto* m = out->mutable_udf_project();
        m->set_function_name(n.function_name);
        FLOTILLA_RETURN_NOT_OK(WriteExpressions(n.arguments, "arguments", m->mutable_arguments()));
        WriteNames(n.passthrough, m->mutable_passthrough());
        m->set_output_name(n.output_name);
        m->set_concurrency(n.concurrency);
        return expr::ToProto(n.return_type, m->mutable_return_type());
      }
      case PlanKind::kAggregate: {
        const auto& n = static_cast<const AggregateNode&>(node);
        auto* m = out->mutable_aggregate();
        FLOTILLA_RETURN_NOT_OK(WriteExpressions(n.group_by, "group_by", m->mutable_group_by()));
        for (size_t i = 0; i < n.aggregates.size(); ++i) {
          proto::AggregateSpec* spec = m->add_aggregates();
          spec->set_function(n.aggregates[i].function);
          spec->set_name(n.aggregates[i].name);
          Status status =
              WriteExpressions(n.aggregates[i].arguments, "arguments", spec->mutable_arguments());
          if (!status.ok()) return status.WithContext(fmt::format("aggregates[{}]", i));
        }
        m->set_mode(Find(kAggregateModes, &AggregateModeEntry::mode, n.mode)->proto);
        // Single and partial aggregates derive their argument types from the input.
        if (n.mode == AggregateMode::kFinal) {
          for (size_t i = 0; i < n.argument_types.size(); ++i) {
            proto::TypeList* types = m->add_argument_types();
            for (const TypePtr& type : n.argument_types[i]) {
              Status status = expr::ToProto(type, types->add_types());
              if (!status.ok()) return status.WithContext(fmt::format("argument_types[{}]", i));
            }
          }
        }
        return Status::OK();
      }
      case PlanKind::kDistinct: {
        const auto& n = static_cast<const DistinctNode&>(node);
        WriteNames(n.columns, out->mutable_distinct()->mutable_columns());
        return Status::OK();
      }
      case PlanKind::kPivot: {
        const auto& n = static_cast<const PivotNode&>(node);
        auto* m = out->mutable_pivot();
        FLOTILLA_RETURN_NOT_OK(WriteExpressions(n.group_by, "group_by", m->mutable_group_by()));
        FLOTILLA_RETURN_NOT_OK(expr::ToProto(n.pivot_column, m->mutable_pivot_column()));
        FLOTILLA_RETURN_NOT_OK(expr::ToProto(n.value_column, m->mutable_value_column()));
        m->set_function(n.function);
        WriteNames(n.names, m->mutable_names());
        return Status::OK();
      }
      case PlanKind::kHashJoin:
      case PlanKind::kSortMergeJoin: {
        const auto& n = static_cast<const JoinNode&>(node);
        auto* m = node.kind() == PlanKind::kHashJoin ? out->mutable_hash_join()
                                                     : out->mutable_sort_merge_join();
        FLOTILLA_RETURN_NOT_OK(WriteExpressions(n.left_keys, "left_keys", m->mutable_left_keys()));
        FLOTILLA_RETURN_NOT_OK(
            WriteExpressions(n.right_keys, "right_keys", m->mutable_right_keys()));
        for (bool flag : n.null_equal)
          m->add_null_equal(flag);
        m->set_type(Find(kJoinTypes, &JoinTypeEntry::type, n.type)->proto);
        if (n.residual != nullptr) {
          FLOTILLA_RETURN_NOT_OK(expr::ToProto(n.residual, m->mutable_residual()));
        }
        return Status::OK();
      }
      case PlanKind::kCrossJoin:
        out->mutable_cross_join();
        return Status::OK();
      case PlanKind::kSort: {
        const auto& n = static_cast<const SortNode&>(node);
        return WriteSortSpecs(n.keys, "keys", out->mutable_sort()->mutable_keys());
      }
      case PlanKind::kTopN: {
        const auto& n = static_cast<const TopNNode&>(node);
        auto* m = out->mutable_top_n();
        m->set_limit(n.limit);
        m->set_offset(n.offset);
        return WriteSortSpecs(n.keys, "keys", m->mutable_keys());
      }
      case PlanKind::kWindow: {
        const auto& n = static_cast<const WindowNode&>(node);
        auto* m = out->mutable_window();
        FLOTILLA_RETURN_NOT_OK(
            WriteExpressions(n.partition_by, "partition_by", m->mutable_partition_by()));
        FLOTILLA_RETURN_NOT_OK(WriteSortSpecs(n.order_by, "order_by", m->mutable_order_by()));
        for (size_t i = 0; i < n.functions.size(); ++i) {
          const WindowExpression& w = n.functions[i];
          proto::WindowExpression* f = m->add_functions();
          f->set_function(w.function);
          f->set_output_name(w.output_name);
          Status status = WriteExpressions(w.arguments, "arguments", f->mutable_arguments());
          if (!status.ok()) return status.WithContext(fmt::format("functions[{}]", i));
          if (w.frame) {
            proto::WindowFrame* frame = f->mutable_frame();
            const FrameTypeEntry* type = Find(kFrameTypes, &FrameTypeEntry::type, w.frame->type);
            const FrameBoundEntry* start =
                Find(kFrameBounds, &FrameBoundEntry::kind, w.frame->start.kind);
            const FrameBoundEntry* end =
                Find(kFrameBounds, &FrameBoundEntry::kind, w.frame->end.kind);
            if (type == nullptr || start == nullptr || end == nullptr) {
              return Status::Invalid(fmt::format("functions[{}]: the frame is invalid", i));
            }
            frame->set_type(type->proto);
            frame->mutable_start()->set_kind(start->proto);
            frame->mutable_start()->set_offset(w.frame->start.offset);
            frame->mutable_end()->set_kind(end->proto);
            frame->mutable_end()->set_offset(w.frame->end.offset);
          }
        }
        return Status::OK();
      }
      case PlanKind::kRepartition: {
        const auto& n = static_cast<const RepartitionNode&>(node);
        auto* m = out->mutable_repartition();
        m->set_scheme(Find(kPartitionSchemes, &PartitionSchemeEntry::scheme, n.scheme)->proto);
        m->set_num_partitions(n.num_partitions);
        FLOTILLA_RETURN_NOT_OK(WriteExpressions(n.keys, "keys", m->mutable_keys()));
        FLOTILLA_RETURN_NOT_OK(WriteSortSpecs(n.sort_keys, "sort_keys", m->mutable_sort_keys()));
        m->set_seed(n.seed);
        if (n.boundaries) {
          FLOTILLA_ASSIGN_OR_RETURN(*m->mutable_boundaries(),
                                    WriteIpcStream(n.boundaries->schema(), {*n.boundaries}));
        }
        return Status::OK();
      }
    }
    return Status::Invalid("unknown plan kind");
  }

  proto::Plan plan_;
  std::unordered_map<const PlanNode*, Written> written_;
};

// --- Reading -----------------------------------------------------------------------------------

Status Missing(std::string_view field) {
  return Status::Invalid(fmt::format("{} is missing", field));
}

Result<expr::ExprPtr> ReadExpression(const proto::Expression& message, std::string_view field) {
  auto e = expr::FromProto(message);
  if (!e.ok()) return e.status().WithContext(field);
  return e;
}

template <typename Repeated>
Result<std::vector<expr::ExprPtr>> ReadExpressions(const Repeated& messages,
                                                   std::string_view field) {
  std::vector<expr::ExprPtr> out;
  out.reserve(static_cast<size_t>(messages.size()));
  for (int i = 0; i < messages.size(); ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(expr::ExprPtr e,
                              ReadExpression(messages[i], fmt::format("{}[{}]", field, i)));
    out.push_back(std::move(e));
  }
  return out;
}

template <typename Repeated>
std::vector<std::string> ReadNames(const Repeated& names) {
  return std::vector<std::string>(names.begin(), names.end());
}

template <typename Repeated>
Result<std::vector<SortSpec>> ReadSortSpecs(const Repeated& messages, std::string_view field) {
  std::vector<SortSpec> out;
  for (int i = 0; i < messages.size(); ++i) {
    const proto::SortSpec& m = messages[i];
    const std::string where = fmt::format("{}[{}].key", field, i);
    if (!m.has_key()) return Missing(where);
    SortSpec spec;
    FLOTILLA_ASSIGN_OR_RETURN(spec.key, ReadExpression(m.key(), where));
    spec.ascending = m.ascending();
    spec.nulls_first = m.nulls_first();
    out.push_back(std::move(spec));
  }
  return out;
}

Result<SchemaPtr> ReadSchema(const proto::Schema& message, std::string_view field) {
  auto schema = expr::FromProto(message);
  if (!schema.ok()) return schema.status().WithContext(field);
  return schema;
}

// Reads an Arrow IPC stream; every batch must have `schema`.
Result<std::vector<RecordBatch>> ReadIpcStream(const std::string& bytes, const SchemaPtr& schema,
                                               std::string_view field) {
  // Copied: the IPC reader wants aligned memory it can hand out views of.
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::CopyOf(bytes));
  SchemaPtr stream_schema;
  auto batches = ipc::ReadStream(std::move(buffer), &stream_schema);
  if (!batches.ok()) {
    if (batches.status().code() == StatusCode::kOutOfMemory) return batches.status();
    return Status::Invalid(
        fmt::format("{} is not a valid Arrow IPC stream: {}", field, batches.status().message()));
  }
  for (const RecordBatch& batch : *batches) {
    if (!batch.schema()->Equals(*schema)) {
      return Status::Invalid(fmt::format("{} has schema\n{}\nexpected\n{}", field,
                                         batch.schema()->ToString(), schema->ToString()));
    }
  }
  return batches;
}

class PlanReader {
 public:
  explicit PlanReader(const PlanResolver& resolver) : resolver_(resolver) {}

  Result<PlanPtr> Read(const proto::Plan& plan) {
    if (plan.nodes_size() == 0) {
      return Status::Invalid(fmt::format("{}: the plan has no nodes", kSubject));
    }
    if (plan.num_nodes() != static_cast<uint32_t>(plan.nodes_size())) {
      return Status::Invalid(fmt::format("{}: the plan has {} nodes, but says {} (truncated?)",
                                         kSubject, plan.nodes_size(), plan.num_nodes()));
    }
    const size_t n = static_cast<size_t>(plan.nodes_size());
    nodes_.reserve(n);
    std::vector<int> heights;
    std::vector<bool> used(n, false);
    for (size_t i = 0; i < n; ++i) {
      const proto::PlanNode& m = plan.nodes(static_cast<int>(i));
      const KindEntry* kind = Find(kKinds, &KindEntry::proto, m.node_case());
      const std::string where =
          kind == nullptr ? fmt::format("{}: node {}", kSubject, i)
                          : fmt::format("{}: node {} ({})", kSubject, i, PlanKindName(kind->kind));
      if (kind == nullptr) {
        return Status::Invalid(fmt::format("{}: the node kind ({}) is missing or unknown", where,
                                           static_cast<int>(m.node_case())));
      }
      const int num_inputs = m.inputs_size();
      if (kind->inputs == kAnyInputs ? num_inputs < 1 : num_inputs != kind->inputs) {
        return Status::Invalid(fmt::format(
            "{}: has {} inputs, expected {}", where, num_inputs,
            kind->inputs == kAnyInputs ? std::string("at least 1") : std::to_string(kind->inputs)));
      }
      std::vector<PlanPtr> inputs;
      int height = 1;
      for (int j = 0; j < num_inputs; ++j) {
        const uint32_t input = m.inputs(j);
        if (input >= i) {
          return Status::Invalid(fmt::format(
              "{}: inputs[{}] is node {}; a node's inputs come before it", where, j, input));
        }
        inputs.push_back(nodes_[input]);
        used[input] = true;
        height = std::max(height, heights[input] + 1);
      }
      if (height > kMaxPlanDepth) {
        return Status::Invalid(
            fmt::format("{}: the plan is deeper than {} nodes", where, kMaxPlanDepth));
      }
      auto node = ReadNode(m, std::move(inputs));
      if (!node.ok()) return node.status().WithContext(where);
      if (*node == nullptr || (*node)->kind() != kind->kind) {
        return Status::Internal(where + ": the factory built another kind of node");
      }
      nodes_.push_back(std::move(*node));
      heights.push_back(height);
    }
    for (size_t i = 0; i + 1 < n; ++i) {
      if (!used[i]) {
        return Status::Invalid(
            fmt::format("{}: node {} is not an input of any later node", kSubject, i));
      }
    }
    return nodes_.back();
  }

 private:
  Result<PlanPtr> ReadNode(const proto::PlanNode& m, std::vector<PlanPtr> inputs) {
    switch (m.node_case()) {
      case proto::PlanNode::kInMemorySource:
        return ReadInMemorySource(m.in_memory_source());
      case proto::PlanNode::kScan:
        return ReadScan(m.scan());
      case proto::PlanNode::kProject: {
        FLOTILLA_ASSIGN_OR_RETURN(auto expressions,
                                  ReadExpressions(m.project().expressions(), "expressions"));
        return MakeProject(std::move(inputs[0]), std::move(expressions));
      }
      case proto::PlanNode::kFilter: {
        if (!m.filter().has_predicate()) return Missing("predicate");
        FLOTILLA_ASSIGN_OR_RETURN(auto predicate,
                                  ReadExpression(m.filter().predicate(), "predicate"));
        return MakeFilter(std::move(inputs[0]), std::move(predicate));
      }
      case proto::PlanNode::kLimit:
        return MakeLimit(std::move(inputs[0]), m.limit().limit(), m.limit().offset());
      case proto::PlanNode::kSample: {
        const proto::SampleNode& s = m.sample();
        switch (s.amount_case()) {
          case proto::SampleNode::kFraction:
            return MakeSampleFraction(std::move(inputs[0]), s.fraction(), s.with_replacement(),
                                      s.seed());
          case proto::SampleNode::kSize:
            return MakeSampleSize(std::move(inputs[0]), s.size(), s.with_replacement(), s.seed());
          case proto::SampleNode::AMOUNT_NOT_SET:
            break;
        }
        return Missing("fraction or size");
      }
      case proto::PlanNode::kExplode:
        return MakeExplode(std::move(inputs[0]), ReadNames(m.explode().columns()));
      case proto::PlanNode::kUnpivot: {
        const proto::UnpivotNode& u = m.unpivot();
        if (u.variable_name().empty()) return Missing("variable_name");
        if (u.value_name().empty()) return Missing("value_name");
        return MakeUnpivot(std::move(inputs[0]), ReadNames(u.ids()), ReadNames(u.values()),
                           u.variable_name(), u.value_name());
      }
      case proto::PlanNode::kConcat:
        return MakeConcat(std::move(inputs));
      case proto::PlanNode::kMonotonicId:
        if (m.monotonic_id().column_name().empty()) return Missing("column_name");
        return MakeMonotonicId(std::move(inputs[0]), m.monotonic_id().column_name(),
                               m.monotonic_id().first_partition());
      case proto::PlanNode::kUdfProject:
        return ReadUdfProject(m.udf_project(), std::move(inputs[0]));
      case proto::PlanNode::kAggregate:
        return ReadAggregate(m.aggregate(), std::move(inputs[0]));
      case proto::PlanNode::kDistinct:
        return MakeDistinct(std::move(inputs[0]), ReadNames(m.distinct().columns()));
      case proto::PlanNode::kPivot: {
        const proto::PivotNode& p = m.pivot();
        FLOTILLA_ASSIGN_OR_RETURN(auto group_by, ReadExpressions(p.group_by(), "group_by"));
        if (!p.has_pivot_column()) return Missing("pivot_column");
        if (!p.has_value_column()) return Missing("value_column");
        if (p.function().empty()) return Missing("function");
        FLOTILLA_ASSIGN_OR_RETURN(auto pivot, ReadExpression(p.pivot_column(), "pivot_column"));
        FLOTILLA_ASSIGN_OR_RETURN(auto value, ReadExpression(p.value_column(), "value_column"));
        return MakePivot(std::move(inputs[0]), std::move(group_by), std::move(pivot),
                         std::move(value), p.function(), ReadNames(p.names()));
      }
      case proto::PlanNode::kHashJoin:
        return ReadJoin(m.hash_join(), PlanKind::kHashJoin, std::move(inputs));
      case proto::PlanNode::kSortMergeJoin:
        return ReadJoin(m.sort_merge_join(), PlanKind::kSortMergeJoin, std::move(inputs));
      case proto::PlanNode::kCrossJoin:
        return MakeCrossJoin(std::move(inputs[0]), std::move(inputs[1]));
      case proto::PlanNode::kSort: {
        FLOTILLA_ASSIGN_OR_RETURN(auto keys, ReadSortSpecs(m.sort().keys(), "keys"));
        return MakeSort(std::move(inputs[0]), std::move(keys));
      }
      case proto::PlanNode::kTopN: {
        FLOTILLA_ASSIGN_OR_RETURN(auto keys, ReadSortSpecs(m.top_n().keys(), "keys"));
        return MakeTopN(std::move(inputs[0]), std::move(keys), m.top_n().limit(),
                        m.top_n().offset());
      }
      case proto::PlanNode::kWindow:
        return ReadWindow(m.window(), std::move(inputs[0]));
      case proto::PlanNode::kRepartition:
        return ReadRepartition(m.repartition(), std::move(inputs[0]));
      case proto::PlanNode::NODE_NOT_SET:
        break;
    }
    return Missing("the node kind");
  }

  Result<PlanPtr> ReadInMemorySource(const proto::InMemorySourceNode& m) {
    if (!m.has_schema()) return Missing("schema");
    FLOTILLA_ASSIGN_OR_RETURN(SchemaPtr schema, ReadSchema(m.schema(), "schema"));
    std::vector<MicroPartition> partitions;
    for (int i = 0; i < m.partitions_size(); ++i) {
      const std::string where = fmt::format("partitions[{}]", i);
      FLOTILLA_ASSIGN_OR_RETURN(auto batches, ReadIpcStream(m.partitions(i), schema, where));
      auto partition = MicroPartition::FromBatches(schema, std::move(batches));
      if (!partition.ok()) return partition.status().WithContext(where);
      partitions.push_back(std::move(*partition));
    }
    return MakeInMemorySource(std::move(schema), std::move(partitions));
  }

  Result<std::shared_ptr<const ScanTask>> ReadScanTask(const proto::ScanTask& m,
                                                       const SchemaPtr& file_schema) {
    if (m.kind().empty()) return Missing("kind");
    if (m.kind() == kMemoryTaskKind) {
      FLOTILLA_ASSIGN_OR_RETURN(auto batches, ReadIpcStream(m.data(), file_schema, "data"));
      return std::shared_ptr<const ScanTask>(
          std::make_shared<InMemoryScanTask>(std::move(batches), m.name()));
    }
    if (!m.name().empty()) return Status::Invalid("name is only for in-memory scan tasks");
    auto factory = resolver_.scan_tasks.find(m.kind());
    if (factory == resolver_.scan_tasks.end() || !factory->second) {
      std::vector<std::string> known{std::string(kMemoryTaskKind)};
      for (const auto& [kind, f] : resolver_.scan_tasks)
        known.push_back(kind);
      return Status::KeyError(NotFoundMessage("scan task kind", m.kind(), known) +
                              " (register its reader in PlanResolver::scan_tasks)");
    }
    auto task = factory->second(m.data());
    if (!task.ok()) return task.status().WithContext("reading a '" + m.kind() + "' scan task");
    if (*task == nullptr) {
      return Status::Invalid("the '" + m.kind() + "' scan task factory returned no task");
    }
    return task;
  }

  Result<PlanPtr> ReadScan(const proto::ScanNode& m) {
    if (!m.has_file_schema()) return Missing("file_schema");
    FLOTILLA_ASSIGN_OR_RETURN(SchemaPtr file_schema, ReadSchema(m.file_schema(), "file_schema"));
    std::vector<std::shared_ptr<const ScanTask>> tasks;
    for (int i = 0; i < m.tasks_size(); ++i) {
      auto task = ReadScanTask(m.tasks(i), file_schema);
      if (!task.ok()) return task.status().WithContext(fmt::format("tasks[{}]", i));
      tasks.push_back(std::move(*task));
    }
    ScanPushdowns pushdowns;
    if (m.has_columns()) pushdowns.columns = ReadNames(m.columns().names());
    if (m.has_filter()) {
      FLOTILLA_ASSIGN_OR_RETURN(pushdowns.filter, ReadExpression(m.filter(), "filter"));
    }
    if (m.has_limit()) pushdowns.limit = m.limit();
    return MakeScan(std::move(file_schema), std::move(tasks), std::move(pushdowns));
  }

  Result<PlanPtr> ReadUdfProject(const proto::UdfProjectNode& m, PlanPtr input) {
    if (m.function_name().empty()) return Missing("function_name");
    if (m.output_name().empty()) return Missing("output_name");
    if (!m.has_return_type()) return Missing("return_type");
    auto function = resolver_.udfs.find(m.function_name());
    if (function == resolver_.udfs.end()) {
      std::vector<std::string> known;
      for (const auto& [name, f] : resolver_.udfs)
        known.push_back(name);
      return Status::KeyError(NotFoundMessage("UDF", m.function_name(), known) +
                              " (register it in PlanResolver::udfs)");
    }
    FLOTILLA_ASSIGN_OR_RETURN(auto arguments, ReadExpressions(m.arguments(), "arguments"));
    auto return_type = expr::FromProto(m.return_type());
    if (!return_type.ok()) return return_type.status().WithContext("return_type");
    return MakeUdfProject(std::move(input), m.function_name(), function->second,
                          std::move(arguments), ReadNames(m.passthrough()), m.output_name(),
                          std::move(*return_type), m.concurrency());
  }

  static Result<PlanPtr> ReadAggregate(const proto::AggregateNode& m, PlanPtr input) {
    FLOTILLA_ASSIGN_OR_RETURN(auto group_by, ReadExpressions(m.group_by(), "group_by"));
    std::vector<AggregateSpec> aggregates;
    for (int i = 0; i < m.aggregates_size(); ++i) {
      const proto::AggregateSpec& a = m.aggregates(i);
      const std::string where = fmt::format("aggregates[{}]", i);
      if (a.function().empty()) return Missing(where + ".function");
      if (a.name().empty()) return Missing(where + ".name");
      FLOTILLA_ASSIGN_OR_RETURN(auto arguments,
                                ReadExpressions(a.arguments(), where + ".arguments"));
      aggregates.push_back(AggregateSpec{a.function(), std::move(arguments), a.name()});
    }
    const AggregateModeEntry* mode = Find(kAggregateModes, &AggregateModeEntry::proto, m.mode());
    if (mode == nullptr) {
      return Status::Invalid(
          fmt::format("mode {} is missing or unknown", static_cast<int>(m.mode())));
    }
    if (mode->mode != AggregateMode::kFinal) {
      if (m.argument_types_size() > 0) {
        return Status::Invalid("argument_types is only for a final aggregate");
      }
      return MakeAggregate(std::move(input), std::move(group_by), std::move(aggregates),
                           mode->mode);
    }
    if (m.argument_types_size() != m.aggregates_size()) {
      return Status::Invalid(fmt::format("argument_types has {} lists for {} aggregates",
                                         m.argument_types_size(), m.aggregates_size()));
    }
    // MakeFinalAggregate takes the partial aggregate; rebuild the partial node the input's rows
    // came from (group columns, then each aggregate's state columns), so the input's schema is
    // checked against it as when the plan was built.
    std::vector<std::vector<TypePtr>> argument_types;
    std::vector<Field> partial_fields;
    for (size_t k = 0; k < group_by.size(); ++k) {
      auto bound = expr::Bind(group_by[k], *input->schema());
      if (!bound.ok()) return bound.status().WithContext(fmt::format("group_by[{}]", k));
      partial_fields.push_back(Field{bound->name, bound->type(), true});
    }
    for (int i = 0; i < m.argument_types_size(); ++i) {
      const std::string where = fmt::format("argument_types[{}]", i);
      std::vector<TypePtr> types;
      for (int t = 0; t < m.argument_types(i).types_size(); ++t) {
        auto type = expr::FromProto(m.argument_types(i).types(t));
        if (!type.ok()) return type.status().WithContext(fmt::format("{}[{}]", where, t));
        types.push_back(std::move(*type));
      }
      const AggregateSpec& spec = aggregates[static_cast<size_t>(i)];
      FLOTILLA_ASSIGN_OR_RETURN(const expr::AggregateFunction* function,
                                expr::DefaultAggregateRegistry().Find(spec.function));
      if (static_cast<int>(types.size()) < function->min_args ||
          static_cast<int>(types.size()) > function->max_args) {
        return Status::TypeError(fmt::format("{}: {}() takes {} to {} arguments, got {}", where,
                                             spec.function, function->min_args, function->max_args,
                                             types.size()));
      }
      if (function->state_types == nullptr) {
        return Status::Invalid(where + ": " + spec.function + "() has no partial state");
      }
      auto state = function->state_types(types);
      if (!state.ok()) return state.status().WithContext(where);
      for (size_t s = 0; s < state->size(); ++s)
        partial_fields.push_back(Field{spec.name + "." + std::to_string(s), (*state)[s], true});
      argument_types.push_back(std::move(types));
    }
    const AggregateNode partial(std::make_shared<Schema>(std::move(partial_fields)), input,
                                std::move(group_by), std::move(aggregates), AggregateMode::kPartial,
                                std::move(argument_types));
    return MakeFinalAggregate(std::move(input), partial);
  }

  static Result<PlanPtr> ReadJoin(const proto::JoinNode& m, PlanKind kind,
                                  std::vector<PlanPtr> inputs) {
    FLOTILLA_ASSIGN_OR_RETURN(auto left_keys, ReadExpressions(m.left_keys(), "left_keys"));
    FLOTILLA_ASSIGN_OR_RETURN(auto right_keys, ReadExpressions(m.right_keys(), "right_keys"));
    std::vector<bool> null_equal(m.null_equal().begin(), m.null_equal().end());
    if (null_equal.size() != left_keys.size()) {
      return Status::Invalid(
          fmt::format("null_equal has {} flags for {} keys", null_equal.size(), left_keys.size()));
    }
    const JoinTypeEntry* type = Find(kJoinTypes, &JoinTypeEntry::proto, m.type());
    if (type == nullptr) {
      return Status::Invalid(
          fmt::format("type {} is missing or unknown", static_cast<int>(m.type())));
    }
    if (kind == PlanKind::kSortMergeJoin) {
      if (m.has_residual()) return Status::Invalid("a sort-merge join has no residual");
      return MakeSortMergeJoin(std::move(inputs[0]), std::move(inputs[1]), std::move(left_keys),
                               std::move(right_keys), type->type, std::move(null_equal));
    }
    expr::ExprPtr residual;
    if (m.has_residual()) {
      FLOTILLA_ASSIGN_OR_RETURN(residual, ReadExpression(m.residual(), "residual"));
    }
    return MakeHashJoin(std::move(inputs[0]), std::move(inputs[1]), std::move(left_keys),
                        std::move(right_keys), type->type, std::move(residual),
                        std::move(null_equal));
  }

  static Result<FrameBound> ReadFrameBound(const proto::FrameBound& m, std::string_view field) {
    const FrameBoundEntry* kind = Find(kFrameBounds, &FrameBoundEntry::proto, m.kind());
    if (kind == nullptr) {
      return Status::Invalid(
          fmt::format("{}.kind {} is missing or unknown", field, static_cast<int>(m.kind())));
    }
    const bool takes_offset =
        kind->kind == FrameBound::kPreceding || kind->kind == FrameBound::kFollowing;
    if (m.offset() < 0 || (!takes_offset && m.offset() != 0)) {
      return Status::Invalid(fmt::format("{}.offset {} is invalid", field, m.offset()));
    }
    return FrameBound{kind->kind, m.offset()};
  }

  static Result<PlanPtr> ReadWindow(const proto::WindowNode& m, PlanPtr input) {
    FLOTILLA_ASSIGN_OR_RETURN(auto partition_by, ReadExpressions(m.partition_by(), "partition_by"));
    FLOTILLA_ASSIGN_OR_RETURN(auto order_by, ReadSortSpecs(m.order_by(), "order_by"));
    std::vector<WindowExpression> functions;
    for (int i = 0; i < m.functions_size(); ++i) {
      const proto::WindowExpression& f = m.functions(i);
      const std::string where = fmt::format("functions[{}]", i);
      if (f.function().empty()) return Missing(where + ".function");
      if (f.output_name().empty()) return Missing(where + ".output_name");
      WindowExpression w;
      w.function = f.function();
      w.output_name = f.output_name();
      FLOTILLA_ASSIGN_OR_RETURN(w.arguments, ReadExpressions(f.arguments(), where + ".arguments"));
      if (f.has_frame()) {
        const FrameTypeEntry* type = Find(kFrameTypes, &FrameTypeEntry::proto, f.frame().type());
        if (type == nullptr) {
          return Status::Invalid(fmt::format("{}.frame.type {} is missing or unknown", where,
                                             static_cast<int>(f.frame().type())));
        }
        if (!f.frame().has_start()) return Missing(where + ".frame.start");
        if (!f.frame().has_end()) return Missing(where + ".frame.end");
        WindowFrame frame;
        frame.type = type->type;
        FLOTILLA_ASSIGN_OR_RETURN(frame.start,
                                  ReadFrameBound(f.frame().start(), where + ".frame.start"));
        FLOTILLA_ASSIGN_OR_RETURN(frame.end, ReadFrameBound(f.frame().end(), where + ".frame.end"));
        w.frame = frame;
      }
      functions.push_back(std::move(w));
    }
    return MakeWindow(std::move(input), std::move(partition_by), std::move(order_by),
                      std::move(functions));
  }

  // One batch in an IPC stream; its own schema types it (MakeRepartitionByRange checks the
  // shape, the partitioning the types).
  static Result<RecordBatch> ReadBoundaries(const std::string& bytes) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::CopyOf(bytes));
    SchemaPtr schema;
    auto batches = ipc::ReadStream(std::move(buffer), &schema);
    if (!batches.ok()) {
      return Status::Invalid("boundaries are not a valid Arrow IPC stream: " +
                             batches.status().message());
    }
    if (batches->size() != 1) {
      return Status::Invalid("boundaries hold " + std::to_string(batches->size()) +
                             " batches, not one");
    }
    return std::move((*batches)[0]);
  }

  static Result<PlanPtr> ReadRepartition(const proto::RepartitionNode& m, PlanPtr input) {
    const PartitionSchemeEntry* scheme =
        Find(kPartitionSchemes, &PartitionSchemeEntry::proto, m.scheme());
    if (scheme == nullptr) {
      return Status::Invalid(
          fmt::format("scheme {} is missing or unknown", static_cast<int>(m.scheme())));
    }
    const PartitionScheme s = scheme->scheme;
    if (s != PartitionScheme::kHash && m.keys_size() > 0) {
      return Status::Invalid("keys are only for hash repartitioning");
    }
    if (s != PartitionScheme::kRange && m.sort_keys_size() > 0) {
      return Status::Invalid("sort_keys are only for range repartitioning");
    }
    if (s != PartitionScheme::kRandom && m.seed() != 0) {
      return Status::Invalid("seed is only for random repartitioning");
    }
    if (s != PartitionScheme::kRange && m.has_boundaries()) {
      return Status::Invalid("boundaries are only for range repartitioning");
    }
    switch (s) {
      case PartitionScheme::kHash: {
        FLOTILLA_ASSIGN_OR_RETURN(auto keys, ReadExpressions(m.keys(), "keys"));
        return MakeRepartitionByHash(std::move(input), m.num_partitions(), std::move(keys));
      }
      case PartitionScheme::kRandom:
        return MakeRepartitionRandom(std::move(input), m.num_partitions(), m.seed());
      case PartitionScheme::kRange: {
        FLOTILLA_ASSIGN_OR_RETURN(auto keys, ReadSortSpecs(m.sort_keys(), "sort_keys"));
        std::optional<RecordBatch> boundaries;
        if (m.has_boundaries()) {
          FLOTILLA_ASSIGN_OR_RETURN(boundaries, ReadBoundaries(m.boundaries()));
        }
        return MakeRepartitionByRange(std::move(input), m.num_partitions(), std::move(keys),
                                      std::move(boundaries));
      }
      case PartitionScheme::kInto:
        return MakeIntoPartitions(std::move(input), m.num_partitions());
    }
    return Status::Invalid("scheme is unknown");
  }

  const PlanResolver& resolver_;
  std::vector<PlanPtr> nodes_;
};

}  // namespace

Result<std::string> SerializePlan(const PlanPtr& plan) {
  return PlanWriter().Write(plan);
}

Result<PlanPtr> DeserializePlan(std::string_view bytes, const PlanResolver& resolver) {
  proto::Plan message;
  FLOTILLA_RETURN_NOT_OK(expr::ParseProtoMessage(bytes, &message, kSubject));
  return PlanReader(resolver).Read(message);
}

}  // namespace flotilla::exec
