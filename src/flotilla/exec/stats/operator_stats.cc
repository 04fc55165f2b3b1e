#include "flotilla/exec/stats/operator_stats.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace flotilla::exec {

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void OperatorStats::MarkStarted() {
  int64_t expected = 0;
  start_nanos.compare_exchange_strong(expected, SteadyNanos());
  started = true;
}

void OperatorStats::MarkFinished() {
  end_nanos = SteadyNanos();
  finished = true;
}

void OperatorStats::ObserveMemory(int64_t bytes) {
  int64_t peak = peak_memory.load(std::memory_order_relaxed);
  while (bytes > peak &&
         !peak_memory.compare_exchange_weak(peak, bytes, std::memory_order_relaxed)) {
  }
}

OperatorStats* QueryStats::Add(std::string name, std::string detail, int node_id, int depth) {
  auto stats = std::make_unique<OperatorStats>();
  stats->name = std::move(name);
  stats->detail = std::move(detail);
  stats->node_id = node_id;
  stats->depth = depth;
  operators_.push_back(std::move(stats));
  return operators_.back().get();
}

std::vector<const OperatorStats*> QueryStats::InPlanOrder() const {
  std::vector<const OperatorStats*> out;
  for (const auto& s : operators_)
    out.push_back(s.get());
  std::stable_sort(out.begin(), out.end(), [](const OperatorStats* a, const OperatorStats* b) {
    return a->node_id < b->node_id;
  });
  return out;
}

std::string FormatCount(int64_t n) {
  char buffer[32];
  const double v = static_cast<double>(n);
  if (n < 10000) {
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(n));
  } else if (n < 10'000'000) {
    std::snprintf(buffer, sizeof buffer, "%.1fK", v / 1e3);
  } else if (n < 10'000'000'000) {
    std::snprintf(buffer, sizeof buffer, "%.1fM", v / 1e6);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1fG", v / 1e9);
  }
  return buffer;
}

std::string FormatBytes(int64_t bytes) {
  char buffer[32];
  const double v = static_cast<double>(bytes);
  if (bytes < 1024) {
    std::snprintf(buffer, sizeof buffer, "%lld B", static_cast<long long>(bytes));
  } else if (bytes < (int64_t{1} << 20)) {
    std::snprintf(buffer, sizeof buffer, "%.1f KiB", v / 1024);
  } else if (bytes < (int64_t{1} << 30)) {
    std::snprintf(buffer, sizeof buffer, "%.1f MiB", v / (1024.0 * 1024));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.2f GiB", v / (1024.0 * 1024 * 1024));
  }
  return buffer;
}

std::string FormatNanos(int64_t nanos) {
  char buffer[32];
  if (nanos < 1'000'000) {
    std::snprintf(buffer, sizeof buffer, "%.0f us", static_cast<double>(nanos) / 1e3);
  } else if (nanos < 1'000'000'000) {
    std::snprintf(buffer, sizeof buffer, "%.1f ms", static_cast<double>(nanos) / 1e6);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.2f s", static_cast<double>(nanos) / 1e9);
  }
  return buffer;
}

std::string RenderExplainAnalyze(const QueryStats& stats) {
  std::string out;
  for (const OperatorStats* s : stats.InPlanOrder()) {
    out += std::string(static_cast<size_t>(s->depth) * 2, ' ');
    out += s->detail.empty() ? s->name : s->detail;
    out += "  [" + s->name + ": rows " + FormatCount(s->rows_in.load()) + " -> " +
           FormatCount(s->rows_out.load()) + ", bytes " + FormatBytes(s->bytes_in.load()) + " -> " +
           FormatBytes(s->bytes_out.load()) + ", cpu " + FormatNanos(s->cpu_nanos.load());
    const int64_t start = s->start_nanos.load(), end = s->end_nanos.load();
    if (start > 0 && end >= start) out += ", wall " + FormatNanos(end - start);
    if (s->peak_memory.load() > 0) out += ", peak mem " + FormatBytes(s->peak_memory.load());
    if (s->spilled_bytes.load() > 0) out += ", spilled " + FormatBytes(s->spilled_bytes.load());
    out += "]\n";
  }
  return out;
}

int64_t ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace flotilla::exec
