#pragma once
// Task events of distributed queries and their subscribers. The driver reports every step of
// every task — submitted, scheduled, completed, failed, cancelled — with the worker, duration,
// rows and bytes; subscribers receive them on the driver's thread, in order. Built in: a
// JSON-lines event log and the progress display (one line per pipeline node).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "flotilla/common/result.h"

namespace flotilla::distributed {

/// Task events, and the query's, its pipeline nodes' and its workers' own: query_started
/// (message: the distributed plan, one node per line), execution_started (its first task placed
/// on a worker: planning, the workers' joining and actor pools' starting are behind it),
/// node_started (its first task submitted),
/// node_finished (its last task done: rows, seconds since it started; again after a recovery
/// re-ran some of its tasks), worker_joined, worker_left (message: why), worker_sample (its
/// resources, at least once a second while the query runs; a worker's events have node -1), log
/// (message: a line a task's threads logged on its worker, as printed there, with the task's
/// worker, node and attempt). The query's end is OnQueryFinished.
enum class TaskEventKind {
  kSubmitted,
  kScheduled,
  kCompleted,
  kFailed,
  kCancelled,
  kQueryStarted,
  kExecutionStarted,
  kNodeStarted,
  kNodeFinished,
  kWorkerJoined,
  kWorkerLeft,
  kWorkerSample,
  kLog
};
const char* TaskEventKindName(TaskEventKind kind);  // "submitted", ..., "log"

/// One operator of a completed task (the trace draws them inside the task).
struct TaskOperator {
  std::string name;
  int depth = 0;
  int64_t rows_out = 0;
  double cpu_seconds = 0;
  double start = -1;  // seconds from the task's start on its worker; -1: unknown
  double end = -1;
};

/// A worker's resources (worker_sample). In an in-process cluster the workers share one process:
/// CPU and resident memory are all of theirs.
struct WorkerResources {
  double cpu_percent = 0;  // of one core, since the worker's previous sample (0 for its first)
  double cpu_seconds = 0;  // the process's so far
  int64_t rss_bytes = 0;
  int64_t store_memory_bytes = 0;
  int64_t store_spilled_bytes = 0;
  int64_t disk_free_bytes = 0;
  int64_t flight_bytes_served = 0;
  int running_tasks = 0;
};

struct TaskEvent {
  TaskEventKind kind;
  int64_t query_id = 0;
  int64_t task_id = 0;
  int node_id = 0;
  std::string node_name;
  std::string worker;  // scheduled and after
  int attempt = 0;
  double seconds = 0;   // completed/failed: from scheduling to the report
  int64_t rows = 0;     // completed: rows output
  int64_t bytes = 0;    // completed: bytes output
  std::string message;  // failed: the error; cancelled: why; query_started: the pipeline nodes
  double time = 0;      // seconds since the query started
  // completed: what the task's operators measured
  double cpu_seconds = 0;
  int64_t peak_memory = 0;  // the most one of its operators held
  int64_t spilled_bytes = 0;
  std::vector<TaskOperator> operators;  // in plan order
  WorkerResources resources;            // worker_sample
  std::vector<int> inputs;              // node_started: the nodes it reads (through concats)
  std::string plan;                     // query_started: the optimized plan it runs
};

/// One JSON object per event (keys: event, query, task, node, node_name, worker, attempt,
/// seconds, rows, bytes, message, time; query_started also plan; completed also cpu_seconds,
/// peak_memory, spilled_bytes and operators: [{name, depth, rows_out, cpu_seconds, start, end}];
/// worker_sample also resources: {cpu_percent, cpu_seconds, rss_bytes, store_memory_bytes,
/// store_spilled_bytes, disk_free_bytes, flight_bytes_served, running_tasks}; node_started also
/// inputs: [node ids]).
std::string TaskEventToJson(const TaskEvent& event);

/// `s` as a JSON string literal (quoted, escaped).
std::string JsonString(const std::string& s);

/// How a query ended, with its totals.
struct QueryEnd {
  int64_t query_id = 0;
  Status status;       // OK or its error
  double seconds = 0;  // since it started
  int64_t tasks = 0;   // finished, each once however many attempts it took
  int64_t attempts = 0;
  int64_t rows = 0;  // of its result
  int64_t bytes = 0;
  double cpu_seconds = 0;  // of every finished task's operators
};

class EventSubscriber {
 public:
  virtual ~EventSubscriber() = default;
  virtual void OnEvent(const TaskEvent& event) = 0;
  /// The query ended: query_finished.
  virtual void OnQueryFinished(const QueryEnd& end) {}
};

/// query_finished as a JSON object (keys: event, query, status, seconds, tasks, attempts, rows,
/// bytes, cpu_seconds).
std::string QueryEndToJson(const QueryEnd& end);

/// Appends events as JSON lines to a file (created or appended to).
class JsonLinesEventLog final : public EventSubscriber {
 public:
  static Result<std::shared_ptr<JsonLinesEventLog>> Open(const std::string& path);
  ~JsonLinesEventLog() override;
  void OnEvent(const TaskEvent& event) override;
  void OnQueryFinished(const QueryEnd& end) override;

 private:
  explicit JsonLinesEventLog(std::FILE* file) : file_(file) {}
  std::mutex mutex_;
  std::FILE* file_;
};

/// Per pipeline node: what the progress display shows.
struct NodeProgress {
  std::string name;
  int64_t tasks_done = 0;
  int64_t tasks_total = 0;  // known so far
  int64_t rows = 0;
  int64_t running = 0;
};

/// Redraws one line per pipeline node on stderr ("[2/5] Scan -> Filter  12/40 tasks  1.2M rows
/// 3.4s"), names cut to the terminal width; at most every 100 ms, and a final frame at the end.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(std::FILE* out = stderr);
  void Update(const std::vector<NodeProgress>& nodes, double elapsed, bool final = false);

 private:
  std::FILE* out_;
  int lines_drawn_ = 0;
  double last_draw_ = -1;
};

/// Whether a progress display should be drawn: stderr is a terminal and FLOTILLA_PROGRESS is
/// not 0 (`setting` -1), or the setting forces it (0 off, 1 on).
bool ProgressEnabled(int setting);

}  // namespace flotilla::distributed
