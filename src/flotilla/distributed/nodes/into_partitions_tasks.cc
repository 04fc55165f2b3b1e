// into_partitions: N tasks over consecutive row ranges of the finished upstream output, in
// order, of sizes differing by at most one row.
#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

class IntoPartitions final : public NodeTasks {
 public:
  Result<bool> Create(const PipelineNode& node, TaskGraph* graph) const override {
    if (!graph->NodeComplete(node.inputs[0])) return false;
    std::vector<int64_t> parts = graph->DoneOutputs(node.inputs[0]);
    int64_t total = 0;
    for (int64_t s : parts)
      total += graph->OutputRows(s);
    // Partition j holds rows [j*total/N, (j+1)*total/N) of the input.
    const int n = node.num_partitions;
    size_t cursor = 0;
    int64_t cursor_offset = 0;
    for (int j = 0; j < n; ++j) {
      int64_t want = (j + 1) * total / n - j * total / n;
      std::vector<InputPart> inputs;
      while (want > 0 && cursor < parts.size()) {
        const int64_t rows = graph->OutputRows(parts[cursor]);
        const int64_t take = std::min(rows - cursor_offset, want);
        if (take > 0) inputs.push_back({parts[cursor], 0, cursor_offset, take});
        want -= take;
        cursor_offset += take;
        if (cursor_offset >= rows) {
          ++cursor;
          cursor_offset = 0;
        }
      }
      // An empty partition still reads something, for its schema.
      if (inputs.empty() && !parts.empty()) inputs.push_back({parts[0], 0, 0, 0});
      graph->NewSlot(node.id, std::move(inputs));
    }
    return true;
  }
};

}  // namespace

const NodeTasks& IntoPartitionsTasks() {
  static const IntoPartitions kind;
  return kind;
}

}  // namespace flotilla::distributed
