#pragma once
// Spill files: batches an operator moves out of memory, as compressed Arrow IPC streams in a
// directory of the query's own under one of the spill directories. A SpillFile deletes its file
// when the last reference to it goes; the SpillManager deletes its directory (and anything
// left in it) when the query ends, whether it succeeded or failed.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::io {
class FileOutputStream;
}
namespace flotilla::ipc {
class StreamWriter;
class StreamReader;
}  // namespace flotilla::ipc

namespace flotilla::exec {

/// A finished spill file: read it back any number of times.
class SpillFile {
 public:
  SpillFile(std::string path, SchemaPtr schema, int64_t num_rows, int64_t size_bytes)
      : path_(std::move(path)),
        schema_(std::move(schema)),
        num_rows_(num_rows),
        size_bytes_(size_bytes) {}
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  const std::string& path() const { return path_; }
  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int64_t size_bytes() const { return size_bytes_; }  // on disk

  /// Reads the batches back one at a time, in the order they were written.
  class Reader {
   public:
    virtual ~Reader() = default;
    virtual Result<std::optional<RecordBatch>> Next() = 0;
  };
  Result<std::unique_ptr<Reader>> OpenReader() const;
  /// Every batch at once.
  Result<std::vector<RecordBatch>> ReadAll() const;

 private:
  std::string path_;
  SchemaPtr schema_;
  int64_t num_rows_;
  int64_t size_bytes_;
};

class SpillManager;

/// Writes one spill file; Finish() closes it and returns the readable file.
class SpillWriter {
 public:
  ~SpillWriter();
  Status Write(const RecordBatch& batch);
  Result<std::shared_ptr<SpillFile>> Finish();
  int64_t num_rows() const { return num_rows_; }

 private:
  friend class SpillManager;
  SpillWriter() = default;
  SpillManager* manager_ = nullptr;
  std::string path_;
  SchemaPtr schema_;
  std::unique_ptr<io::FileOutputStream> file_;
  std::unique_ptr<ipc::StreamWriter> writer_;
  int64_t num_rows_ = 0;
};

class SpillManager {
 public:
  /// Files go under the first of `directories` that accepts a new subdirectory (of this
  /// process's, "flotilla-spill-PID-N"). The first time a process spills under a directory it
  /// also removes the spill directories there of processes that no longer exist (killed ones).
  explicit SpillManager(std::vector<std::string> directories);
  /// Removes the query's spill directory and everything in it.
  ~SpillManager();
  SpillManager(const SpillManager&) = delete;
  SpillManager& operator=(const SpillManager&) = delete;

  /// A new spill file for batches of `schema` (lz4-compressed).
  Result<std::unique_ptr<SpillWriter>> Create(SchemaPtr schema);

  /// Totals over the query, for stats.
  int64_t files_written() const { return files_.load(); }
  int64_t bytes_written() const { return bytes_.load(); }
  /// The query's directory ("" before the first spill).
  std::string directory() const;

 private:
  friend class SpillWriter;
  Status EnsureDirectory();

  std::vector<std::string> directories_;
  mutable std::mutex mutex_;
  std::string directory_;
  std::atomic<int64_t> next_id_{0};
  std::atomic<int64_t> files_{0};
  std::atomic<int64_t> bytes_{0};
};

/// Removes the spill directories of every query of this process that is still running: for a
/// process about to die of a signal (cli/signals.h), which runs no destructors.
void RemoveActiveSpillDirectories();

}  // namespace flotilla::exec
