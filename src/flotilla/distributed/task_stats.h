#pragma once
// What the tasks of a distributed query measured. A task's result carries its plan's operator
// statistics (rows and bytes in and out, CPU, peak memory, spill, start and end); the driver
// keeps those of each task's finished attempt and sums them per pipeline node: explain analyze
// on a cluster, and the operator spans of the trace.
#include <cstdint>
#include <string>
#include <vector>

namespace flotilla::exec {
class QueryStats;
}

namespace flotilla::proto {
class TaskResult;
}

namespace flotilla::distributed {

/// One operator's figures in one task, or summed over tasks: counts and CPU add up; peak memory
/// and wall time are the largest of one task's (tasks run apart, their peaks are not held at once).
struct OperatorFigures {
  int64_t rows_in = 0;
  int64_t rows_out = 0;
  int64_t bytes_in = 0;
  int64_t bytes_out = 0;
  int64_t cpu_nanos = 0;
  int64_t peak_memory = 0;
  int64_t spilled_bytes = 0;
  int64_t wall_nanos = 0;
  int64_t tasks = 0;  // tasks it ran in

  void Add(const OperatorFigures& other);
};

/// An operator of a pipeline node's plan fragment: the same in each of its tasks.
struct OperatorInfo {
  int id = 0;  // pre-order position in the fragment
  std::string name;
  std::string detail;
  int depth = 0;
};

/// One pipeline node as its finished tasks measured it.
struct NodeAnalysis {
  int node = 0;
  std::string name;
  int64_t tasks = 0;  // finished, each counted once however many attempts it took
  int64_t attempts = 0;
  int64_t rows = 0;    // output
  double seconds = 0;  // from its first task's submission to its last one's result
  // Its shuffle figures (in memory once decoded): what its tasks output, and of that what the
  // workers' stores spilled to disk (bytes on disk); what they read from their own worker's
  // store and what they pulled from other workers over Flight.
  int64_t output_bytes = 0;
  int64_t spilled_bytes = 0;
  int64_t read_local_bytes = 0;
  int64_t read_remote_bytes = 0;
  std::vector<OperatorInfo> operators;
  std::vector<OperatorFigures> totals;  // per operator
};

/// `detail` as one line for every task of a node: a scan's list of this task's files or
/// partitions becomes what it reads ("Scan: parquet columns [a] filter ...", "Scan: partitions").
std::string OperatorLabel(const std::string& name, const std::string& detail);

/// Writes `stats` into `result` (operators in plan order, times from `task_start_nanos`, a
/// steady-clock reading like the stats' own) with the task's CPU, peak memory and spill.
void StatsToProto(const exec::QueryStats& stats, int64_t task_start_nanos,
                  proto::TaskResult* result);

/// The operators one pipeline node's tasks reported, each known once: a task's figures are
/// indexed by this catalogue, so the driver keeps numbers per task and strings per node.
class NodeOperators {
 public:
  /// `result`'s operators as figures indexed like operators() (new ones are added).
  std::vector<OperatorFigures> Take(const proto::TaskResult& result);
  const std::vector<OperatorInfo>& operators() const { return operators_; }

 private:
  std::vector<OperatorInfo> operators_;
};

/// explain analyze of a distributed query: per pipeline node its tasks, rows and time, then its
/// operators as a tree with their figures summed over the node's tasks.
std::string RenderClusterAnalysis(const std::vector<NodeAnalysis>& nodes);

}  // namespace flotilla::distributed
