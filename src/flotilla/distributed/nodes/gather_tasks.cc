// A gather: one task over every finished upstream output, in order.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class Gather final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (!graph->NodeComplete(node.inputs[0])) return false;
    std::vector<InputPart> inputs;
    for (int64_t s : graph->DoneOutputs(node.inputs[0]))
      inputs.push_back({s, 0});
    graph->NewSlot(node.id, std::move(inputs));
    return true;
  }
};

}  // namespace

const NodeTasks& GatherTasks() {
  static const Gather kind;
  return kind;
}

}  // namespace flotilla::distributed
