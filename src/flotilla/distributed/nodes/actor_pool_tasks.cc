// An actor pool: one task per upstream task, each starting as soon as its input exists, run
// only on the pool's workers (the driver gives its tasks the pool's name).
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class ActorPool final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (!graph->SlotsKnown(node.inputs[0])) return false;
    return CreatePartitionWise(node, graph);
  }
};

}  // namespace

const NodeTasks& ActorPoolTasks() {
  static const ActorPool kind;
  return kind;
}

}  // namespace flotilla::distributed
