// A sort's sample: once the sorted input finished and the range exchange's partition count is
// known, one task per upstream task samples its keys, in proportion to its share of the rows;
// the driver keeps the samples (inline results) and computes the boundaries from them.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class SortSample final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (!graph->NodeComplete(node.inputs[0]) || graph->Partitions(node.range_exchange) == 0) {
      return false;
    }
    int64_t rows = 0;
    for (int64_t s : graph->DoneOutputs(node.inputs[0]))
      rows += graph->OutputRows(s);
    graph->SetInputRows(node.id, rows);
    return CreatePartitionWise(node, graph);
  }
  TaskOutputKind output() const override { return TaskOutputKind::kInline; }
};

}  // namespace

const NodeTasks& SortSampleTasks() {
  static const SortSample kind;
  return kind;
}

}  // namespace flotilla::distributed
