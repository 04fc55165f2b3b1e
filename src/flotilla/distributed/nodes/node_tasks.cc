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

Result<bool> CreatePartitionWise(const PipelineNode& node, TaskGraph* graph) {
  for (int64_t s : graph->OutputSlots(node.inputs[0])) {
    if (!graph->Cancelled(s)) graph->NewSlot(node.id, {{s, 0}});
  }
  return true;
}

}  // namespace flotilla::distributed
