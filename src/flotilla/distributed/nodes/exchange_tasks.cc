// The reduce side of a shuffle: once every map task finished and the partition count is
// decided, each task reads one or more adjacent output partitions of every map task — of both
// sides' map tasks for a join's exchange, each side as its own read.
//
// Where the runner picked a hash shuffle's partition count, adjacent partitions smaller
// together than the target size are read by one task (the map tasks' partition sizes say
// which): a shuffle into many small partitions does not pay a task and W fetch calls per
// partition. Keys stay in one task each, so what reads the task's rows sees what it would have
// seen in one task per partition; a count the user asked for is kept.
#include <algorithm>

#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {

std::vector<int> CoalescePartitions(const std::vector<int64_t>& bytes, int64_t target_bytes,
                                    int min_tasks) {
  std::vector<int> starts;
  if (bytes.empty()) return starts;
  if (target_bytes <= 0) {
    for (size_t i = 0; i < bytes.size(); ++i)
      starts.push_back(static_cast<int>(i));
    return starts;
  }
  int64_t total = 0;
  for (int64_t b : bytes)
    total += b;
  // Smaller groups where the target would leave workers idle.
  const int64_t target = std::max<int64_t>(
      1, std::min(target_bytes, (total + std::max(min_tasks, 1) - 1) / std::max(min_tasks, 1)));
  int64_t group = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (starts.empty() || (group > 0 && group + bytes[i] > target)) {
      starts.push_back(static_cast<int>(i));
      group = 0;
    }
    group += bytes[i];
  }
  return starts;
}

namespace {

class Exchange final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    const int partitions = graph->Partitions(node.id);
    if (!graph->NodeComplete(node.inputs[0]) || partitions == 0) return false;
    // Side 0: the node's own input; then each co-partitioned side.
    std::vector<std::pair<int, std::vector<int64_t>>> maps{{0, graph->DoneOutputs(node.inputs[0])}};
    for (size_t k = 0; k < node.sides.size(); ++k) {
      if (node.sides[k].broadcast) continue;
      if (!graph->NodeComplete(node.sides[k].node)) return false;
      maps.push_back({static_cast<int>(k) + 1, graph->DoneOutputs(node.sides[k].node)});
    }
    std::vector<int> starts;
    // A range exchange (a sort) keeps its partitions: they are cut to about equal sizes
    // already, and fewer, larger sorted runs came out slower (bench/dist_shuffles.py).
    if (node.num_partitions > 0 || !node.range_keys.empty()) {
      for (int i = 0; i < partitions; ++i)
        starts.push_back(i);
    } else {
      std::vector<int64_t> bytes(static_cast<size_t>(partitions));
      for (const auto& [side, slots] : maps) {
        for (int64_t s : slots) {
          for (int i = 0; i < partitions; ++i)
            bytes[static_cast<size_t>(i)] += graph->OutputBytes(s, i);
        }
      }
      starts = CoalescePartitions(bytes, graph->reduce_task_bytes(), graph->min_reduce_tasks());
    }
    for (size_t g = 0; g < starts.size(); ++g) {
      const int end = g + 1 < starts.size() ? starts[g + 1] : partitions;
      std::vector<InputPart> inputs;
      for (int i = starts[g]; i < end; ++i) {
        for (const auto& [side, slots] : maps)
          AddWholeOutputs(slots, i, side, &inputs);
      }
      graph->NewSlot(node.id, std::move(inputs));
    }
    return true;
  }
  // Order-sensitive consumers read pieces in map-task order; a user's repartition promises no
  // order within a partition, so each worker's pieces come in one read.
  ReadOrder read_order(const PipelineNode& node) const override {
    return node.ordered ? ReadOrder::kInOrder : ReadOrder::kByWorker;
  }
};

}  // namespace

const NodeTasks& ExchangeTasks() {
  static const Exchange kind;
  return kind;
}

}  // namespace flotilla::distributed
