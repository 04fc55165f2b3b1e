#include "flotilla/distributed/task_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "flotilla/distributed/proto/task.pb.h"
#include "flotilla/exec/stats/operator_stats.h"

namespace flotilla::distributed {

void OperatorFigures::Add(const OperatorFigures& o) {
  rows_in += o.rows_in;
  rows_out += o.rows_out;
  bytes_in += o.bytes_in;
  bytes_out += o.bytes_out;
  cpu_nanos += o.cpu_nanos;
  spilled_bytes += o.spilled_bytes;
  peak_memory = std::max(peak_memory, o.peak_memory);
  wall_nanos = std::max(wall_nanos, o.wall_nanos);
  tasks += o.tasks;
}

std::string OperatorLabel(const std::string& name, const std::string& detail) {
  // exec's ScanNode::Describe: "Scan: <n> task(s)[ [<first task>, ...]][ <pushdowns>]".
  constexpr std::string_view kPrefix = "Scan: ";
  if (name != "Scan" || detail.rfind(kPrefix, 0) != 0) return detail;
  size_t at = detail.find(" task(s)");
  if (at == std::string::npos) return detail;
  at += 8;
  std::string source = "files";
  if (at + 1 < detail.size() && detail.compare(at, 2, " [") == 0) {
    // The first task's description, then ", ..." when there are more: its paths are quoted
    // and its row group ranges half open ("[0, 1)"), so the first bracket closing outside
    // quotes ends the list.
    const size_t open = at + 1;
    bool quoted = false;
    size_t close = std::string::npos;
    for (size_t i = open + 1; i < detail.size() && close == std::string::npos; ++i) {
      if (detail[i] == '\'') quoted = !quoted;
      if (!quoted && detail[i] == ']') close = i;
    }
    if (close == std::string::npos) return detail;
    const std::string first = detail.substr(open + 1, close - open - 1);
    source = !first.empty() && std::isdigit(static_cast<unsigned char>(first[0]))
                 ? "partitions"
                 : first.substr(0, first.find(' '));
    at = close + 1;
  }
  return std::string(kPrefix) + source + detail.substr(at);
}

void StatsToProto(const exec::QueryStats& stats, int64_t task_start_nanos,
                  proto::TaskResult* result) {
  int64_t cpu = 0, peak = 0, spilled = 0;
  for (const exec::OperatorStats* s : stats.InPlanOrder()) {
    proto::OperatorStats* op = result->add_operators();
    op->set_id(s->node_id);
    op->set_name(s->name);
    op->set_detail(s->detail);
    op->set_depth(s->depth);
    op->set_rows_in(s->rows_in.load());
    op->set_rows_out(s->rows_out.load());
    op->set_bytes_in(s->bytes_in.load());
    op->set_bytes_out(s->bytes_out.load());
    op->set_cpu_nanos(s->cpu_nanos.load());
    op->set_peak_memory(s->peak_memory.load());
    op->set_spilled_bytes(s->spilled_bytes.load());
    const int64_t start = s->start_nanos.load(), end = s->end_nanos.load();
    op->set_start_nanos(start > 0 ? std::max<int64_t>(0, start - task_start_nanos) : -1);
    op->set_end_nanos(end > 0 && start > 0 ? std::max<int64_t>(0, end - task_start_nanos) : -1);
    cpu += op->cpu_nanos();
    peak = std::max(peak, op->peak_memory());
    spilled += op->spilled_bytes();
  }
  result->set_cpu_nanos(cpu);
  result->set_peak_memory(peak);
  result->set_spilled_bytes(spilled);
}

std::vector<OperatorFigures> NodeOperators::Take(const proto::TaskResult& result) {
  std::vector<OperatorFigures> out(operators_.size());
  for (const proto::OperatorStats& op : result.operators()) {
    // The node's tasks run one fragment, so (position, name) names an operator in each.
    auto it = std::find_if(operators_.begin(), operators_.end(), [&](const OperatorInfo& known) {
      return known.id == op.id() && known.name == op.name();
    });
    size_t index = static_cast<size_t>(it - operators_.begin());
    if (it == operators_.end()) {
      operators_.push_back({op.id(), op.name(), OperatorLabel(op.name(), op.detail()), op.depth()});
      out.resize(operators_.size());
    }
    OperatorFigures& f = out[index];
    f.rows_in += op.rows_in();
    f.rows_out += op.rows_out();
    f.bytes_in += op.bytes_in();
    f.bytes_out += op.bytes_out();
    f.cpu_nanos += op.cpu_nanos();
    f.peak_memory = std::max(f.peak_memory, op.peak_memory());
    f.spilled_bytes += op.spilled_bytes();
    if (op.start_nanos() >= 0 && op.end_nanos() >= op.start_nanos()) {
      f.wall_nanos = std::max(f.wall_nanos, op.end_nanos() - op.start_nanos());
    }
    f.tasks = 1;
  }
  return out;
}

std::string RenderClusterAnalysis(const std::vector<NodeAnalysis>& nodes) {
  std::string out;
  for (const NodeAnalysis& n : nodes) {
    out += fmt::format("[{}] {}: {} task(s)", n.node, n.name, n.tasks);
    if (n.attempts > n.tasks) out += fmt::format(" ({} attempts)", n.attempts);
    out += fmt::format(", {} rows out, {:.3f} s; wrote {}", exec::FormatCount(n.rows), n.seconds,
                       exec::FormatBytes(n.output_bytes));
    if (n.spilled_bytes > 0) out += " (" + exec::FormatBytes(n.spilled_bytes) + " spilled)";
    if (n.read_local_bytes + n.read_remote_bytes > 0) {
      out += "; read " + exec::FormatBytes(n.read_local_bytes) + " on its workers, " +
             exec::FormatBytes(n.read_remote_bytes) + " from others";
    }
    out += '\n';
    std::vector<size_t> order(n.operators.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return n.operators[a].id < n.operators[b].id; });
    for (size_t i : order) {
      const OperatorInfo& op = n.operators[i];
      const OperatorFigures& f = n.totals[i];
      out += std::string(static_cast<size_t>(op.depth + 1) * 2, ' ');
      out += op.detail.empty() ? op.name : op.detail;
      out += "  [" + op.name + ": rows " + exec::FormatCount(f.rows_in) + " -> " +
             exec::FormatCount(f.rows_out) + ", bytes " + exec::FormatBytes(f.bytes_in) + " -> " +
             exec::FormatBytes(f.bytes_out) + ", cpu " + exec::FormatNanos(f.cpu_nanos);
      if (f.wall_nanos > 0) out += ", wall (slowest task) " + exec::FormatNanos(f.wall_nanos);
      if (f.peak_memory > 0) out += ", peak mem (one task) " + exec::FormatBytes(f.peak_memory);
      if (f.spilled_bytes > 0) out += ", spilled " + exec::FormatBytes(f.spilled_bytes);
      out += fmt::format(", {} task(s)]\n", f.tasks);
    }
  }
  return out;
}

}  // namespace flotilla::distributed
