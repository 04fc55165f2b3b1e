#pragma once
// Run-time statistics of each operator of a running query: the numbers behind explain analyze,
// the progress display and (later) the event stream. Updated by many threads with relaxed
// atomics; readers see a consistent-enough snapshot while the query runs.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace flotilla::exec {

class PlanNode;

struct OperatorStats {
  std::string name;    // "Filter", "HashJoinProbe", ...
  std::string detail;  // the plan node's Describe()
  int node_id = -1;    // pre-order position of the plan node
  int depth = 0;       // in the plan tree, for rendering
  std::atomic<int64_t> rows_in{0};
  std::atomic<int64_t> rows_out{0};
  std::atomic<int64_t> bytes_in{0};
  std::atomic<int64_t> bytes_out{0};
  std::atomic<int64_t> cpu_nanos{0};
  std::atomic<int64_t> peak_memory{0};
  std::atomic<int64_t> spilled_bytes{0};
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  /// Steady-clock nanoseconds of the first start and of the finish (0: not yet): explain
  /// analyze's wall time, from the operator's first input to its last output.
  std::atomic<int64_t> start_nanos{0};
  std::atomic<int64_t> end_nanos{0};

  void MarkStarted();
  void MarkFinished();

  void AddInput(int64_t rows, int64_t bytes) {
    rows_in.fetch_add(rows, std::memory_order_relaxed);
    bytes_in.fetch_add(bytes, std::memory_order_relaxed);
  }
  void AddOutput(int64_t rows, int64_t bytes) {
    rows_out.fetch_add(rows, std::memory_order_relaxed);
    bytes_out.fetch_add(bytes, std::memory_order_relaxed);
  }
  void AddCpu(int64_t nanos) { cpu_nanos.fetch_add(nanos, std::memory_order_relaxed); }
  void ObserveMemory(int64_t bytes);
};

/// The stats of every operator of one query, in plan pre-order (the order explain prints).
class QueryStats {
 public:
  /// Adds an entry; the returned pointer stays valid as long as this object.
  OperatorStats* Add(std::string name, std::string detail, int node_id, int depth);
  const std::vector<std::unique_ptr<OperatorStats>>& operators() const { return operators_; }
  /// The entries sorted by node id (stable), as explain analyze shows them.
  std::vector<const OperatorStats*> InPlanOrder() const;

 private:
  std::vector<std::unique_ptr<OperatorStats>> operators_;
};

/// "1.2M", "532", "12.3 MiB", "0.41 s": compact numbers for humans.
std::string FormatCount(int64_t n);
std::string FormatBytes(int64_t bytes);
std::string FormatNanos(int64_t nanos);

/// explain analyze: the plan tree, each operator with its rows, bytes, CPU time and peak memory.
std::string RenderExplainAnalyze(const QueryStats& stats);

/// CPU time of the calling thread, in nanoseconds.
int64_t ThreadCpuNanos();

/// The steady clock in nanoseconds: the time base of the stats' start and end.
int64_t SteadyNanos();

}  // namespace flotilla::exec
