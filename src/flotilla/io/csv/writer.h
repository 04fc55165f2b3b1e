#pragma once
// Writing CSV: a header row, then one line per row; fields quoted when they hold the delimiter, a
// quote, a line break, or would read back as null.
#include <memory>
#include <string>
#include <vector>

#include "flotilla/io/csv/options.h"
#include "flotilla/io/format_writer.h"
#include "flotilla/io/stream.h"

namespace flotilla::io::csv {

class CsvFileWriter final : public io::FormatWriter {
 public:
  /// Writes to `out` (owned, closed by Close). Nested and binary columns are a TypeError.
  static Result<std::unique_ptr<CsvFileWriter>> Open(std::unique_ptr<io::OutputStream> out,
                                                     SchemaPtr schema,
                                                     CsvWriteOptions options = {});
  Status Write(const RecordBatch& batch) override;
  Status Close() override;
  int64_t bytes_written() const override { return out_->Tell(); }
  int64_t rows_written() const override { return rows_; }

 private:
  CsvFileWriter(std::unique_ptr<io::OutputStream> out, SchemaPtr schema, CsvWriteOptions options)
      : out_(std::move(out)), schema_(std::move(schema)), options_(std::move(options)) {}
  void AppendField(std::string_view text, bool may_be_null_text, std::string* line) const;

  std::unique_ptr<io::OutputStream> out_;
  SchemaPtr schema_;
  CsvWriteOptions options_;
  int64_t rows_ = 0;
};

/// Writes `batches` to `path`, atomically (fs/atomic_write.h).
Status WriteCsvFile(const std::string& path, const SchemaPtr& schema,
                    const std::vector<RecordBatch>& batches, const CsvWriteOptions& options = {});

}  // namespace flotilla::io::csv
