#pragma once
// CSV as a scan source: each file inspected (header, inferred or given schema), large local files
// split into row-aligned ranges of about chunk_bytes that are parsed in parallel.
#include <string>
#include <vector>

#include "flotilla/io/csv/options.h"
#include "flotilla/io/file_scan.h"
#include "flotilla/io/scan_task.h"
#include "flotilla/io/text/range_task.h"

namespace flotilla::io::csv {

class CsvScanTask final : public text::TextRangeTask {
 public:
  CsvScanTask(text::TextRange range, CsvParseOptions options)
      : TextRangeTask(std::move(range)), options_(std::move(options)) {}
  std::string kind() const override { return "csv"; }

 protected:
  Result<RecordBatch> ReadRange(const std::vector<int>& fields,
                                std::optional<int64_t> limit) const override;
  std::string SerializeOptions() const override;

 private:
  CsvParseOptions options_;
};

/// Expands `paths` and plans their scan. Without options.schema the schema is inferred from a
/// sample of every file and unified (the files must have the same column names).
Result<io::FileScan> PlanCsvScan(const std::vector<std::string>& paths,
                                 const CsvReadOptions& options = {});

/// Lets DeserializePlan rebuild CSV scan tasks.
void RegisterCsvScanTasks(io::ScanTaskRegistry* registry);

}  // namespace flotilla::io::csv
