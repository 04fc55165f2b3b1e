#pragma once
// WARC files (web archives, as Common Crawl ships its WARC and WET files) as a scan source: one
// row per record, one scan task per file.
#include <memory>
#include <string>
#include <vector>

#include "flotilla/io/file_scan.h"
#include "flotilla/io/fs/file.h"
#include "flotilla/io/scan_task.h"
#include "flotilla/io/warc/options.h"

namespace flotilla::io::warc {

/// warc_version, record_id, record_type, target_uri, date (timestamp[us, UTC]), content_type,
/// content_length, headers (list<struct<name, value>>: every header field in file order),
/// payload (binary: the record's block), record_offset (where the record starts in the file; for
/// gzip files the start of its gzip member). Absent header fields are null.
SchemaPtr WarcSchema();

class WarcScanTask final : public io::ScanTask {
 public:
  WarcScanTask(std::shared_ptr<io::RandomAccessFile> file, WarcReadOptions options)
      : file_(std::move(file)), options_(options) {}

  Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns& pushdowns) const override;
  int64_t size_bytes() const override { return file_->size(); }
  std::string ToString() const override { return "warc '" + file_->name() + "'"; }
  std::string kind() const override { return "warc"; }
  Result<std::string> Serialize() const override;

 private:
  std::shared_ptr<io::RandomAccessFile> file_;
  WarcReadOptions options_;
};

/// Expands `paths` (files, directories, globs) and plans their scan.
Result<io::FileScan> PlanWarcScan(const std::vector<std::string>& paths,
                                  const WarcReadOptions& options = {});

/// Lets DeserializePlan rebuild WARC scan tasks.
void RegisterWarcScanTasks(io::ScanTaskRegistry* registry);

}  // namespace flotilla::io::warc
