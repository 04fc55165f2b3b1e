#pragma once
// A file of partitions: what a map task writes when its output does not stay in memory, and
// what the store writes when it spills an entry. Each partition's batches are appended in
// chunks (a run of Arrow IPC record batch messages each) as they come, so a map task writes its
// partitions while it runs into one file, whatever their number; the index keeps each
// partition's byte ranges. A partition is read back as one IPC stream (the schema message, its
// chunks in order, the end marker), which the Flight server sends as it is, without decoding.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/common/result.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::io {
class FileOutputStream;
}

namespace flotilla::distributed {

/// Buffers smaller than this (validity bitmaps, short offsets) compress to nothing worth a
/// frame header.
inline constexpr int64_t kMinCompressBytes = 256;

struct ByteRange {
  int64_t offset = 0;
  int64_t length = 0;
};

/// Where each partition of a file is, and what it holds.
struct PartitionIndex {
  SchemaPtr schema;
  BufferPtr schema_message;                    // the stream's first message
  BufferPtr end_marker;                        // its last
  std::vector<std::vector<ByteRange>> chunks;  // partition i's messages, in order
  std::vector<int64_t> rows;                   // rows of partition i
  std::vector<int64_t> decoded_bytes;          // what partition i's batches take in memory

  int count() const { return static_cast<int>(rows.size()); }
  /// Bytes of partition i's stream.
  int64_t StreamBytes(int i) const;
  /// Bytes of every partition's chunks (the file's size).
  int64_t FileBytes() const;
};

/// Writes partitions of batches of one schema into one file, in chunks.
class PartitionFileWriter {
 public:
  /// Creates `path` for `count` partitions, their bodies compressed with `compression` (buffers
  /// under kMinCompressBytes stay as they are).
  static Result<std::unique_ptr<PartitionFileWriter>> Open(const std::string& path,
                                                           SchemaPtr schema, int count,
                                                           ipc::Compression compression);
  ~PartitionFileWriter();
  PartitionFileWriter(const PartitionFileWriter&) = delete;
  PartitionFileWriter& operator=(const PartitionFileWriter&) = delete;

  /// Appends `batches` to partition `i` as one chunk (none when they hold no rows).
  Status Append(int i, const std::vector<RecordBatch>& batches);
  /// Closes the file; the index of what was written.
  Result<PartitionIndex> Finish();
  const std::string& path() const { return path_; }

 private:
  class Sink;
  PartitionFileWriter() = default;
  std::string path_;
  ipc::WriteOptions options_;
  std::unique_ptr<io::FileOutputStream> file_;
  std::unique_ptr<Sink> sink_;
  PartitionIndex index_;
};

/// Partition `i` of the file at `path` as one IPC stream.
Result<BufferPtr> ReadPartitionStream(const std::string& path, const PartitionIndex& index, int i);

/// A partition file kept open for reading (closed when the last holder lets go): a file is
/// read once per reducer, and opening it each time costs more than reading a small piece.
class OpenPartitionFile {
 public:
  static Result<std::shared_ptr<const OpenPartitionFile>> Open(const std::string& path);
  ~OpenPartitionFile();
  OpenPartitionFile(const OpenPartitionFile&) = delete;
  OpenPartitionFile& operator=(const OpenPartitionFile&) = delete;

  /// Partition `i` as one IPC stream, as ReadPartitionStream.
  Result<BufferPtr> ReadStream(const PartitionIndex& index, int i) const;

 private:
  OpenPartitionFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

/// The batches of one partition's stream (uncompressed bodies are views of `stream`).
Result<std::vector<RecordBatch>> DecodePartition(const BufferPtr& stream);

}  // namespace flotilla::distributed
