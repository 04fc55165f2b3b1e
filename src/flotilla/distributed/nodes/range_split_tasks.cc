// The map side of a range exchange: once every sample is in, the driver computes the
// boundaries (once), and one task per upstream task splits its output at them.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class RangeSplit final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (!graph->NodeComplete(node.sample) || graph->Partitions(node.exchange) == 0) return false;
    FLOTILLA_RETURN_NOT_OK(graph->ComputeBoundaries(node.exchange));
    return CreatePartitionWise(node, graph);
  }
};

}  // namespace

const NodeTasks& RangeSplitTasks() {
  static const RangeSplit kind;
  return kind;
}

}  // namespace flotilla::distributed
