#pragma once
// Writing a table as a dataset: a directory of files in one format, optionally partitioned into
// `col=value/` directories (Hive style: the partition columns are in the path, not the files),
// each partition's rows spread over as many files as the size targets ask for. Files are written
// under hidden temporary names (which readers skip) and renamed into place by Finish, so a failed
// or abandoned write leaves no partial file visible. Finish returns the written files as a table.
#include <memory>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/io/csv/options.h"
#include "flotilla/io/parquet/writer.h"

namespace flotilla::io {

enum class FileFormat : uint8_t { kParquet, kCsv, kJson };
/// "parquet", "csv", "json" (any case); an error naming the choices otherwise.
Result<FileFormat> ParseFileFormat(std::string_view name);
const char* FileExtension(FileFormat format);  // "parquet", "csv", "json"

struct DatasetWriteOptions {
  FileFormat format = FileFormat::kParquet;
  /// Columns whose values name the directories rows go to, outermost first.
  std::vector<std::string> partition_by;
  /// A new file is started once the current one of a partition holds this many rows (0: no
  /// limit) or has written this many bytes.
  int64_t max_rows_per_file = 0;
  int64_t target_file_bytes = int64_t{512} << 20;
  /// Files open at once (one per partition being written); beyond it the oldest is finished.
  int max_open_files = 64;
  parquet::ParquetWriteOptions parquet;
  csv::CsvWriteOptions csv;
};

class FormatWriter;
class OutputStream;
/// A writer of one file of `options.format` on `stream`.
Result<std::unique_ptr<FormatWriter>> OpenFormatWriter(std::unique_ptr<OutputStream> stream,
                                                       SchemaPtr schema,
                                                       const DatasetWriteOptions& options);

class DatasetWriter {
 public:
  /// Writes under directory `root` (created if missing) rows of `schema`.
  static Result<std::unique_ptr<DatasetWriter>> Open(std::string root, SchemaPtr schema,
                                                     DatasetWriteOptions options = {});
  /// Removes the files of an unfinished write.
  ~DatasetWriter();

  Status Write(const RecordBatch& batch);
  /// Finishes every file and renames them into place. The result has one row per file:
  /// path (string), one string column per partition column (the value, null for null), rows
  /// (int64), bytes (int64), in the order the files were started.
  Result<RecordBatch> Finish();
  /// Removes every file written so far (the write failed or was cancelled).
  void Abort();

 private:
  struct Impl;
  explicit DatasetWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Opens a DatasetWriter, writes `batches` and finishes; on error nothing is left behind.
Result<RecordBatch> WriteDataset(const std::string& root, const SchemaPtr& schema,
                                 const std::vector<RecordBatch>& batches,
                                 const DatasetWriteOptions& options = {});

/// The directory name of a partition value: "col=value", the value percent-encoded where it
/// holds characters paths cannot ("/", "=", "%", control characters...); null as
/// __HIVE_DEFAULT_PARTITION__.
std::string PartitionDirectory(const std::string& column, const std::string* value);

}  // namespace flotilla::io
