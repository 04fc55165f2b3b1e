#include "flotilla/io/parquet/scan_task.h"

#include "flotilla/io/dataset/hive_partitions.h"
#include "flotilla/io/fs/paths.h"
#include "flotilla/io/parquet/reader_cache.h"

namespace flotilla::io::parquet {

ParquetScanTask::ParquetScanTask(std::shared_ptr<const ParquetFileReader> reader, int begin,
                                 int end)
    : reader_(std::move(reader)), begin_(begin), end_(end) {}

Result<std::vector<RecordBatch>> ParquetScanTask::Read(const io::ScanPushdowns& pushdowns) const {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<int> fields, reader_->FieldIndices(pushdowns.columns));
  std::vector<RecordBatch> out;
  int64_t rows = 0;
  for (int g = begin_; g < end_; ++g) {
    // The limit may stop reading only when no filter runs after us.
    if (pushdowns.limit && pushdowns.filter == nullptr && rows >= *pushdowns.limit) break;
    if (pushdowns.filter != nullptr && !reader_->RowGroupMayMatch(g, pushdowns.filter)) continue;
    FLOTILLA_ASSIGN_OR_RETURN(std::optional<RowRanges> selected,
                              reader_->RowsMayMatch(g, pushdowns.filter));
    if (selected && selected->empty()) continue;
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch,
                              reader_->ReadRowGroup(g, fields, selected ? &*selected : nullptr));
    rows += batch.num_rows();
    out.push_back(std::move(batch));
  }
  return out;
}

int64_t ParquetScanTask::num_rows() const {
  int64_t rows = 0;
  for (int g = begin_; g < end_; ++g)
    rows += reader_->metadata().row_groups[g].num_rows;
  return rows;
}

std::optional<std::pair<int64_t, int64_t>> ParquetScanTask::IntegerRange(
    const std::string& column) const {
  std::optional<std::pair<int64_t, int64_t>> range;
  for (int g = begin_; g < end_; ++g) {
    auto group = reader_->IntegerRange(g, column);
    if (!group) return std::nullopt;
    range = range ? std::make_pair(std::min(range->first, group->first),
                                   std::max(range->second, group->second))
                  : *group;
  }
  return range;
}

int64_t ParquetScanTask::size_bytes() const {
  int64_t bytes = 0;
  for (int g = begin_; g < end_; ++g) {
    const RowGroup& rg = reader_->metadata().row_groups[g];
    bytes += rg.total_compressed_size ? *rg.total_compressed_size : rg.total_byte_size;
  }
  return bytes;
}

std::string ParquetScanTask::ToString() const {
  return "parquet '" + reader_->name() + "' row groups [" + std::to_string(begin_) + ", " +
         std::to_string(end_) + ")";
}

// "begin end path": the worker reopens the file by name.
Result<std::string> ParquetScanTask::Serialize() const {
  return std::to_string(begin_) + " " + std::to_string(end_) + " " + reader_->name();
}

Result<ParquetScan> PlanParquetScan(const std::vector<std::string>& paths) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<io::FileEntry> files, io::ExpandPaths(paths));
  ParquetScan scan;
  std::string first;
  std::vector<std::string> names;
  std::vector<size_t> task_file;
  for (const io::FileEntry& f : files) {
    FLOTILLA_ASSIGN_OR_RETURN(std::shared_ptr<ParquetFileReader> reader, OpenParquetCached(f.path));
    if (scan.schema == nullptr) {
      scan.schema = reader->schema();
      first = f.path;
    } else if (!reader->schema()->Equals(*scan.schema)) {
      return Status::Invalid("parquet files '" + first + "' and '" + f.path +
                             "' have different schemas:\n" + scan.schema->ToString() + "\nand\n" +
                             reader->schema()->ToString());
    }
    for (int g = 0; g < reader->num_row_groups(); ++g) {
      scan.tasks.push_back(std::make_shared<ParquetScanTask>(reader, g, g + 1));
      task_file.push_back(names.size());
    }
    names.push_back(f.path);
  }
  FLOTILLA_RETURN_NOT_OK(io::ApplyHivePartitions(names, task_file, &scan));
  return scan;
}

void RegisterParquetScanTasks(io::ScanTaskRegistry* registry) {
  (*registry)["parquet"] =
      [](std::string_view bytes) -> Result<std::shared_ptr<const io::ScanTask>> {
    const size_t a = bytes.find(' ');
    const size_t b = a == std::string_view::npos ? a : bytes.find(' ', a + 1);
    if (b == std::string_view::npos) return Status::Invalid("malformed parquet scan task");
    int begin = 0, end = 0;
    try {
      begin = std::stoi(std::string(bytes.substr(0, a)));
      end = std::stoi(std::string(bytes.substr(a + 1, b - a - 1)));
    } catch (...) {
      return Status::Invalid("malformed parquet scan task row groups");
    }
    // A worker runs many tasks of one file: its footer is read once (reader_cache.h).
    FLOTILLA_ASSIGN_OR_RETURN(std::shared_ptr<ParquetFileReader> reader,
                              OpenParquetCached(std::string(bytes.substr(b + 1))));
    if (begin < 0 || end < begin || end > reader->num_row_groups())
      return Status::Invalid("parquet scan task row groups [" + std::to_string(begin) + ", " +
                             std::to_string(end) + ") outside '" + reader->name() + "'");
    return std::shared_ptr<const io::ScanTask>(
        std::make_shared<ParquetScanTask>(std::move(reader), begin, end));
  };
}

}  // namespace flotilla::io::parquet
