#pragma once
// A worker's partition store: the task outputs it holds until consumers pull them (over Flight
// or, on the same worker, directly). Partitions stay in memory while the store is under its
// budget; past it the oldest are written to local disk as lz4-compressed Arrow IPC files and read
// back on demand, so a worker holding more output than memory slows down instead of failing.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/common/result.h"

namespace flotilla::distributed {

struct StoredPartition {
  SchemaPtr schema;
  std::vector<RecordBatch> batches;
  int64_t num_rows() const;
};

struct PartitionStoreStats {
  int64_t partitions = 0;
  int64_t memory_bytes = 0;   // held in memory now
  int64_t spilled_bytes = 0;  // on disk now
  int64_t spills = 0;         // partitions written to disk so far
};

class PartitionStore {
 public:
  /// `memory_budget` bytes in memory at most (0: no limit); spill files go under `spill_dir`
  /// (created when first needed).
  PartitionStore(int64_t memory_budget, std::string spill_dir);
  ~PartitionStore();
  PartitionStore(const PartitionStore&) = delete;
  PartitionStore& operator=(const PartitionStore&) = delete;

  /// Keeps `partition` under `id` (replacing an earlier one). Errors come from spilling.
  Status Put(const std::string& id, StoredPartition partition);
  /// The partition, read back from disk if it was spilled. KeyError naming the id when absent.
  Result<StoredPartition> Get(const std::string& id) const;
  bool Contains(const std::string& id) const;
  /// Drops every partition whose id starts with `prefix` (a finished query's outputs).
  void DropPrefix(const std::string& prefix);
  PartitionStoreStats stats() const;

 private:
  struct Entry;
  Status SpillLocked();
  /// Takes an entry's bytes out of the counts and deletes its spill file (the caller erases it).
  void ForgetLocked(const Entry& e);

  const int64_t memory_budget_;
  const std::string spill_dir_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Entry>> entries_;  // in insertion order: the oldest spill first
  std::unordered_map<std::string, Entry*> by_id_;
  int64_t memory_bytes_ = 0;
  int64_t spilled_bytes_ = 0;
  int64_t spills_ = 0;
  int64_t next_file_ = 0;
};

/// Bytes of a partition's buffers (what it costs in memory).
int64_t PartitionBytes(const std::vector<RecordBatch>& batches);

}  // namespace flotilla::distributed
