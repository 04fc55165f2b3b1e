#pragma once
// Parquet as a scan source of the engine: files described as scan tasks over row-group ranges
// (the units the distributed planner later splits and merges), each reading its row groups with
// the scan's column projection, skipping row groups whose statistics exclude the filter and
// pages whose page-index statistics do, and stopping early at the limit.
#include <memory>
#include <string>
#include <vector>

#include "flotilla/io/file_scan.h"
#include "flotilla/io/parquet/reader.h"
#include "flotilla/io/scan_task.h"

namespace flotilla::io::parquet {

class ParquetScanTask final : public io::ScanTask {
 public:
  /// Row groups [begin, end) of `reader`'s file.
  ParquetScanTask(std::shared_ptr<const ParquetFileReader> reader, int begin, int end);

  Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns& pushdowns) const override;
  int64_t num_rows() const override;
  int64_t size_bytes() const override;
  std::optional<std::pair<int64_t, int64_t>> IntegerRange(const std::string& column) const override;
  std::string ToString() const override;
  std::string kind() const override { return "parquet"; }
  Result<std::string> Serialize() const override;

  const ParquetFileReader& reader() const { return *reader_; }
  int begin() const { return begin_; }
  int end() const { return end_; }

 private:
  std::shared_ptr<const ParquetFileReader> reader_;
  int begin_, end_;
};

using ParquetScan = io::FileScan;

/// Expands `paths` (files, directories, globs, URLs), opens every file's footer and describes
/// them as one task per row group; `key=value` directories in the paths become columns
/// (dataset/hive_partitions.h). Every file must have the first file's schema; an error names
/// the two files and the difference otherwise.
Result<ParquetScan> PlanParquetScan(const std::vector<std::string>& paths);

/// Lets DeserializePlan rebuild Parquet scan tasks.
void RegisterParquetScanTasks(io::ScanTaskRegistry* registry);

}  // namespace flotilla::io::parquet
