#pragma once
// PartitionRef: where a task's output partition lives — metadata only; the rows stay on the
// worker that produced them until a consumer pulls them. PartitionScanTask is how a plan
// fragment reads them: a scan task (kind "partition") over pieces of partitions held by one
// worker, read from the local store when that worker is this one and with one Flight request
// otherwise (a shuffle's reducer makes one request per worker, not one per map task).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flotilla/distributed/flight/flight.h"
#include "flotilla/distributed/partition_store.h"
#include "flotilla/io/scan_task.h"

namespace flotilla::exec {
struct PlanResolver;
}
namespace flotilla::proto {
class CompactPieces;
}

namespace flotilla::distributed {

struct PartitionRef {
  std::string id;       // store key and Flight ticket
  std::string worker;   // the holding worker's id
  std::string address;  // its Flight server
  int64_t num_rows = 0;
  int64_t size_bytes = 0;
  int64_t task_id = -1;  // the producing task (lineage)
  int index = 0;         // which of its output partitions
  int attempt = 0;       // of the producing task
  int64_t query_id = 0;
};

/// Rows [offset, offset + length) of a partition (length -1: to the end).
struct PartitionPiece {
  PartitionRef ref;
  int64_t offset = 0;
  int64_t length = -1;
  int64_t num_rows() const { return length >= 0 ? length : ref.num_rows - offset; }
};

/// Reads stored partitions, all held by one worker, wherever that is (local store or Flight):
/// `each(i, batch)` for the batches of refs[i], in order, as they arrive. `keep`: the reader's
/// worker keeps a copy of what it pulled (a broadcast side, read again by its later tasks).
/// `each_run`, when not null, may be given whole a batch carrying several refs' rows in turn
/// (FlightGetEach's); a fetcher may also ignore it.
using PartitionFetcher = std::function<Status(const std::vector<PartitionRef>& refs, bool keep,
                                              const std::function<Status(int, RecordBatch)>& each,
                                              const PartitionRunFn& each_run)>;

/// The store key of a task attempt's outputs kept as one entry: "q<query>/t<task>.<attempt>"
/// (the query prefix lets a worker drop a query's outputs).
std::string TaskOutputKey(int64_t query_id, int64_t task_id, int attempt);
/// The id of output partition `index` of a task attempt: TaskOutputKey + "/p<i>".
std::string PartitionKey(int64_t query_id, int64_t task_id, int attempt, int index);

/// The Flight ticket naming several partitions of one worker: their ids, one per line.
std::string MultiPartitionTicket(const std::vector<PartitionRef>& refs);

/// Whole output partition `index` of a finished task, as the driver knows it (no strings).
struct TaskPart {
  int64_t task_id = -1;
  int attempt = 0;
  int64_t rows = 0;
  int64_t bytes = 0;
};

class PartitionScanTask final : public io::ScanTask {
 public:
  /// A read of partition `index` of `parts` (tasks of query `query_id`, all held by `worker` at
  /// `address`) in no particular order. Sent as a bitmap over their task ids (CompactPieces,
  /// built from the integers: a reduce task of a shuffle with M map tasks costs the driver no
  /// string per map task) unless too spread out; then as pieces.
  static std::shared_ptr<PartitionScanTask> Unordered(int64_t query_id, int index,
                                                      const std::string& worker,
                                                      const std::string& address,
                                                      std::vector<TaskPart> parts, SchemaPtr schema,
                                                      bool keep, bool coalesce);

  /// `pieces` (all held by one worker), whose rows have `schema`. Without a fetcher (on the
  /// driver, which only describes tasks) Read fails. `coalesce`: nothing above depends on the
  /// order of the rows or where batches end, so small batches are handed on concatenated, up to
  /// kCoalesceBytes or kCoalesceRows (a shuffle of M map tasks into N partitions gives a reducer
  /// M pieces of 1/(M x N) of the data each; each would otherwise be a morsel of its own).
  PartitionScanTask(std::vector<PartitionPiece> pieces, SchemaPtr schema,
                    PartitionFetcher fetch = nullptr, bool keep = false, bool coalesce = false);

  static constexpr int64_t kCoalesceBytes = 1 << 20;
  static constexpr int64_t kCoalesceRows = 1 << 16;

  Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns& pushdowns) const override;
  /// The pieces' rows as the fetch delivers them: a reducer's pipeline starts on the first
  /// batch from a worker while the rest are on their way.
  Status ReadEach(const io::ScanPushdowns& pushdowns,
                  const std::function<Status(RecordBatch)>& each) const override;
  bool Streams() const override { return true; }
  int64_t num_rows() const override;
  int64_t size_bytes() const override;
  std::string ToString() const override;
  std::string kind() const override { return "partition"; }
  Result<std::string> Serialize() const override;

  const std::vector<PartitionPiece>& pieces() const { return pieces_; }
  /// The rows and bytes of all pieces, when the pieces do not carry their own (read from the
  /// compact form, which has only the totals).
  void SetTotals(int64_t rows, int64_t bytes) {
    total_rows_ = rows;
    total_bytes_ = bytes;
  }

 private:
  std::vector<PartitionPiece> pieces_;
  std::shared_ptr<const proto::CompactPieces> compact_;  // instead of pieces_ (Unordered)
  int64_t total_rows_ = -1;
  int64_t total_bytes_ = -1;
  SchemaPtr schema_;
  PartitionFetcher fetch_;
  bool keep_;
  bool coalesce_;
};

/// Lets DeserializePlan rebuild partition scan tasks that read through `fetch`.
void RegisterPartitionScanTasks(io::ScanTaskRegistry* registry, PartitionFetcher fetch);

}  // namespace flotilla::distributed
