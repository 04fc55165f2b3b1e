#include "flotilla/distributed/events.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include "flotilla/io/text/value_format.h"

namespace flotilla::distributed {
namespace {

std::string Count(int64_t n) {
  if (n >= 1000000000) return fmt::format("{:.1f}G", n / 1e9);
  if (n >= 1000000) return fmt::format("{:.1f}M", n / 1e6);
  if (n >= 10000) return fmt::format("{:.1f}k", n / 1e3);
  return std::to_string(n);
}

int TerminalWidth(std::FILE* out) {
  struct winsize w {};
  if (ioctl(fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 100;
}

}  // namespace

std::string JsonString(const std::string& s) {
  std::string out;
  io::text::AppendJsonString(s, &out);
  return out;
}

const char* TaskEventKindName(TaskEventKind kind) {
  switch (kind) {
    case TaskEventKind::kSubmitted:
      return "submitted";
    case TaskEventKind::kScheduled:
      return "scheduled";
    case TaskEventKind::kCompleted:
      return "completed";
    case TaskEventKind::kFailed:
      return "failed";
    case TaskEventKind::kCancelled:
      return "cancelled";
    case TaskEventKind::kQueryStarted:
      return "query_started";
    case TaskEventKind::kExecutionStarted:
      return "execution_started";
    case TaskEventKind::kNodeStarted:
      return "node_started";
    case TaskEventKind::kNodeFinished:
      return "node_finished";
    case TaskEventKind::kWorkerJoined:
      return "worker_joined";
    case TaskEventKind::kWorkerLeft:
      return "worker_left";
    case TaskEventKind::kWorkerSample:
      return "worker_sample";
    case TaskEventKind::kLog:
      return "log";
  }
  return "?";
}

std::string TaskEventToJson(const TaskEvent& e) {
  std::string out = fmt::format(
      "{{\"event\":\"{}\",\"query\":{},\"task\":{},\"node\":{},\"node_name\":{},\"worker\":{},"
      "\"attempt\":{},\"seconds\":{:.6f},\"rows\":{},\"bytes\":{},\"message\":{},\"time\":{:.6f}",
      TaskEventKindName(e.kind), e.query_id, e.task_id, e.node_id, JsonString(e.node_name),
      JsonString(e.worker), e.attempt, e.seconds, e.rows, e.bytes, JsonString(e.message), e.time);
  if (e.kind == TaskEventKind::kCompleted) {
    out += fmt::format(
        ",\"cpu_seconds\":{:.6f},\"peak_memory\":{},\"spilled_bytes\":{},\"operators\":[",
        e.cpu_seconds, e.peak_memory, e.spilled_bytes);
    for (size_t i = 0; i < e.operators.size(); ++i) {
      const TaskOperator& op = e.operators[i];
      out += fmt::format(
          "{}{{\"name\":{},\"depth\":{},\"rows_out\":{},\"cpu_seconds\":{:.6f},\"start\":{:.6f},"
          "\"end\":{:.6f}}}",
          i == 0 ? "" : ",", JsonString(op.name), op.depth, op.rows_out, op.cpu_seconds, op.start,
          op.end);
    }
    out += ']';
  }
  if (e.kind == TaskEventKind::kQueryStarted) out += ",\"plan\":" + JsonString(e.plan);
  if (e.kind == TaskEventKind::kNodeStarted) {
    out += ",\"inputs\":[";
    for (size_t i = 0; i < e.inputs.size(); ++i)
      out += (i == 0 ? "" : ",") + std::to_string(e.inputs[i]);
    out += ']';
  }
  if (e.kind == TaskEventKind::kWorkerSample) {
    const WorkerResources& r = e.resources;
    out += fmt::format(
        ",\"resources\":{{\"cpu_percent\":{:.2f},\"cpu_seconds\":{:.3f},\"rss_bytes\":{},"
        "\"store_memory_bytes\":{},\"store_spilled_bytes\":{},\"disk_free_bytes\":{},"
        "\"flight_bytes_served\":{},\"running_tasks\":{}}}",
        r.cpu_percent, r.cpu_seconds, r.rss_bytes, r.store_memory_bytes, r.store_spilled_bytes,
        r.disk_free_bytes, r.flight_bytes_served, r.running_tasks);
  }
  out += '}';
  return out;
}

Result<std::shared_ptr<JsonLinesEventLog>> JsonLinesEventLog::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) return Status::IOError("event log: cannot open '" + path + "' for appending");
  return std::shared_ptr<JsonLinesEventLog>(new JsonLinesEventLog(f));
}

JsonLinesEventLog::~JsonLinesEventLog() {
  std::fclose(file_);
}

void JsonLinesEventLog::OnEvent(const TaskEvent& event) {
  std::lock_guard lock(mutex_);
  std::string line = TaskEventToJson(event);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

void JsonLinesEventLog::OnQueryFinished(const QueryEnd& end) {
  std::lock_guard lock(mutex_);
  std::string line = QueryEndToJson(end) + "\n";
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

std::string QueryEndToJson(const QueryEnd& e) {
  return fmt::format(
      "{{\"event\":\"query_finished\",\"query\":{},\"status\":{},\"seconds\":{:.6f},"
      "\"tasks\":{},\"attempts\":{},\"rows\":{},\"bytes\":{},\"cpu_seconds\":{:.6f}}}",
      e.query_id, JsonString(e.status.ok() ? "ok" : e.status.ToString()), e.seconds, e.tasks,
      e.attempts, e.rows, e.bytes, e.cpu_seconds);
}

ProgressDisplay::ProgressDisplay(std::FILE* out) : out_(out) {}

void ProgressDisplay::Update(const std::vector<NodeProgress>& nodes, double elapsed, bool final) {
  if (!final && last_draw_ >= 0 && elapsed - last_draw_ < 0.1) return;
  last_draw_ = elapsed;
  const int width = TerminalWidth(out_);
  std::string frame;
  for (int i = 0; i < lines_drawn_; ++i)
    frame += "\x1b[1A\x1b[2K";  // up one line, clear it
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeProgress& n = nodes[i];
    std::string stats = fmt::format(
        "  {}/{} tasks{}  {} rows  {:.1f}s", n.tasks_done, n.tasks_total,
        n.running > 0 ? fmt::format(" ({} running)", n.running) : "", Count(n.rows), elapsed);
    std::string head = fmt::format("[{}/{}] ", i + 1, nodes.size());
    int room = width - 1 - static_cast<int>(head.size() + stats.size());
    std::string name = n.name;
    if (room < 4) room = 4;
    if (static_cast<int>(name.size()) > room) name = name.substr(0, room - 1) + "~";
    frame += head + name + stats + "\n";
  }
  lines_drawn_ = static_cast<int>(nodes.size());
  std::fwrite(frame.data(), 1, frame.size(), out_);
  std::fflush(out_);
}

bool ProgressEnabled(int setting) {
  if (setting == 0) return false;
  if (setting == 1) return true;
  const char* env = std::getenv("FLOTILLA_PROGRESS");
  if (env != nullptr && std::string(env) == "0") return false;
  return isatty(STDERR_FILENO) != 0;
}

}  // namespace flotilla::distributed
