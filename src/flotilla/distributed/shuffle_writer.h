#pragma once
// A map task's side of the shuffle: takes each morsel's pieces as the repartition splits them
// and holds them while the worker's store budget allows, reserving what it holds from that
// budget. Past it, the writer appends what it holds to a file of the task's own, a chunk per
// partition, and goes on; so a map task's output never needs to fit in memory, and each map
// task that spills writes one file, whatever its number of partitions. The finished output goes
// into the store as one entry either way.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "flotilla/distributed/partition_store.h"
#include "flotilla/exec/pipeline/partition_writer.h"

namespace flotilla::distributed {

/// Bytes a writer holds past a spent budget before it writes them out: chunks of this much
/// over all partitions, so that they are not a few rows each.
inline constexpr int64_t kShuffleFlushBytes = int64_t{16} << 20;

class ShuffleWriter final : public exec::PartitionWriter {
 public:
  ShuffleWriter(PartitionStore* store, SchemaPtr schema, int partitions,
                ipc::Compression compression, int64_t flush_bytes = kShuffleFlushBytes);
  /// Gives back what it reserved; deletes its file unless Finish handed it to the store.
  ~ShuffleWriter() override;
  ShuffleWriter(const ShuffleWriter&) = delete;
  ShuffleWriter& operator=(const ShuffleWriter&) = delete;

  Status Write(std::vector<std::vector<RecordBatch>> pieces) override;
  /// Puts the partitions into the store as the entry `key` ("<key>/p<i>").
  Status Finish(const std::string& key);

  /// Per partition: rows, and bytes in memory (before encoding).
  const std::vector<int64_t>& rows() const { return rows_; }
  const std::vector<int64_t>& bytes() const { return bytes_; }
  /// Times what was held went to the file.
  int64_t flushes() const { return flushes_; }
  /// The most held in memory at once.
  int64_t peak_bytes() const { return peak_; }
  /// Bytes written to its file (once finished).
  int64_t file_bytes() const { return file_bytes_; }

 private:
  Status FlushLocked();

  PartitionStore* store_;
  SchemaPtr schema_;
  ipc::Compression compression_;
  int64_t flush_bytes_;
  std::mutex mutex_;
  std::vector<std::vector<RecordBatch>> held_;
  int64_t reserved_ = 0;  // what `held_` takes, counted in the store
  int64_t peak_ = 0;
  int64_t flushes_ = 0;
  int64_t file_bytes_ = 0;
  std::unique_ptr<PartitionFileWriter> file_;  // from the first flush
  std::vector<int64_t> rows_, bytes_;
};

}  // namespace flotilla::distributed
