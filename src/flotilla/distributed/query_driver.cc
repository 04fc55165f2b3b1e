#include "flotilla/distributed/query_driver.h"

#include <algorithm>
#include <map>
#include <set>

#include "flotilla/common/logging.h"
#include "flotilla/compute/concat.h"
#include "flotilla/compute/partition.h"
#include "flotilla/distributed/proto/task.pb.h"
#include "flotilla/distributed/ref_proto.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::distributed {
namespace {

// Task ids are unique across queries: the query id in the high bits.
int64_t TaskIdBase(int64_t query_id) {
  return query_id << 32;
}

// Actor pools are the query's own: in a scheduler shared by queries, two queries' pools of the
// same UDF must not take each other's tasks.
std::string PoolKey(int64_t query_id, const std::string& pool) {
  return "q" + std::to_string(query_id) + "/" + pool;
}

}  // namespace

QueryDriver::QueryDriver(DriverOptions options)
    : options_(std::move(options)),
      scheduler_(options_.scheduler ? options_.scheduler : std::make_shared<Scheduler>()),
      start_(std::chrono::steady_clock::now()) {}

QueryDriver::~QueryDriver() = default;

double QueryDriver::Now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

template <typename Fn>
void QueryDriver::ForEachReader(const Slot& slot, Fn fn) const {
  for (int64_t r : readers_[slot.id])
    fn(r);
  if (static_cast<size_t>(slot.node) >= run_readers_.size()) return;
  for (const RunReader& run : run_readers_[slot.node]) {
    if (slot.id >= run.first && slot.id < run.first + run.count) fn(run.reader);
  }
}

template <typename Fn>
void QueryDriver::ForEachPart(const std::vector<InputPart>& parts, Fn fn) {
  for (const InputPart& p : parts) {
    if (p.count == 1) {
      fn(p);
      continue;
    }
    for (int64_t k = 0; k < p.count; ++k)
      fn(InputPart{p.slot + k, p.index, p.offset, p.length, p.side});
  }
}

Result<std::unique_ptr<QueryDriver>> QueryDriver::Make(const exec::PlanPtr& plan,
                                                       DriverOptions options) {
  if (options.shuffle_algorithm != "flight" && options.shuffle_algorithm != "memory") {
    return Status::Invalid("shuffle_algorithm '" + options.shuffle_algorithm +
                           "': expected 'flight' or 'memory'");
  }
  if (Result<ipc::Compression> codec = ipc::ParseCompression(options.shuffle_compression);
      !codec.ok()) {
    return codec.status().WithContext("shuffle_compression");
  }
  std::unique_ptr<QueryDriver> d(new QueryDriver(std::move(options)));
  d->options_.plan.concurrent_tasks = std::max(1, d->options_.min_source_tasks);
  FLOTILLA_ASSIGN_OR_RETURN(d->plan_, PlanDistributed(plan, d->options_.plan));
  if (d->options_.write) {
    if (d->options_.write->root.empty()) return Status::Invalid("distributed write: no root");
    AddCommit(&d->plan_, d->options_.write->partition_by);
  }
  d->schema_ = d->plan_.schema;
  d->order_.resize(d->plan_.nodes.size());
  for (size_t i = 0; i < d->order_.size(); ++i)
    d->order_[i] = static_cast<int>(i);
  d->IndexNodes();
  d->next_task_ = TaskIdBase(d->options_.query_id);
  if (ProgressEnabled(d->options_.progress)) d->progress_ = std::make_unique<ProgressDisplay>();
  TaskEvent started{
      TaskEventKind::kQueryStarted,     d->options_.query_id, 0, d->plan_.root, "", "", 0, 0, 0, 0,
      DistributedPlanToString(d->plan_)};
  started.plan = exec::PlanToString(*plan);
  d->Emit(std::move(started));
  if (!d->options_.scheduler) FLOTILLA_RETURN_NOT_OK(d->Start());
  return d;
}

Status QueryDriver::Start() {
  if (started_) return Status::OK();
  started_ = true;
  for (const WorkerSpec& w : std::exchange(pending_workers_, {})) {
    if (!scheduler_->used(w.id).ok()) FLOTILLA_RETURN_NOT_OK(scheduler_->AddWorker(w));
  }
  if (Status st = Advance(); !st.ok()) {
    Finish(st);  // subscribers told query_started hear how it ended
    return st;
  }
  return Status::OK();
}

std::vector<std::string> QueryDriver::pool_workers() const {
  return pool_workers_;
}

void QueryDriver::IndexNodes() {
  nodes_.resize(plan_.nodes.size());
  // The nodes whose tasks output the result: the root, or the inputs of a root concat; when
  // writing, those of the commit's input write files.
  output_node_ = ThroughConcats(plan_.root);
  writer_node_.assign(plan_.nodes.size(), false);
  if (options_.write) writer_node_ = ThroughConcats(plan_.nodes[plan_.root].inputs[0]);
  // The nodes reading each node's task outputs (through concats, which have no tasks).
  readers_of_node_.assign(plan_.nodes.size(), {});
  for (const PipelineNode& n : plan_.nodes) {
    if (n.kind == NodeKind::kConcat) continue;
    std::vector<int> inputs = n.inputs;
    for (const SideInput& s : n.sides)
      inputs.push_back(s.node);
    while (!inputs.empty()) {
      const int i = inputs.back();
      inputs.pop_back();
      if (plan_.nodes[i].kind == NodeKind::kConcat) {
        inputs.insert(inputs.end(), plan_.nodes[i].inputs.begin(), plan_.nodes[i].inputs.end());
      } else {
        readers_of_node_[i].push_back(n.id);
      }
    }
  }
}

std::vector<std::pair<std::string, int>> QueryDriver::pools() const {
  std::vector<std::pair<std::string, int>> out;
  for (const PipelineNode& n : plan_.nodes) {
    if (n.kind == NodeKind::kActorPool) out.emplace_back(n.pool, n.pool_size);
  }
  return out;
}

std::string QueryDriver::StagingDirectory() const {
  if (!options_.write) return "";
  return options_.write->root + "/.flotilla-staging-q" + std::to_string(options_.query_id);
}

std::string QueryDriver::NodeName(int node) const {
  return plan_.nodes[node].Name();
}

std::vector<bool> QueryDriver::ThroughConcats(int node) const {
  std::vector<bool> out(plan_.nodes.size(), false);
  std::vector<int> stack{node};
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    out[n] = true;
    if (plan_.nodes[n].kind == NodeKind::kConcat) {
      stack.insert(stack.end(), plan_.nodes[n].inputs.begin(), plan_.nodes[n].inputs.end());
    }
  }
  return out;
}

// --- Workers ------------------------------------------------------------------------------------

Status QueryDriver::AddWorker(const WorkerSpec& worker) {
  // A worker this query wrote off (its outputs are being recomputed elsewhere) gets no more of
  // its work if it comes back: what it still holds may be from a past attempt, and whatever made
  // it unreachable may happen again. The next query may use it.
  if (removed_workers_.count(worker.id) > 0) {
    Log(log::Level::kInfo, "distributed query {}: worker {} is back; this query no longer uses it",
        options_.query_id, worker.id);
    return Status::OK();
  }
  WorkerSpec spec = worker;
  if (!spec.pool.empty()) {
    spec.pool = PoolKey(options_.query_id, spec.pool);
    pool_workers_.push_back(spec.id);
    pool_requests_.try_emplace(spec.pool, spec.capacity);
  }
  // A session's worker is in its shared scheduler already.
  if (!started_) {
    pending_workers_.push_back(std::move(spec));
  } else if (!scheduler_->used(spec.id).ok()) {
    FLOTILLA_RETURN_NOT_OK(scheduler_->AddWorker(spec));
  }
  workers_.insert(worker.id);
  if (!finished_) {
    Emit({TaskEventKind::kWorkerJoined, options_.query_id, 0, -1, "", worker.id, 0, 0, 0, 0,
          worker.pool.empty()   ? ""
          : worker.host.empty() ? "actor pool " + worker.pool
                                : "actor pool " + worker.pool + " on " + worker.host});
  }
  return Status::OK();
}

std::vector<std::string> QueryDriver::workers() const {
  return {workers_.begin(), workers_.end()};
}

Status QueryDriver::OnWorkerSample(const std::string& worker, std::string_view sample_bytes) {
  proto::WorkerSample sample;
  if (!sample.ParseFromArray(sample_bytes.data(), static_cast<int>(sample_bytes.size()))) {
    return Status::Invalid("a malformed resource sample from worker " + worker);
  }
  EmitSample(worker, sample);
  return Status::OK();
}

void QueryDriver::EmitSample(const std::string& worker, const proto::WorkerSample& sample) {
  for (const proto::SpilledOutput& spilled : sample.spilled()) {
    auto it = slot_of_task_.find(spilled.task_id());
    if (it != slot_of_task_.end()) nodes_[slots_[it->second].node].spilled_bytes += spilled.bytes();
  }
  if (finished_ || workers_.count(worker) == 0) return;
  TaskEvent e{TaskEventKind::kWorkerSample, options_.query_id, 0, -1, "", worker};
  WorkerResources& r = e.resources;
  r.cpu_seconds = sample.cpu_seconds();
  r.rss_bytes = sample.rss_bytes();
  r.store_memory_bytes = sample.store_memory_bytes();
  r.store_spilled_bytes = sample.store_spilled_bytes();
  r.disk_free_bytes = sample.disk_free_bytes();
  r.flight_bytes_served = sample.flight_bytes_served();
  r.running_tasks = sample.running_tasks();
  auto [it, first] = last_sample_.try_emplace(worker, sample.time(), sample.cpu_seconds());
  if (!first) {
    const double elapsed = sample.time() - it->second.first;
    if (elapsed <= 0) return;  // an older sample than one already reported
    r.cpu_percent = 100 * std::max(0.0, sample.cpu_seconds() - it->second.second) / elapsed;
    it->second = {sample.time(), sample.cpu_seconds()};
  }
  Emit(std::move(e));
}

Status QueryDriver::RemoveWorker(const std::string& worker_id) {
  // A worker's loss may be reported more than once (the driver itself, on a failed read, and
  // the backend when the process goes): only the first report counts.
  if (workers_.erase(worker_id) == 0) return Status::OK();
  std::erase_if(pending_workers_, [&](const WorkerSpec& w) { return w.id == worker_id; });
  removed_workers_.insert(worker_id);
  if (!finished_) {
    Emit({TaskEventKind::kWorkerLeft, options_.query_id, 0, -1, "", worker_id, 0, 0, 0, 0,
          "lost: what it held is recomputed elsewhere"});
  }
  // The scheduler puts the tasks it ran back in the queue (or fails those out of attempts). A
  // shared one may have done so already, for another query that lost the worker first.
  if (scheduler_->used(worker_id).ok()) {
    FLOTILLA_RETURN_NOT_OK(scheduler_->RemoveWorker(worker_id).status());
  }
  std::vector<int64_t> requeued;
  for (const auto& [task, worker] : running_on_) {
    if (worker == worker_id) requeued.push_back(task);
  }
  std::sort(requeued.begin(), requeued.end());
  for (int64_t task : requeued) {
    running_on_.erase(task);
    auto it = slot_of_task_.find(task);
    if (it == slot_of_task_.end()) continue;
    nodes_[slots_[it->second].node].running -= 1;
    // Counted on the slot: a task that kills every worker it runs on (taking more memory than
    // a worker has, say) must end the query, also when each death restarts it afresh.
    Slot& s = slots_[it->second];
    if (++s.lost_runs >= options_.max_attempts || scheduler_->state(task) == TaskState::kFailed) {
      Finish(Status::IOError("task " + std::to_string(task) + " (" + NodeName(s.node) +
                             ") lost its worker on every attempt (" + std::to_string(s.lost_runs) +
                             " workers lost while it ran, the last " + worker_id +
                             "): it may be what kills them, e.g. by needing more "
                             "memory than a worker has"));
      return Status::OK();
    }
  }
  // Finished tasks whose outputs were on the worker run again when something still needs them.
  std::vector<int64_t> lost;
  for (Slot& s : slots_) {
    if (s.state != SlotState::kDone) continue;
    bool on_worker = s.outputs.count() > 0 && s.outputs.worker == worker_id;
    if (!on_worker || !Needed(s)) continue;
    lost.push_back(s.id);
    RunAgain(&s, worker_id, "output lost with worker " + worker_id + "; running it again");
  }
  if (!lost.empty()) {
    std::erase_if(ready_, [&](const PartitionRef& r) { return r.worker == worker_id; });
    // Tasks reading what was lost stop, and start again once it exists.
    for (int64_t l : lost) {
      ForEachReader(slots_[l], [&](int64_t r) {
        if (slots_[r].state != SlotState::kSubmitted) return;
        CancelSlot(&slots_[r], "an input was lost with worker " + worker_id);
        SetState(&slots_[r], SlotState::kWaiting);
      });
    }
  }
  return Advance();
}

// Whether a finished task's outputs are still to be read: by the driver (a result not fetched
// yet) or by a node that has not finished (a write's commit among them).
bool QueryDriver::Needed(const Slot& slot) const {
  if (slot.final) return slot.fetched < slot.outputs.count();
  for (int reader : readers_of_node_[slot.node]) {
    if (!NodeComplete(reader)) return true;
  }
  return false;
}

// --- Creating and submitting tasks --------------------------------------------------------------

std::vector<int64_t> QueryDriver::OutputSlots(int node) const {
  if (plan_.nodes[node].kind != NodeKind::kConcat) return nodes_[node].slots;
  std::vector<int64_t> out;
  for (int input : plan_.nodes[node].inputs) {
    std::vector<int64_t> s = OutputSlots(input);
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

bool QueryDriver::SlotsKnown(int node) const {
  if (plan_.nodes[node].kind == NodeKind::kConcat) {
    for (int input : plan_.nodes[node].inputs) {
      if (!SlotsKnown(input)) return false;
    }
    return true;
  }
  return nodes_[node].created;
}

bool QueryDriver::NodeComplete(int node) const {
  if (plan_.nodes[node].kind == NodeKind::kConcat) {
    for (int input : plan_.nodes[node].inputs) {
      if (!NodeComplete(input)) return false;
    }
    return true;
  }
  const NodeState& n = nodes_[node];
  return n.created && n.finished == static_cast<int64_t>(n.slots.size());
}

void QueryDriver::SetState(Slot* slot, SlotState to) {
  const SlotState from = slot->state;
  if (from == to) return;
  NodeState& node = nodes_[slot->node];
  auto finished = [](SlotState st) {
    return st == SlotState::kDone || st == SlotState::kCancelled;
  };
  node.finished += static_cast<int>(finished(to)) - static_cast<int>(finished(from));
  if (from == SlotState::kDone) {
    node.done -= 1;
    ForEachReader(*slot, [&](int64_t r) {
      slots_[r].missing += 1;
      runnable_.erase(r);
    });
  }
  if (to == SlotState::kDone) {
    node.done += 1;
    ForEachReader(*slot, [&](int64_t r) {
      if (--slots_[r].missing == 0 && slots_[r].state == SlotState::kWaiting) runnable_.insert(r);
    });
  }
  slot->state = to;
  if (to == SlotState::kWaiting && slot->missing == 0) {
    runnable_.insert(slot->id);
  } else {
    runnable_.erase(slot->id);
  }
}

int64_t QueryDriver::NewSlot(int node, std::vector<InputPart> inputs) {
  // Every task of a node with broadcast sides reads all of each (complete: CreateSlots waits).
  const std::vector<SideInput>& sides = plan_.nodes[node].sides;
  for (size_t k = 0; k < sides.size(); ++k) {
    if (!sides[k].broadcast) continue;
    std::vector<int64_t> single;  // each with one output: runs of them are one part
    for (int64_t b : DoneOutputs(sides[k].node)) {
      if (slots_[b].outputs.count() == 1) {
        single.push_back(b);
        continue;
      }
      for (int64_t i = 0; i < slots_[b].outputs.count(); ++i) {
        inputs.push_back({b, static_cast<int>(i), 0, -1, static_cast<int>(k) + 1});
      }
    }
    AddWholeOutputs(single, 0, static_cast<int>(k) + 1, &inputs);
  }
  Slot s;
  s.id = static_cast<int64_t>(slots_.size());
  s.node = node;
  s.index = static_cast<int64_t>(nodes_[node].slots.size());
  s.inputs = std::move(inputs);
  s.final = output_node_[node];
  for (const InputPart& p : s.inputs) {
    if (p.count == 1) {
      readers_[p.slot].push_back(s.id);
    } else {
      const size_t producer = static_cast<size_t>(slots_[p.slot].node);
      if (run_readers_.size() <= producer) run_readers_.resize(producer + 1);
      run_readers_[producer].push_back({s.id, p.slot, p.count});
    }
    for (int64_t k = 0; k < p.count; ++k)
      s.missing += slots_[p.slot + k].state != SlotState::kDone;
  }
  if (s.missing == 0) runnable_.insert(s.id);
  slots_.push_back(std::move(s));
  readers_.emplace_back();
  nodes_[node].slots.push_back(slots_.back().id);
  return slots_.back().id;
}

Status QueryDriver::CreateSlots(int node) {
  if (nodes_[node].created) return Status::OK();
  for (const SideInput& side : plan_.nodes[node].sides) {
    if (side.broadcast && !NodeComplete(side.node)) return Status::OK();
  }
  FLOTILLA_RETURN_NOT_OK(CheckBroadcastSizes(node));  // may add nodes: nodes_ moves
  FLOTILLA_ASSIGN_OR_RETURN(nodes_[node].created,
                            TasksOf(plan_.nodes[node].kind).Create(plan_.nodes[node], this));
  return Status::OK();
}

Status QueryDriver::CheckBroadcastSizes(int node) {
  for (const SideInput& side : std::vector<SideInput>(plan_.nodes[node].sides)) {
    const std::vector<SideInput>& now = plan_.nodes[node].sides;
    if (!side.broadcast || std::find_if(now.begin(), now.end(), [&](const SideInput& s) {
                             return s.node == side.node;
                           }) == now.end()) {
      continue;  // or moved on with a join above one that was planned again
    }
    int64_t bytes = 0;
    for (int64_t b : DoneOutputs(side.node))
      bytes += slots_[b].outputs.bytes;
    if (bytes <= options_.plan.broadcast_max_bytes) continue;
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<int> added,
                              JoinWithoutBroadcast(&plan_, node, side.node));
    // The new nodes run between the holder and its readers.
    order_.insert(std::find(order_.begin(), order_.end(), node) + 1, added.begin(), added.end());
    IndexNodes();
    Log(log::Level::kInfo,
        "query {}: the broadcast side [{}] holds {} bytes, over the cap of {}: joined in "
        "[{}] without broadcasting it",
        options_.query_id, side.node, bytes, options_.plan.broadcast_max_bytes, added.back());
  }
  return Status::OK();
}

std::vector<int64_t> QueryDriver::DoneOutputs(int node) const {
  std::vector<int64_t> out;
  for (int64_t s : OutputSlots(node)) {
    if (slots_[s].state == SlotState::kDone) out.push_back(s);
  }
  return out;
}

int QueryDriver::Partitions(int exchange) {
  const PipelineNode& n = plan_.nodes[exchange];
  NodeState& state = nodes_[exchange];
  if (state.partitions > 0) return state.partitions;
  if (n.num_partitions > 0) return state.partitions = n.num_partitions;
  int64_t tasks = 0;
  for (int from : n.count_from) {
    if (!SlotsKnown(from)) return 0;
    int64_t count = 0;
    for (int64_t s : OutputSlots(from))
      count += slots_[s].state != SlotState::kCancelled;
    tasks = std::max(tasks, count);
  }
  const int most = std::max(1, options_.max_shuffle_partitions);
  const int least = std::clamp(options_.min_shuffle_partitions, 1, most);
  return state.partitions = static_cast<int>(std::clamp<int64_t>(tasks, least, most));
}

int QueryDriver::OutputPartitions(int node) const {
  const int exchange = plan_.nodes[node].exchange;
  return exchange < 0 ? 1 : nodes_[exchange].partitions;
}

Status QueryDriver::ComputeBoundaries(int exchange) {
  NodeState& state = nodes_[exchange];
  if (state.boundaries) return Status::OK();
  const PipelineNode& n = plan_.nodes[exchange];
  const PipelineNode& sample = plan_.nodes[n.sample];
  std::vector<RecordBatch> rows;
  for (int64_t s : nodes_[n.sample].slots) {
    for (const RecordBatch& b : slots_[s].inline_rows) {
      if (b.num_rows() > 0) rows.push_back(b);
    }
  }
  RecordBatch all;
  if (rows.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(all, RecordBatch::MakeEmpty(sample.schema));
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(all, compute::ConcatBatches(rows));
  }
  std::vector<compute::SortKey> keys;
  for (size_t k = 0; k < n.range_keys.size(); ++k) {
    keys.push_back({static_cast<int>(k), n.range_keys[k].ascending, n.range_keys[k].nulls_first});
  }
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch boundaries,
                            compute::RangeBoundaries(all, keys, state.partitions));
  state.boundaries = std::move(boundaries);
  return Status::OK();
}

TaskContext QueryDriver::ContextOf(const Slot& slot) const {
  TaskContext t;
  t.task_index = slot.index;
  const PipelineNode& n = plan_.nodes[slot.node];
  t.output_partitions = OutputPartitions(slot.node);
  ForEachPart(slot.inputs, [&](const InputPart& p) {
    if (p.side != 0) return;
    const int64_t rows = PartRows(slots_[p.slot], p.index);
    t.input_rows += p.length >= 0 ? std::min(p.length, rows - p.offset) : rows - p.offset;
  });
  t.total_input_rows = nodes_[slot.node].input_rows;
  if (n.range_exchange >= 0) t.target_partitions = nodes_[n.range_exchange].partitions;
  if (n.exchange >= 0 && nodes_[n.exchange].boundaries) {
    t.boundaries = &*nodes_[n.exchange].boundaries;
  }
  return t;
}

namespace {

// `total` x part / whole, without overflow.
int64_t ShareOf(int64_t total, int64_t part, int64_t whole) {
  if (whole <= 0) return 0;
  return static_cast<int64_t>(static_cast<long double>(total) * static_cast<long double>(part) /
                              static_cast<long double>(whole));
}

}  // namespace

int64_t QueryDriver::PartRows(const Slot& slot, int index) const {
  if (slot.outputs.count() <= 1) return slot.outputs.rows;
  const NodeState& n = nodes_[slot.node];
  if (static_cast<size_t>(index) >= n.partition_rows.size()) return 0;
  return ShareOf(slot.outputs.rows, n.partition_rows[index], n.counted_rows);
}

int64_t QueryDriver::PartBytes(const Slot& slot, int index) const {
  if (slot.outputs.count() <= 1) return slot.outputs.bytes;
  const NodeState& n = nodes_[slot.node];
  if (static_cast<size_t>(index) >= n.partition_bytes.size()) return 0;
  return ShareOf(slot.outputs.bytes, n.partition_bytes[index], n.counted_bytes);
}

PartitionRef QueryDriver::RefOf(const Slot& slot, int index) const {
  const TaskOutputs& o = slot.outputs;
  return {PartitionKey(options_.query_id, o.task_id, o.attempt, index),
          o.worker,
          o.address,
          PartRows(slot, index),
          PartBytes(slot, index),
          o.task_id,
          index,
          o.attempt,
          options_.query_id};
}

PartitionRef QueryDriver::RefOf(const InputPart& part) const {
  return RefOf(slots_[part.slot], part.index);
}

Status QueryDriver::Advance() {
  if (finished_) return Status::OK();
  // In topological order: a node's inputs are created before it is looked at.
  for (size_t i = 0; i < order_.size(); ++i) {
    const int node = order_[i];
    // A shuffle's map tasks start once its partition count is decided.
    if (plan_.nodes[node].kind == NodeKind::kExchange) Partitions(node);
    FLOTILLA_RETURN_NOT_OK(CreateSlots(node));
  }
  for (bool again = true; again;) {
    again = false;
    for (int64_t id : std::vector<int64_t>(runnable_.begin(), runnable_.end())) {
      // Still runnable (what an earlier one recomputed may be its input too), and a map task
      // starts once it knows how many partitions to write.
      if (runnable_.count(id) == 0 || OutputPartitions(slots_[id].node) <= 0) continue;
      if (RecomputeGoneInputs(slots_[id])) {
        again = true;  // what it reads runs first (and may need its own inputs again)
        continue;
      }
      FLOTILLA_RETURN_NOT_OK(Submit(&slots_[id]));
    }
  }
  ReportFinishedNodes();
  ReleaseRead();
  if (NodeComplete(plan_.root)) {
    bool fetched = true;
    for (int64_t s : OutputSlots(plan_.root)) {
      if (slots_[s].fetched < slots_[s].outputs.count()) fetched = false;
    }
    if (fetched) Finish(Status::OK());
  }
  return Status::OK();
}

void QueryDriver::ReportFinishedNodes() {
  for (size_t n = 0; n < nodes_.size(); ++n) {
    NodeState& node = nodes_[n];
    if (plan_.nodes[n].kind == NodeKind::kConcat || node.started_at < 0) continue;
    const bool complete = NodeComplete(static_cast<int>(n));
    if (complete && !node.reported_finished) {
      const int id = static_cast<int>(n);
      node.finished_at = Now();
      Emit({TaskEventKind::kNodeFinished, options_.query_id, 0, id, NodeName(id), "", 0,
            node.finished_at - node.started_at, node.rows});
    }
    node.reported_finished = complete;
  }
}

void QueryDriver::ReleaseRead() {
  // A recovery may need any output upstream of one that can still be lost: a lost output's
  // task runs again over its inputs, and those that were on the same worker run again over
  // theirs. So a node's outputs go only once everything reading them is beyond loss — results
  // the driver fetched, or outputs themselves released — and a loss re-runs only what it took.
  // Readers first: the topological order walked back.
  auto beyond_loss = [&](int node) {
    if (!NodeComplete(node)) return false;
    if (nodes_[node].released) return true;
    if (!output_node_[node]) return false;
    for (int64_t s : OutputSlots(node)) {
      if (slots_[s].fetched < slots_[s].outputs.count()) return false;
    }
    return true;
  };
  for (auto at = order_.rbegin(); at != order_.rend(); ++at) {
    const int n = *at;
    NodeState& node = nodes_[n];
    if (node.released || output_node_[n] || readers_of_node_[n].empty() || !NodeComplete(n) ||
        !std::all_of(readers_of_node_[n].begin(), readers_of_node_[n].end(), beyond_loss)) {
      continue;
    }
    for (int64_t s : node.slots) {
      Slot& slot = slots_[s];
      if (slot.state != SlotState::kDone || slot.released || slot.outputs.count() == 0) continue;
      slot.released = true;
      ++released_count_;
      released_.push_back(
          TaskOutputKey(options_.query_id, slot.outputs.task_id, slot.outputs.attempt));
    }
    node.released = true;
  }
}

void QueryDriver::RunAgain(Slot* slot, const std::string& worker, const std::string& why) {
  nodes_[slot->node].rows -= slot->outputs.rows;
  slot->outputs = {};
  slot->released = false;
  slot->fetched = 0;
  nodes_[slot->node].released = false;
  SetState(slot, SlotState::kWaiting);
  Emit({TaskEventKind::kCancelled, options_.query_id, slot->task_id, slot->node,
        NodeName(slot->node), worker, 0, 0, 0, 0, why});
}

bool QueryDriver::OutputsGone(const Slot& slot) const {
  return slot.state == SlotState::kDone &&
         (slot.released ||
          (slot.outputs.count() > 0 && removed_workers_.count(slot.outputs.worker) > 0));
}

bool QueryDriver::RecomputeGoneInputs(const Slot& reader) {
  if (released_count_ == 0 && removed_workers_.empty()) return false;  // nothing can be gone
  std::vector<int64_t> gone;
  ForEachPart(reader.inputs, [&](const InputPart& p) {
    if (OutputsGone(slots_[p.slot])) gone.push_back(p.slot);
  });
  for (int64_t g : gone) {
    Slot& s = slots_[g];
    if (s.state != SlotState::kDone) continue;  // read twice, reset once
    const std::string why = s.released ? "released" : "lost with worker " + s.outputs.worker;
    RunAgain(&s, "",
             "output " + why + " but task " + std::to_string(reader.task_id) +
                 " needs it again; running it again");
  }
  return !gone.empty();
}

std::vector<std::pair<std::string, std::vector<std::string>>> QueryDriver::TakeReleased() {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  if (released_.empty()) return out;
  // Every worker: a broadcast side's readers keep copies of what they pulled.
  for (const std::string& w : workers_)
    out.emplace_back(w, released_);
  released_.clear();
  return out;
}

Status QueryDriver::Submit(Slot* slot) {
  TaskSpec spec;
  spec.task_id = next_task_++;
  spec.query_id = options_.query_id;
  spec.node_rank = plan_.nodes[slot->node].rank;
  spec.request = options_.task_request;
  spec.max_attempts = options_.max_attempts;
  std::map<std::string, int64_t> bytes;
  ForEachPart(slot->inputs, [&](const InputPart& p) {
    const Slot& producer = slots_[p.slot];
    bytes[producer.outputs.worker] += PartBytes(producer, p.index);
  });
  spec.input_bytes.assign(bytes.begin(), bytes.end());
  if (plan_.nodes[slot->node].kind == NodeKind::kActorPool) {
    spec.pool = PoolKey(options_.query_id, plan_.nodes[slot->node].pool);
    // An actor runs one task at a time, whatever the query's other tasks ask for.
    auto it = pool_requests_.find(spec.pool);
    spec.request = it != pool_requests_.end() ? it->second : Resources{1, 0, 0};
  }
  FLOTILLA_RETURN_NOT_OK(scheduler_->Submit(spec));
  if (NodeState& n = nodes_[slot->node]; n.started_at < 0) {
    n.started_at = Now();
    TaskEvent started{TaskEventKind::kNodeStarted, options_.query_id, 0, slot->node,
                      NodeName(slot->node)};
    started.inputs = ReadNodes(slot->node);
    Emit(std::move(started));
  }
  slot->task_id = spec.task_id;
  SetState(slot, SlotState::kSubmitted);
  slot_of_task_[spec.task_id] = slot->id;
  Emit({TaskEventKind::kSubmitted, options_.query_id, spec.task_id, slot->node,
        NodeName(slot->node)});
  return Status::OK();
}

void QueryDriver::CancelSlot(Slot* slot, const std::string& why) {
  if (slot->state == SlotState::kDone || slot->state == SlotState::kCancelled) return;
  if (slot->state == SlotState::kSubmitted) {
    if (running_on_.erase(slot->task_id) > 0) {
      cancelled_.push_back(slot->task_id);
      nodes_[slot->node].running -= 1;
    }
    (void)scheduler_->Cancel(slot->task_id);
    slot_of_task_.erase(slot->task_id);
    Emit({TaskEventKind::kCancelled, options_.query_id, slot->task_id, slot->node,
          NodeName(slot->node), "", 0, 0, 0, 0, why});
  }
  SetState(slot, SlotState::kCancelled);
}

Result<std::string> QueryDriver::TaskBytes(const Slot& slot, int attempt) const {
  proto::Task task;
  task.set_query_id(options_.query_id);
  task.set_task_id(slot.task_id);
  task.set_node_id(slot.node);
  task.set_attempt(attempt);
  task.set_node_name(NodeName(slot.node));
  task.set_num_outputs(OutputPartitions(slot.node));
  const PipelineNode& node = plan_.nodes[slot.node];
  const TaskOutputKind output = TasksOf(node.kind).output();
  if (output == TaskOutputKind::kCommit) {
    const WriteSpec& w = *options_.write;
    task.mutable_output()->set_kind(proto::TaskOutput::COMMIT);
    task.mutable_output()->set_root(w.root);
    task.mutable_output()->set_staging(StagingDirectory());
    ForEachPart(slot.inputs, [&](const InputPart& p) { RefToProto(RefOf(p), task.add_inputs()); });
    return task.SerializeAsString();
  }
  exec::PlanPtr leaf = slot.leaf;
  const ReadOrder order = TasksOf(node.kind).read_order(node);
  if (node.kind == NodeKind::kSource && leaf == nullptr) {
    const auto& scan = static_cast<const exec::ScanNode&>(*node.source);
    FLOTILLA_ASSIGN_OR_RETURN(leaf, exec::MakeScan(scan.file_schema, slot.scan, scan.pushdowns));
  } else if (leaf == nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(leaf, ReadOf(slot, 0, plan_.nodes[node.inputs[0]].schema, order));
  }
  TaskContext context = ContextOf(slot);
  for (size_t k = 0; k < node.sides.size(); ++k) {
    const SideInput& side = node.sides[k];
    // A broadcast side is a join's build side: one read per worker, unless the order of the
    // join's output matters above it.
    const ReadOrder side_order =
        !side.broadcast ? order : (side.ordered ? ReadOrder::kInOrder : ReadOrder::kByWorker);
    FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr read,
                              ReadOf(slot, static_cast<int>(k) + 1, plan_.nodes[side.node].schema,
                                     side_order, /*keep=*/side.broadcast));
    context.sides.emplace_back(side.node, std::move(read));
  }
  FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr fragment, BuildFragment(node, leaf, context));
  FLOTILLA_ASSIGN_OR_RETURN(std::string plan, exec::SerializePlan(fragment));
  task.set_plan(std::move(plan));
  if (output == TaskOutputKind::kInline) {
    task.mutable_output()->set_kind(proto::TaskOutput::INLINE);
  } else if (task.num_outputs() > 1 && options_.shuffle_algorithm == "flight") {
    task.mutable_output()->set_shuffle_compression(options_.shuffle_compression);
  }
  if (writer_node_[slot.node]) {
    const WriteSpec& w = *options_.write;
    proto::TaskOutput* out = task.mutable_output();
    out->set_kind(proto::TaskOutput::WRITE);
    out->set_root(w.root);
    out->set_staging(StagingDirectory() + "/t" + std::to_string(slot.task_id) + "." +
                     std::to_string(attempt));
    out->set_format(w.format);
    for (const std::string& c : w.partition_by)
      out->add_partition_by(c);
    out->set_compression(w.compression);
  }
  return task.SerializeAsString();
}

Result<exec::PlanPtr> QueryDriver::ReadOf(const Slot& slot, int side, const SchemaPtr& schema,
                                          ReadOrder order, bool keep) const {
  std::vector<std::shared_ptr<const io::ScanTask>> tasks;
  std::vector<InputPart> singles;
  ForEachPart(slot.inputs, [&](const InputPart& p) {
    if (p.side == side) singles.push_back(p);
  });
  std::vector<const InputPart*> parts;
  for (const InputPart& p : singles)
    parts.push_back(&p);
  if (order == ReadOrder::kByWorker) {
    // Row order is not kept: one read per worker holding pieces, and partition (a reduce
    // task reading several reads each as one compact run of map tasks).
    // Whole partitions as integers (sent as a bitmap of tasks: no string per map task); parts
    // of partitions as pieces. Keyed by views of the slots' worker ids, which outlive the map.
    struct Reads {
      const TaskOutputs* outputs = nullptr;  // of one of them: the worker's address
      std::vector<TaskPart> whole;
      std::vector<PartitionPiece> sliced;
    };
    std::map<std::pair<std::string_view, int>, Reads> by_worker;
    for (const InputPart* p : parts) {
      const Slot& from = slots_[p->slot];
      Reads& reads = by_worker[{from.outputs.worker, p->index}];
      reads.outputs = &from.outputs;
      if (p->offset == 0 && p->length == -1) {
        reads.whole.push_back({from.outputs.task_id, from.outputs.attempt, PartRows(from, p->index),
                               PartBytes(from, p->index)});
      } else {
        reads.sliced.push_back({RefOf(*p), p->offset, p->length});
      }
    }
    for (auto& [key, reads] : by_worker) {
      if (!reads.whole.empty()) {
        tasks.push_back(PartitionScanTask::Unordered(
            options_.query_id, key.second, reads.outputs->worker, reads.outputs->address,
            std::move(reads.whole), schema, keep, /*coalesce=*/true));
      }
      if (!reads.sliced.empty()) {
        tasks.push_back(std::make_shared<PartitionScanTask>(std::move(reads.sliced), schema,
                                                            nullptr, keep, /*coalesce=*/true));
      }
    }
  } else if (order == ReadOrder::kInOrder) {
    // In part order (the scan hands out its tasks' rows in task order): one read per run of
    // consecutive pieces on the same worker.
    std::vector<PartitionPiece> run;
    for (const InputPart* p : parts) {
      if (!run.empty() && (run.back().ref.worker != slots_[p->slot].outputs.worker ||
                           run.back().ref.index != p->index)) {
        tasks.push_back(
            std::make_shared<PartitionScanTask>(std::exchange(run, {}), schema, nullptr, keep));
      }
      run.push_back({RefOf(*p), p->offset, p->length});
    }
    if (!run.empty()) {
      tasks.push_back(std::make_shared<PartitionScanTask>(std::move(run), schema, nullptr, keep));
    }
  } else {
    for (const InputPart* p : parts) {
      tasks.push_back(std::make_shared<PartitionScanTask>(
          std::vector<PartitionPiece>{{RefOf(*p), p->offset, p->length}}, schema));
    }
  }
  return exec::MakeScan(schema, std::move(tasks));
}

Result<std::vector<Dispatch>> QueryDriver::Schedule() {
  if (options_.scheduler) {
    return Status::Invalid("a driver sharing a session's scheduler is scheduled by the session");
  }
  std::vector<Dispatch> out;
  if (finished_) return out;
  for (const Assignment& a : scheduler_->Schedule()) {
    std::optional<Dispatch> d = Place(a);
    if (!d) break;  // the query ended
    out.push_back(std::move(*d));
  }
  return out;
}

std::optional<Dispatch> QueryDriver::Place(const Assignment& a) {
  auto it = slot_of_task_.find(a.task_id);
  if (finished_ || it == slot_of_task_.end()) {
    (void)scheduler_->Cancel(a.task_id);  // its resources are free again
    return std::nullopt;
  }
  Slot& slot = slots_[it->second];
  Result<std::string> bytes = TaskBytes(slot, a.attempt);
  if (!bytes.ok()) {
    Finish(bytes.status().WithContext("building task " + std::to_string(a.task_id)));
    return std::nullopt;  // (Finish cancelled it with the rest)
  }
  running_on_[a.task_id] = a.worker;
  nodes_[slot.node].running += 1;
  started_at_[a.task_id] = Now();
  slot.runs += 1;
  if (!execution_started_) {
    execution_started_ = true;
    Emit({TaskEventKind::kExecutionStarted, options_.query_id, 0, plan_.root});
  }
  Emit({TaskEventKind::kScheduled, options_.query_id, a.task_id, slot.node, NodeName(slot.node),
        a.worker, a.attempt});
  return Dispatch{a.task_id, a.worker, bytes.MoveValueUnsafe()};
}

// --- Results ------------------------------------------------------------------------------------

Status QueryDriver::OnTaskResult(int64_t task_id, std::string_view result_bytes) {
  auto it = slot_of_task_.find(task_id);
  if (it == slot_of_task_.end() || finished_) return Status::OK();  // cancelled meanwhile
  Slot& slot = slots_[it->second];
  auto run = running_on_.find(task_id);
  if (run == running_on_.end()) return Status::OK();
  const std::string worker = run->second;
  // A shared scheduler took the task back when another query removed its worker: this query
  // hears of that removal next.
  if (scheduler_->state(task_id) != TaskState::kRunning ||
      scheduler_->worker_of(task_id) != worker) {
    return Status::OK();
  }
  proto::TaskResult result;
  if (!result.ParseFromArray(result_bytes.data(), static_cast<int>(result_bytes.size()))) {
    return OnTaskLost(task_id, worker, "malformed task result");
  }
  // A late result of an attempt on a worker since removed: the task runs elsewhere now.
  if (result.worker() != worker) return Status::OK();
  running_on_.erase(task_id);
  if (result.has_sample()) EmitSample(worker, result.sample());
  const int attempt = scheduler_->attempt(task_id);
  for (const std::string& line : result.log_lines()) {
    Emit({TaskEventKind::kLog, options_.query_id, task_id, slot.node, NodeName(slot.node), worker,
          attempt, 0, 0, 0, line});
  }
  const double seconds = Now() - started_at_[task_id];
  nodes_[slot.node].running -= 1;
  if (!result.error().empty()) {
    // An input lost with another worker is not the task's failure: it does not use an attempt.
    const bool charged = result.lost_worker().empty() || result.lost_worker() == worker;
    FLOTILLA_ASSIGN_OR_RETURN(bool again,
                              scheduler_->TaskFailed(task_id, result.retryable(), charged));
    Emit({TaskEventKind::kFailed, options_.query_id, task_id, slot.node, NodeName(slot.node),
          worker, attempt, seconds, 0, 0, result.error()});
    if (!again) {
      StatusCode code =
          result.code() == 0 ? StatusCode::kInvalid : static_cast<StatusCode>(result.code());
      std::string message = result.error();
      if (result.retryable() && charged) {
        message = "task " + std::to_string(task_id) + " (" + NodeName(slot.node) +
                  ") failed in all of its " + std::to_string(attempt) +
                  " attempts; the last: " + message;
      }
      Finish(Status(code, std::move(message)));
      return Status::OK();
    }
    // A worker that cannot serve what it holds is as good as gone: take it out now, so its
    // outputs are recomputed before the retry reads them, instead of the retry failing again
    // until the backend notices the worker died.
    // That includes the task's own worker when its store no longer has what it should.
    const std::string& lost = result.lost_worker();
    if (!lost.empty() && workers_.count(lost) > 0) {
      Log(log::Level::kWarn,
          "distributed query {}: removing worker {}: its partitions cannot be read",
          options_.query_id, lost);
      return RemoveWorker(lost);
    }
    return Advance();
  }
  FLOTILLA_RETURN_NOT_OK(scheduler_->TaskCompleted(task_id));
  if (result.output_rows_size() != result.output_bytes_size()) {
    Finish(Status::Invalid("task " + std::to_string(task_id) + "'s result from " + worker +
                           " gives " + std::to_string(result.output_rows_size()) +
                           " row counts for " + std::to_string(result.output_bytes_size()) +
                           " partitions"));
    return Status::OK();
  }
  slot.outputs = {worker, result.address(), task_id, attempt, result.output_rows_size()};
  for (int i = 0; i < result.output_rows_size(); ++i) {
    slot.outputs.rows += result.output_rows(i);
    slot.outputs.bytes += result.output_bytes(i);
  }
  if (slot.outputs.count() > 1 && !slot.counted) {
    NodeState& n = nodes_[slot.node];
    const size_t count = static_cast<size_t>(slot.outputs.count());
    if (n.partition_rows.size() < count) {
      n.partition_rows.resize(count);
      n.partition_bytes.resize(count);
    }
    for (size_t i = 0; i < count; ++i) {
      n.partition_rows[i] += result.output_rows(static_cast<int>(i));
      n.partition_bytes[i] += result.output_bytes(static_cast<int>(i));
    }
    n.counted_rows += slot.outputs.rows;
    n.counted_bytes += slot.outputs.bytes;
    slot.counted = true;
  }
  if (!result.inline_rows().empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::CopyOf(result.inline_rows()));
    Result<std::vector<RecordBatch>> rows = ipc::ReadStream(std::move(buffer));
    if (!rows.ok()) {
      Finish(rows.status().WithContext("task " + std::to_string(task_id) + "'s inline result"));
      return Status::OK();
    }
    slot.inline_rows = rows.MoveValueUnsafe();
  }
  SetState(&slot, SlotState::kDone);
  nodes_[slot.node].rows += result.rows();
  slot.figures = nodes_[slot.node].operators.Take(result);
  slot.read_local_bytes = result.read_local_bytes();
  slot.read_remote_bytes = result.read_remote_bytes();
  TaskEvent done{TaskEventKind::kCompleted,
                 options_.query_id,
                 task_id,
                 slot.node,
                 NodeName(slot.node),
                 worker,
                 attempt,
                 seconds,
                 result.rows(),
                 result.bytes()};
  done.cpu_seconds = static_cast<double>(result.cpu_nanos()) / 1e9;
  done.peak_memory = result.peak_memory();
  done.spilled_bytes = result.spilled_bytes();
  for (const proto::OperatorStats& op : result.operators()) {
    done.operators.push_back(
        {op.name(), op.depth(), op.rows_out(), static_cast<double>(op.cpu_nanos()) / 1e9,
         op.start_nanos() < 0 ? -1.0 : static_cast<double>(op.start_nanos()) / 1e9,
         op.end_nanos() < 0 ? -1.0 : static_cast<double>(op.end_nanos()) / 1e9});
  }
  Emit(std::move(done));
  if (slot.final) {
    for (int i = 0; i < slot.outputs.count(); ++i) {
      ready_.push_back(RefOf(slot, i));
      result_slot_[ready_.back().id] = slot.id;
    }
  }
  return Advance();
}

Status QueryDriver::OnTaskLost(int64_t task_id, const std::string& worker,
                               const std::string& message) {
  auto it = slot_of_task_.find(task_id);
  if (it == slot_of_task_.end() || finished_) return Status::OK();
  auto run = running_on_.find(task_id);
  if (run == running_on_.end() || run->second != worker) return Status::OK();
  running_on_.erase(run);
  Slot& slot = slots_[it->second];
  nodes_[slot.node].running -= 1;
  // Already back in a shared scheduler's queue: another query removed the worker first.
  if (scheduler_->state(task_id) != TaskState::kRunning ||
      scheduler_->worker_of(task_id) != worker) {
    return Advance();
  }
  const int attempt = scheduler_->attempt(task_id);
  FLOTILLA_ASSIGN_OR_RETURN(bool again, scheduler_->TaskFailed(task_id, true));
  Emit({TaskEventKind::kFailed, options_.query_id, task_id, slot.node, NodeName(slot.node), worker,
        attempt, Now() - started_at_[task_id], 0, 0, message});
  if (!again) {
    Finish(Status::IOError("task " + std::to_string(task_id) + " (" + NodeName(slot.node) +
                           ") failed on every attempt; last: " + message));
  }
  return Advance();
}

std::vector<int64_t> QueryDriver::TakeCancelled() {
  return std::exchange(cancelled_, {});
}

std::vector<PartitionRef> QueryDriver::TakeReadyResults() {
  return std::exchange(ready_, {});
}

Status QueryDriver::MarkFetched(const std::string& ref_id) {
  auto it = result_slot_.find(ref_id);
  if (it == result_slot_.end()) return Status::OK();
  Slot& slot = slots_[it->second];
  result_slot_.erase(it);
  // An output since lost (and its task re-run) does not count.
  if (slot.state == SlotState::kDone && slot.outputs.count() > 0 &&
      ref_id.starts_with(
          TaskOutputKey(options_.query_id, slot.outputs.task_id, slot.outputs.attempt) + "/p")) {
    slot.fetched += 1;
  }
  return Advance();
}

std::vector<PartitionRef> QueryDriver::ResultOrder() const {
  std::vector<PartitionRef> out;
  for (int64_t s : OutputSlots(plan_.root)) {
    if (slots_[s].state != SlotState::kDone) continue;
    for (int i = 0; i < slots_[s].outputs.count(); ++i)
      out.push_back(RefOf(slots_[s], i));
  }
  return out;
}

void QueryDriver::Fail(Status status) {
  Finish(std::move(status));
}

void QueryDriver::Finish(Status status) {
  if (finished_) return;
  // Nothing of the query stays queued or running (in a shared scheduler, nothing holds room
  // another query could use).
  for (Slot& s : slots_) {
    if (!status.ok() || s.state == SlotState::kSubmitted) {
      CancelSlot(&s, status.ok() ? "the query finished" : "the query failed");
    }
  }
  finished_ = true;
  status_ = std::move(status);
  if (progress_) progress_->Update(Progress(), Now(), true);
  QueryEnd end{options_.query_id, status_, Now()};
  for (const Slot& slot : slots_) {
    end.attempts += slot.runs;
    if (slot.state != SlotState::kDone) continue;
    end.tasks += 1;
    for (const OperatorFigures& f : slot.figures)
      end.cpu_seconds += static_cast<double>(f.cpu_nanos) / 1e9;
  }
  if (status_.ok()) {
    for (int64_t s : OutputSlots(plan_.root)) {
      end.rows += slots_[s].outputs.rows;
      end.bytes += slots_[s].outputs.bytes;
    }
  }
  for (const auto& sub : options_.subscribers)
    sub->OnQueryFinished(end);
}

// --- Observability ------------------------------------------------------------------------------

void QueryDriver::Log(log::Level level, const std::string& message) {
  if (!log::Enabled(level)) return;
  // The line as printed (time, level, tag) is what the capture keeps.
  auto context =
      std::make_shared<const std::string>("q" + std::to_string(options_.query_id) + " driver");
  log::ScopedContext scope(context);
  log::StartCapture(*context, 1);
  log::Write(level, message);
  for (std::string& line : log::TakeCapture(*context)) {
    TaskEvent e{TaskEventKind::kLog, options_.query_id, -1, -1, ""};
    e.message = std::move(line);
    Emit(std::move(e));
  }
}

void QueryDriver::Emit(TaskEvent event) {
  event.time = Now();
  for (const auto& sub : options_.subscribers)
    sub->OnEvent(event);
  if (progress_ && !finished_) progress_->Update(Progress(), event.time);
}

std::vector<int> QueryDriver::ReadNodes(int node) const {
  std::vector<int> direct = plan_.nodes[node].inputs;
  for (const SideInput& side : plan_.nodes[node].sides)
    direct.push_back(side.node);
  std::vector<int> out;
  for (int n : direct) {
    if (plan_.nodes[n].kind != NodeKind::kConcat) {
      out.push_back(n);
      continue;
    }
    for (int through : ReadNodes(n))
      out.push_back(through);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<NodeAnalysis> QueryDriver::Analysis() const {
  std::vector<NodeAnalysis> out;
  for (int n : order_) {
    if (plan_.nodes[n].kind == NodeKind::kConcat) continue;
    const NodeState& state = nodes_[n];
    NodeAnalysis a;
    a.node = n;
    a.name = NodeName(n);
    a.rows = state.rows;
    if (state.started_at >= 0) {
      a.seconds =
          (state.finished_at >= state.started_at ? state.finished_at : Now()) - state.started_at;
    }
    a.spilled_bytes = state.spilled_bytes;
    a.operators = state.operators.operators();
    a.totals.resize(a.operators.size());
    for (int64_t id : state.slots) {
      const Slot& slot = slots_[id];
      a.attempts += slot.runs;
      if (slot.state != SlotState::kDone) continue;
      a.tasks += 1;
      a.output_bytes += slot.outputs.bytes;
      a.read_local_bytes += slot.read_local_bytes;
      a.read_remote_bytes += slot.read_remote_bytes;
      for (size_t i = 0; i < slot.figures.size(); ++i)
        a.totals[i].Add(slot.figures[i]);
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<NodeProgress> QueryDriver::Progress() const {
  std::vector<NodeProgress> out;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (plan_.nodes[i].kind == NodeKind::kConcat) continue;
    const NodeState& n = nodes_[i];
    out.push_back({NodeName(static_cast<int>(i)), n.done, static_cast<int64_t>(n.slots.size()),
                   n.rows, n.running});
  }
  return out;
}

}  // namespace flotilla::distributed
