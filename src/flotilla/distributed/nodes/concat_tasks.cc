// A concat has no tasks: the nodes reading it read its inputs' outputs, one input after the
// other (the driver's OutputSlots), and per-row operators above it run in its inputs.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class Concat final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode&, TaskGraph*) const override { return false; }
};

}  // namespace

const NodeTasks& ConcatTasks() {
  static const Concat kind;
  return kind;
}

}  // namespace flotilla::distributed
