// One task per upstream task: the map side of a range exchange, which waits until every
// sample is in and the driver computed the boundaries (once), or of a hash exchange added when
// a broadcast join fell back to a shuffle.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class RangeSplit final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (!graph->SlotsKnown(node.inputs[0]) || graph->Partitions(node.exchange) == 0) return false;
    if (node.sample >= 0) {
      if (!graph->NodeComplete(node.sample)) return false;
      FLOTILLA_RETURN_NOT_OK(graph->ComputeBoundaries(node.exchange));
    }
    return CreatePartitionWise(node, graph);
  }
};

}  // namespace

const NodeTasks& RangeSplitTasks() {
  static const RangeSplit kind;
  return kind;
}

}  // namespace flotilla::distributed
