// explain analyze on a cluster: each task's operator statistics travel with its result and the
// driver sums them per pipeline node. The operators a query's distributed plan shares with its
// local plan (scans, filters, projections, join probes, the last TopN or sort) must count the
// rows the local runner counts.
#include <gtest/gtest.h>

#include <map>

#include "flotilla/distributed/test_cluster.h"

namespace flotilla::distributed {
namespace {

using Key = std::pair<std::string, std::string>;  // name, OperatorLabel

// Per operator of the local run: its rows out.
std::map<Key, int64_t> LocalRows(const exec::QueryStats& stats) {
  std::map<Key, int64_t> out;
  for (const exec::OperatorStats* s : stats.InPlanOrder())
    out[{s->name, OperatorLabel(s->name, s->detail)}] += s->rows_out.load();
  return out;
}

// Per operator of the cluster's run, the last node (topological order) running it: a TopN or
// sort split into a per-partition step and a final one answers in the final one.
std::map<Key, int64_t> ClusterRows(const std::vector<NodeAnalysis>& nodes) {
  std::map<Key, int64_t> out;
  for (const NodeAnalysis& n : nodes) {
    for (size_t i = 0; i < n.operators.size(); ++i)
      out[{n.operators[i].name, n.operators[i].detail}] = n.totals[i].rows_out;
  }
  return out;
}

void ExpectSameCounts(const exec::PlanPtr& plan, DriverOptions options, int min_shared,
                      const std::string& what) {
  exec::ExecOptions local_options;
  local_options.progress = 0;
  auto local = exec::Run(plan, local_options);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  auto cluster = testing::StartCluster(3, 1);
  std::vector<NodeAnalysis> analysis;
  options.progress = 0;
  auto run = cluster->Run(plan, options, nullptr, &analysis);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const std::string text = RenderClusterAnalysis(analysis);

  const std::map<Key, int64_t> local_rows = LocalRows(*local->stats);
  int shared = 0;
  for (const auto& [key, rows] : ClusterRows(analysis)) {
    auto it = local_rows.find(key);
    if (it == local_rows.end()) continue;  // a partial aggregate, a repartition, a read
    ++shared;
    EXPECT_EQ(rows, it->second) << what << ": " << key.second << "\n" << text;
  }
  EXPECT_GE(shared, min_shared) << what << "\n" << text;

  for (const NodeAnalysis& n : analysis) {
    // Every task counted once, each with every operator of its node.
    EXPECT_GT(n.tasks, 0) << what << ": node " << n.node;
    EXPECT_EQ(n.attempts, n.tasks) << what << ": node " << n.node << " (nothing failed)";
    ASSERT_FALSE(n.operators.empty()) << what << ": node " << n.node;
    for (const OperatorFigures& f : n.totals)
      EXPECT_EQ(f.tasks, n.tasks) << what << ": node " << n.node;
    // The node's rows out are its top operator's (a join's probe, not its build).
    size_t top = 0;
    for (size_t i = 0; i < n.operators.size(); ++i) {
      if (n.operators[i].id <= n.operators[top].id) top = i;
    }
    EXPECT_EQ(n.rows, n.totals[top].rows_out) << what << ": node " << n.node << "\n" << text;
    EXPECT_NE(text.find("[" + std::to_string(n.node) + "] " + n.name + ": " +
                        std::to_string(n.tasks) + " task(s)"),
              std::string::npos)
        << text;
  }
}

TEST(ClusterAnalysisTest, TpchQ1CountsTheRowsTheLocalRunnerCounts) {
  // Scan, Project, and the final Sort; the aggregate runs split in two.
  ExpectSameCounts(testing::Tpch(1), {}, 3, "Q1");
}

TEST(ClusterAnalysisTest, TpchQ3CountsTheRowsTheLocalRunnerCounts) {
  // Three scans, two join probes, two projections, the final TopN.
  ExpectSameCounts(testing::Tpch(3), {}, 8, "Q3 broadcast");
  DriverOptions shuffled;
  shuffled.plan.broadcast_join_bytes = 0;
  shuffled.min_shuffle_partitions = 4;
  ExpectSameCounts(testing::Tpch(3), shuffled, 8, "Q3 shuffled");
}

TEST(ClusterAnalysisTest, ARetriedTaskIsCountedOnce) {
  auto cluster = testing::StartCluster(3, 1);
  std::vector<NodeAnalysis> analysis;
  DriverOptions o;
  o.progress = 0;
  o.plan.broadcast_join_bytes = 0;
  o.min_shuffle_partitions = 4;
  bool killed = false;
  auto run = cluster->Run(
      testing::Tpch(3), o,
      [&](int64_t results) {
        if (results == 4 && !killed) {
          killed = true;
          cluster->KillWorker(0);
        }
      },
      &analysis);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_TRUE(killed);
  exec::ExecOptions local_options;
  local_options.progress = 0;
  auto local = exec::Run(testing::Tpch(3), local_options).ValueOrDie();
  const std::map<Key, int64_t> local_rows = LocalRows(*local.stats);
  int64_t attempts = 0, tasks = 0;
  for (const NodeAnalysis& n : analysis) {
    attempts += n.attempts;
    tasks += n.tasks;
  }
  EXPECT_GT(attempts, tasks) << "the lost worker's tasks ran again";
  for (const auto& [key, rows] : ClusterRows(analysis)) {
    auto it = local_rows.find(key);
    if (it != local_rows.end()) {
      EXPECT_EQ(rows, it->second) << key.second;
    }
  }
}

// Each exchange reads what its map sides wrote, once: some from its own worker's store, some
// pulled from the others; with a small store budget the map outputs spill, and each node is
// told how much of its output did.
TEST(ClusterAnalysisTest, ShuffleBytesWrittenReadLocallyOrRemotelyAndSpilled) {
  for (const int64_t budget : {int64_t{64} << 10, int64_t{2} << 30}) {
    SCOPED_TRACE(budget);
    InProcessClusterOptions co;
    co.num_workers = 3;
    co.worker.exec.progress = 0;
    co.worker.exec.num_threads = 1;
    co.worker.store_memory_bytes = budget;
    auto cluster = InProcessCluster::Start(co).ValueOrDie();
    DriverOptions o;
    o.progress = 0;
    o.plan.broadcast_join_bytes = 0;
    o.min_shuffle_partitions = 4;
    std::vector<NodeAnalysis> analysis;
    ASSERT_TRUE(cluster->Run(testing::Tpch(3), o, nullptr, &analysis).ok());
    const std::string text = RenderClusterAnalysis(analysis);
    std::map<int, const NodeAnalysis*> by_id;
    for (const NodeAnalysis& n : analysis)
      by_id[n.node] = &n;
    const DistributedPlan plan = PlanDistributed(testing::Tpch(3),
                                                 [] {
                                                   DistributedPlanOptions p;
                                                   p.broadcast_join_bytes = 0;
                                                   return p;
                                                 }())
                                     .ValueOrDie();
    int exchanges = 0;
    int64_t spilled = 0, remote = 0;
    for (const NodeAnalysis& n : analysis) {
      EXPECT_GT(n.output_bytes, 0) << text;
      spilled += n.spilled_bytes;
      remote += n.read_remote_bytes;
      if (plan.nodes[n.node].kind != NodeKind::kExchange) continue;
      ++exchanges;
      int64_t written = 0;
      for (int input : plan.nodes[n.node].inputs)
        written += by_id.at(input)->output_bytes;
      for (const SideInput& side : plan.nodes[n.node].sides)
        written += by_id.at(side.node)->output_bytes;
      const int64_t read = n.read_local_bytes + n.read_remote_bytes;
      // Bytes as held in memory: read back from IPC they may take a little more or less.
      EXPECT_NEAR(static_cast<double>(read), static_cast<double>(written), 0.1 * written)
          << "node " << n.node << "\n"
          << text;
    }
    EXPECT_EQ(exchanges, 2) << text;
    EXPECT_GT(remote, 0) << "3 workers pull from each other\n" << text;
    if (budget < (1 << 20)) {
      EXPECT_GT(spilled, 0) << text;
    } else {
      EXPECT_EQ(spilled, 0) << text;
    }
    EXPECT_NE(text.find("from others"), std::string::npos) << text;
  }
}

TEST(OperatorLabelTest, AScanSaysWhatItReadsNotWhichTasks) {
  EXPECT_EQ(OperatorLabel("Scan",
                          "Scan: 3 task(s) [parquet '/d/a [x].parquet' row groups [0, 1), ...] "
                          "columns [a] filter a > 1"),
            "Scan: parquet columns [a] filter a > 1");
  EXPECT_EQ(OperatorLabel("Scan", "Scan: 1 task(s) [1 partition(s) on worker-0 ('q1/t1.1/p0')]"),
            "Scan: partitions");
  EXPECT_EQ(OperatorLabel("Scan", "Scan: 0 task(s) columns [a]"), "Scan: files columns [a]");
  EXPECT_EQ(OperatorLabel("Filter", "Filter: a > 1"), "Filter: a > 1");
}

}  // namespace
}  // namespace flotilla::distributed
