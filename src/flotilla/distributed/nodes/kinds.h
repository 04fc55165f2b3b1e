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

/// The first partition of each reduce task of a shuffle whose partitions have `bytes`:
/// adjacent partitions up to about `target_bytes` together (0: one task per partition), in at
/// least about `min_tasks` tasks while there are partitions enough.
std::vector<int> CoalescePartitions(const std::vector<int64_t>& bytes, int64_t target_bytes,
                                    int min_tasks);

/// One task per upstream task, reading its output (actor pools, a sort's passes).
Result<bool> CreatePartitionWise(const PipelineNode& node, TaskGraph* graph);

}  // namespace flotilla::distributed
