#pragma once
// A distributed query's tasks as a Chrome trace (the Trace Event Format's JSON array form), for
// chrome://tracing and Perfetto: a process per worker, a lane per task slot it ran at once, and
// a complete event per task attempt — named after its pipeline node, with the task, node,
// attempt, rows, bytes and how it ended. Inside a finished task, its operators (pipeline order)
// as nested spans, each as long as its share of the task's CPU time: where the task's time
// went. Operators of a streaming pipeline run at once, so their own wall times overlap and
// could not nest; each span's args give the operator's CPU time, rows and wall start and end.
// Per worker, counters of its memory (resident, store, spilled) and CPU from its samples, and
// an instant mark where it left. Several queries append to one file: the array form needs no
// closing bracket, so each query's events go to the end of what is there.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "flotilla/distributed/events.h"

namespace flotilla::distributed {

class ChromeTrace final : public EventSubscriber {
 public:
  /// Appends to `path` (created with the array's opening bracket when new or empty).
  static Result<std::shared_ptr<ChromeTrace>> Open(const std::string& path);

  void OnEvent(const TaskEvent& event) override;
  /// Writes the query's spans.
  void OnQueryFinished(const QueryEnd& end) override;

 private:
  struct Span {
    int64_t query = 0, task = 0;
    int node = 0, attempt = 0;
    std::string node_name, worker, status, message;
    double start = 0, end = 0;  // seconds since the query started
    int64_t rows = 0, bytes = 0;
    double cpu_seconds = 0;
    int64_t peak_memory = 0;
    std::vector<TaskOperator> operators;
  };
  /// A worker's resource sample (counters), or the moment it left (message set).
  struct Mark {
    std::string worker;
    double time = 0;
    std::string message;
    WorkerResources resources;
  };
  explicit ChromeTrace(std::string path) : path_(std::move(path)) {}
  void Close(int64_t task, double at, const std::string& status, const std::string& message);
  /// The operator spans of `s`, drawn in [ts, end] of lane `tid`.
  static void AppendOperators(const Span& s, int64_t pid, int tid, int64_t ts, int64_t end,
                              std::string* out);

  std::mutex mutex_;
  std::string path_;
  double origin_us_ = -1;  // wall-clock microseconds at the query's time 0
  double last_time_ = 0;
  std::map<int64_t, Span> open_;  // by task id
  std::vector<Span> spans_;
  std::vector<Mark> marks_;
};

}  // namespace flotilla::distributed
