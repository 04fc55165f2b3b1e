#pragma once
// The node kinds' task makers, one per file of this folder (TasksOf picks among them).
#include "flotilla/distributed/nodes/node_tasks.h"

namespace flotilla::distributed {

const NodeTasks& SourceTasks();
const NodeTasks& ExchangeTasks();
const NodeTasks& IntoPartitionsTasks();
const NodeTasks& GatherTasks();
const NodeTasks& LimitTasks();
const NodeTasks& ActorPoolTasks();
const NodeTasks& RangeSplitTasks();
const NodeTasks& SortSampleTasks();
const NodeTasks& ConcatTasks();
const NodeTasks& CommitTasks();
const NodeTasks& PairsTasks();

/// One task per upstream task, reading its output (actor pools, a sort's passes).
Result<bool> CreatePartitionWise(const PipelineNode& node, TaskGraph* graph);

}  // namespace flotilla::distributed
