#pragma once
// Body compression codecs of the IPC format (one compressed frame per buffer).

#include <cstdint>
#include <memory>

#include "flotilla/columnar/buffer.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::ipc {

/// A compressor/decompressor for one codec. Keeps its library contexts between calls, so one
/// instance must not be used from two threads at once.
class Codec {
 public:
  static Result<std::unique_ptr<Codec>> Make(Compression compression, int level = 1);
  virtual ~Codec() = default;

  /// Appends the compressed form of `data` to `out` starting at `out_offset` (growing `out`).
  /// Returns the number of compressed bytes.
  virtual Result<int64_t> Compress(const uint8_t* data, int64_t size, Buffer* out,
                                   int64_t out_offset) = 0;
  /// Decompresses `input` into exactly `out_size` bytes at `out`; anything else is an error.
  virtual Status Decompress(const uint8_t* input, int64_t input_size, uint8_t* out,
                            int64_t out_size) = 0;
};

/// The largest uncompressed size accepted for one buffer of `compressed_size` bytes. The real
/// ratios of lz4 (~255) and zstd (~32768, RLE blocks) stay far below this, so the bound only
/// rejects corrupt lengths, before they turn into a huge allocation.
int64_t MaxDecompressedSize(int64_t compressed_size);

}  // namespace flotilla::ipc
