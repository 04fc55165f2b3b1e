// A write's commit: once every writing task finished, one task over their file lists moves the
// staged files into place, so a failed or retried query leaves no partial output.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class Commit final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (!graph->NodeComplete(node.inputs[0])) return false;
    std::vector<InputPart> inputs;
    for (int64_t s : graph->DoneOutputs(node.inputs[0]))
      inputs.push_back({s, 0});
    // Nothing was written (no input at all): nothing to commit.
    if (!inputs.empty()) graph->NewSlot(node.id, std::move(inputs));
    return true;
  }
  TaskOutputKind output() const override { return TaskOutputKind::kCommit; }
};

}  // namespace

const NodeTasks& CommitTasks() {
  static const Commit kind;
  return kind;
}

}  // namespace flotilla::distributed
