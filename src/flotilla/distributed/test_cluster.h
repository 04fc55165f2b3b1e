#pragma once
// Test-only pieces shared by the distributed runner's tests: an event recorder, an in-process
// cluster started quietly, a scan of a directory of Parquet files, in-memory partitions of ids.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flotilla/distributed/in_process_cluster.h"
#include "flotilla/io/parquet/scan_task.h"
#include "flotilla/sql/session.h"
#include "flotilla/tpch/generator.h"
#include "tests/support/plan_checks.h"

namespace flotilla::testing {

// The runner's tests speak its terms (clusters, events, drivers).
using namespace ::flotilla::distributed;  // NOLINT

class Recorder final : public EventSubscriber {
 public:
  void OnEvent(const TaskEvent& e) override { events.push_back(e); }
  int Count(TaskEventKind kind) const {
    int n = 0;
    for (const TaskEvent& e : events)
      n += e.kind == kind;
    return n;
  }
  std::set<std::string> CompletedNodes() const {
    std::set<std::string> out;
    for (const TaskEvent& e : events) {
      if (e.kind == TaskEventKind::kCompleted) out.insert(e.node_name);
    }
    return out;
  }
  /// Completed tasks of the nodes whose names start with `node_prefix`.
  int Completed(const std::string& node_prefix) const {
    int n = 0;
    for (const TaskEvent& e : events) {
      n += e.kind == TaskEventKind::kCompleted && e.node_name.rfind(node_prefix, 0) == 0;
    }
    return n;
  }
  std::vector<TaskEvent> events;
};

/// `workers` workers without progress display; each engine runs `threads` threads (0: all).
inline std::unique_ptr<InProcessCluster> StartCluster(int workers, int threads = 0) {
  InProcessClusterOptions o;
  o.num_workers = workers;
  o.worker.exec.progress = 0;
  o.worker.exec.num_threads = threads;
  auto c = InProcessCluster::Start(o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? c.MoveValueUnsafe() : nullptr;
}

/// Every Parquet file under `directory`, one scan task per row group.
inline exec::PlanPtr ScanDirectory(const std::string& directory) {
  auto scan = io::parquet::PlanParquetScan({directory});
  EXPECT_TRUE(scan.ok()) << scan.status().ToString();
  return exec::MakeScan(scan->schema, scan->tasks).ValueOrDie();
}

/// Consecutive ids 0.. in `partitions` in-memory partitions of `rows` rows (column "v").
inline exec::PlanPtr IdPartitions(int partitions, int rows) {
  std::vector<MicroPartition> parts;
  for (int p = 0; p < partitions; ++p) {
    std::vector<std::optional<int64_t>> v;
    for (int i = 0; i < rows; ++i)
      v.push_back(p * rows + i);
    RecordBatch b = flotilla::testing::Batch({{"v", flotilla::testing::I64(v)}});
    parts.push_back(MicroPartition::FromBatches(b.schema(), {b}).ValueOrDie());
  }
  return exec::MakeInMemorySource(parts[0].schema(), parts).ValueOrDie();
}

/// Runs `plan` on the local engine (`threads` threads, 0: all) and on `cluster`, expects the
/// same rows (`what` names the case in a failure); returns the cluster's result (empty when
/// either failed).
inline exec::QueryResult ExpectSameAsLocal(InProcessCluster& cluster, const exec::PlanPtr& plan,
                                           DriverOptions options, bool ordered,
                                           const std::string& what = "", int threads = 0) {
  exec::ExecOptions local_options;
  local_options.progress = 0;
  local_options.num_threads = threads;
  auto local = exec::Run(plan, local_options);
  EXPECT_TRUE(local.ok()) << what << ": " << local.status().ToString();
  auto dist = cluster.Run(plan, std::move(options));
  EXPECT_TRUE(dist.ok()) << what << ": " << dist.status().ToString();
  if (!local.ok() || !dist.ok()) return {};
  flotilla::testing::ExpectRows(dist->ToBatch().ValueOrDie(), local->ToBatch().ValueOrDie(),
                                ordered, what);
  return dist.MoveValueUnsafe();
}

/// Driver options without progress display, every event to `recorder`.
inline DriverOptions RecordedTo(const std::shared_ptr<Recorder>& recorder) {
  DriverOptions d;
  d.progress = 0;
  d.subscribers.push_back(recorder);
  return d;
}

/// A directory removed when the process exits.
struct TemporaryDirectory {
  std::string path;
  ~TemporaryDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// TPC-H at scale factor 0.01, 3 files per table of small row groups, made once per process
/// (each test runs in a process of its own) and removed when it exits.
inline const std::string& TpchDirectory() {
  static const TemporaryDirectory dir{[] {
    std::string d = ::testing::TempDir() + "/distributed_tpch_" + std::to_string(::getpid());
    tpch::GenerateOptions o;
    o.scale_factor = 0.01;
    o.out_dir = d;
    o.files_per_table = 3;
    o.row_group_rows = 2000;
    o.threads = 1;
    auto r = tpch::GenerateTables(o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return d;
  }()};
  return dir.path;
}

/// TPC-H query `number` over TpchDirectory(), planned from the repository's SQL text.
inline exec::PlanPtr Tpch(int number) {
  sql::Session session;
  EXPECT_TRUE(session.RegisterDirectory(TpchDirectory()).ok());
  // This file is src/flotilla/distributed/test_cluster.h.
  const std::filesystem::path root =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path();
  std::ostringstream name;
  name << (root / "tpch" / "queries").string() << "/q" << (number < 10 ? "0" : "") << number
       << ".sql";
  std::ifstream in(name.str());
  std::stringstream text;
  text << in.rdbuf();
  auto plan = session.PlanSql(text.str());
  EXPECT_TRUE(plan.ok()) << name.str() << ": " << plan.status().ToString();
  return plan.ValueOrDie();
}

}  // namespace flotilla::testing
