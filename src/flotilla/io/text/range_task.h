#pragma once
// A scan task over a byte range of a text file (CSV, JSON): both ends at row starts, so ranges of
// one file are read independently and in parallel. Each format supplies the range reader and
// how its options travel in a serialized plan.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/io/fs/file.h"
#include "flotilla/io/scan_task.h"

namespace flotilla::io::text {

struct TextRange {
  std::shared_ptr<io::RandomAccessFile> file;
  int64_t begin = 0, end = 0;
  SchemaPtr schema;  // of the whole file, before projection
};

class TextRangeTask : public io::ScanTask {
 public:
  explicit TextRangeTask(TextRange range) : range_(std::move(range)) {}

  Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns& pushdowns) const override;
  int64_t size_bytes() const override { return range_.end - range_.begin; }
  std::string ToString() const override;
  /// The range, the schema and SerializeOptions(), packed.
  Result<std::string> Serialize() const override;

  const TextRange& range() const { return range_; }

 protected:
  virtual Result<RecordBatch> ReadRange(const std::vector<int>& fields,
                                        std::optional<int64_t> limit) const = 0;
  virtual std::string SerializeOptions() const = 0;

  TextRange range_;
};

/// Reopens the range Serialize wrote; `options` receives the format's options bytes.
Result<TextRange> DeserializeTextRange(std::string_view bytes, std::string* options);

/// `patterns` expanded into files, opened. An error when nothing matches.
Result<std::vector<std::shared_ptr<io::RandomAccessFile>>> OpenFiles(
    const std::vector<std::string>& patterns);

}  // namespace flotilla::io::text
