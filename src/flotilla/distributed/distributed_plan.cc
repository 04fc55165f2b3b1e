#include "flotilla/distributed/distributed_plan.h"

#include <algorithm>
#include <set>

#include "flotilla/optimizer/plan_rewrite.h"

namespace flotilla::distributed {
namespace {

Status NotDistributed(const exec::PlanNode& node) {
  return Status::NotImplemented(std::string("not supported by the distributed runner yet: ") +
                                exec::PlanKindName(node.kind()) + " (" + node.Describe() + ")");
}

// A sample of each task's rows per range partition (the driver computes the boundaries from
// the union): enough that a partition's share of the sample is close to its share of the rows.
constexpr int64_t kSampleRowsPerPartition = 100;

// The seed of a task's sample of a sort's keys: fixed, so a re-run samples alike.
constexpr uint64_t kSortSampleSeed = 0x50a7u;

// The seed of task `task_index` of a node drawing from `seed`: its own stream, the same in every
// attempt (a task run again draws as the first run did). Task 0 keeps the seed.
uint64_t TaskSeed(uint64_t seed, int64_t task_index) {
  if (task_index == 0) return seed;
  uint64_t x = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(task_index);
  x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 29);
}

// Steps whose output rows depend on the order of their input rows (which rows pass, or where
// each goes, or the values numbering them): run again over the same rows in another order, a
// task would output other rows, and its readers that had read the first attempt's would lose
// or duplicate some.
bool OrderSensitive(const exec::PlanNode& op) {
  switch (op.kind()) {
    case exec::PlanKind::kSample:
    case exec::PlanKind::kLimit:
    case exec::PlanKind::kTopN:
    case exec::PlanKind::kDistinct:
    case exec::PlanKind::kMonotonicId:
    case exec::PlanKind::kWindow:  // row_number among ties, first_value, frames over them
      return true;
    case exec::PlanKind::kAggregate: {
      // The value picked or the order collected: a filter on it, or a shuffle on it, above.
      static const std::set<std::string> kByOrder = {
          "first",   "last",       "any_value",  "arbitrary", "list",    "agg_list", "array_agg",
          "agg_set", "string_agg", "agg_concat", "arg_min",   "arg_max", "min_by",   "max_by"};
      for (const exec::AggregateSpec& a : static_cast<const exec::AggregateNode&>(op).aggregates) {
        if (kByOrder.count(a.function) > 0) return true;
      }
      return false;
    }
    case exec::PlanKind::kRepartition: {
      const exec::PartitionScheme scheme = static_cast<const exec::RepartitionNode&>(op).scheme;
      return scheme == exec::PartitionScheme::kRandom || scheme == exec::PartitionScheme::kInto;
    }
    default:
      return false;
  }
}

// Where a node's tasks (or a node reading them) are order sensitive, every read above them
// keeps one order whichever workers hold the pieces: an exchange reads in map-task order and a
// broadcast side in task order. A task run again after a loss then reads its rows in the first
// attempt's order and outputs the same rows. (Reads by worker stay where only the set of rows
// matters: a task run again reads the same rows, in another order.)
void KeepOrderWhereItMatters(DistributedPlan* plan) {
  std::vector<PipelineNode>& nodes = plan->nodes;
  std::vector<bool> matters(nodes.size(), false);
  for (PipelineNode& n : nodes) {
    // (A sort's key sample is sent to the driver, which picks the boundaries once: never read
    // again, it cannot disagree with itself.)
    if (n.kind == NodeKind::kSample) continue;
    matters[n.id] = n.kind == NodeKind::kIntoPartitions || n.kind == NodeKind::kLimit ||
                    std::any_of(n.chain.begin(), n.chain.end(),
                                [](const ChainStep& s) { return OrderSensitive(*s.op); });
  }
  // Down to the sources, until nothing changes (ids and ranks need not be topological once
  // nodes are added at run time or a concat's inputs are re-ranked).
  for (bool changed = true; changed;) {
    changed = false;
    for (const PipelineNode& n : nodes) {
      if (!matters[n.id]) continue;
      auto mark = [&](int i) {
        if (!matters[i]) changed = matters[i] = true;
      };
      for (int input : n.inputs)
        mark(input);
      for (const SideInput& side : n.sides)
        mark(side.node);
    }
  }
  for (PipelineNode& n : nodes) {
    if (!matters[n.id]) continue;
    if (n.kind == NodeKind::kExchange) n.ordered = true;
    for (SideInput& side : n.sides)
      side.ordered = true;
  }
}

// A join side's size once read into memory, as far as planning can tell: the optimizer's row
// estimate (scan metadata, fixed selectivities for filters) times the width of a row of its
// columns (strings and nested values counted at 32 bytes); -1 when unknown.
int64_t EstimateBytes(const exec::PlanPtr& plan) {
  const double rows = optimizer::EstimateRows(*plan);
  if (rows < 0) return -1;
  double width = 0;
  for (const Field& f : plan->schema()->fields()) {
    width += f.type->is_fixed_width() ? std::max(1, f.type->byte_width()) : 32;
  }
  return static_cast<int64_t>(rows * std::max(width, 1.0));
}

// `join` (a hash, sort-merge or cross join) again, over a task's reads of its two sides.
Result<exec::PlanPtr> Rejoin(const exec::PlanPtr& join, exec::PlanPtr left, exec::PlanPtr right) {
  if (join->kind() == exec::PlanKind::kCrossJoin) {
    return exec::MakeCrossJoin(std::move(left), std::move(right));
  }
  const auto& j = static_cast<const exec::JoinNode&>(*join);
  if (join->kind() == exec::PlanKind::kSortMergeJoin) {
    return exec::MakeSortMergeJoin(std::move(left), std::move(right), j.left_keys, j.right_keys,
                                   j.type, j.null_equal);
  }
  return exec::MakeHashJoin(std::move(left), std::move(right), j.left_keys, j.right_keys, j.type,
                            j.residual, j.null_equal, j.strategy);
}

// Stands for a task's input when a step is planned before its input exists.
exec::PlanPtr Placeholder(const SchemaPtr& schema) {
  return exec::MakeInMemorySource(schema, std::vector<RecordBatch>{}).ValueOrDie();
}

// A shuffle's map side on `keys`, into the partition count its task is given.
ChainStep HashSplit(const SchemaPtr& schema, std::vector<expr::ExprPtr> keys) {
  exec::PlanPtr placeholder =
      exec::MakeRepartitionByHash(Placeholder(schema), 1, keys).ValueOrDie();
  return {placeholder, [keys](exec::PlanPtr in, const TaskContext& t) {
            return exec::MakeRepartitionByHash(std::move(in), t.output_partitions, keys);
          }};
}

// The plain column names of `exprs` (a column, or an alias of one, names its output); empty
// when any is computed.
std::vector<std::string> ColumnNames(const std::vector<expr::ExprPtr>& exprs) {
  std::vector<std::string> out;
  for (const expr::ExprPtr& e : exprs) {
    if (e->kind() != expr::ExprKind::kColumn) return {};
    out.push_back(e->name());
  }
  return out;
}

bool Covers(const std::vector<std::string>& columns, const std::vector<std::string>& clustered) {
  if (clustered.empty()) return false;
  for (const std::string& c : clustered) {
    if (std::find(columns.begin(), columns.end(), c) == columns.end()) return false;
  }
  return true;
}

// What `clustered` becomes after `op` runs in the same tasks: kept by the steps that keep each
// row in its task and its key columns unchanged, renamed by projections, lost otherwise.
std::vector<std::string> Carry(const std::vector<std::string>& clustered,
                               const exec::PlanNode& op) {
  using exec::PlanKind;
  if (clustered.empty()) return {};
  switch (op.kind()) {
    case PlanKind::kFilter:
    case PlanKind::kLimit:
    case PlanKind::kSample:
    case PlanKind::kSort:
    case PlanKind::kTopN:
    case PlanKind::kMonotonicId:
    case PlanKind::kWindow:
    case PlanKind::kDistinct:
      return clustered;
    case PlanKind::kProject: {
      std::vector<std::string> out;
      for (const std::string& c : clustered) {
        std::string renamed;
        for (const expr::ExprPtr& e : static_cast<const exec::ProjectNode&>(op).expressions) {
          const expr::ExprPtr& inner = e->kind() == expr::ExprKind::kAlias ? e->children()[0] : e;
          if (inner->kind() == expr::ExprKind::kColumn && inner->name() == c) {
            renamed = e->name();
            break;
          }
        }
        if (renamed.empty()) return {};
        out.push_back(renamed);
      }
      return out;
    }
    case PlanKind::kAggregate: {
      const auto& a = static_cast<const exec::AggregateNode&>(op);
      return Covers(ColumnNames(a.group_by), clustered) ? clustered : std::vector<std::string>{};
    }
    case PlanKind::kHashJoin:
    case PlanKind::kSortMergeJoin: {
      // The task's own rows are the left side's; their key columns keep their values.
      using exec::JoinType;
      const JoinType t = static_cast<const exec::JoinNode&>(op).type;
      const bool keeps_left = t == JoinType::kInner || t == JoinType::kLeft ||
                              t == JoinType::kSemi || t == JoinType::kAnti;
      return keeps_left ? clustered : std::vector<std::string>{};
    }
    default:
      return {};
  }
}

// The columns a join's output is hash partitioned on when both its sides were partitioned on
// the keys named `left` and `right`: a side's key columns hold the partition's key in every
// output row unless the join fills that side with nulls (or renames its columns: the right
// side's, when it outputs both).
std::vector<std::string> OutputClustering(const exec::JoinNode& j, std::vector<std::string> left,
                                          std::vector<std::string> right) {
  using exec::JoinType;
  switch (j.type) {
    case JoinType::kInner:
    case JoinType::kLeft:
    case JoinType::kSemi:
    case JoinType::kAnti:
      return left;
    case JoinType::kRightSemi:
    case JoinType::kRightAnti:
      return right;
    default:
      return {};
  }
}

class Translator {
 public:
  explicit Translator(const DistributedPlanOptions& options) : options_(options) {}

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
        if (s.fraction) return Fuse(plan, SampleBySeedPerTask(s));
        // A sample of exactly n rows needs every row in one place.
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        return Follow(NodeKind::kGather, input, plan);
      }
      case PlanKind::kMonotonicId: {
        const auto& m = static_cast<const exec::MonotonicIdNode&>(*plan);
        // Each task numbers its rows as the partition of its place among the node's tasks.
        return Fuse(plan, [name = m.column_name](exec::PlanPtr in, const TaskContext& t) {
          return exec::MakeMonotonicId(std::move(in), name, t.task_index);
        });
      }
      case PlanKind::kUdfProject: {
        const auto& u = static_cast<const exec::UdfProjectNode&>(*plan);
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        input = SpreadForUdf(input, u.concurrency);
        if (u.concurrency <= 0) {
          FLOTILLA_RETURN_NOT_OK(AppendToChain(input, {plan}));
          return input;
        }
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
          FLOTILLA_RETURN_NOT_OK(AppendToChain(input, {local}));
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
      case PlanKind::kRepartition:
        return VisitRepartition(plan);
      case PlanKind::kAggregate:
        return VisitAggregate(plan);
      case PlanKind::kDistinct: {
        const auto& d = static_cast<const exec::DistinctNode&>(*plan);
        // Each task keeps its first row per key, the exchange brings a key's rows together in
        // task order, and the reduce side keeps the first of those: the first row overall.
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        std::vector<std::string> columns = d.columns;
        if (columns.empty()) {
          for (const Field& f : plan->schema()->fields())
            columns.push_back(f.name);
        }
        if (Covers(columns, nodes_[input].clustered_on)) return Elide(input, plan);
        FLOTILLA_RETURN_NOT_OK(AppendToChain(input, {plan}));
        std::vector<expr::ExprPtr> keys;
        if (d.columns.empty()) {
          for (const Field& f : plan->schema()->fields())
            keys.push_back(expr::Column(f.name));
        } else {
          for (const std::string& c : d.columns)
            keys.push_back(expr::Column(c));
        }
        return HashExchange(input, std::move(keys), {plan});
      }
      case PlanKind::kTopN: {
        const auto& t = static_cast<const exec::TopNNode&>(*plan);
        // Each task keeps its own first limit + offset rows; one task picks among them.
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        FLOTILLA_ASSIGN_OR_RETURN(
            exec::PlanPtr local,
            exec::MakeTopN(plan->children()[0], t.keys, t.limit < 0 ? -1 : t.limit + t.offset, 0));
        if (t.limit >= 0) FLOTILLA_RETURN_NOT_OK(AppendToChain(input, {local}));
        return Follow(NodeKind::kGather, input, plan);
      }
      case PlanKind::kWindow: {
        const auto& w = static_cast<const exec::WindowNode&>(*plan);
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        if (w.partition_by.empty()) return GatherOnOneWorker(input, plan);
        if (Covers(ColumnNames(w.partition_by), nodes_[input].clustered_on)) {
          return Elide(input, plan);
        }
        return HashExchange(input, w.partition_by, {plan});
      }
      case PlanKind::kPivot: {
        const auto& p = static_cast<const exec::PivotNode&>(*plan);
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        if (p.group_by.empty()) return GatherOnOneWorker(input, plan);
        return HashExchange(input, p.group_by, {plan});
      }
      case PlanKind::kHashJoin:
      case PlanKind::kSortMergeJoin:
      case PlanKind::kCrossJoin:
        return VisitJoin(plan);
      case PlanKind::kSort: {
        const auto& s = static_cast<const exec::SortNode&>(*plan);
        FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
        const double rows = optimizer::EstimateRows(*plan->children()[0]);
        if (rows >= 0 && rows <= static_cast<double>(options_.gather_sort_rows)) {
          return Follow(NodeKind::kGather, input, plan);  // reads its input in order: stable
        }
        // Range partitions in key order, each sorted: the result partitions in order.
        return RangeExchange(input, s.keys, 0, ChainStep{plan});
      }
      default:
        return NotDistributed(*plan);
    }
  }

  DistributedPlan Finish(int root, SchemaPtr schema) {
    return {std::move(nodes_), root, std::move(schema)};
  }

 private:
  // A join: the small side broadcast to the other side's tasks where the join type allows
  // (every row the join keeps of a side is output by exactly one task), else both sides
  // shuffled on the keys into the same partitions and joined partition by partition.
  Result<int> VisitJoin(const exec::PlanPtr& plan) {
    const exec::PlanPtr& left = plan->children()[0];
    const exec::PlanPtr& right = plan->children()[1];
    const int64_t left_bytes = EstimateBytes(left);
    const int64_t right_bytes = EstimateBytes(right);
    auto small = [&](int64_t bytes) { return bytes >= 0 && bytes < options_.broadcast_join_bytes; };
    bool right_ok = true, left_ok = true;  // a cross join's either side
    if (plan->kind() != exec::PlanKind::kCrossJoin) {
      using exec::JoinType;
      const JoinType t = static_cast<const exec::JoinNode&>(*plan).type;
      right_ok = t == JoinType::kInner || t == JoinType::kLeft || t == JoinType::kSemi ||
                 t == JoinType::kAnti;
      left_ok = t == JoinType::kInner || t == JoinType::kRight || t == JoinType::kRightSemi ||
                t == JoinType::kRightAnti;
      // The user's hint first: shuffle, or broadcast whatever the sizes.
      const exec::JoinStrategy hint = static_cast<const exec::JoinNode&>(*plan).strategy;
      if (hint == exec::JoinStrategy::kShuffle) right_ok = left_ok = false;
      if (hint != exec::JoinStrategy::kBroadcast) {
        right_ok = right_ok && small(right_bytes);
        left_ok = left_ok && small(left_bytes);
      }
    } else {
      // A cross join broadcasts its smaller side; two large sides pair every task of the one
      // with every task of the other.
      const bool left_smaller = left_bytes >= 0 && (right_bytes < 0 || left_bytes < right_bytes);
      if (!small(left_smaller ? left_bytes : right_bytes)) return CrossPairs(plan);
      (left_smaller ? right_ok : left_ok) = false;
    }
    if (right_ok && left_ok) {
      // The smaller side (an unknown size counts as large).
      const bool left_smaller = left_bytes >= 0 && (right_bytes < 0 || left_bytes < right_bytes);
      (left_smaller ? right_ok : left_ok) = false;
    }
    if (right_ok || left_ok) return BroadcastJoin(plan, /*broadcast_right=*/right_ok);

    const auto& j = static_cast<const exec::JoinNode&>(*plan);
    FLOTILLA_ASSIGN_OR_RETURN(int l, Visit(left));
    FLOTILLA_ASSIGN_OR_RETURN(int r, Visit(right));
    // A side already hash partitioned on (some of) its keys stays where it is: only the other
    // side is shuffled, into its partitions.
    if (auto keys = SplitKeysFor(l, j.left_keys, j.right_keys)) {
      return JoinIntoClustered(plan, l, r, /*own_is_left=*/true, std::move(*keys));
    }
    if (auto keys = SplitKeysFor(r, j.right_keys, j.left_keys)) {
      return JoinIntoClustered(plan, r, l, /*own_is_left=*/false, std::move(*keys));
    }
    PipelineNode x = NewNode(NodeKind::kExchange, {l}, plan->schema());
    x.sides = {{r, false}};
    x.rank = std::max(x.rank, nodes_[r].rank + 1);
    x.count_from = {l, r};
    x.clustered_on = OutputClustering(j, ColumnNames(j.left_keys), ColumnNames(j.right_keys));
    x.chain.push_back({plan, [plan, r](exec::PlanPtr in, const TaskContext& t) {
                         return Rejoin(plan, std::move(in), t.Side(r));
                       }});
    const int id = Add(std::move(x));
    FLOTILLA_RETURN_NOT_OK(SealMapSide(l, HashSplit(nodes_[l].schema, j.left_keys), id));
    FLOTILLA_RETURN_NOT_OK(SealMapSide(r, HashSplit(nodes_[r].schema, j.right_keys), id));
    return id;
  }

  Result<int> CrossPairs(const exec::PlanPtr& plan) {
    FLOTILLA_ASSIGN_OR_RETURN(int l, Visit(plan->children()[0]));
    FLOTILLA_ASSIGN_OR_RETURN(int r, Visit(plan->children()[1]));
    PipelineNode p = NewNode(NodeKind::kPairs, {l}, plan->schema());
    p.sides = {{r, false}};
    p.rank = std::max(p.rank, nodes_[r].rank + 1);
    p.chain.push_back({plan, [plan, r](exec::PlanPtr in, const TaskContext& t) {
                         return Rejoin(plan, std::move(in), t.Side(r));
                       }});
    return Add(std::move(p));
  }

  // When `node` is an exchange clustered on columns that are all among `own_keys` (plain
  // columns), the other side's keys to split on, in the clustering's order.
  std::optional<std::vector<expr::ExprPtr>> SplitKeysFor(
      int node, const std::vector<expr::ExprPtr>& own_keys,
      const std::vector<expr::ExprPtr>& other_keys) {
    const PipelineNode& n = nodes_[node];
    if (n.kind != NodeKind::kExchange || n.exchange >= 0 || n.clustered_on.empty())
      return std::nullopt;
    const std::vector<std::string> names = ColumnNames(own_keys);
    if (names.empty()) return std::nullopt;
    std::vector<expr::ExprPtr> out;
    for (const std::string& c : n.clustered_on) {
      auto it = std::find(names.begin(), names.end(), c);
      if (it == names.end()) return std::nullopt;
      out.push_back(other_keys[static_cast<size_t>(it - names.begin())]);
    }
    return out;
  }

  // The join runs in the tasks of `own` (clustered on its keys); `other`'s tasks split on
  // `split_keys` into `own`'s partitions, and task i of `own` reads partition i of them.
  Result<int> JoinIntoClustered(const exec::PlanPtr& plan, int own, int other, bool own_is_left,
                                std::vector<expr::ExprPtr> split_keys) {
    using exec::JoinType;
    const auto& j = static_cast<const exec::JoinNode&>(*plan);
    // The clustering's columns as each side names them.
    const std::vector<std::string>& own_names = nodes_[own].clustered_on;
    const std::vector<std::string> own_keys = ColumnNames(own_is_left ? j.left_keys : j.right_keys);
    const std::vector<std::string> other_keys =
        ColumnNames(own_is_left ? j.right_keys : j.left_keys);
    std::vector<std::string> other_names;
    for (const std::string& c : own_names) {
      const auto at = std::find(own_keys.begin(), own_keys.end(), c) - own_keys.begin();
      if (other_keys.empty()) break;
      other_names.push_back(other_keys[static_cast<size_t>(at)]);
    }
    if (other_keys.empty()) other_names.clear();
    const std::vector<std::string> clustering = own_is_left
                                                    ? OutputClustering(j, own_names, other_names)
                                                    : OutputClustering(j, other_names, own_names);
    nodes_[own].sides.push_back({other, false});
    nodes_[own].rank = std::max(nodes_[own].rank, nodes_[other].rank + 1);
    FLOTILLA_RETURN_NOT_OK(AppendToChain(
        own, {plan, [plan, other, own_is_left](exec::PlanPtr in, const TaskContext& t) {
                return own_is_left ? Rejoin(plan, std::move(in), t.Side(other))
                                   : Rejoin(plan, t.Side(other), std::move(in));
              }}));
    nodes_[own].clustered_on = clustering;
    nodes_[own].elided_exchanges += 1;
    FLOTILLA_RETURN_NOT_OK(
        SealMapSide(other, HashSplit(nodes_[other].schema, std::move(split_keys)), own));
    return own;
  }

  // The join runs in the tasks of the streamed side, each reading all of the broadcast side.
  Result<int> BroadcastJoin(const exec::PlanPtr& plan, bool broadcast_right) {
    const exec::PlanPtr& streamed = plan->children()[broadcast_right ? 0 : 1];
    const exec::PlanPtr& broadcast = plan->children()[broadcast_right ? 1 : 0];
    // The broadcast side first: nodes stay in topological order.
    FLOTILLA_ASSIGN_OR_RETURN(int b, Visit(broadcast));
    FLOTILLA_ASSIGN_OR_RETURN(int s, Visit(streamed));
    ChainStep step{plan, [plan, b, broadcast_right](exec::PlanPtr in, const TaskContext& t) {
                     return broadcast_right ? Rejoin(plan, std::move(in), t.Side(b))
                                            : Rejoin(plan, t.Side(b), std::move(in));
                   }};
    step.broadcast = b;
    step.broadcast_is_left = !broadcast_right;
    FLOTILLA_RETURN_NOT_OK(AppendToChain(s, std::move(step)));
    // The tasks' own rows are the join's right side, whose columns may be renamed.
    if (!broadcast_right) nodes_[s].clustered_on.clear();
    return s;
  }

  Result<int> VisitRepartition(const exec::PlanPtr& plan) {
    const auto& r = static_cast<const exec::RepartitionNode&>(*plan);
    FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
    switch (r.scheme) {
      case exec::PartitionScheme::kInto: {
        PipelineNode n = NewNode(NodeKind::kIntoPartitions, {input}, plan->schema());
        n.num_partitions = r.num_partitions;
        return Add(std::move(n));
      }
      case exec::PartitionScheme::kRange:
        return RangeExchange(input, r.sort_keys, r.num_partitions, std::nullopt);
      case exec::PartitionScheme::kHash:
      case exec::PartitionScheme::kRandom: {
        // The map side: each upstream task splits its rows into the shuffle's partitions (a
        // random split from a seed of its own). Row order within a partition is not promised,
        // so pieces are read by worker unless something above depends on it.
        PipelineNode n = NewNode(NodeKind::kExchange, {input}, plan->schema());
        n.num_partitions = r.num_partitions;
        ChainStep split{plan};
        if (r.scheme == exec::PartitionScheme::kHash) {
          n.clustered_on = ColumnNames(r.keys);
          if (r.num_partitions == 0) {  // the runner picks the count, as for an aggregate's
            n.count_from = {input};
            split = HashSplit(nodes_[input].schema, r.keys);
          }
        } else {
          split.build = [seed = r.seed](exec::PlanPtr in, const TaskContext& t) {
            return exec::MakeRepartitionRandom(std::move(in), t.output_partitions,
                                               TaskSeed(seed, t.task_index));
          };
        }
        const int id = Add(std::move(n));
        FLOTILLA_RETURN_NOT_OK(SealMapSide(input, split, id));
        return id;
      }
    }
    return NotDistributed(*plan);
  }

  Result<int> VisitAggregate(const exec::PlanPtr& plan) {
    const auto& a = static_cast<const exec::AggregateNode&>(*plan);
    if (a.mode != exec::AggregateMode::kSingle) return NotDistributed(*plan);
    FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
    if (!a.group_by.empty() && Covers(ColumnNames(a.group_by), nodes_[input].clustered_on)) {
      return Elide(input, plan);
    }
    FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr partial,
                              exec::MakeAggregate(plan->children()[0], a.group_by, a.aggregates,
                                                  exec::AggregateMode::kPartial));
    FLOTILLA_RETURN_NOT_OK(AppendToChain(input, {partial}));
    ChainStep final_step{plan, [partial](exec::PlanPtr in, const TaskContext&) {
                           return exec::MakeFinalAggregate(
                               std::move(in), static_cast<const exec::AggregateNode&>(*partial));
                         }};
    if (a.group_by.empty()) {
      // One row whatever the input: every partial state meets in one task.
      return Follow(NodeKind::kGather, input, std::move(final_step));
    }
    // The partial output starts with the group columns.
    std::vector<expr::ExprPtr> keys;
    for (size_t k = 0; k < a.group_by.size(); ++k) {
      keys.push_back(expr::Column(partial->schema()->field(static_cast<int>(k)).name));
    }
    return HashExchange(input, std::move(keys), std::move(final_step));
  }

  // A shuffle on `keys` into as many partitions as the upstream has tasks (at most the
  // configured maximum), read in map-task order by tasks that start with `reduce`.
  Result<int> HashExchange(int input, std::vector<expr::ExprPtr> keys, ChainStep reduce) {
    PipelineNode n = NewNode(NodeKind::kExchange, {input}, reduce.op->schema());
    n.count_from = {input};
    n.ordered = true;
    n.clustered_on = Carry(ColumnNames(keys), *reduce.op);
    n.chain.push_back(std::move(reduce));
    const int id = Add(std::move(n));
    FLOTILLA_RETURN_NOT_OK(
        SealMapSide(input, HashSplit(nodes_[input].schema, std::move(keys)), id));
    return id;
  }

  // A shuffle by ranges of `keys`: a sample of every upstream task's keys (kept by the driver,
  // which picks the boundaries once), then each upstream output split at the boundaries, then
  // partition i of every split read in task order. `num_partitions` 0: as many as the upstream
  // has tasks, at most the configured maximum.
  Result<int> RangeExchange(int input, std::vector<exec::SortSpec> keys, int num_partitions,
                            std::optional<ChainStep> reduce) {
    SchemaPtr schema = nodes_[input].schema;
    std::vector<expr::ExprPtr> key_columns;
    for (size_t k = 0; k < keys.size(); ++k) {
      key_columns.push_back(expr::Alias(keys[k].key, "k" + std::to_string(k)));
    }
    FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr project,
                              exec::MakeProject(Placeholder(schema), std::move(key_columns)));
    FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr sample,
                              exec::MakeSampleSize(project, 0, false, kSortSampleSeed));
    PipelineNode s = NewNode(NodeKind::kSample, {input}, project->schema());
    s.chain.push_back({project});
    s.chain.push_back(
        {sample, [](exec::PlanPtr in, const TaskContext& t) {
           // This task's share of the sample: in proportion to its rows.
           const int64_t want = kSampleRowsPerPartition * t.target_partitions;
           int64_t size = t.total_input_rows <= 0
                              ? 0
                              : (t.input_rows * want + t.total_input_rows - 1) / t.total_input_rows;
           size = std::min(size, t.input_rows);
           return exec::MakeSampleSize(std::move(in), size, false, kSortSampleSeed + t.task_index);
         }});
    const int sample_node = Add(std::move(s));

    FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr split,
                              exec::MakeRepartitionByRange(Placeholder(schema), 1, keys));
    PipelineNode m = NewNode(NodeKind::kMap, {input, sample_node}, schema);
    m.sample = sample_node;
    m.chain.push_back({split, [keys](exec::PlanPtr in, const TaskContext& t) {
                         return exec::MakeRepartitionByRange(std::move(in), t.output_partitions,
                                                             keys, *t.boundaries);
                       }});
    const int map = Add(std::move(m));

    PipelineNode x = NewNode(NodeKind::kExchange, {map}, reduce ? reduce->op->schema() : schema);
    x.num_partitions = num_partitions;
    x.count_from = {input};
    x.ordered = true;
    x.sample = sample_node;
    x.range_keys = keys;
    if (reduce) x.chain.push_back(std::move(*reduce));
    const int id = Add(std::move(x));
    nodes_[map].exchange = id;
    nodes_[sample_node].range_exchange = id;
    return id;
  }

  // A UDF is the heavy part of its tasks: over a source of fewer tasks than the cluster runs at
  // once (one small file, a few in-memory partitions) workers would idle, so the source's rows
  // are split into that many partitions first (an actor pool's: one per actor at least).
  int SpreadForUdf(int input, int concurrency) {
    const PipelineNode& n = nodes_[input];
    if (n.kind != NodeKind::kSource) return input;
    const size_t tasks =
        n.source->kind() == exec::PlanKind::kScan
            ? static_cast<const exec::ScanNode&>(*n.source).tasks.size()
            : static_cast<const exec::InMemorySourceNode&>(*n.source).partitions.size();
    const int want = std::max(options_.concurrent_tasks, concurrency);
    if (tasks == 0 || tasks >= static_cast<size_t>(want)) return input;
    PipelineNode p = NewNode(NodeKind::kIntoPartitions, {input}, n.schema);
    p.num_partitions = want;
    p.reason = "added: " + std::to_string(tasks) + " source task(s) split so the UDF runs " +
               std::to_string(want) + " at once";
    return Add(std::move(p));
  }

  // An operator that needs every row in one task.
  Result<int> GatherOnOneWorker(int input, const exec::PlanPtr& plan) {
    FLOTILLA_ASSIGN_OR_RETURN(int id, Follow(NodeKind::kGather, input, plan));
    nodes_[id].note = std::string(exec::PlanKindName(plan->kind())) +
                      " without partition keys runs on one worker";
    return id;
  }

  // A fragment's sample by fraction draws from a seed of its own per task: every task's random
  // stream starts at its first morsel, and the same seed everywhere would pick the same row
  // positions in each. The first task keeps the seed, so a query of one task samples as the
  // local engine does.
  static ChainStep::Build SampleBySeedPerTask(const exec::SampleNode& s) {
    return [fraction = *s.fraction, replace = s.with_replacement, seed = s.seed](
               exec::PlanPtr in, const TaskContext& t) {
      return exec::MakeSampleFraction(std::move(in), fraction, replace,
                                      TaskSeed(seed, t.task_index));
    };
  }

  PipelineNode NewNode(NodeKind kind, std::vector<int> inputs, SchemaPtr schema) {
    PipelineNode n;
    n.id = static_cast<int>(nodes_.size());
    n.kind = kind;
    n.inputs = std::move(inputs);
    for (int i : n.inputs)
      n.rank = std::max(n.rank, nodes_[i].rank + 1);
    n.schema = std::move(schema);
    return n;
  }
  int Add(PipelineNode n) {
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size()) - 1;
  }

  // `plan`'s operator runs in the tasks of the node its input became.
  Result<int> Fuse(const exec::PlanPtr& plan, ChainStep::Build build = nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(int input, Visit(plan->children()[0]));
    FLOTILLA_RETURN_NOT_OK(AppendToChain(input, {plan, std::move(build)}));
    return input;
  }

  // A coordination point: a new node whose tasks start with `step`.
  Result<int> Follow(NodeKind kind, int input, ChainStep step) {
    PipelineNode n = NewNode(kind, {input}, step.op->schema());
    n.chain.push_back(std::move(step));
    return Add(std::move(n));
  }
  Result<int> Follow(NodeKind kind, int input, const exec::PlanPtr& plan) {
    return Follow(kind, input, ChainStep{plan});
  }

  Status AppendToChain(int id, ChainStep step) {
    PipelineNode& n = nodes_[id];
    if (n.kind == NodeKind::kConcat) {
      // A per-row operator above a concat runs on each of its inputs instead.
      for (int input : std::vector<int>(n.inputs)) {
        FLOTILLA_RETURN_NOT_OK(AppendToChain(input, step));
      }
      nodes_[id].schema = step.op->schema();
      nodes_[id].clustered_on.clear();  // its inputs' tasks each hold any key
      return Status::OK();
    }
    if (n.exchange >= 0) {
      return Status::Internal("distributed plan: an operator above a shuffle's map side");
    }
    if (step.broadcast >= 0) {
      n.sides.push_back({step.broadcast, true});
      n.rank = std::max(n.rank, nodes_[step.broadcast].rank + 1);
    }
    n.schema = step.op->schema();
    n.clustered_on = Carry(n.clustered_on, *step.op);
    n.chain.push_back(std::move(step));
    return Status::OK();
  }

  // `plan` (an aggregate, distinct or window) over an input already hash partitioned on a
  // subset of its keys: every key's rows are in one task already, so it runs in those tasks.
  Result<int> Elide(int input, const exec::PlanPtr& plan) {
    FLOTILLA_RETURN_NOT_OK(AppendToChain(input, {plan}));
    nodes_[input].elided_exchanges += 1;
    return input;
  }

  // The tasks of `id` (of each input of a concat) end in `split`, the map side of `exchange`.
  Status SealMapSide(int id, const ChainStep& split, int exchange) {
    if (nodes_[id].kind == NodeKind::kConcat) {
      for (int input : std::vector<int>(nodes_[id].inputs)) {
        FLOTILLA_RETURN_NOT_OK(SealMapSide(input, split, exchange));
      }
      return Status::OK();
    }
    FLOTILLA_RETURN_NOT_OK(AppendToChain(id, split));
    nodes_[id].exchange = exchange;
    return Status::OK();
  }

  DistributedPlanOptions options_;
  std::vector<PipelineNode> nodes_;
};

}  // namespace

const exec::PlanPtr& TaskContext::Side(int node) const {
  for (const auto& [id, plan] : sides) {
    if (id == node) return plan;
  }
  static const exec::PlanPtr kNone;
  return kNone;
}

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kSource:
      return "Source";
    case NodeKind::kExchange:
      return "Exchange";
    case NodeKind::kIntoPartitions:
      return "IntoPartitions";
    case NodeKind::kGather:
      return "Gather";
    case NodeKind::kLimit:
      return "Limit";
    case NodeKind::kActorPool:
      return "ActorPool";
    case NodeKind::kMap:
      return "Map";
    case NodeKind::kSample:
      return "SortSample";
    case NodeKind::kConcat:
      return "Concat";
    case NodeKind::kCommit:
      return "Commit";
    case NodeKind::kPairs:
      return "Pairs";
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
  if (kind == NodeKind::kSample) return name;  // its steps are its own business
  for (size_t i = 0; i < chain.size(); ++i) {
    // A Limit or ActorPool node's first chain entry is the operator that names the node.
    if (i == 0 && (kind == NodeKind::kLimit || kind == NodeKind::kActorPool)) continue;
    name += std::string(" -> ") + exec::PlanKindName(chain[i].op->kind());
  }
  return name;
}

Result<DistributedPlan> PlanDistributed(const exec::PlanPtr& plan,
                                        const DistributedPlanOptions& options) {
  if (plan == nullptr) return Status::Invalid("distributed plan: no plan");
  Translator t(options);
  FLOTILLA_ASSIGN_OR_RETURN(int root, t.Visit(plan));
  DistributedPlan out = t.Finish(root, plan->schema());
  KeepOrderWhereItMatters(&out);
  return out;
}

void AddCommit(DistributedPlan* plan, const std::vector<std::string>& partition_by) {
  std::vector<Field> fields{{"path", utf8(), true}};
  for (const std::string& c : partition_by)
    fields.push_back({c, utf8(), true});
  fields.push_back({"rows", int64(), true});
  fields.push_back({"bytes", int64(), true});
  PipelineNode n;
  n.id = static_cast<int>(plan->nodes.size());
  n.kind = NodeKind::kCommit;
  n.inputs = {plan->root};
  n.rank = plan->nodes[plan->root].rank + 1;
  n.schema = std::make_shared<Schema>(std::move(fields));
  plan->schema = n.schema;
  plan->root = n.id;
  plan->nodes.push_back(std::move(n));
}

Result<std::vector<int>> JoinWithoutBroadcast(DistributedPlan* plan, int holder, int side) {
  std::vector<PipelineNode>& nodes = plan->nodes;
  auto at = std::find_if(nodes[holder].chain.begin(), nodes[holder].chain.end(),
                         [&](const ChainStep& s) { return s.broadcast == side; });
  if (at == nodes[holder].chain.end()) {
    return Status::Internal("distributed plan: node " + std::to_string(holder) +
                            " has no join broadcasting node " + std::to_string(side));
  }
  const exec::PlanPtr join = at->op;
  const bool side_is_left = at->broadcast_is_left;
  const bool cross = join->kind() == exec::PlanKind::kCrossJoin;

  // The join and what followed it move to a new node, with the broadcast sides they read.
  PipelineNode& h = nodes[holder];
  const int holder_exchange = h.exchange;
  std::vector<ChainStep> rest(std::make_move_iterator(at + 1),
                              std::make_move_iterator(h.chain.end()));
  h.chain.erase(at, h.chain.end());
  std::vector<SideInput> moved;
  std::erase_if(h.sides, [&](const SideInput& s) {
    const bool read_later =
        s.broadcast && std::any_of(rest.begin(), rest.end(),
                                   [&](const ChainStep& r) { return r.broadcast == s.node; });
    if (read_later) moved.push_back(s);
    return s.node == side || read_later;
  });
  const SchemaPtr own_schema = !h.chain.empty()              ? h.chain.back().op->schema()
                               : h.kind == NodeKind::kSource ? h.source->schema()
                                                             : nodes[h.inputs[0]].schema;

  std::vector<int> added;
  PipelineNode x;
  x.id = static_cast<int>(nodes.size());
  x.inputs = {holder};
  int other = side;  // what x's tasks read besides the holder's rows
  if (cross) {
    // Every pair of a holder task and a side task.
    x.kind = NodeKind::kPairs;
  } else {
    // Both sides split on the join's keys into x's partitions; the side's finished outputs by a
    // new partition-wise node.
    const auto& j = static_cast<const exec::JoinNode&>(*join);
    PipelineNode s;
    s.id = x.id;  // the split node goes first, x after it
    x.id = s.id + 1;
    s.kind = NodeKind::kMap;
    s.inputs = {side};
    s.rank = nodes[side].rank + 1;
    s.schema = nodes[side].schema;
    s.chain.push_back(HashSplit(s.schema, side_is_left ? j.left_keys : j.right_keys));
    s.exchange = x.id;
    x.kind = NodeKind::kExchange;
    x.count_from = {holder, side};  // `s` has a task per task of `side`
    x.rank = s.rank + 1;
    other = s.id;
    h.chain.push_back(HashSplit(own_schema, side_is_left ? j.right_keys : j.left_keys));
    h.exchange = x.id;
    added.push_back(s.id);
    nodes.push_back(std::move(s));
  }
  PipelineNode& holder_node = nodes[holder];  // `nodes` may have moved
  x.sides.push_back({other, false});
  x.sides.insert(x.sides.end(), moved.begin(), moved.end());
  x.rank = std::max(x.rank, holder_node.rank + 1);
  for (const SideInput& m : moved)
    x.rank = std::max(x.rank, nodes[m.node].rank + 1);
  x.chain.push_back({join, [join, other, side_is_left](exec::PlanPtr in, const TaskContext& t) {
                       return side_is_left ? Rejoin(join, t.Side(other), std::move(in))
                                           : Rejoin(join, std::move(in), t.Side(other));
                     }});
  x.chain.insert(x.chain.end(), std::make_move_iterator(rest.begin()),
                 std::make_move_iterator(rest.end()));
  x.exchange = holder_exchange;
  if (cross) holder_node.exchange = -1;
  x.schema = holder_node.schema;
  holder_node.schema = own_schema;
  holder_node.clustered_on.clear();
  x.note = "node [" + std::to_string(side) + "] was too large to broadcast";

  // What read the holder reads x.
  const int to = x.id;
  auto swap = [&](int& id) {
    if (id == holder) id = to;
  };
  for (PipelineNode& n : nodes) {
    for (int& i : n.inputs)
      swap(i);
    for (SideInput& si : n.sides)
      swap(si.node);
    for (int& c : n.count_from)
      swap(c);
  }
  swap(plan->root);
  added.push_back(to);
  nodes.push_back(std::move(x));
  KeepOrderWhereItMatters(plan);
  return added;
}

std::string DistributedPlanToString(const DistributedPlan& plan, const ScanGrouping* grouping) {
  std::string out;
  for (const PipelineNode& n : plan.nodes) {
    out += "[" + std::to_string(n.id) + "] " + n.Name();
    std::string count = n.num_partitions > 0 ? std::to_string(n.num_partitions) + " partitions"
                                             : "partitions: one per upstream task, at most the "
                                               "configured maximum";
    switch (n.kind) {
      case NodeKind::kExchange:
        out += std::string(" (") + (n.sample >= 0 ? "range" : "hash") + " exchange, " + count +
               (n.ordered ? ", read in task order" : "") + ")";
        break;
      case NodeKind::kIntoPartitions:
        out += " (" + count + ")";
        break;
      case NodeKind::kGather:
      case NodeKind::kCommit:
        out += " (gather)";
        break;
      case NodeKind::kMap:
      case NodeKind::kSample:
        out += " (partition-wise)";
        break;
      case NodeKind::kPairs:
        out += " (every pair of tasks)";
        break;
      case NodeKind::kActorPool:
        out += " (partition-wise, " + std::to_string(n.pool_size) + " actors of '" + n.pool + "')";
        break;
      case NodeKind::kSource:
        if (n.source->kind() == exec::PlanKind::kScan) {
          const auto& tasks = static_cast<const exec::ScanNode&>(*n.source).tasks;
          out += " (" + std::to_string(tasks.size()) + " scan tasks";
          if (grouping != nullptr) {
            const size_t run =
                GroupScanTasks(tasks, grouping->min_bytes, grouping->max_bytes, grouping->min_tasks)
                    .size();
            out += " run as " + std::to_string(run) + (run == 1 ? " task" : " tasks");
          }
          out += ")";
        }
        break;
      default:
        break;
    }
    if (n.exchange >= 0) out += ", each task split for [" + std::to_string(n.exchange) + "]";
    if (!n.inputs.empty()) {
      out += " <-";
      for (int i : n.inputs)
        out += " [" + std::to_string(i) + "]";
    }
    for (const SideInput& s : n.sides) {
      out += " + [" + std::to_string(s.node) + "] " +
             (s.broadcast                  ? "broadcast to every task"
              : n.kind == NodeKind::kPairs ? "paired"
                                           : "co-partitioned");
    }
    if (!n.reason.empty()) out += ", " + n.reason;
    if (n.id == plan.root) out += "  (result)";
    if (!n.clustered_on.empty()) {
      out += ", clustered on (";
      for (size_t i = 0; i < n.clustered_on.size(); ++i) {
        out += (i ? ", " : "") + n.clustered_on[i];
      }
      out += ")";
    }
    if (n.elided_exchanges > 0) {
      out += ", " + std::to_string(n.elided_exchanges) + " exchange(s) elided";
    }
    if (!n.note.empty()) out += "  warning: " + n.note;
    out += "\n";
  }
  return out;
}

std::vector<std::vector<std::shared_ptr<const io::ScanTask>>> GroupScanTasks(
    const std::vector<std::shared_ptr<const io::ScanTask>>& tasks, int64_t min_bytes,
    int64_t max_bytes, int min_groups) {
  // As many groups as min_bytes allows (and max_bytes asks), of equal size: each task goes to
  // the group its middle byte falls in, so no group is a leftover that every worker waits for.
  std::vector<std::vector<std::shared_ptr<const io::ScanTask>>> groups;
  std::vector<std::shared_ptr<const io::ScanTask>> known;
  auto place_known = [&] {
    int64_t total = 0;
    for (const auto& t : known)
      total += t->size_bytes();
    if (known.empty()) return;
    int64_t n = std::max<int64_t>(1, total / std::max<int64_t>(min_bytes, 1));
    n = std::max<int64_t>(n, (total + max_bytes - 1) / std::max<int64_t>(max_bytes, 1));
    n = std::max<int64_t>(n, min_groups);
    n = std::min<int64_t>(n, static_cast<int64_t>(known.size()));
    int64_t before = 0;
    int64_t last = -1;
    for (const auto& t : known) {
      const int64_t size = t->size_bytes();
      const double middle = static_cast<double>(before) + static_cast<double>(size) / 2;
      int64_t g =
          total > 0
              ? static_cast<int64_t>(middle * static_cast<double>(n) / static_cast<double>(total))
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
                                    const TaskContext& task) {
  exec::PlanPtr plan = std::move(leaf);
  for (const ChainStep& step : node.chain) {
    if (step.build) {
      FLOTILLA_ASSIGN_OR_RETURN(plan, step.build(plan, task));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(plan, exec::WithNewChildren(*step.op, {plan}));
    }
  }
  return plan;
}

}  // namespace flotilla::distributed
