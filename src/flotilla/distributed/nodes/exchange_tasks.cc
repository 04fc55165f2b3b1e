// The reduce side of a shuffle: once every map task finished and the partition count is
// decided, task i reads output partition i of each map task — of both sides' map tasks for a
// join's exchange, each side as its own read.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
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
    for (int i = 0; i < partitions; ++i) {
      std::vector<InputPart> inputs;
      for (const auto& [side, slots] : maps)
        AddWholeOutputs(slots, i, side, &inputs);
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
