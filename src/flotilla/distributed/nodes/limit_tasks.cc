// A global limit: one task over the shortest prefix of finished upstream tasks that holds
// limit + offset rows (each upstream task already stops there); the tasks after it are
// cancelled.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class Limit final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (!graph->SlotsKnown(node.inputs[0])) return false;
    std::vector<int64_t> upstream = graph->OutputSlots(node.inputs[0]);
    const int64_t need = node.limit < 0 ? -1 : node.limit + node.offset;
    std::vector<InputPart> inputs;
    int64_t rows = 0;
    size_t i = 0;
    for (; i < upstream.size(); ++i) {
      if (need >= 0 && rows >= need) break;
      if (graph->Cancelled(upstream[i])) continue;
      if (!graph->Done(upstream[i])) return false;
      inputs.push_back({upstream[i], 0});
      rows += graph->OutputRows(upstream[i]);
    }
    for (; i < upstream.size(); ++i)
      graph->Cancel(upstream[i], "the limit is satisfied");
    graph->NewSlot(node.id, std::move(inputs));
    return true;
  }
};

}  // namespace

const NodeTasks& LimitTasks() {
  static const Limit kind;
  return kind;
}

}  // namespace flotilla::distributed
