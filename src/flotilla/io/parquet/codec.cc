#include "flotilla/io/parquet/codec.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>

namespace flotilla::io::parquet {

namespace {

Status SizeMismatch(const char* codec, int64_t got, int64_t want) {
  return Status::Invalid(std::string(codec) + " page decompressed to " + std::to_string(got) +
                         " bytes, the header says " + std::to_string(want));
}

class Uncompressed final : public PageCodec {
 public:
  Status Decompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) override {
    if (n != out_size) return SizeMismatch("uncompressed", n, out_size);
    if (n > 0) std::memcpy(out, in, static_cast<size_t>(n));
    return Status::OK();
  }
  Status Compress(const uint8_t* in, int64_t n, std::string* out) override {
    out->append(reinterpret_cast<const char*>(in), static_cast<size_t>(n));
    return Status::OK();
  }
};

class Snappy final : public PageCodec {
 public:
  Status Decompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) override {
    size_t length = 0;
    const char* src = reinterpret_cast<const char*>(in);
    if (snappy_uncompressed_length(src, static_cast<size_t>(n), &length) != SNAPPY_OK)
      return Status::Invalid("corrupt snappy page: bad length header");
    if (static_cast<int64_t>(length) != out_size)
      return SizeMismatch("snappy", static_cast<int64_t>(length), out_size);
    if (snappy_uncompress(src, static_cast<size_t>(n), reinterpret_cast<char*>(out), &length) !=
        SNAPPY_OK)
      return Status::Invalid("corrupt snappy page");
    return Status::OK();
  }
  Status Compress(const uint8_t* in, int64_t n, std::string* out) override {
    const size_t start = out->size();
    size_t length = snappy_max_compressed_length(static_cast<size_t>(n));
    out->resize(start + length);
    if (snappy_compress(reinterpret_cast<const char*>(in), static_cast<size_t>(n),
                        out->data() + start, &length) != SNAPPY_OK)
      return Status::Internal("snappy compression failed");
    out->resize(start + length);
    return Status::OK();
  }
};

class Gzip final : public PageCodec {
 public:
  explicit Gzip(int level) : level_(level == 0 ? 6 : level) {}
  Status Decompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) override {
    z_stream z{};
    // 15 + 32: accept both gzip and zlib headers (older writers used zlib streams).
    if (inflateInit2(&z, 15 + 32) != Z_OK) return Status::Internal("zlib inflateInit2 failed");
    z.next_in = const_cast<Bytef*>(in);
    z.avail_in = static_cast<uInt>(n);
    z.next_out = out;
    z.avail_out = static_cast<uInt>(out_size);
    int rc;
    // A page may hold several concatenated gzip members.
    while ((rc = inflate(&z, Z_FINISH)) == Z_STREAM_END && z.avail_in > 0 && z.avail_out > 0) {
      if (inflateReset(&z) != Z_OK) break;
    }
    const int64_t produced = out_size - z.avail_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
      if (rc == Z_BUF_ERROR && z.avail_out == 0)
        return Status::Invalid("gzip page decompresses to more than the header's " +
                               std::to_string(out_size) + " bytes");
      return Status::Invalid("corrupt gzip page (zlib error " + std::to_string(rc) + ")");
    }
    if (produced != out_size) return SizeMismatch("gzip", produced, out_size);
    return Status::OK();
  }
  Status Compress(const uint8_t* in, int64_t n, std::string* out) override {
    z_stream z{};
    if (deflateInit2(&z, level_, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      return Status::Internal("zlib deflateInit2 failed");
    const size_t start = out->size();
    const uLong bound = deflateBound(&z, static_cast<uLong>(n));
    out->resize(start + bound);
    z.next_in = const_cast<Bytef*>(in);
    z.avail_in = static_cast<uInt>(n);
    z.next_out = reinterpret_cast<Bytef*>(out->data() + start);
    z.avail_out = static_cast<uInt>(bound);
    const int rc = deflate(&z, Z_FINISH);
    const size_t written = bound - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) return Status::Internal("gzip compression failed");
    out->resize(start + written);
    return Status::OK();
  }

 private:
  int level_;
};

class Brotli final : public PageCodec {
 public:
  explicit Brotli(int level) : level_(level == 0 ? 1 : level) {}
  Status Decompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) override {
    size_t length = static_cast<size_t>(out_size);
    if (BrotliDecoderDecompress(static_cast<size_t>(n), in, &length, out) !=
        BROTLI_DECODER_RESULT_SUCCESS)
      return Status::Invalid("corrupt brotli page (or larger than the header's " +
                             std::to_string(out_size) + " bytes)");
    if (static_cast<int64_t>(length) != out_size)
      return SizeMismatch("brotli", static_cast<int64_t>(length), out_size);
    return Status::OK();
  }
  Status Compress(const uint8_t* in, int64_t n, std::string* out) override {
    const size_t start = out->size();
    size_t length = BrotliEncoderMaxCompressedSize(static_cast<size_t>(n));
    if (length == 0) length = static_cast<size_t>(n) + 1024;
    out->resize(start + length);
    if (!BrotliEncoderCompress(level_, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                               static_cast<size_t>(n), in, &length,
                               reinterpret_cast<uint8_t*>(out->data() + start)))
      return Status::Internal("brotli compression failed");
    out->resize(start + length);
    return Status::OK();
  }

 private:
  int level_;
};

class Zstd final : public PageCodec {
 public:
  explicit Zstd(int level) : level_(level == 0 ? 1 : level) {}
  ~Zstd() override {
    ZSTD_freeDCtx(dctx_);
    ZSTD_freeCCtx(cctx_);
  }
  Status Decompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) override {
    if (dctx_ == nullptr) dctx_ = ZSTD_createDCtx();
    const size_t got =
        ZSTD_decompressDCtx(dctx_, out, static_cast<size_t>(out_size), in, static_cast<size_t>(n));
    if (ZSTD_isError(got))
      return Status::Invalid(std::string("corrupt zstd page: ") + ZSTD_getErrorName(got));
    if (static_cast<int64_t>(got) != out_size)
      return SizeMismatch("zstd", static_cast<int64_t>(got), out_size);
    return Status::OK();
  }
  Status Compress(const uint8_t* in, int64_t n, std::string* out) override {
    if (cctx_ == nullptr) cctx_ = ZSTD_createCCtx();
    const size_t start = out->size();
    const size_t bound = ZSTD_compressBound(static_cast<size_t>(n));
    out->resize(start + bound);
    const size_t got =
        ZSTD_compressCCtx(cctx_, out->data() + start, bound, in, static_cast<size_t>(n), level_);
    if (ZSTD_isError(got))
      return Status::Internal(std::string("zstd compression failed: ") + ZSTD_getErrorName(got));
    out->resize(start + got);
    return Status::OK();
  }

 private:
  int level_;
  ZSTD_DCtx* dctx_ = nullptr;
  ZSTD_CCtx* cctx_ = nullptr;
};

Status Lz4Block(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) {
  const int got =
      LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                          static_cast<int>(n), static_cast<int>(out_size));
  if (got < 0) return Status::Invalid("corrupt lz4 block");
  if (got != out_size) return SizeMismatch("lz4", got, out_size);
  return Status::OK();
}

Status Lz4BlockCompress(const uint8_t* in, int64_t n, std::string* out) {
  const size_t start = out->size();
  const int bound = LZ4_compressBound(static_cast<int>(n));
  out->resize(start + static_cast<size_t>(bound));
  const int got = LZ4_compress_default(reinterpret_cast<const char*>(in), out->data() + start,
                                       static_cast<int>(n), bound);
  if (got <= 0) return Status::Internal("lz4 compression failed");
  out->resize(start + static_cast<size_t>(got));
  return Status::OK();
}

class Lz4Raw final : public PageCodec {
 public:
  Status Decompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) override {
    return Lz4Block(in, n, out, out_size);
  }
  Status Compress(const uint8_t* in, int64_t n, std::string* out) override {
    return Lz4BlockCompress(in, n, out);
  }
};

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// The deprecated LZ4 codec: Hadoop's framing (blocks of [u32 BE raw size][u32 BE compressed
// size][lz4 block]); some old writers put an lz4 frame or a bare block there instead, which are
// tried when the framing does not fit exactly.
class Lz4Hadoop final : public PageCodec {
 public:
  Status Decompress(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) override {
    if (TryHadoop(in, n, out, out_size)) return Status::OK();
    if (n >= 4 && LoadBigEndian32(in) == 0x04224d18) {  // the lz4 frame magic, little-endian
      LZ4F_dctx* dctx = nullptr;
      if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
        return Status::Internal("lz4 frame context failed");
      size_t dst = static_cast<size_t>(out_size), src = static_cast<size_t>(n);
      const size_t rc = LZ4F_decompress(dctx, out, &dst, in, &src, nullptr);
      LZ4F_freeDecompressionContext(dctx);
      if (LZ4F_isError(rc)) return Status::Invalid("corrupt lz4 frame page");
      if (static_cast<int64_t>(dst) != out_size)
        return SizeMismatch("lz4", static_cast<int64_t>(dst), out_size);
      return Status::OK();
    }
    return Lz4Block(in, n, out, out_size);
  }
  Status Compress(const uint8_t* in, int64_t n, std::string* out) override {
    const size_t header = out->size();
    out->resize(header + 8);
    FLOTILLA_RETURN_NOT_OK(Lz4BlockCompress(in, n, out));
    const uint32_t raw = static_cast<uint32_t>(n);
    const uint32_t compressed = static_cast<uint32_t>(out->size() - header - 8);
    for (int i = 0; i < 4; ++i) {
      (*out)[header + i] = static_cast<char>(raw >> (24 - 8 * i));
      (*out)[header + 4 + i] = static_cast<char>(compressed >> (24 - 8 * i));
    }
    return Status::OK();
  }

 private:
  static bool TryHadoop(const uint8_t* in, int64_t n, uint8_t* out, int64_t out_size) {
    int64_t pos = 0, produced = 0;
    while (pos < n) {
      if (n - pos < 8) return false;
      const int64_t raw = LoadBigEndian32(in + pos);
      const int64_t compressed = LoadBigEndian32(in + pos + 4);
      pos += 8;
      if (compressed > n - pos || raw > out_size - produced) return false;
      const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in + pos),
                                          reinterpret_cast<char*>(out + produced),
                                          static_cast<int>(compressed), static_cast<int>(raw));
      if (got != raw) return false;
      pos += compressed;
      produced += raw;
    }
    return produced == out_size;
  }
};

}  // namespace

Result<std::unique_ptr<PageCodec>> PageCodec::Make(Codec codec, int level) {
  switch (codec) {
    case Codec::kUncompressed:
      return std::unique_ptr<PageCodec>(new Uncompressed());
    case Codec::kSnappy:
      return std::unique_ptr<PageCodec>(new Snappy());
    case Codec::kGzip:
      return std::unique_ptr<PageCodec>(new Gzip(level));
    case Codec::kBrotli:
      return std::unique_ptr<PageCodec>(new Brotli(level));
    case Codec::kZstd:
      return std::unique_ptr<PageCodec>(new Zstd(level));
    case Codec::kLz4Raw:
      return std::unique_ptr<PageCodec>(new Lz4Raw());
    case Codec::kLz4:
      return std::unique_ptr<PageCodec>(new Lz4Hadoop());
    case Codec::kLzo:
      break;
  }
  return Status::NotImplemented(std::string("Parquet compression codec ") + CodecName(codec) +
                                " (" + std::to_string(static_cast<int>(codec)) +
                                ") is not supported");
}

Result<PageCodec*> ThreadDecompressor(Codec codec) {
  thread_local std::unique_ptr<PageCodec> codecs[static_cast<int>(Codec::kLz4Raw) + 1];
  const auto index = static_cast<uint32_t>(codec);
  if (index >= std::size(codecs)) return PageCodec::Make(codec).status();
  if (codecs[index] == nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(codecs[index], PageCodec::Make(codec));
  }
  return codecs[index].get();
}

Result<Codec> ParseCodec(const std::string& name) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n == "none" || n == "uncompressed") return Codec::kUncompressed;
  if (n == "snappy") return Codec::kSnappy;
  if (n == "gzip") return Codec::kGzip;
  if (n == "brotli") return Codec::kBrotli;
  if (n == "zstd") return Codec::kZstd;
  if (n == "lz4" || n == "lz4_raw") return Codec::kLz4Raw;
  if (n == "lz4_hadoop") return Codec::kLz4;
  return Status::Invalid("unknown Parquet compression '" + name +
                         "' (expected none, snappy, gzip, brotli, zstd, lz4, lz4_hadoop)");
}

}  // namespace flotilla::io::parquet
