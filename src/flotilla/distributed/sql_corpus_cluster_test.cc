// The SQL corpus (tests/support/sql_corpus.h) on an in-process cluster of 3 workers: every query
// and every scalar subquery the planner needs runs through the distributed driver, and each must
// give DuckDB's recorded answer, as the local run modes do (src/flotilla/sql/sql_logic_test.cc).
// Three times: with the driver's defaults, and with every join shuffled (no broadcast), every sort
// range-partitioned and every shuffle split 4 ways, so the corpus's small tables go through the
// exchanges too (a default plan runs most of them as one task) — once with map outputs encoded
// (zstd) and once kept as batches (shuffle_algorithm "memory").
//
// Queries the cluster still refuses are listed in tests/sql/cluster_refused.txt (file, TAB, the
// query on one line). The list may only shrink: a listed query that now runs fails the test until
// its line is removed, and a query that fails on the cluster but not in the list fails it too.
// A wrong answer always fails.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "flotilla/distributed/test_cluster.h"
#include "tests/support/sql_corpus.h"

namespace flotilla::distributed {
namespace {

using testing::CheckSqlRecord;
using testing::OneLine;
using testing::ReadSqlRecords;
using testing::SqlCheck;
using testing::SqlCorpusDir;
using testing::SqlCorpusFiles;
using testing::SqlRecord;

std::set<std::string> RefusedList() {
  std::set<std::string> out;
  std::ifstream in(SqlCorpusDir() / "cluster_refused.txt");
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.insert(line);
  return out;
}

struct ClusterMode {
  std::string name;
  DriverOptions options;
};

std::vector<ClusterMode> Modes() {
  DriverOptions defaults;
  defaults.progress = 0;
  DriverOptions shuffled = defaults;
  shuffled.plan.broadcast_join_bytes = 0;
  shuffled.plan.gather_sort_rows = 0;
  shuffled.min_shuffle_partitions = 4;
  shuffled.shuffle_compression = "zstd";
  DriverOptions in_memory = shuffled;
  in_memory.shuffle_algorithm = "memory";
  return {{"defaults", defaults}, {"shuffled", shuffled}, {"shuffled_in_memory", in_memory}};
}

void PrintTo(const ClusterMode& m, std::ostream* os) {
  *os << m.name;
}

class SqlCorpusOnCluster : public ::testing::TestWithParam<ClusterMode> {};

TEST_P(SqlCorpusOnCluster, EveryQueryGivesTheLocalAnswerOrIsListedAsRefused) {
  const ClusterMode& mode = GetParam();
  auto cluster = testing::StartCluster(3, 1);
  ASSERT_NE(cluster, nullptr);
  auto recorder = std::make_shared<testing::Recorder>();
  DriverOptions options = mode.options;
  options.subscribers.push_back(recorder);
  const std::set<std::string> listed = RefusedList();
  std::set<std::string> refused;
  int queries = 0;
  for (const std::string& file : SqlCorpusFiles()) {
    sql::Session session;
    int64_t cluster_runs = 0;
    session.SetPlanRunner([&](const exec::PlanPtr& plan) -> Result<RecordBatch> {
      FLOTILLA_ASSIGN_OR_RETURN(exec::QueryResult result, cluster->Run(plan, options));
      ++cluster_runs;
      return result.ToBatch();
    });
    for (const SqlRecord& r : ReadSqlRecords(file)) {
      const std::string where =
          file + ":" + std::to_string(r.line) + " (3-worker cluster, " + mode.name + ")";
      const std::string key = file + "\t" + OneLine(r.sql);
      const int64_t runs_before = cluster_runs;
      const SqlCheck check = CheckSqlRecord(session, r, where);
      queries += r.kind == SqlRecord::kQuery;
      if (r.kind == SqlRecord::kQuery && check.outcome == SqlCheck::kMatch) {
        EXPECT_GT(cluster_runs, runs_before) << where << ": the query did not run on the cluster";
      }
      if (check.outcome == SqlCheck::kFailed && r.kind == SqlRecord::kQuery) {
        refused.insert(key);
        if (!listed.count(key))
          ADD_FAILURE() << "refused on the cluster, not listed: " << check.message;
        continue;
      }
      if (listed.count(key)) {
        ADD_FAILURE() << where << ": runs on the cluster now; remove its line from "
                      << "tests/sql/cluster_refused.txt:\n"
                      << key;
      }
      if (check.outcome != SqlCheck::kMatch) ADD_FAILURE() << check.message;
    }
  }
  for (const std::string& key : listed)
    if (!refused.count(key)) {
      EXPECT_TRUE(false) << "tests/sql/cluster_refused.txt lists a query that is not refused "
                            "(or no longer in the corpus):\n"
                         << key;
    }
  EXPECT_GE(queries, 300);
  // The corpus really ran spread out: tasks on every worker, and in the shuffled mode more
  // exchange (reduce) tasks than queries.
  std::set<std::string> workers;
  int exchange_tasks = 0;
  for (const TaskEvent& e : recorder->events) {
    if (e.kind != TaskEventKind::kCompleted) continue;
    workers.insert(e.worker);
    exchange_tasks += e.node_name.rfind("Exchange", 0) == 0;
  }
  EXPECT_EQ(workers.size(), 3u);
  if (mode.name != "defaults") {
    EXPECT_GT(exchange_tasks, queries);
  }
  std::cout << queries << " queries on the cluster (" << mode.name << "), " << refused.size()
            << " refused, " << exchange_tasks << " exchange tasks\n";
}

INSTANTIATE_TEST_SUITE_P(Modes, SqlCorpusOnCluster, ::testing::ValuesIn(Modes()),
                         [](const ::testing::TestParamInfo<ClusterMode>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace flotilla::distributed
