#include "flotilla/distributed/chrome_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace flotilla::distributed {
namespace {

double NowMicros() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void ChromeTrace::AppendOperators(const Span& s, int64_t pid, int tid, int64_t ts, int64_t end,
                                  std::string* out) {
  double cpu = 0;
  for (const TaskOperator& op : s.operators)
    cpu += op.cpu_seconds;
  if (cpu <= 0 || end <= ts) return;
  // Side by side in plan order, each its share of the task's CPU time, rounded so that one
  // ends exactly where the next starts and the last where the task does.
  double before = 0;
  int64_t at = ts;
  for (size_t i = 0; i < s.operators.size(); ++i) {
    const TaskOperator& op = s.operators[i];
    before += op.cpu_seconds;
    const int64_t to = i + 1 == s.operators.size()
                           ? end
                           : ts + std::llround(static_cast<double>(end - ts) * before / cpu);
    if (to > at) {
      *out += fmt::format(
          "{{\"ph\":\"X\",\"cat\":\"operator\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":{},"
          "\"dur\":{},\"args\":{{\"task\":{},\"depth\":{},\"rows_out\":{},\"cpu_seconds\":{:.6f},"
          "\"wall_start\":{:.6f},\"wall_end\":{:.6f}}}}},\n",
          JsonString(op.name), pid, tid, at, to - at, s.task, op.depth, op.rows_out, op.cpu_seconds,
          op.start, op.end);
    }
    at = to;
  }
}

Result<std::shared_ptr<ChromeTrace>> ChromeTrace::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) return Status::IOError("trace: cannot open '" + path + "' for appending");
  std::error_code ec;
  const bool empty = std::filesystem::file_size(path, ec) == 0 || ec;
  if (empty) std::fputs("[\n", f);
  std::fclose(f);
  return std::shared_ptr<ChromeTrace>(new ChromeTrace(path));
}

void ChromeTrace::Close(int64_t task, double at, const std::string& status,
                        const std::string& message) {
  auto it = open_.find(task);
  if (it == open_.end()) return;
  Span span = std::move(it->second);
  open_.erase(it);
  span.end = std::max(at, span.start);
  span.status = status;
  span.message = message;
  spans_.push_back(std::move(span));
}

void ChromeTrace::OnEvent(const TaskEvent& e) {
  std::lock_guard lock(mutex_);
  if (origin_us_ < 0) origin_us_ = NowMicros() - e.time * 1e6;
  last_time_ = std::max(last_time_, e.time);
  switch (e.kind) {
    case TaskEventKind::kSubmitted:
    case TaskEventKind::kQueryStarted:
    case TaskEventKind::kExecutionStarted:
    case TaskEventKind::kNodeStarted:
    case TaskEventKind::kNodeFinished:
    case TaskEventKind::kWorkerJoined:
    case TaskEventKind::kLog:
      return;
    case TaskEventKind::kWorkerLeft:
      marks_.push_back({e.worker, e.time, "worker left: " + e.message, {}});
      return;
    case TaskEventKind::kWorkerSample:
      marks_.push_back({e.worker, e.time, "", e.resources});
      return;
    case TaskEventKind::kScheduled: {
      // Scheduled again under the same id: its worker was lost while it ran.
      Close(e.task_id, e.time, "lost", "its worker was lost");
      Span s;
      s.query = e.query_id;
      s.task = e.task_id;
      s.node = e.node_id;
      s.attempt = e.attempt;
      s.node_name = e.node_name;
      s.worker = e.worker;
      s.start = e.time;
      open_[e.task_id] = std::move(s);
      return;
    }
    case TaskEventKind::kCompleted: {
      auto it = open_.find(e.task_id);
      if (it != open_.end()) {
        it->second.rows = e.rows;
        it->second.bytes = e.bytes;
        it->second.cpu_seconds = e.cpu_seconds;
        it->second.peak_memory = e.peak_memory;
        it->second.operators = e.operators;
      }
      Close(e.task_id, e.time, "ok", "");
      return;
    }
    case TaskEventKind::kFailed:
      Close(e.task_id, e.time, "failed", e.message);
      return;
    case TaskEventKind::kCancelled:
      Close(e.task_id, e.time, "cancelled", e.message);
      return;
  }
}

void ChromeTrace::OnQueryFinished(const QueryEnd& end) {
  const int64_t query_id = end.query_id;
  const Status& status = end.status;
  std::lock_guard lock(mutex_);
  while (!open_.empty()) {
    Close(open_.begin()->first, last_time_, "unfinished",
          status.ok() ? "" : "the query failed: " + status.ToString());
  }
  // A lane per task slot: each span takes the first lane of its worker free at its start, so
  // spans in one lane never overlap.
  std::sort(spans_.begin(), spans_.end(), [](const Span& a, const Span& b) {
    return a.start != b.start ? a.start < b.start : a.task < b.task;
  });
  std::map<std::string, int> pid_of;
  std::map<std::string, std::vector<double>> lane_ends;
  std::string out;
  // Several queries in one file: each query's workers are processes of their own, named once.
  auto pid_of_worker = [&](const std::string& worker) {
    auto [it, added] = pid_of.emplace(worker, static_cast<int>(pid_of.size()) + 1);
    const int64_t pid = query_id * 1000 + it->second;
    if (added) {
      out += fmt::format(
          "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":{}}}}},\n", pid,
          JsonString("query " + std::to_string(query_id) + " worker " + worker));
    }
    return pid;
  };
  for (const Span& s : spans_) {
    const int64_t pid = pid_of_worker(s.worker);
    std::vector<double>& ends = lane_ends[s.worker];
    size_t lane = 0;
    while (lane < ends.size() && ends[lane] > s.start)
      ++lane;
    if (lane == ends.size()) {
      ends.push_back(0);
      out += fmt::format(
          "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":"
          "\"slot {}\"}}}},\n",
          pid, lane + 1, lane + 1);
    }
    ends[lane] = s.end;
    // Both ends rounded alike: a span starting where another ended does not overlap it.
    const int64_t ts = std::llround(origin_us_ + s.start * 1e6);
    const int64_t end = std::llround(origin_us_ + s.end * 1e6);
    out += fmt::format(
        "{{\"ph\":\"X\",\"cat\":\"task\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":{},"
        "\"dur\":{},\"args\":{{\"query\":{},\"task\":{},\"node\":{},\"attempt\":{},"
        "\"rows\":{},\"bytes\":{},\"cpu_seconds\":{:.6f},\"peak_memory\":{},\"status\":\"{}\","
        "\"message\":{}}}}},\n",
        JsonString(s.node_name), pid, lane + 1, ts, end - ts, s.query, s.task, s.node, s.attempt,
        s.rows, s.bytes, s.cpu_seconds, s.peak_memory, s.status, JsonString(s.message));
    AppendOperators(s, pid, static_cast<int>(lane) + 1, ts, end, &out);
  }
  // Counters per worker (memory in MiB, CPU in % of a core) and the moment a worker left.
  for (const Mark& m : marks_) {
    const int64_t pid = pid_of_worker(m.worker);
    const int64_t ts = std::llround(origin_us_ + m.time * 1e6);
    if (!m.message.empty()) {
      out +=
          fmt::format("{{\"ph\":\"i\",\"s\":\"p\",\"name\":{},\"pid\":{},\"tid\":1,\"ts\":{}}},\n",
                      JsonString(m.message), pid, ts);
      continue;
    }
    constexpr double kMiB = 1024.0 * 1024.0;
    out += fmt::format(
        "{{\"ph\":\"C\",\"name\":\"memory (MiB)\",\"pid\":{},\"ts\":{},\"args\":{{\"rss\":{:.1f},"
        "\"store\":{:.1f},\"spilled\":{:.1f}}}}},\n",
        pid, ts, static_cast<double>(m.resources.rss_bytes) / kMiB,
        static_cast<double>(m.resources.store_memory_bytes) / kMiB,
        static_cast<double>(m.resources.store_spilled_bytes) / kMiB);
    out += fmt::format(
        "{{\"ph\":\"C\",\"name\":\"cpu (% of a core)\",\"pid\":{},\"ts\":{},\"args\":{{\"cpu\":"
        "{:.1f}}}}},\n",
        pid, ts, m.resources.cpu_percent);
  }
  marks_.clear();
  spans_.clear();
  origin_us_ = -1;
  last_time_ = 0;
  std::FILE* f = std::fopen(path_.c_str(), "a");
  if (f == nullptr) return;  // the file went away mid-query: nothing to add it to
  std::fwrite(out.data(), 1, out.size(), f);
  std::fclose(f);
}

}  // namespace flotilla::distributed
