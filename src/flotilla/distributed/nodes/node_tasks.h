#pragma once
// How each kind of pipeline node turns its inputs into tasks: one class per kind, each in its
// own file beside this one, found through TasksOf(kind). Adding a kind means a PipelineNode
// kind (distributed_plan.h), its translation, its file here and a line in TasksOf.
//
// The query driver offers its tasks to the kinds as a TaskGraph (tasks are numbered; a task
// reads parts of the outputs of earlier tasks) and calls Create on every event until the kind
// says the node's tasks exist; a kind that must wait (for its inputs to finish, for a shuffle's
// partition count, for a sort's boundaries) returns false and is asked again.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/distributed/distributed_plan.h"

namespace flotilla::distributed {

/// Rows [offset, offset + length) (length -1: all) of output `index` of task `slot`, read as
/// the task's own input (side 0) or as its node's side input `side - 1` (PipelineNode::sides).
/// With `count` > 1, the whole output `index` of each of tasks [slot, slot + count): one part
/// for what a shuffle's reducer reads of all map tasks, so the driver's bookkeeping grows with
/// M + N, not M x N.
struct InputPart {
  int64_t slot;
  int index;
  int64_t offset = 0;
  int64_t length = -1;
  int side = 0;
  int64_t count = 1;
};

/// Whole output `index` of each of `slots` as `side`, consecutive slots in one part.
void AddWholeOutputs(const std::vector<int64_t>& slots, int index, int side,
                     std::vector<InputPart>* out);

/// The driver's tasks, as the node kinds see them.
class TaskGraph {
 public:
  virtual ~TaskGraph() = default;
  /// Whether `node`'s tasks exist (a concat's: its inputs').
  virtual bool SlotsKnown(int node) const = 0;
  /// Whether every task of `node` finished (done or cancelled).
  virtual bool NodeComplete(int node) const = 0;
  /// The tasks whose outputs `node` offers, in order (a concat's: its inputs', in turn).
  virtual std::vector<int64_t> OutputSlots(int node) const = 0;
  /// OutputSlots that are done.
  virtual std::vector<int64_t> DoneOutputs(int node) const = 0;
  virtual bool Done(int64_t slot) const = 0;
  virtual bool Cancelled(int64_t slot) const = 0;
  /// Rows of a done task's outputs (a task with one output: exact).
  virtual int64_t OutputRows(int64_t slot) const = 0;
  /// Bytes of output `index` of a done task (of a shuffle's map task: an estimate).
  virtual int64_t OutputBytes(int64_t slot, int index) const = 0;

  /// A new task of `node` reading `inputs` (and every output of its broadcast sides, which the
  /// driver adds); returns its number.
  virtual int64_t NewSlot(int node, std::vector<InputPart> inputs) = 0;
  /// A source task's input: scan tasks, or an in-memory partition as a plan.
  virtual void SetScan(int64_t slot, std::vector<std::shared_ptr<const io::ScanTask>> scan) = 0;
  virtual void SetLeaf(int64_t slot, exec::PlanPtr leaf) = 0;
  virtual void Cancel(int64_t slot, const std::string& why) = 0;

  /// The partition count of exchange node `exchange`; 0 while it cannot be decided yet.
  virtual int Partitions(int exchange) = 0;
  /// Computes a range exchange's boundaries from its samples (once).
  virtual Status ComputeBoundaries(int exchange) = 0;
  /// The rows all tasks of `node` read (a sort's sample sizes follow it).
  virtual void SetInputRows(int node, int64_t rows) = 0;
  virtual int64_t scan_task_min_bytes() const = 0;
  virtual int64_t scan_task_max_bytes() const = 0;
  virtual int min_source_tasks() const = 0;
  /// About how many bytes one reduce task of a shuffle reads at most when adjacent partitions
  /// are read together (0: one task per partition).
  virtual int64_t reduce_task_bytes() const = 0;
  /// The fewest reduce tasks coalescing leaves (while there are partitions enough).
  virtual int min_reduce_tasks() const = 0;
};

/// How a task's input parts become the scan tasks of its fragment's leaf.
enum class ReadOrder {
  kEachPart,  // one read per part, in order
  kByWorker,  // one read per worker holding parts (and partition); order not kept
  kInOrder,   // in part order, one read per run of consecutive parts of one partition on one
              // worker
};

/// What a node's tasks do with what they produce.
enum class TaskOutputKind {
  kStored,  // kept in their worker's store, read by later tasks or pulled as the result
  kInline,  // returned in the task's result (small: a sort's samples), kept by the driver
  kCommit,  // none: the task moves the files a write staged into place
};

class NodeTasks {
 public:
  virtual ~NodeTasks() = default;
  /// Creates the node's tasks once its inputs allow: true when they exist.
  virtual Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const = 0;
  virtual ReadOrder read_order(const PipelineNode& node) const { return ReadOrder::kEachPart; }
  virtual TaskOutputKind output() const { return TaskOutputKind::kStored; }
};

const NodeTasks& TasksOf(NodeKind kind);

}  // namespace flotilla::distributed
