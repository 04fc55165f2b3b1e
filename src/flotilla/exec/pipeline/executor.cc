#include "flotilla/exec/pipeline/executor.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "flotilla/common/logging.h"
#include "flotilla/compute/concat.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/pipeline/pipeline_builder.h"
#include "flotilla/exec/stats/progress.h"

namespace flotilla::exec {

int64_t HeldOutputLimit(const MemoryManager& memory) {
  return std::max<int64_t>(memory.limit(), int64_t{64} << 20);
}

namespace {

int64_t BytesOf(const std::vector<RecordBatch>& batches, int64_t* rows) {
  int64_t bytes = 0;
  for (const RecordBatch& batch : batches) {
    *rows += batch.num_rows();
    bytes += SliceBytes(batch);
  }
  return bytes;
}

/// The end of the last pipeline: a bounded queue between the pool threads and the caller.
/// Under maintain_order it releases morsels in sequence: a morsel that arrives early waits in
/// `pending_` (its producer blocks while the queue is full), except the one the consumer needs
/// next, which is always admitted so the stream cannot stall.
class ResultQueue {
 public:
  ResultQueue(bool ordered, size_t capacity) : ordered_(ordered), capacity_(capacity) {}

  Status Push(MorselOutput output, ExecContext* context) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (ordered_) {
      space_.wait(lock, [&] {
        return closed_ || output.seq == next_seq_ || pending_.size() + ready_.size() < capacity_;
      });
      if (closed_) return Status::Cancelled("the result stream was closed");
      pending_.emplace(output.seq, std::move(output));
      bool released = false;
      for (auto it = pending_.find(next_seq_); it != pending_.end();
           it = pending_.find(next_seq_)) {
        for (RecordBatch& batch : it->second.batches)
          ready_.push_back(Morsel{it->first, it->second.partition, std::move(batch)});
        pending_.erase(it);
        ++next_seq_;
        released = true;
      }
      if (released) {
        available_.notify_all();
        space_.notify_all();
      }
      return Status::OK();
    }
    for (RecordBatch& batch : output.batches) {
      space_.wait(lock, [&] { return closed_ || ready_.size() < capacity_; });
      if (closed_) return Status::Cancelled("the result stream was closed");
      ready_.push_back(Morsel{output.seq, output.partition, std::move(batch)});
      available_.notify_one();
    }
    return Status::OK();
  }

  /// The producers are done: `status` is the query's outcome.
  void Finish(Status status) {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    final_status_ = std::move(status);
    available_.notify_all();
  }

  /// The consumer is gone: wake and refuse every producer.
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    space_.notify_all();
    available_.notify_all();
  }

  Result<std::optional<Morsel>> Pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    available_.wait(lock, [&] { return closed_ || finished_ || !ready_.empty(); });
    if (!ready_.empty()) {
      Morsel morsel = std::move(ready_.front());
      ready_.pop_front();
      space_.notify_all();
      return std::optional<Morsel>(std::move(morsel));
    }
    if (closed_) return Status::Cancelled("the query was cancelled");
    if (!final_status_.ok()) return final_status_;
    return std::optional<Morsel>();
  }

 private:
  const bool ordered_;
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable space_;
  std::condition_variable available_;
  std::map<int64_t, MorselOutput> pending_;
  std::deque<Morsel> ready_;
  int64_t next_seq_ = 0;
  bool closed_ = false;
  bool finished_ = false;
  Status final_status_;
};

/// Runs one pipeline on the pool: every thread pulls morsels, pushes them through the
/// operators and hands them to `deliver` (the sink, or the result queue).
class PipelineRun {
 public:
  using Deliver = std::function<Status(MorselOutput output, ThreadState* sink_thread)>;

  PipelineRun(Pipeline* pipeline, Source* source, ExecContext* context)
      : pipeline_(pipeline), source_(source), context_(context) {}

  Status Run(GlobalState* sink_global, const Deliver& deliver) {
    for (auto& step : pipeline_->operators) {
      step.stats->MarkStarted();
      FLOTILLA_ASSIGN_OR_RETURN(auto global, step.op->MakeGlobalState(context_, step.stats));
      globals_.push_back(std::move(global));
    }
    if (pipeline_->source_stats != nullptr) pipeline_->source_stats->MarkStarted();

    TaskGroup group(context_->pool());
    for (int t = 0; t < context_->num_threads(); ++t) {
      group.Spawn([&, sink_global] { return Worker(sink_global, deliver, &group); });
    }
    FLOTILLA_RETURN_NOT_OK(group.Wait());
    if (context_->cancelled()) return Status::Cancelled("the query was cancelled");

    // Rows some operators emit only once all input is seen (a right join's unmatched rows),
    // sequenced after every morsel of the source.
    int64_t seq = next_seq_.load();
    ThreadState* sink_thread = nullptr;
    std::unique_ptr<ThreadState> finish_sink_thread;
    if (pipeline_->sink != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(finish_sink_thread, pipeline_->sink->MakeThreadState(sink_global));
      sink_thread = finish_sink_thread.get();
    }
    for (size_t i = 0; i < pipeline_->operators.size(); ++i) {
      auto& step = pipeline_->operators[i];
      std::vector<std::unique_ptr<ThreadState>> states;
      FLOTILLA_RETURN_NOT_OK(MakeThreadStates(i + 1, &states));
      const int64_t start = ThreadCpuNanos();
      Status status =
          step.op->Finish(globals_[i].get(), [&](std::vector<RecordBatch> out) -> Status {
            if (context_->cancelled()) return Status::Cancelled("the query was cancelled");
            int64_t rows = 0;
            const int64_t bytes = BytesOf(out, &rows);
            step.stats->AddOutput(rows, bytes);
            FLOTILLA_ASSIGN_OR_RETURN(auto rest, Push(std::move(out), i + 1, states, seq));
            return deliver(MorselOutput{seq++, 0, std::move(rest)}, sink_thread);
          });
      step.stats->AddCpu(ThreadCpuNanos() - start);
      if (!status.ok()) return status.WithContext("in " + step.op->name());
    }
    if (pipeline_->sink != nullptr) {
      FLOTILLA_RETURN_NOT_OK(pipeline_->sink->Combine(sink_global, sink_thread));
    }
    for (auto& step : pipeline_->operators)
      step.stats->MarkFinished();
    if (pipeline_->source_stats != nullptr) pipeline_->source_stats->MarkFinished();
    return Status::OK();
  }

 private:
  Status MakeThreadStates(size_t first, std::vector<std::unique_ptr<ThreadState>>* states) {
    states->resize(pipeline_->operators.size());
    for (size_t i = first; i < pipeline_->operators.size(); ++i) {
      FLOTILLA_ASSIGN_OR_RETURN((*states)[i],
                                pipeline_->operators[i].op->MakeThreadState(globals_[i].get()));
    }
    return Status::OK();
  }

  /// Pushes `batches` through operators [first, end).
  Result<std::vector<RecordBatch>> Push(std::vector<RecordBatch> batches, size_t first,
                                        const std::vector<std::unique_ptr<ThreadState>>& states,
                                        int64_t seq) {
    for (size_t i = first; i < pipeline_->operators.size() && !batches.empty(); ++i) {
      auto& step = pipeline_->operators[i];
      const int64_t start = ThreadCpuNanos();
      std::vector<RecordBatch> out;
      int64_t rows_in = 0;
      const int64_t bytes_in = BytesOf(batches, &rows_in);
      // A morsel's output is held whole until it is delivered: an operator that multiplies
      // rows (a join without conditions, explode) must fail, naming the limit, before that
      // passes the memory budget, not take the machine's memory.
      const int64_t limit = HeldOutputLimit(*context_->memory());
      int64_t out_bytes = 0;
      for (const RecordBatch& batch : batches) {
        const size_t before = out.size();
        Status status =
            step.op->ExecuteSequenced(batch, seq, globals_[i].get(), states[i].get(), &out);
        if (!status.ok()) return status.WithContext("in " + step.op->name());
        for (size_t b = before; b < out.size(); ++b)
          out_bytes += SliceBytes(out[b]);
        if (out_bytes > limit) {
          return Status::OutOfMemory(
              "in " + step.op->name() + ": one input morsel became more output than the memory " +
              "limit (" + FormatBytes(limit) + "); the operator multiplies rows past what can " +
              "be held (a join without conditions, or explode)");
        }
      }
      int64_t rows_out = 0;
      const int64_t bytes_out = BytesOf(out, &rows_out);
      step.stats->AddInput(rows_in, bytes_in);
      step.stats->AddOutput(rows_out, bytes_out);
      step.stats->AddCpu(ThreadCpuNanos() - start);
      batches = std::move(out);
    }
    return batches;
  }

  Status Worker(GlobalState* sink_global, const Deliver& deliver, TaskGroup* group) {
    std::vector<std::unique_ptr<ThreadState>> states;
    FLOTILLA_RETURN_NOT_OK(MakeThreadStates(0, &states));
    std::unique_ptr<ThreadState> sink_thread;
    if (pipeline_->sink != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(sink_thread, pipeline_->sink->MakeThreadState(sink_global));
    }
    while (!context_->cancelled() && !group->cancelled()) {
      if (pipeline_->sink != nullptr && pipeline_->sink->Satisfied(sink_global)) break;
      const int64_t start = ThreadCpuNanos();
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<Morsel> morsel, source_->Next());
      if (!morsel) break;
      if (pipeline_->source_stats != nullptr) {
        pipeline_->source_stats->AddOutput(morsel->batch.num_rows(), SliceBytes(morsel->batch));
        pipeline_->source_stats->AddCpu(ThreadCpuNanos() - start);
      }
      UpdateNextSeq(morsel->seq + 1);
      std::vector<RecordBatch> batches;
      batches.push_back(std::move(morsel->batch));
      FLOTILLA_ASSIGN_OR_RETURN(auto out, Push(std::move(batches), 0, states, morsel->seq));
      FLOTILLA_RETURN_NOT_OK(
          deliver(MorselOutput{morsel->seq, morsel->partition, std::move(out)}, sink_thread.get()));
    }
    if (pipeline_->sink != nullptr) {
      return pipeline_->sink->Combine(sink_global, sink_thread.get());
    }
    return Status::OK();
  }

  void UpdateNextSeq(int64_t seq) {
    int64_t current = next_seq_.load();
    while (seq > current && !next_seq_.compare_exchange_weak(current, seq)) {
    }
  }

  Pipeline* pipeline_;
  Source* source_;
  ExecContext* context_;
  std::vector<std::unique_ptr<GlobalState>> globals_;
  std::atomic<int64_t> next_seq_{0};
};

class LocalResultStream final : public ResultStream {
 public:
  LocalResultStream(PlanPtr plan, PipelinePlan pipelines, const ExecOptions& options)
      : plan_(std::move(plan)),
        pipelines_(std::move(pipelines)),
        context_(options),
        queue_(pipelines_.ordered_output,
               static_cast<size_t>(std::max(1, options.result_queue_capacity))) {
    for (const Pipeline& p : pipelines_.pipelines) {
      auto status = std::make_unique<PipelineStatus>();
      if (p.source_stats != nullptr) status->operators.push_back(p.source_stats);
      for (const Pipeline::Step& step : p.operators)
        status->operators.push_back(step.stats);
      if (p.sink_stats != nullptr) status->operators.push_back(p.sink_stats);
      status->has_sink = p.sink != nullptr;
      status->upstreams = p.upstreams;
      status_.push_back(std::move(status));
    }
  }

  ~LocalResultStream() override {
    Cancel();
    if (driver_.joinable()) driver_.join();
  }

  void Start() {
    progress_ = StartProgress(pipelines_.stats.get(), context_.options().progress);
    driver_ = std::thread([this, context = log::CurrentContext()] {
      log::ScopedContext scoped(context);
      Status status = RunAll();
      if (progress_) progress_->Stop();
      queue_.Finish(std::move(status));
    });
  }

  const SchemaPtr& schema() const override { return pipelines_.schema; }
  Result<std::optional<Morsel>> Next() override { return queue_.Pop(); }
  void Cancel() override {
    context_.Cancel();
    queue_.Close();
  }
  const QueryStats& stats() const override { return *pipelines_.stats; }
  const std::vector<std::unique_ptr<PipelineStatus>>& pipelines() const override { return status_; }
  std::shared_ptr<const QueryStats> shared_stats() const { return pipelines_.stats; }

 private:
  Status RunAll() {
    std::vector<std::unique_ptr<Source>> outputs(pipelines_.pipelines.size());
    std::set<const OperatorStats*> read_as_source;
    for (const Pipeline& p : pipelines_.pipelines)
      read_as_source.insert(p.source_stats);
    for (size_t i = 0; i < pipelines_.pipelines.size(); ++i) {
      Pipeline& pipeline = pipelines_.pipelines[i];
      std::unique_ptr<Source> source;
      if (pipeline.make_source) {
        FLOTILLA_ASSIGN_OR_RETURN(source, pipeline.make_source(&context_));
      } else if (pipeline.combine) {
        std::vector<std::unique_ptr<Source>> inputs;
        for (int upstream : pipeline.upstreams)
          inputs.push_back(std::move(outputs[upstream]));
        FLOTILLA_ASSIGN_OR_RETURN(source, pipeline.combine(std::move(inputs), &context_));
      } else {
        source = std::move(outputs[pipeline.upstreams.at(0)]);
      }
      PipelineRun run(&pipeline, source.get(), &context_);
      status_[i]->start_nanos = SteadyNanos();
      if (pipeline.sink == nullptr) {
        FLOTILLA_RETURN_NOT_OK(run.Run(nullptr, [this](MorselOutput output, ThreadState*) {
          return queue_.Push(std::move(output), &context_);
        }));
        status_[i]->end_nanos = SteadyNanos();
        continue;
      }
      SinkOperator* sink = pipeline.sink.get();
      OperatorStats* stats = pipeline.sink_stats;
      stats->MarkStarted();
      FLOTILLA_ASSIGN_OR_RETURN(auto global, sink->MakeGlobalState(&context_, stats));
      FLOTILLA_RETURN_NOT_OK(
          run.Run(global.get(), [&](MorselOutput output, ThreadState* thread) -> Status {
            const int64_t start = ThreadCpuNanos();
            int64_t rows = 0;
            const int64_t bytes = BytesOf(output.batches, &rows);
            stats->AddInput(rows, bytes);
            Status status = sink->Consume(std::move(output), global.get(), thread);
            stats->AddCpu(ThreadCpuNanos() - start);
            return status.ok() ? status : status.WithContext("in " + sink->name());
          }));
      const int64_t start = ThreadCpuNanos();
      auto finalized = sink->Finalize(global.get());
      stats->AddCpu(ThreadCpuNanos() - start);
      if (!finalized.ok()) return finalized.status().WithContext("in " + sink->name());
      outputs[i] = std::move(finalized).ValueOrDie();
      global.reset();
      // A sink whose output a later pipeline reads as its source finishes with that pipeline.
      if (!read_as_source.count(stats)) stats->MarkFinished();
      status_[i]->end_nanos = SteadyNanos();
    }
    return Status::OK();
  }

  PlanPtr plan_;
  PipelinePlan pipelines_;
  ExecContext context_;
  ResultQueue queue_;
  std::unique_ptr<ProgressDisplay> progress_;
  std::vector<std::unique_ptr<PipelineStatus>> status_;  // per pipeline
  std::thread driver_;
};

}  // namespace

int64_t QueryResult::num_rows() const {
  int64_t rows = 0;
  for (const MicroPartition& partition : partitions)
    rows += partition.num_rows();
  return rows;
}

Result<RecordBatch> QueryResult::ToBatch() const {
  std::vector<RecordBatch> batches;
  for (const MicroPartition& partition : partitions)
    for (const RecordBatch& batch : partition.batches())
      batches.push_back(batch);
  return compute::ConcatBatches(schema, batches);
}

Result<std::unique_ptr<ResultStream>> Execute(const PlanPtr& plan, const ExecOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(PipelinePlan pipelines, BuildPipelines(plan, options.maintain_order));
  auto stream = std::make_unique<LocalResultStream>(plan, std::move(pipelines), options);
  stream->Start();
  return std::unique_ptr<ResultStream>(std::move(stream));
}

Result<QueryResult> Run(const PlanPtr& plan, const ExecOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(PipelinePlan pipelines, BuildPipelines(plan, options.maintain_order));
  auto stream = std::make_unique<LocalResultStream>(plan, std::move(pipelines), options);
  stream->Start();
  const MemoryManager& memory = options.memory ? *options.memory : MemoryManager::Default();
  FLOTILLA_ASSIGN_OR_RETURN(QueryResult result,
                            CollectPartitions(stream.get(), HeldOutputLimit(memory)));
  result.stats = stream->shared_stats();
  return result;
}

Result<QueryResult> CollectPartitions(ResultStream* stream, int64_t max_bytes) {
  std::vector<std::vector<RecordBatch>> partitions;
  int64_t bytes = 0;
  while (true) {
    FLOTILLA_ASSIGN_OR_RETURN(std::optional<Morsel> morsel, stream->Next());
    if (!morsel) break;
    bytes += SliceBytes(morsel->batch);
    if (max_bytes >= 0 && bytes > max_bytes) {
      return Status::OutOfMemory("the query's result is larger than the memory limit (" +
                                 FormatBytes(max_bytes) +
                                 ") and is held in memory; write it with COPY ... TO or "
                                 "--output, or add a LIMIT");
    }
    if (morsel->partition >= static_cast<int>(partitions.size()))
      partitions.resize(static_cast<size_t>(morsel->partition) + 1);
    partitions[static_cast<size_t>(morsel->partition)].push_back(std::move(morsel->batch));
  }
  QueryResult result;
  result.schema = stream->schema();
  if (partitions.empty()) partitions.resize(1);
  for (auto& batches : partitions) {
    FLOTILLA_ASSIGN_OR_RETURN(MicroPartition partition,
                              MicroPartition::FromBatches(result.schema, std::move(batches)));
    result.partitions.push_back(std::move(partition));
  }
  return result;
}

Result<std::string> ExplainPipelines(const PlanPtr& plan, const ExecOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(PipelinePlan pipelines, BuildPipelines(plan, options.maintain_order));
  std::string out;
  for (size_t i = 0; i < pipelines.pipelines.size(); ++i) {
    const Pipeline& p = pipelines.pipelines[i];
    out += "Pipeline " + std::to_string(i) + ": ";
    if (p.source_stats != nullptr) {
      out += p.source_stats->name;
    } else {
      out += "from pipeline";
      out += p.upstreams.size() == 1 ? " " : "s ";
      for (size_t u = 0; u < p.upstreams.size(); ++u)
        out += (u ? ", " : "") + std::to_string(p.upstreams[u]);
    }
    for (const Pipeline::Step& step : p.operators)
      out += " -> " + step.op->name();
    out += " -> " + (p.sink ? p.sink->name() : std::string("result"));
    out += "\n";
  }
  return out;
}

Result<std::string> ExplainAnalyze(const PlanPtr& plan, const ExecOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(QueryResult result, Run(plan, options));
  return RenderExplainAnalyze(*result.stats);
}

}  // namespace flotilla::exec
