#pragma once
// Writing Parquet files: Arrow schema to Parquet schema (3-level lists, logical types), record
// shredding into definition/repetition levels, dictionary encoding with a PLAIN fallback,
// v1 data pages compressed with the chosen codec, column chunk statistics, and the page index
// (per-page min/max and locations) that lets readers skip pages.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/io/format_writer.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/io/stream.h"

namespace flotilla::io::parquet {

struct ParquetWriteOptions {
  Codec codec = Codec::kZstd;
  int compression_level = 0;                     // 0: the codec's default
  int64_t row_group_bytes = int64_t{128} << 20;  // in-memory bytes buffered per row group
  int64_t row_group_rows = 1 << 20;
  int64_t page_bytes = 1 << 20;  // target encoded size of a data page
  int64_t page_rows = 20000;     // most rows in a data page, so the page index can prune
  bool dictionary = true;
  int64_t dictionary_bytes = 1 << 20;  // above this a chunk falls back to PLAIN
  bool statistics = true;
  /// Threads encoding a row group's column chunks (0: one per hardware thread).
  int encode_threads = 0;
};

class ParquetFileWriter final : public io::FormatWriter {
 public:
  /// Writes to `out` (which the writer owns and closes).
  static Result<std::unique_ptr<ParquetFileWriter>> Open(std::unique_ptr<io::OutputStream> out,
                                                         SchemaPtr schema,
                                                         ParquetWriteOptions options = {});
  ~ParquetFileWriter() override;

  /// Buffers `batch` (of the writer's schema); full row groups are encoded and written.
  Status Write(const RecordBatch& batch) override;
  /// Writes the buffered rows and the footer, and closes the stream.
  Status Close() override;

  int64_t rows_written() const override { return rows_written_; }
  int64_t bytes_written() const override;

 private:
  struct Impl;
  ParquetFileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  int64_t rows_written_ = 0;
};

/// Writes `batches` to `path` under a temporary name in the same directory, renamed into place
/// once complete: a failed write leaves no file at `path`.
Status WriteParquetFile(const std::string& path, const SchemaPtr& schema,
                        const std::vector<RecordBatch>& batches,
                        const ParquetWriteOptions& options = {});

}  // namespace flotilla::io::parquet
