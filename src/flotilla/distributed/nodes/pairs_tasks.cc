// A cross join of two large sides: a task for every pair of a task of its input and a task of
// its side, reading the one's output and the other's. Tasks exist as soon as both sides' tasks
// do; each starts when its two inputs are done.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class Pairs final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    const int left = node.inputs[0];
    const int right = node.sides[0].node;
    if (!graph->SlotsKnown(left) || !graph->SlotsKnown(right)) return false;
    for (int64_t l : graph->OutputSlots(left)) {
      if (graph->Cancelled(l)) continue;
      for (int64_t r : graph->OutputSlots(right)) {
        if (!graph->Cancelled(r)) graph->NewSlot(node.id, {{l, 0}, {r, 0, 0, -1, /*side=*/1}});
      }
    }
    return true;
  }
};

}  // namespace

const NodeTasks& PairsTasks() {
  static const Pairs kind;
  return kind;
}

}  // namespace flotilla::distributed
