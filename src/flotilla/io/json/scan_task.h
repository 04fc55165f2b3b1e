#pragma once
// Newline-delimited JSON as a scan source: the schema inferred from a sample of every file (or
// given), large local files split at line starts into ranges parsed in parallel.
#include <string>
#include <vector>

#include "flotilla/io/file_scan.h"
#include "flotilla/io/json/options.h"
#include "flotilla/io/scan_task.h"
#include "flotilla/io/text/range_task.h"

namespace flotilla::io::json {

class JsonScanTask final : public text::TextRangeTask {
 public:
  explicit JsonScanTask(text::TextRange range) : TextRangeTask(std::move(range)) {}
  std::string kind() const override { return "json"; }

 protected:
  Result<RecordBatch> ReadRange(const std::vector<int>& fields,
                                std::optional<int64_t> limit) const override;
  std::string SerializeOptions() const override { return ""; }
};

/// Expands `paths` and plans their scan. Without options.schema, each file's schema is inferred
/// and the schemas are unified by column name (a key missing from a file is null there).
Result<io::FileScan> PlanJsonScan(const std::vector<std::string>& paths,
                                  const JsonReadOptions& options = {});

/// Lets DeserializePlan rebuild JSON scan tasks.
void RegisterJsonScanTasks(io::ScanTaskRegistry* registry);

}  // namespace flotilla::io::json
