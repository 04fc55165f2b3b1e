#pragma once
// Page compression codecs of Parquet: none, snappy, gzip, brotli, zstd, lz4_raw and lz4 (Hadoop's
// framing). Each page is one compressed unit whose uncompressed size the page header gives.
#include <cstdint>
#include <memory>
#include <string>

#include "flotilla/common/result.h"
#include "flotilla/io/parquet/metadata.h"

namespace flotilla::io::parquet {

class PageCodec {
 public:
  /// `level`: the codec's compression level, or 0 for its default.
  static Result<std::unique_ptr<PageCodec>> Make(Codec codec, int level = 0);
  virtual ~PageCodec() = default;

  /// Decompresses `input` into exactly `out_size` bytes at `out`; any other size is an error.
  virtual Status Decompress(const uint8_t* input, int64_t input_size, uint8_t* out,
                            int64_t out_size) = 0;
  /// Appends the compressed form of `input` to `out`.
  virtual Status Compress(const uint8_t* input, int64_t input_size, std::string* out) = 0;
};

/// This thread's decompressor for `codec`, made on first use and kept: a chunk reader borrows
/// it rather than making its own (a zstd context costs about as much as decoding a page).
Result<PageCodec*> ThreadDecompressor(Codec codec);

/// Parses a codec name as written in options ("zstd", "snappy", "none", ...), case-insensitive.
Result<Codec> ParseCodec(const std::string& name);

}  // namespace flotilla::io::parquet
