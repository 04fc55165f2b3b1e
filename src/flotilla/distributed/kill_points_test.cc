// A worker dies at each phase of a query's shuffles — during the map tasks, once they all
// finished, during the reduce tasks, while the next stage runs, and when a result is finished
// but not yet fetched — over chains of 2 and 3 shuffles and TPC-H Q3, Q9 and Q18 with every join
// shuffled. Each answer must be the local runner's, and the event log must show that only what
// the dead worker held ran again: one more completed task than the undisturbed run per output
// reported lost, each lost output one the dead worker had produced.
//
// The kill points come from an undisturbed run of the same query: "the n-th completed task of
// node k" names the same moment in every run, whatever the workers' timing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <iostream>
#include <map>

#include "flotilla/distributed/test_cluster.h"

namespace flotilla::distributed {
namespace {

using exec::PlanPtr;
using expr::Column;
using expr::Literal;

struct KillPoint {
  std::string phase;
  int node = -1;
  int nth = 0;  // the node's nth completed task (from 1)
};

// Kills the worker of the task completing at `point`, from the driver's own event (before the
// driver fetched or read anything of that task's output).
class KillAt final : public EventSubscriber {
 public:
  KillAt(InProcessCluster* cluster, KillPoint point) : cluster_(cluster), point_(point) {}
  void OnEvent(const TaskEvent& e) override {
    events.push_back(e);
    if (!killed.empty() || e.kind != TaskEventKind::kCompleted || e.node_id != point_.node) return;
    if (++seen_ != point_.nth) return;
    killed = e.worker;
    killed_task = e.task_id;
    cluster_->KillWorker(std::stoi(killed.substr(killed.rfind('-') + 1)));
  }
  std::vector<TaskEvent> events;
  std::string killed;
  int64_t killed_task = -1;

 private:
  InProcessCluster* cluster_;
  KillPoint point_;
  int seen_ = 0;
};

DriverOptions Shuffled() {
  DriverOptions o;
  o.progress = 0;
  o.plan.broadcast_join_bytes = 0;  // every join shuffled
  o.plan.gather_sort_rows = 0;      // every sort range-partitioned
  o.min_shuffle_partitions = 4;
  return o;
}

// Each completed task of the undisturbed run as (node, its ordinal among the node's).
std::vector<std::pair<int, int>> Completions(const std::vector<TaskEvent>& events) {
  std::map<int, int> seen;
  std::vector<std::pair<int, int>> out;
  for (const TaskEvent& e : events) {
    if (e.kind == TaskEventKind::kCompleted) out.emplace_back(e.node_id, ++seen[e.node_id]);
  }
  return out;
}

// The kill points of the exchanges `exchanges` (node ids) and of the result.
std::vector<KillPoint> KillPoints(const DistributedPlan& plan, const std::vector<int>& exchanges,
                                  const std::vector<TaskEvent>& baseline) {
  const std::vector<std::pair<int, int>> done = Completions(baseline);
  std::vector<KillPoint> out;
  auto add = [&](const std::string& phase, size_t at) {
    const auto [node, nth] = done[at];
    for (const KillPoint& p : out) {
      if (p.node == node && p.nth == nth) return;
    }
    out.push_back({phase, node, nth});
  };
  auto first_where = [&](size_t from, auto pred) -> std::optional<size_t> {
    for (size_t i = from; i < done.size(); ++i) {
      if (pred(done[i].first)) return i;
    }
    return std::nullopt;
  };
  for (int x : exchanges) {
    const PipelineNode& node = plan.nodes[x];
    std::set<int> maps(node.inputs.begin(), node.inputs.end());
    for (const SideInput& s : node.sides)
      maps.insert(s.node);
    std::vector<size_t> map_done, reduce_done;
    for (size_t i = 0; i < done.size(); ++i) {
      if (maps.count(done[i].first)) map_done.push_back(i);
      if (done[i].first == x) reduce_done.push_back(i);
    }
    const std::string name = "exchange " + std::to_string(x) + ", ";
    if (map_done.size() > 1) add(name + "during the map tasks", map_done.front());
    if (!map_done.empty()) add(name + "after all map tasks", map_done.back());
    if (reduce_done.size() > 1) add(name + "during the reduce tasks", reduce_done.front());
    if (reduce_done.empty()) continue;
    auto reads_x = [&](int n) {
      const PipelineNode& r = plan.nodes[n];
      return std::count(r.inputs.begin(), r.inputs.end(), x) > 0 ||
             std::any_of(r.sides.begin(), r.sides.end(),
                         [&](const SideInput& s) { return s.node == x; });
    };
    if (auto next = first_where(reduce_done.back() + 1, reads_x)) {
      add(name + "after the reduce, while the next stage runs", *next);
    }
  }
  std::optional<size_t> last_result;
  for (size_t i = 0; i < done.size(); ++i) {
    if (done[i].first == plan.root) last_result = i;
  }
  if (last_result) add("a result finished, not yet fetched", *last_result);
  return out;
}

struct KillCase {
  std::string name;
  std::function<PlanPtr()> plan;
  bool ordered = false;        // the answer's rows in order
  bool every_exchange = true;  // else the first and last exchange only
};

void PrintTo(const KillCase& c, std::ostream* os) {
  *os << c.name;
}

// a(k, lv): 6 partitions of 40 rows, k = i % 13; b(rk, rv): 4 partitions of 10 rows, rv = rk % 5.
PlanPtr SideA() {
  std::vector<MicroPartition> parts;
  for (int p = 0; p < 6; ++p) {
    std::vector<std::optional<int64_t>> k, v;
    for (int i = 0; i < 40; ++i) {
      k.push_back((p * 40 + i) % 13);
      v.push_back(p * 40 + i);
    }
    RecordBatch b = testing::Batch({{"k", testing::I64(k)}, {"lv", testing::I64(v)}});
    parts.push_back(MicroPartition::FromBatches(b.schema(), {b}).ValueOrDie());
  }
  return exec::MakeInMemorySource(parts[0].schema(), parts).ValueOrDie();
}

PlanPtr SideB() {
  std::vector<MicroPartition> parts;
  for (int p = 0; p < 4; ++p) {
    std::vector<std::optional<int64_t>> k, v;
    for (int i = 0; i < 10; ++i) {
      k.push_back(p * 10 + i);
      v.push_back((p * 10 + i) % 5);
    }
    RecordBatch b = testing::Batch({{"rk", testing::I64(k)}, {"rv", testing::I64(v)}});
    parts.push_back(MicroPartition::FromBatches(b.schema(), {b}).ValueOrDie());
  }
  return exec::MakeInMemorySource(parts[0].schema(), parts).ValueOrDie();
}

// Two shuffles: join on k = rk, then sum(lv) by rv.
PlanPtr JoinThenAggregate() {
  PlanPtr join =
      exec::MakeHashJoin(SideA(), SideB(), {Column("k")}, {Column("rk")}, exec::JoinType::kInner)
          .ValueOrDie();
  return exec::MakeAggregate(join, {Column("rv")}, {{"sum", {Column("lv")}, "s"}}).ValueOrDie();
}

// Three: the same, sorted by rv.
PlanPtr JoinAggregateSort() {
  return exec::MakeSort(JoinThenAggregate(), {{Column("rv"), true, false}}).ValueOrDie();
}

class KillPointsTest : public ::testing::TestWithParam<KillCase> {};

TEST_P(KillPointsTest, EveryPhaseGivesTheLocalAnswerAndRunsAgainOnlyWhatWasLost) {
  const KillCase& c = GetParam();
  const PlanPtr plan = c.plan();
  exec::ExecOptions local_options;
  local_options.progress = 0;
  const RecordBatch local = exec::Run(plan, local_options).ValueOrDie().ToBatch().ValueOrDie();

  auto baseline_recorder = std::make_shared<testing::Recorder>();
  std::vector<TaskEvent> baseline;
  {
    auto cluster = testing::StartCluster(3, 1);
    DriverOptions o = Shuffled();
    o.subscribers.push_back(baseline_recorder);
    auto r = cluster->Run(plan, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    testing::ExpectRows(r->ToBatch().ValueOrDie(), local, c.ordered, c.name + " undisturbed");
    baseline = baseline_recorder->events;
  }
  const auto baseline_done =
      std::count_if(baseline.begin(), baseline.end(),
                    [](const TaskEvent& e) { return e.kind == TaskEventKind::kCompleted; });

  DriverOptions plan_options = Shuffled();
  DistributedPlan dp = PlanDistributed(plan, plan_options.plan).ValueOrDie();
  std::vector<int> exchanges;
  for (const PipelineNode& n : dp.nodes) {
    if (n.kind == NodeKind::kExchange) exchanges.push_back(n.id);
  }
  ASSERT_GE(exchanges.size(), 2u) << DistributedPlanToString(dp);
  if (!c.every_exchange) exchanges = {exchanges.front(), exchanges.back()};
  const std::vector<KillPoint> points = KillPoints(dp, exchanges, baseline);
  ASSERT_GE(points.size(), 5u);

  int64_t ran_again_in_all = 0;
  for (const KillPoint& point : points) {
    const std::string what = c.name + ", killed at " + point.phase + " (task " +
                             std::to_string(point.nth) + " of node " + std::to_string(point.node) +
                             ")";
    auto cluster = testing::StartCluster(3, 1);
    auto killer = std::make_shared<KillAt>(cluster.get(), point);
    DriverOptions o = Shuffled();
    o.subscribers.push_back(killer);
    auto r = cluster->Run(plan, o);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().ToString();
    ASSERT_FALSE(killer->killed.empty()) << what << ": the kill point was never reached";
    testing::ExpectRows(r->ToBatch().ValueOrDie(), local, c.ordered, what);

    // Where each task completed, and which finished tasks ran again because of the loss.
    std::map<int64_t, std::string> worker_of;
    int64_t done = 0, ran_again = 0;
    bool killed_task_ran_again = false;
    for (const TaskEvent& e : killer->events) {
      if (e.kind == TaskEventKind::kCompleted) {
        worker_of[e.task_id] = e.worker;
        ++done;
      }
      if (e.kind != TaskEventKind::kCancelled) continue;
      // Nothing but the loss stops or re-runs a task; a finished task runs again only when
      // its output was on the dead worker.
      EXPECT_NE(e.message.find("lost with worker " + killer->killed), std::string::npos)
          << what << ": task " << e.task_id << " stopped: " << e.message;
      if (e.message.rfind("output", 0) != 0) continue;  // a running reader, stopped
      ++ran_again;
      killed_task_ran_again |= e.task_id == killer->killed_task;
      EXPECT_EQ(worker_of[e.task_id], killer->killed)
          << what << ": task " << e.task_id << " ran again though its output was elsewhere";
    }
    // (A sample's output goes to the driver with its result: nothing of it is lost.)
    if (dp.nodes[point.node].kind != NodeKind::kSample) {
      EXPECT_TRUE(killed_task_ran_again) << what << ": the task whose output was lost ran again";
    }
    EXPECT_EQ(done, baseline_done + ran_again)
        << what << ": only the outputs reported lost ran again";
    ran_again_in_all += ran_again;
  }
  std::cout << c.name << ": " << points.size() << " kill points, " << baseline_done
            << " tasks undisturbed, " << ran_again_in_all << " finished tasks run again in all\n";
}

INSTANTIATE_TEST_SUITE_P(
    Queries, KillPointsTest,
    ::testing::Values(KillCase{"join_then_aggregate", JoinThenAggregate, false, true},
                      KillCase{"join_aggregate_sort", JoinAggregateSort, true, true},
                      KillCase{"tpch_q3", [] { return testing::Tpch(3); }, true, false},
                      KillCase{"tpch_q9", [] { return testing::Tpch(9); }, true, false},
                      KillCase{"tpch_q18", [] { return testing::Tpch(18); }, true, false}),
    [](const ::testing::TestParamInfo<KillCase>& info) { return info.param.name; });

// A user's repartition promises no order, so its reducers read pieces by worker — unless a step
// above depends on the order of its rows, as a random split does: then they read in map-task
// order, and a split task run again after a loss sends every row where its first attempt did.
TEST(DeterministicRecomputeTest, ReadsKeepOneOrderOnlyWhereAStepAboveDependsOnIt) {
  PlanPtr by_key =
      exec::MakeRepartitionByHash(testing::IdPartitions(6, 20), 4, {Column("v")}).ValueOrDie();
  // The exchange by key is node 1 (after its source). Sorts are range-partitioned.
  DistributedPlanOptions options;
  options.gather_sort_rows = 0;
  auto read_in_order = [&](const PlanPtr& plan) {
    DistributedPlan dp = PlanDistributed(plan, options).ValueOrDie();
    EXPECT_EQ(dp.nodes[1].kind, NodeKind::kExchange) << DistributedPlanToString(dp);
    return dp.nodes[1].ordered;
  };
  PlanPtr filtered =
      exec::MakeFilter(by_key, expr::Greater(Column("v"), Literal(int64_t{3}))).ValueOrDie();
  auto aggregate = [&](const std::string& function) {
    return exec::MakeAggregate(by_key, {Column("v")}, {{function, {Column("v")}, "x"}})
        .ValueOrDie();
  };
  // Only the set of rows matters: a filter, a sum, a sort (its key sample goes to the driver
  // once).
  for (const PlanPtr& above :
       {filtered, aggregate("sum"), exec::MakeSort(by_key, {{Column("v")}}).ValueOrDie()}) {
    EXPECT_FALSE(read_in_order(above)) << above->Describe();
  }
  PlanPtr other =
      exec::MakeRepartitionByHash(testing::IdPartitions(2, 5), 2, {Column("v")}).ValueOrDie();
  for (const PlanPtr& above :
       {exec::MakeRepartitionRandom(by_key, 3, 7).ValueOrDie(),
        exec::MakeLimit(by_key, 5).ValueOrDie(), exec::MakeIntoPartitions(by_key, 3).ValueOrDie(),
        exec::MakeMonotonicId(by_key, "id").ValueOrDie(),
        exec::MakeSampleFraction(filtered, 0.5, false, 1).ValueOrDie(), aggregate("first"),
        aggregate("list"),
        exec::MakeWindow(by_key, {}, {{Column("v")}}, {{"row_number", {}, std::nullopt, "rn"}})
            .ValueOrDie(),
        // Through a concat: both its inputs' reads.
        exec::MakeLimit(exec::MakeConcat({by_key, other}).ValueOrDie(), 5).ValueOrDie()}) {
    EXPECT_TRUE(read_in_order(above)) << above->Describe();
  }
  DistributedPlan concat =
      PlanDistributed(
          exec::MakeLimit(exec::MakeConcat({by_key, other}).ValueOrDie(), 5).ValueOrDie(), options)
          .ValueOrDie();
  EXPECT_TRUE(concat.nodes[3].kind == NodeKind::kExchange && concat.nodes[3].ordered)
      << DistributedPlanToString(concat);
}

// A random repartition over a repartition by key, its rows numbered: the numbers say which
// partition each row went to and where in it. Killed while the split runs, or while its
// reducers run, the cluster gives exactly the rows and numbers of an undisturbed run.
TEST(DeterministicRecomputeTest, ARandomRepartitionUnderAKillGivesTheSameRowsAndPartitions) {
  PlanPtr by_key =
      exec::MakeRepartitionByHash(testing::IdPartitions(6, 200), 4, {Column("v")}).ValueOrDie();
  PlanPtr plan =
      exec::MakeMonotonicId(exec::MakeRepartitionRandom(by_key, 5, 42).ValueOrDie(), "id")
          .ValueOrDie();
  auto run = [&](std::optional<KillPoint> point, std::string* killed) {
    auto cluster = testing::StartCluster(3, 1);
    auto killer = std::make_shared<KillAt>(cluster.get(), point.value_or(KillPoint{"", -1, 0}));
    DriverOptions o;
    o.progress = 0;
    o.subscribers.push_back(killer);
    auto r = cluster->Run(plan, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (killed) *killed = killer->killed;
    return r.ok() ? r->ToBatch().ValueOrDie() : RecordBatch{};
  };
  const RecordBatch first = run(std::nullopt, nullptr);
  ASSERT_EQ(first.num_rows(), 1200);
  testing::ExpectRows(run(std::nullopt, nullptr), first, false, "a second undisturbed run");
  // Node 1 is the exchange by key, whose tasks split at random; node 2 the random exchange.
  for (const KillPoint& point :
       {KillPoint{"a split task finished", 1, 1}, KillPoint{"all split tasks finished", 1, 4},
        KillPoint{"a reducer finished", 2, 2}}) {
    std::string killed;
    const RecordBatch again = run(point, &killed);
    EXPECT_FALSE(killed.empty()) << point.phase;
    testing::ExpectRows(again, first, false, "killed when " + point.phase);
  }
}

}  // namespace
}  // namespace flotilla::distributed
