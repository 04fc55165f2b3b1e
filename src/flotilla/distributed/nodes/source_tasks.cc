// A source: one task per group of scan tasks of about equal bytes (at least one per task slot
// of the cluster, as far as the row groups go), or per in-memory partition.
// No files or partitions: no task; the nodes reading it see a finished input of no rows.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class Source final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (node.source->kind() == exec::PlanKind::kScan) {
      const auto& scan = static_cast<const exec::ScanNode&>(*node.source);
      for (auto& group : GroupScanTasks(scan.tasks, graph->scan_task_min_bytes(),
                                        graph->scan_task_max_bytes(), graph->min_source_tasks())) {
        graph->SetScan(graph->NewSlot(node.id, {}), std::move(group));
      }
      return true;
    }
    const auto& mem = static_cast<const exec::InMemorySourceNode&>(*node.source);
    for (const MicroPartition& p : mem.partitions) {
      FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr leaf, exec::MakeInMemorySource(mem.schema(), {p}));
      graph->SetLeaf(graph->NewSlot(node.id, {}), std::move(leaf));
    }
    return true;
  }
};

}  // namespace

const NodeTasks& SourceTasks() {
  static const Source kind;
  return kind;
}

}  // namespace flotilla::distributed
