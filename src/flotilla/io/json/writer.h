#pragma once
// Writing newline-delimited JSON: one object per row, keys in schema order, nulls written as
// null; lists as arrays, structs as objects, dates and timestamps as strings
// (text/value_format.h).
#include <memory>
#include <string>
#include <vector>

#include "flotilla/io/format_writer.h"
#include "flotilla/io/stream.h"

namespace flotilla::io::json {

class JsonFileWriter final : public io::FormatWriter {
 public:
  /// Writes to `out` (owned, closed by Close). Binary columns are a TypeError.
  static Result<std::unique_ptr<JsonFileWriter>> Open(std::unique_ptr<io::OutputStream> out,
                                                      SchemaPtr schema);
  Status Write(const RecordBatch& batch) override;
  Status Close() override { return out_->Close(); }
  int64_t bytes_written() const override { return out_->Tell(); }
  int64_t rows_written() const override { return rows_; }

 private:
  JsonFileWriter(std::unique_ptr<io::OutputStream> out, SchemaPtr schema);

  std::unique_ptr<io::OutputStream> out_;
  SchemaPtr schema_;
  std::vector<std::string> keys_;  // "\"name\":" per column
  int64_t rows_ = 0;
};

/// Writes `batches` to `path`, atomically (fs/atomic_write.h).
Status WriteJsonFile(const std::string& path, const SchemaPtr& schema,
                     const std::vector<RecordBatch>& batches);

}  // namespace flotilla::io::json
