#pragma once
// The interface every file format's writer offers, so that dataset writes (partitioning, several
// files, temporary names) work the same for all formats.
#include <cstdint>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::io {

class FormatWriter {
 public:
  virtual ~FormatWriter() = default;
  /// Appends a batch of the writer's schema.
  virtual Status Write(const RecordBatch& batch) = 0;
  /// Writes anything buffered (a footer) and closes the stream.
  virtual Status Close() = 0;
  /// Bytes written to the stream so far (buffered rows not included).
  virtual int64_t bytes_written() const = 0;
  virtual int64_t rows_written() const = 0;
};

}  // namespace flotilla::io
