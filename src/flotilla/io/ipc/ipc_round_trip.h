#pragma once
// Helpers shared by the IPC tests.

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "flotilla/io/ipc/ipc.h"

namespace flotilla::testing {

// The IPC tests speak its terms (write options, streams).
using namespace ::flotilla::ipc;  // NOLINT

/// A fresh path in the test temporary directory.
inline std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/flotilla_ipc_" + std::to_string(::getpid()) + "_" + name;
}

/// Touches every value of every column (catches arrays that validate but cannot be walked).
inline void WalkValues(const RecordBatch& batch) {
  size_t total = 0;
  for (const Array& column : batch.columns())
    total += column.ToString().size();
  EXPECT_GE(total, 0u);
}

/// Writes `batches` in the stream (file = false) or file format and reads them back.
inline Result<std::vector<RecordBatch>> RoundTrip(const SchemaPtr& schema,
                                                  const std::vector<RecordBatch>& batches,
                                                  bool file, WriteOptions options = {}) {
  if (!file) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bytes, WriteStreamToBuffer(schema, batches, options));
    return ReadStream(bytes);
  }
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bytes, WriteFileToBuffer(schema, batches, options));
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, FileReader::Open(bytes));
  std::vector<RecordBatch> out;
  for (int i = 0; i < reader->num_batches(); ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch b, reader->ReadBatch(i));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace flotilla::testing
