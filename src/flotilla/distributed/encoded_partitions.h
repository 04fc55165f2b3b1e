#pragma once
// A store entry's partitions as they are spilled and served from disk: each partition one Arrow
// IPC stream (schema, batches, end marker), back to back in one buffer, with a byte range per
// partition. The store writes the buffer as one file; the Flight server sends a partition's
// messages as they are there, without decoding them.
#include <cstdint>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/common/result.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::distributed {

/// Buffers smaller than this (validity bitmaps, short offsets) compress to nothing worth a
/// frame header.
inline constexpr int64_t kMinCompressBytes = 256;

struct EncodedPartitions {
  SchemaPtr schema;
  BufferPtr bytes;
  std::vector<int64_t> offsets;        // partition i is bytes [offsets[i], offsets[i + 1])
  std::vector<int64_t> rows;           // rows of partition i
  std::vector<int64_t> decoded_bytes;  // what partition i's batches take in memory

  int count() const { return static_cast<int>(rows.size()); }
  int64_t size(int i) const { return offsets[i + 1] - offsets[i]; }
};

/// Encodes `partitions` (each a list of batches of `schema`), their bodies compressed with
/// `compression` (buffers under kMinCompressBytes stay as they are).
Result<EncodedPartitions> EncodePartitions(const SchemaPtr& schema,
                                           const std::vector<std::vector<RecordBatch>>& partitions,
                                           ipc::Compression compression);

/// The batches of one partition's stream (uncompressed bodies are views of `stream`).
Result<std::vector<RecordBatch>> DecodePartition(const BufferPtr& stream);

}  // namespace flotilla::distributed
