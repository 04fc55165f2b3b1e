#include "flotilla/io/csv/scan_task.h"

#include "flotilla/io/csv/reader.h"
#include "flotilla/io/csv/tokenizer.h"
#include "flotilla/io/dataset/hive_partitions.h"
#include "flotilla/io/text/packed.h"

namespace flotilla::io::csv {

Result<RecordBatch> CsvScanTask::ReadRange(const std::vector<int>& fields,
                                           std::optional<int64_t> limit) const {
  return ReadCsvRange(range_.file.get(), range_.begin, range_.end, range_.schema, fields, options_,
                      limit);
}

std::string CsvScanTask::SerializeOptions() const {
  return text::Pack({std::string(1, options_.delimiter), std::string(1, options_.quote),
                     std::string(1, options_.escape), text::Pack(options_.null_values)});
}

Result<io::FileScan> PlanCsvScan(const std::vector<std::string>& paths,
                                 const CsvReadOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(auto files, text::OpenFiles(paths));
  std::vector<CsvFileInfo> infos;
  std::vector<text::InferredSchema> inferred;
  for (const auto& file : files) {
    FLOTILLA_ASSIGN_OR_RETURN(CsvFileInfo info, InspectCsvFile(file.get(), options));
    inferred.push_back(info.columns);
    infos.push_back(std::move(info));
  }
  io::FileScan scan;
  if (options.schema != nullptr) {
    scan.schema = options.schema;
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(scan.schema, text::UnifySchemas(inferred, /*same_columns=*/true));
  }
  std::vector<size_t> task_file;
  for (size_t f = 0; f < files.size(); ++f) {
    const auto& file = files[f];
    std::vector<int64_t> starts = {infos[f].data_offset, file->size()};
    if (file->size() - infos[f].data_offset > options.chunk_bytes && !io::IsHttpUrl(file->name())) {
      FLOTILLA_ASSIGN_OR_RETURN(BufferPtr all, file->ReadAt(0, file->size()));
      FLOTILLA_ASSIGN_OR_RETURN(
          starts, SplitRows(all->view(), infos[f].data_offset, options.parse, options.chunk_bytes,
                            text::LineLocator(file.get(), 0, all->view())));
    }
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
      if (starts[k] == starts[k + 1]) continue;
      task_file.push_back(f);
      scan.tasks.push_back(std::make_shared<CsvScanTask>(
          text::TextRange{file, starts[k], starts[k + 1], scan.schema}, options.parse));
    }
  }
  std::vector<std::string> names;
  for (const auto& file : files)
    names.push_back(file->name());
  FLOTILLA_RETURN_NOT_OK(io::ApplyHivePartitions(names, task_file, &scan));
  return scan;
}

void RegisterCsvScanTasks(io::ScanTaskRegistry* registry) {
  (*registry)["csv"] = [](std::string_view bytes) -> Result<std::shared_ptr<const io::ScanTask>> {
    std::string packed;
    FLOTILLA_ASSIGN_OR_RETURN(text::TextRange range, text::DeserializeTextRange(bytes, &packed));
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<std::string> parts, text::Unpack(packed, 4));
    if (parts[0].size() != 1 || parts[1].size() != 1 || parts[2].size() != 1)
      return Status::Invalid("malformed csv scan task options");
    CsvParseOptions options;
    options.delimiter = parts[0][0];
    options.quote = parts[1][0];
    options.escape = parts[2][0];
    FLOTILLA_ASSIGN_OR_RETURN(options.null_values, text::UnpackAll(parts[3]));
    return std::shared_ptr<const io::ScanTask>(
        std::make_shared<CsvScanTask>(std::move(range), std::move(options)));
  };
}

}  // namespace flotilla::io::csv
