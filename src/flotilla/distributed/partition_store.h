#pragma once
// A worker's partition store: the task outputs it holds until consumers pull them (over Flight
// or, on the same worker, directly). An entry is one partition, or a map task's N partitions
// named "<key>/p<i>". Entries stay in memory as batches while the store is under its budget (a
// reader on this worker takes them as they are); past it the oldest go to local disk, one file
// per entry whatever its number of partitions, encoded once (partition_file.h), and are read
// back a partition's byte ranges at a time and sent as stored, so a worker holding more output
// than memory slows down instead of failing. A map task still running reserves what it holds
// from the same budget (ShuffleWriter), and writes its partitions to a file of its own when the
// budget is spent.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/common/result.h"
#include "flotilla/distributed/partition_file.h"

namespace flotilla::distributed {

struct StoredPartition {
  SchemaPtr schema;
  std::vector<RecordBatch> batches;
  int64_t num_rows() const;
};

/// A partition as the Flight server sends it: its IPC stream when it was spilled (sent as it
/// is), its batches otherwise (encoded with `compression` as they are sent). A spilled one can
/// also come unread, with `read` to fetch its `stream_bytes` when its turn comes: a ticket names
/// up to a map task per partition, and the server then holds one piece at a time, not all.
struct ServedPartition {
  SchemaPtr schema;
  BufferPtr ipc;
  std::vector<RecordBatch> batches;
  ipc::Compression compression = ipc::Compression::kNone;
  std::function<Result<BufferPtr>()> read;
  int64_t stream_bytes = 0;

  /// Bytes it takes to send: its stream's, or its batches' values.
  int64_t Bytes() const;
  /// Its stream (read now when unread); null when it is held as batches.
  Result<BufferPtr> Stream() const;
};

/// What ListFlights tells of a stored partition.
struct ListedPartition {
  std::string id;
  SchemaPtr schema;
  int64_t rows = 0;
  int64_t bytes = 0;  // in memory once decoded
};

struct PartitionStoreStats {
  int64_t partitions = 0;     // entries (a map task's encoded outputs count once)
  int64_t memory_bytes = 0;   // held in memory now (reservations included)
  int64_t spilled_bytes = 0;  // on disk now
  int64_t spills = 0;         // entries written to disk so far (one file each)
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
  /// Keeps a map task's partitions, readable as "<key>/p<i>"; `compression` is their bodies'
  /// codec on the wire and on disk.
  Status PutGroup(const std::string& key, SchemaPtr schema,
                  std::vector<std::vector<RecordBatch>> partitions, ipc::Compression compression);
  /// Keeps a map task's partitions written to the file at `path` (by a PartitionFileWriter),
  /// readable as "<key>/p<i>"; the store owns the file from now on. `compression` is the one
  /// the file was written with.
  Status PutFile(const std::string& key, PartitionIndex index, std::string path,
                 ipc::Compression compression);
  /// Counts `bytes` a running task holds against the budget, with the entries; false (nothing
  /// reserved) when that would exceed it.
  bool TryReserve(int64_t bytes);
  /// Counts `bytes` whatever the budget (held past it until written out).
  void ForceReserve(int64_t bytes);
  void Release(int64_t bytes);
  /// A path for a new file in the spill directory (created when needed).
  Result<std::string> NewFilePath();
  /// The partition, read back from disk if it was spilled. KeyError naming the id when absent.
  Result<StoredPartition> Get(const std::string& id) const;
  /// The partition as the Flight server sends it (encoded bytes are not decoded).
  Result<ServedPartition> Serve(const std::string& id) const;
  /// As Serve, a spilled partition left unread (ServedPartition::read). An entry dropped before
  /// it is read fails the read, unless its file was open already (then it is read as it was).
  Result<ServedPartition> Locate(const std::string& id) const;
  bool Contains(const std::string& id) const;
  /// Every partition whose id starts with `prefix`.
  std::vector<ListedPartition> List(const std::string& prefix) const;
  /// Drops every partition whose id starts with `prefix` (a finished query's outputs).
  void DropPrefix(const std::string& prefix);
  /// Drops the entry `key` and the partitions named "<key>/..." (a task attempt's outputs, and
  /// copies of them kept here). Returns the bytes freed (in memory and on disk).
  int64_t DropTask(const std::string& key);
  PartitionStoreStats stats() const;
  /// The entries spilled since the last call: (key, bytes written to disk).
  std::vector<std::pair<std::string, int64_t>> TakeSpilled();

 private:
  struct Entry;
  /// The entry holding `id` and the partition's index in it (under the lock).
  std::pair<const Entry*, int> FindLocked(const std::string& id) const;
  Status AddLocked(std::unique_ptr<Entry> entry);
  Status SpillLocked();
  Result<std::string> NewFilePathLocked();
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
  std::vector<std::pair<std::string, int64_t>> spilled_;  // since TakeSpilled
  int64_t next_file_ = 0;
  static constexpr int kMaxOpenFiles = 256;
  mutable int open_files_ = 0;  // entries whose `file` is set
};

/// Bytes of a partition's buffers (what it costs in memory).
int64_t PartitionBytes(const std::vector<RecordBatch>& batches);
/// What holding `batch` costs in memory, as the store's budget counts it: its bytes (SliceBytes)
/// and, per batch and per column, an estimate of the objects and allocation rounding around
/// them. A shuffle of M map tasks into N partitions holds M x N pieces: at M = N = 2,000 a piece
/// is about 1.6 KiB of values and as much again of arrays, buffers and padding, so counting the
/// values alone let a worker's store grow to twice its budget.
int64_t HeldBytes(const RecordBatch& batch);

}  // namespace flotilla::distributed
