#include "flotilla/io/json/scan_task.h"

#include "flotilla/io/dataset/hive_partitions.h"
#include "flotilla/io/json/reader.h"

namespace flotilla::io::json {

Result<RecordBatch> JsonScanTask::ReadRange(const std::vector<int>& fields,
                                            std::optional<int64_t> limit) const {
  return ReadJsonRange(range_.file.get(), range_.begin, range_.end, range_.schema, fields, limit);
}

Result<io::FileScan> PlanJsonScan(const std::vector<std::string>& paths,
                                  const JsonReadOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(auto files, text::OpenFiles(paths));
  io::FileScan scan;
  if (options.schema != nullptr) {
    scan.schema = options.schema;
  } else {
    std::vector<text::InferredSchema> inferred;
    for (const auto& file : files) {
      FLOTILLA_ASSIGN_OR_RETURN(text::InferredSchema one, InferJsonFile(file.get(), options));
      inferred.push_back(std::move(one));
    }
    FLOTILLA_ASSIGN_OR_RETURN(scan.schema, text::UnifySchemas(inferred, /*same_columns=*/false));
  }
  std::vector<size_t> task_file;
  for (size_t f = 0; f < files.size(); ++f) {
    const auto& file = files[f];
    std::vector<int64_t> starts = {0, file->size()};
    if (file->size() > options.chunk_bytes && !io::IsHttpUrl(file->name())) {
      FLOTILLA_ASSIGN_OR_RETURN(BufferPtr all, file->ReadAt(0, file->size()));
      starts = SplitLines(all->view(), options.chunk_bytes);
    }
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
      if (starts[k] == starts[k + 1]) continue;
      task_file.push_back(f);
      scan.tasks.push_back(std::make_shared<JsonScanTask>(
          text::TextRange{file, starts[k], starts[k + 1], scan.schema}));
    }
  }
  std::vector<std::string> names;
  for (const auto& file : files)
    names.push_back(file->name());
  FLOTILLA_RETURN_NOT_OK(io::ApplyHivePartitions(names, task_file, &scan));
  return scan;
}

void RegisterJsonScanTasks(io::ScanTaskRegistry* registry) {
  (*registry)["json"] = [](std::string_view bytes) -> Result<std::shared_ptr<const io::ScanTask>> {
    std::string options;
    FLOTILLA_ASSIGN_OR_RETURN(text::TextRange range, text::DeserializeTextRange(bytes, &options));
    return std::shared_ptr<const io::ScanTask>(std::make_shared<JsonScanTask>(std::move(range)));
  };
}

}  // namespace flotilla::io::json
