// The reduce side of a shuffle: once every map task finished and the partition count is
// decided, task i reads output partition i of each map task.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class Exchange final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    const int partitions = graph->Partitions(node.id);
    if (!graph->NodeComplete(node.inputs[0]) || partitions == 0) return false;
    std::vector<int64_t> maps = graph->DoneOutputs(node.inputs[0]);
    for (int i = 0; i < partitions; ++i) {
      std::vector<InputPart> inputs;
      inputs.reserve(maps.size());
      for (int64_t m : maps) inputs.push_back({m, i});
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
