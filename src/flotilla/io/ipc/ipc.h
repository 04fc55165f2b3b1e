#pragma once
// Arrow IPC: the streaming format and the random-access file format, reader and writer, for
// every type of the columnar core, with optional lz4_frame or zstd body compression. Written
// from the Arrow format specification; the flatbuffer metadata schemas are in format/.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/io/stream.h"

namespace flotilla::ipc {

enum class Compression { kNone, kLz4Frame, kZstd };

/// "none", "lz4" / "lz4_frame", "zstd".
Result<Compression> ParseCompression(std::string_view name);

struct WriteOptions {
  Compression compression = Compression::kNone;
  int zstd_level = 1;
  /// Buffers smaller than this are stored uncompressed (length -1), as the spec allows.
  int64_t min_compress_bytes = 0;
};

/// Writes the streaming format: schema, [dictionaries, batch]..., end-of-stream marker.
/// Dictionary-encoded columns send their dictionary before the first batch that uses it and a
/// replacement whenever a later batch carries a different dictionary.
class StreamWriter {
 public:
  static Result<std::unique_ptr<StreamWriter>> Open(io::OutputStream* sink, SchemaPtr schema,
                                                    WriteOptions options = {});
  virtual ~StreamWriter() = default;
  virtual Status WriteBatch(const RecordBatch& batch) = 0;
  /// Writes the end-of-stream marker. Does not close the sink.
  virtual Status Close() = 0;
};

/// Writes the file format: magic, stream, footer (with block offsets), magic.
class FileWriter {
 public:
  static Result<std::unique_ptr<FileWriter>> Open(io::OutputStream* sink, SchemaPtr schema,
                                                  WriteOptions options = {});
  virtual ~FileWriter() = default;
  virtual Status WriteBatch(const RecordBatch& batch) = 0;
  virtual Status Close() = 0;
};

/// Reads the streaming format message by message.
class StreamReader {
 public:
  static Result<std::unique_ptr<StreamReader>> Open(std::unique_ptr<io::InputStream> source);
  virtual ~StreamReader() = default;
  virtual const SchemaPtr& schema() const = 0;
  /// The next batch, or nullopt at the end of the stream.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};

/// Random access to the batches of an IPC file. Opened over a Buffer (e.g. a mapped file), the
/// uncompressed batches it returns are zero-copy views of that buffer.
class FileReader {
 public:
  static Result<std::unique_ptr<FileReader>> Open(BufferPtr file);
  /// Maps `path` and opens it.
  static Result<std::unique_ptr<FileReader>> Open(const std::string& path);
  virtual ~FileReader() = default;
  virtual const SchemaPtr& schema() const = 0;
  virtual int num_batches() const = 0;
  virtual Result<RecordBatch> ReadBatch(int i) = 0;
  /// The whole file the batches are read from (the mapping, when opened by path).
  virtual const BufferPtr& source() const = 0;
};

// Conveniences over the classes above.
Result<BufferPtr> WriteStreamToBuffer(const SchemaPtr& schema,
                                      const std::vector<RecordBatch>& batches,
                                      WriteOptions options = {});
Result<BufferPtr> WriteFileToBuffer(const SchemaPtr& schema,
                                    const std::vector<RecordBatch>& batches,
                                    WriteOptions options = {});
Status WriteFile(const std::string& path, const SchemaPtr& schema,
                 const std::vector<RecordBatch>& batches, WriteOptions options = {});
Status WriteStreamFile(const std::string& path, const SchemaPtr& schema,
                       const std::vector<RecordBatch>& batches, WriteOptions options = {});
/// Reads every batch of a stream held in memory.
Result<std::vector<RecordBatch>> ReadStream(BufferPtr stream, SchemaPtr* schema_out = nullptr);
/// Reads every batch of an IPC file (format detected: file or stream).
Result<std::vector<RecordBatch>> ReadFile(const std::string& path, SchemaPtr* schema_out = nullptr);

}  // namespace flotilla::ipc
