#pragma once
// PartitionRef: where a task's output partition lives — metadata only; the rows stay on the
// worker that produced them until a consumer pulls them. PartitionScanTask is how a plan
// fragment reads them: a scan task (kind "partition") over rows of one stored partition, read
// from the local store when the partition is on the same worker and over Flight otherwise.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "flotilla/dist/partition_store.h"
#include "flotilla/exec/plan/scan_task.h"

namespace flotilla::exec {
struct PlanResolver;
}

namespace flotilla::dist {

struct PartitionRef {
  std::string id;       // store key and Flight ticket
  std::string worker;   // the holding worker's id
  std::string address;  // its Flight server
  int64_t num_rows = 0;
  int64_t size_bytes = 0;
  int64_t task_id = -1;  // the producing task (lineage)
  int index = 0;         // which of its output partitions
};

/// Reads a stored partition wherever it is (local store or Flight).
using PartitionFetcher = std::function<Result<StoredPartition>(const PartitionRef& ref)>;

class PartitionScanTask final : public exec::ScanTask {
 public:
  /// Rows [offset, offset + length) (length -1: to the end) of `ref`, whose rows have
  /// `schema`. Without a fetcher (on the driver, which only describes tasks) Read fails.
  PartitionScanTask(PartitionRef ref, SchemaPtr schema, int64_t offset = 0, int64_t length = -1,
                    PartitionFetcher fetch = nullptr);

  Result<std::vector<RecordBatch>> Read(const exec::ScanPushdowns& pushdowns) const override;
  int64_t num_rows() const override;
  int64_t size_bytes() const override { return ref_.size_bytes; }
  std::string ToString() const override;
  std::string kind() const override { return "partition"; }
  Result<std::string> Serialize() const override;

  const PartitionRef& ref() const { return ref_; }

 private:
  PartitionRef ref_;
  SchemaPtr schema_;
  int64_t offset_, length_;
  PartitionFetcher fetch_;
};

/// Lets DeserializePlan rebuild partition scan tasks that read through `fetch`.
void RegisterPartitionScanTasks(exec::PlanResolver* resolver, PartitionFetcher fetch);

}  // namespace flotilla::dist
