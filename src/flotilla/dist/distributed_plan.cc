#include "flotilla/dist/distributed_plan.h"

#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::dist {
namespace {

Status NotDistributed(const exec::PlanNode& node) {
  return Status::NotImplemented(std::string("not supported by the distributed runner yet: ") +
                                exec::PlanKindName(node.kind()) + " (" + node.Describe() + ")");
}

class Translator {
 public:
  Result<int> Visit(const exec::PlanPtr& plan) {
    using exec::PlanKind;
    switch (plan->kind()) {
      case PlanKind::kScan:
      case PlanKind::kInMemorySource: {
        PipelineNode n = NewNode(NodeKind::kSource, {}, plan->schema());
        n.source = plan;
        return Add(std::move(n));
      }
      case PlanKind::kProject:
      case PlanKind::kFilter:
      case PlanKind::kExplode:
      case PlanKind::kUnpivot:
        return Fuse(plan);
      case PlanKind::kSample: {
        const auto& s = static_cast<const exec::SampleNode&>(*plan);
        if (s.fraction) return Fuse(plan);
        // A sample of exactly n rows needs every row in one place.
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        return Follow(NodeKind::kGather, input, plan);
      }
      case PlanKind::kUdfProject: {
        const auto& u = static_cast<const exec::UdfProjectNode&>(*plan);
        if (u.concurrency <= 0) return Fuse(plan);
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        FLOTILLA_ASSIGN_OR_RETURN(int id, Follow(NodeKind::kActorPool, input, plan));
        nodes_[id].pool = u.function_name;
        nodes_[id].pool_size = u.concurrency;
        return id;
      }
      case PlanKind::kLimit: {
        const auto& l = static_cast<const exec::LimitNode&>(*plan);
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        if (l.limit >= 0) {
          // Every upstream task stops at limit + offset rows: no task needs more.
          FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr local,
                                    exec::MakeLimit(plan->children()[0], l.limit + l.offset));
          FLOTILLA_RETURN_NOT_OK(AppendToChain(input, local));
        }
        FLOTILLA_ASSIGN_OR_RETURN(int id, Follow(NodeKind::kLimit, input, plan));
        nodes_[id].limit = l.limit;
        nodes_[id].offset = l.offset;
        return id;
      }
      case PlanKind::kConcat: {
        std::vector<int> inputs;
        for (const exec::PlanPtr& c : plan->children()) {
          FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(c));
          inputs.push_back(input);
        }
        return Add(NewNode(NodeKind::kConcat, inputs, plan->schema()));
      }
      case PlanKind::kRepartition: {
        const auto& r = static_cast<const exec::RepartitionNode&>(*plan);
        if (r.scheme == exec::PartitionScheme::kRange) return NotDistributed(*plan);
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        if (r.scheme == exec::PartitionScheme::kInto) {
          PipelineNode n = NewNode(NodeKind::kIntoPartitions, {input}, plan->schema());
          n.num_partitions = r.num_partitions;
          return Add(std::move(n));
        }
        // The map side: each upstream task splits its rows into the shuffle's partitions.
        FLOTILLA_RETURN_NOT_OK(AppendToChain(input, plan));
        PipelineNode n = NewNode(NodeKind::kShuffleReduce, {input}, plan->schema());
        n.num_partitions = r.num_partitions;
        return Add(std::move(n));
      }
      default:
        return NotDistributed(*plan);
    }
  }

  DistributedPlan Finish(int root, SchemaPtr schema) {
    return {std::move(nodes_), root, std::move(schema)};
  }

 private:
  PipelineNode NewNode(NodeKind kind, std::vector<int> inputs, SchemaPtr schema) {
    PipelineNode n;
    n.id = static_cast<int>(nodes_.size());
    n.kind = kind;
    n.inputs = std::move(inputs);
    for (int i : n.inputs) n.rank = std::max(n.rank, nodes_[i].rank + 1);
    n.schema = std::move(schema);
    return n;
  }
  int Add(PipelineNode n) {
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size()) - 1;
  }

  // `plan`'s operator runs in the tasks of the node its input became.
  Result<int> Fuse(const exec::PlanPtr& plan) {
    FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
    FLOTILLA_RETURN_NOT_OK(AppendToChain(input, plan));
    return input;
  }

  // A coordination point: a new node whose tasks start with `plan`'s operator.
  Result<int> Follow(NodeKind kind, int input, const exec::PlanPtr& plan) {
    PipelineNode n = NewNode(kind, {input}, plan->schema());
    n.chain.push_back(plan);
    return Add(std::move(n));
  }

  Status AppendToChain(int id, const exec::PlanPtr& op) {
    PipelineNode& n = nodes_[id];
    if (n.kind == NodeKind::kConcat) {
      // A per-row operator above a concat runs on each of its inputs instead.
      for (int input : std::vector<int>(n.inputs)) {
        FLOTILLA_RETURN_NOT_OK(AppendToChain(input, op));
      }
      n.schema = op->schema();
      return Status::OK();
    }
    if (n.output_partitions > 1) {
      return Status::Internal("distributed plan: an operator above a shuffle's map side");
    }
    n.chain.push_back(op);
    n.schema = op->schema();
    if (op->kind() == exec::PlanKind::kRepartition) {
      n.output_partitions = static_cast<const exec::RepartitionNode&>(*op).num_partitions;
    }
    return Status::OK();
  }

  std::vector<PipelineNode> nodes_;
};

}  // namespace

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kSource: return "Source";
    case NodeKind::kShuffleReduce: return "ShuffleRead";
    case NodeKind::kIntoPartitions: return "IntoPartitions";
    case NodeKind::kGather: return "Gather";
    case NodeKind::kLimit: return "Limit";
    case NodeKind::kActorPool: return "ActorPool";
    case NodeKind::kConcat: return "Concat";
  }
  return "?";
}

std::string PipelineNode::Name() const {
  std::string name;
  if (kind == NodeKind::kSource) {
    name = exec::PlanKindName(source->kind());
  } else {
    name = NodeKindName(kind);
  }
  for (size_t i = 0; i < chain.size(); ++i) {
    // A Limit or ActorPool node's first chain entry is the operator that names the node.
    if (i == 0 && kind != NodeKind::kSource && kind != NodeKind::kShuffleReduce &&
        kind != NodeKind::kIntoPartitions) {
      continue;
    }
    name += std::string(" -> ") + exec::PlanKindName(chain[i]->kind());
  }
  return name;
}

Result<DistributedPlan> PlanDistributed(const exec::PlanPtr& plan) {
  if (plan == nullptr) return Status::Invalid("distributed plan: no plan");
  Translator t;
  FLOTILLA_ASSIGN_OR_RETURN(int root, t.Visit(plan));
  return t.Finish(root, plan->schema());
}

std::string DistributedPlanToString(const DistributedPlan& plan) {
  std::string out;
  for (const PipelineNode& n : plan.nodes) {
    out += "[" + std::to_string(n.id) + "] " + n.Name();
    if (n.kind == NodeKind::kShuffleReduce || n.kind == NodeKind::kIntoPartitions) {
      out += " (" + std::to_string(n.num_partitions) + " partitions)";
    } else if (n.kind == NodeKind::kActorPool) {
      out += " (" + std::to_string(n.pool_size) + " actors of '" + n.pool + "')";
    } else if (n.kind == NodeKind::kSource && n.source->kind() == exec::PlanKind::kScan) {
      out += " (" +
             std::to_string(static_cast<const exec::ScanNode&>(*n.source).tasks.size()) +
             " scan tasks)";
    }
    if (n.output_partitions > 1) {
      out += ", each task split into " + std::to_string(n.output_partitions);
    }
    if (!n.inputs.empty()) {
      out += " <-";
      for (int i : n.inputs) out += " [" + std::to_string(i) + "]";
    }
    if (n.id == plan.root) out += "  (result)";
    out += "\n";
  }
  return out;
}

std::vector<std::vector<std::shared_ptr<const exec::ScanTask>>> GroupScanTasks(
    const std::vector<std::shared_ptr<const exec::ScanTask>>& tasks, int64_t min_bytes,
    int64_t max_bytes) {
  // As many groups as min_bytes allows (and max_bytes asks), of equal size: each task goes to
  // the group its middle byte falls in, so no group is a leftover that every worker waits for.
  std::vector<std::vector<std::shared_ptr<const exec::ScanTask>>> groups;
  std::vector<std::shared_ptr<const exec::ScanTask>> known;
  auto place_known = [&] {
    int64_t total = 0;
    for (const auto& t : known) total += t->size_bytes();
    if (known.empty()) return;
    int64_t n = std::max<int64_t>(1, total / std::max<int64_t>(min_bytes, 1));
    n = std::max<int64_t>(n, (total + max_bytes - 1) / std::max<int64_t>(max_bytes, 1));
    n = std::min<int64_t>(n, static_cast<int64_t>(known.size()));
    int64_t before = 0;
    int64_t last = -1;
    for (const auto& t : known) {
      const int64_t size = t->size_bytes();
      const double middle = static_cast<double>(before) + static_cast<double>(size) / 2;
      int64_t g = total > 0 ? static_cast<int64_t>(middle * static_cast<double>(n) /
                                                   static_cast<double>(total))
                            : 0;
      g = std::min(g, n - 1);
      if (g != last) groups.emplace_back();
      groups.back().push_back(t);
      last = g;
      before += size;
    }
    known.clear();
  };
  for (const auto& task : tasks) {
    if (task->size_bytes() < 0) {
      // Tasks of unknown size stand alone, between the runs of known ones.
      place_known();
      groups.push_back({task});
      continue;
    }
    known.push_back(task);
  }
  place_known();
  return groups;
}

Result<exec::PlanPtr> BuildFragment(const PipelineNode& node, exec::PlanPtr leaf,
                                    int64_t task_index) {
  exec::PlanPtr plan = std::move(leaf);
  for (const exec::PlanPtr& op : node.chain) {
    const auto* sample = op->kind() == exec::PlanKind::kSample
                             ? static_cast<const exec::SampleNode*>(op.get())
                             : nullptr;
    if (sample != nullptr && sample->fraction && task_index > 0) {
      // Every task's random stream starts at its first morsel: the same seed in every task
      // would pick the same row positions in each. The first task keeps the seed, so a query
      // of one task samples as the local engine does.
      uint64_t seed = sample->seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(task_index);
      seed = (seed ^ (seed >> 31)) * 0xBF58476D1CE4E5B9ull;
      FLOTILLA_ASSIGN_OR_RETURN(plan, exec::MakeSampleFraction(plan, *sample->fraction,
                                                               sample->with_replacement,
                                                               seed ^ (seed >> 29)));
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(plan, optimizer::WithNewChildren(*op, {plan}));
  }
  return plan;
}

}  // namespace flotilla::dist
