#include "flotilla/distributed/local_query_events.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace flotilla::distributed {
namespace {

using exec::OperatorStats;
using exec::PipelineStatus;

// The watch of one query's pipelines: each poll reports what started or ended since the last.
class PipelineWatch {
 public:
  PipelineWatch(const exec::ResultStream& stream, int64_t query_id, int64_t start_nanos,
                const std::vector<std::shared_ptr<EventSubscriber>>& subscribers)
      : pipelines_(stream.pipelines()),
        query_id_(query_id),
        start_nanos_(start_nanos),
        subscribers_(subscribers),
        state_(pipelines_.size(), State::kWaiting) {}

  void Started(std::string optimized_plan) {
    std::string plan;
    for (size_t i = 0; i < pipelines_.size(); ++i) {
      plan += "[" + std::to_string(i) + "] " + Name(i);
      const auto& upstreams = pipelines_[i]->upstreams;
      for (size_t k = 0; k < upstreams.size(); ++k)
        plan += (k == 0 ? " <- [" : " + [") + std::to_string(upstreams[k]) + "]";
      if (i + 1 == pipelines_.size()) plan += "  (result)";
      plan += '\n';
    }
    TaskEvent e{TaskEventKind::kQueryStarted, query_id_, 0,
                static_cast<int>(pipelines_.size()) - 1};
    e.message = std::move(plan);
    e.plan = std::move(optimized_plan);
    Send(e);
    Send({TaskEventKind::kExecutionStarted, query_id_, 0, e.node_id});
  }

  void Poll() {
    // Pipelines run one after another. Read from the last back, each one's end before its start,
    // the times are one moment's: a pipeline seen ended (or started) has every earlier one seen
    // ended, so a poll never reports a later pipeline's end before an earlier one's.
    const size_t n = pipelines_.size();
    std::vector<int64_t> starts(n), ends(n);
    for (size_t k = n; k-- > 0;) {
      ends[k] = pipelines_[k]->end_nanos.load();
      starts[k] = pipelines_[k]->start_nanos.load();
    }
    for (size_t i = 0; i < n; ++i) {
      const PipelineStatus& p = *pipelines_[i];
      const int64_t start = starts[i], end = ends[i];
      if (state_[i] == State::kWaiting && start > 0) {
        state_[i] = State::kRunning;
        TaskEvent node = Event(TaskEventKind::kNodeStarted, i, start);
        node.worker.clear();
        node.attempt = 0;
        node.inputs = p.upstreams;
        Send(node);
        TaskEvent submitted = Event(TaskEventKind::kSubmitted, i, start);
        submitted.worker.clear();
        Send(submitted);
        Send(Event(TaskEventKind::kScheduled, i, start));
      }
      if (state_[i] == State::kRunning && end > 0) {
        state_[i] = State::kDone;
        Completed(i, start, end);
      }
    }
  }

  /// The pipelines finished and the CPU their operators used.
  QueryEnd Totals() const {
    QueryEnd end;
    for (size_t i = 0; i < pipelines_.size(); ++i) {
      if (state_[i] != State::kDone) continue;
      end.tasks += 1;
      for (const OperatorStats* op : Own(i))
        end.cpu_seconds += static_cast<double>(op->cpu_nanos.load()) / 1e9;
    }
    end.attempts = end.tasks;
    return end;
  }

  /// The query failed: the pipelines still running failed with it.
  void Failed(const Status& status) {
    for (size_t i = 0; i < pipelines_.size(); ++i) {
      if (state_[i] != State::kRunning) continue;
      TaskEvent e = Event(TaskEventKind::kFailed, i, exec::SteadyNanos());
      e.seconds = Seconds(exec::SteadyNanos()) - Seconds(pipelines_[i]->start_nanos.load());
      e.message = status.ToString();
      Send(e);
    }
  }

 private:
  enum class State { kWaiting, kRunning, kDone };

  // The operators that are this pipeline's own: not a source that is an earlier pipeline's sink.
  std::vector<const OperatorStats*> Own(size_t i) const {
    const PipelineStatus& p = *pipelines_[i];
    std::vector<const OperatorStats*> out;
    for (const OperatorStats* op : p.operators) {
      const bool upstream_sink = std::any_of(p.upstreams.begin(), p.upstreams.end(), [&](int u) {
        const PipelineStatus& up = *pipelines_[u];
        return up.has_sink && !up.operators.empty() && up.operators.back() == op;
      });
      if (!upstream_sink) out.push_back(op);
    }
    return out;
  }

  // As explain's physical view: "Scan -> HashJoinProbe -> HashJoinBuild", "TopN -> result".
  std::string Name(size_t i) const {
    std::string out;
    for (const OperatorStats* op : pipelines_[i]->operators)
      out += (out.empty() ? "" : " -> ") + op->name;
    return pipelines_[i]->has_sink ? out : out + " -> result";
  }

  double Seconds(int64_t nanos) const { return static_cast<double>(nanos - start_nanos_) / 1e9; }

  TaskEvent Event(TaskEventKind kind, size_t i, int64_t at) const {
    TaskEvent e{kind,         query_id_, static_cast<int64_t>(i), static_cast<int>(i), Name(i),
                kLocalWorker, 1};
    e.time = Seconds(at);
    return e;
  }

  void Completed(size_t i, int64_t start, int64_t end) {
    const PipelineStatus& p = *pipelines_[i];
    TaskEvent e = Event(TaskEventKind::kCompleted, i, end);
    e.seconds = static_cast<double>(end - start) / 1e9;
    // What it produced: its sink's input, or the result it fed.
    if (!p.operators.empty()) {
      const OperatorStats& last = *p.operators.back();
      e.rows = p.has_sink ? last.rows_in.load() : last.rows_out.load();
      e.bytes = p.has_sink ? last.bytes_in.load() : last.bytes_out.load();
    }
    int64_t cpu = 0;
    for (const OperatorStats* op : Own(i)) {
      cpu += op->cpu_nanos.load();
      e.peak_memory = std::max(e.peak_memory, op->peak_memory.load());
      e.spilled_bytes += op->spilled_bytes.load();
      const int64_t op_start = op->start_nanos.load(), op_end = op->end_nanos.load();
      e.operators.push_back(
          {op->name, op->depth, op->rows_out.load(),
           static_cast<double>(op->cpu_nanos.load()) / 1e9,
           op_start > 0 ? static_cast<double>(std::max<int64_t>(0, op_start - start)) / 1e9 : -1.0,
           op_end > 0 ? static_cast<double>(std::max<int64_t>(0, op_end - start)) / 1e9 : -1.0});
    }
    e.cpu_seconds = static_cast<double>(cpu) / 1e9;
    Send(e);
    TaskEvent node = Event(TaskEventKind::kNodeFinished, i, end);
    node.worker.clear();
    node.attempt = 0;
    node.seconds = e.seconds;
    node.rows = e.rows;
    Send(node);
  }

  void Send(const TaskEvent& e) {
    for (const auto& sub : subscribers_)
      sub->OnEvent(e);
  }

  const std::vector<std::unique_ptr<PipelineStatus>>& pipelines_;
  const int64_t query_id_;
  const int64_t start_nanos_;
  const std::vector<std::shared_ptr<EventSubscriber>>& subscribers_;
  std::vector<State> state_;
};

}  // namespace

Result<exec::QueryResult> RunLocalWithEvents(
    const exec::PlanPtr& plan, const exec::ExecOptions& options, int64_t query_id,
    const std::vector<std::shared_ptr<EventSubscriber>>& subscribers) {
  const int64_t start = exec::SteadyNanos();
  Result<std::unique_ptr<exec::ResultStream>> stream = exec::Execute(plan, options);
  if (!stream.ok()) {
    for (const auto& sub : subscribers)
      sub->OnQueryFinished({query_id, stream.status()});
    return stream.status();
  }
  PipelineWatch watch(**stream, query_id, start, subscribers);
  watch.Started(exec::PlanToString(*plan));
  // Pipelines are seen starting and ending within 20 ms.
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::thread watcher([&] {
    std::unique_lock lock(mutex);
    while (!done) {
      watch.Poll();
      cv.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; });
    }
  });
  const exec::MemoryManager& memory =
      options.memory ? *options.memory : exec::MemoryManager::Default();
  Result<exec::QueryResult> result =
      exec::CollectPartitions(stream->get(), exec::HeldOutputLimit(memory));
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  cv.notify_all();
  watcher.join();
  watch.Poll();
  if (!result.ok()) watch.Failed(result.status());
  QueryEnd end = watch.Totals();
  end.query_id = query_id;
  end.status = result.ok() ? Status::OK() : result.status();
  end.seconds = static_cast<double>(exec::SteadyNanos() - start) / 1e9;
  if (result.ok()) {
    end.rows = result->num_rows();
    for (const MicroPartition& p : result->partitions)
      end.bytes += p.size_bytes();
  }
  for (const auto& sub : subscribers)
    sub->OnQueryFinished(end);
  return result;
}

}  // namespace flotilla::distributed
