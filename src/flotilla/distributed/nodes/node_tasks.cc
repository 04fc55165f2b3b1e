#include "flotilla/distributed/nodes/node_tasks.h"

#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {

const NodeTasks& TasksOf(NodeKind kind) {
  switch (kind) {
    case NodeKind::kSource:
      return SourceTasks();
    case NodeKind::kExchange:
      return ExchangeTasks();
    case NodeKind::kIntoPartitions:
      return IntoPartitionsTasks();
    case NodeKind::kGather:
      return GatherTasks();
    case NodeKind::kLimit:
      return LimitTasks();
    case NodeKind::kActorPool:
      return ActorPoolTasks();
    case NodeKind::kMap:
      return RangeSplitTasks();
    case NodeKind::kSample:
      return SortSampleTasks();
    case NodeKind::kConcat:
      return ConcatTasks();
    case NodeKind::kCommit:
      return CommitTasks();
    case NodeKind::kPairs:
      return PairsTasks();
  }
  return ConcatTasks();
}

void AddWholeOutputs(const std::vector<int64_t>& slots, int index, int side,
                     std::vector<InputPart>* out) {
  for (size_t i = 0; i < slots.size();) {
    size_t j = i + 1;
    while (j < slots.size() && slots[j] == slots[j - 1] + 1)
      ++j;
    out->push_back({slots[i], index, 0, -1, side, static_cast<int64_t>(j - i)});
    i = j;
  }
}

Result<bool> CreatePartitionWise(const PipelineNode& node, TaskGraph* graph) {
  for (int64_t s : graph->OutputSlots(node.inputs[0])) {
    if (!graph->Cancelled(s)) graph->NewSlot(node.id, {{s, 0}});
  }
  return true;
}

}  // namespace flotilla::distributed
