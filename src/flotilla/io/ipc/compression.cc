#include "flotilla/io/ipc/compression.h"

#include <fmt/format.h>
#include <lz4frame.h>
#include <zstd.h>

#include <algorithm>

namespace flotilla::ipc {
namespace {

class Lz4FrameCodec : public Codec {
 public:
  ~Lz4FrameCodec() override {
    if (dctx_ != nullptr) LZ4F_freeDecompressionContext(dctx_);
  }

  Result<int64_t> Compress(const uint8_t* data, int64_t size, Buffer* out,
                           int64_t out_offset) override {
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.contentSize = static_cast<unsigned long long>(size);
    size_t bound = LZ4F_compressFrameBound(static_cast<size_t>(size), &prefs);
    FLOTILLA_RETURN_NOT_OK(out->Resize(out_offset + static_cast<int64_t>(bound)));
    size_t n = LZ4F_compressFrame(out->mutable_data() + out_offset, bound, data,
                                  static_cast<size_t>(size), &prefs);
    if (LZ4F_isError(n)) {
      return Status::Internal(fmt::format("lz4 compression failed: {}", LZ4F_getErrorName(n)));
    }
    return static_cast<int64_t>(n);
  }

  Status Decompress(const uint8_t* input, int64_t input_size, uint8_t* out,
                    int64_t out_size) override {
    if (dctx_ == nullptr) {
      size_t rc = LZ4F_createDecompressionContext(&dctx_, LZ4F_VERSION);
      if (LZ4F_isError(rc)) return Status::OutOfMemory("cannot create an lz4 context");
    } else {
      LZ4F_resetDecompressionContext(dctx_);
    }
    int64_t in_pos = 0;
    int64_t out_pos = 0;
    // Several concatenated frames are legal; stop when the input is used up.
    while (in_pos < input_size) {
      size_t src_size = static_cast<size_t>(input_size - in_pos);
      size_t dst_size = static_cast<size_t>(out_size - out_pos);
      size_t hint =
          LZ4F_decompress(dctx_, out + out_pos, &dst_size, input + in_pos, &src_size, nullptr);
      if (LZ4F_isError(hint)) {
        return Status::Invalid(fmt::format("corrupt lz4 data: {}", LZ4F_getErrorName(hint)));
      }
      in_pos += static_cast<int64_t>(src_size);
      out_pos += static_cast<int64_t>(dst_size);
      if (src_size == 0 && dst_size == 0) {
        // No progress: the output is full but the frame wants to write more.
        return Status::Invalid(
            fmt::format("lz4 data decompresses to more than the declared {} bytes", out_size));
      }
      if (hint == 0) LZ4F_resetDecompressionContext(dctx_);
      if (in_pos == input_size && hint != 0) {
        return Status::Invalid("lz4 data ends in the middle of a frame");
      }
    }
    if (out_pos != out_size) {
      return Status::Invalid(
          fmt::format("lz4 data decompresses to {} bytes, declared {}", out_pos, out_size));
    }
    return Status::OK();
  }

 private:
  LZ4F_dctx* dctx_ = nullptr;
};

class ZstdCodec : public Codec {
 public:
  explicit ZstdCodec(int level) : level_(level) {}
  ~ZstdCodec() override {
    if (cctx_ != nullptr) ZSTD_freeCCtx(cctx_);
    if (dctx_ != nullptr) ZSTD_freeDCtx(dctx_);
  }

  Result<int64_t> Compress(const uint8_t* data, int64_t size, Buffer* out,
                           int64_t out_offset) override {
    if (cctx_ == nullptr && (cctx_ = ZSTD_createCCtx()) == nullptr) {
      return Status::OutOfMemory("cannot create a zstd context");
    }
    size_t bound = ZSTD_compressBound(static_cast<size_t>(size));
    FLOTILLA_RETURN_NOT_OK(out->Resize(out_offset + static_cast<int64_t>(bound)));
    size_t n = ZSTD_compressCCtx(cctx_, out->mutable_data() + out_offset, bound, data,
                                 static_cast<size_t>(size), level_);
    if (ZSTD_isError(n)) {
      return Status::Internal(fmt::format("zstd compression failed: {}", ZSTD_getErrorName(n)));
    }
    return static_cast<int64_t>(n);
  }

  Status Decompress(const uint8_t* input, int64_t input_size, uint8_t* out,
                    int64_t out_size) override {
    if (dctx_ == nullptr && (dctx_ = ZSTD_createDCtx()) == nullptr) {
      return Status::OutOfMemory("cannot create a zstd context");
    }
    // One-shot decompression writes only into `out` (bounded by out_size) and needs no window
    // allocation, whatever the frame header claims.
    size_t n = ZSTD_decompressDCtx(dctx_, out, static_cast<size_t>(out_size), input,
                                   static_cast<size_t>(input_size));
    if (ZSTD_isError(n)) {
      return Status::Invalid(fmt::format("corrupt zstd data: {}", ZSTD_getErrorName(n)));
    }
    if (static_cast<int64_t>(n) != out_size) {
      return Status::Invalid(
          fmt::format("zstd data decompresses to {} bytes, declared {}", n, out_size));
    }
    return Status::OK();
  }

 private:
  int level_;
  ZSTD_CCtx* cctx_ = nullptr;
  ZSTD_DCtx* dctx_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<Codec>> Codec::Make(Compression compression, int level) {
  switch (compression) {
    case Compression::kLz4Frame:
      return std::unique_ptr<Codec>(new Lz4FrameCodec());
    case Compression::kZstd:
      return std::unique_ptr<Codec>(new ZstdCodec(level));
    case Compression::kNone:
      break;
  }
  return Status::Invalid("no codec for uncompressed data");
}

int64_t MaxDecompressedSize(int64_t compressed_size) {
  constexpr int64_t kMaxRatio = int64_t{1} << 16;
  constexpr int64_t kSlack = int64_t{1} << 16;
  constexpr int64_t kHardLimit = (int64_t{1} << 31) - 1;
  return std::min(kHardLimit, std::max<int64_t>(0, compressed_size) * kMaxRatio + kSlack);
}

Result<Compression> ParseCompression(std::string_view name) {
  if (name == "none" || name == "uncompressed" || name.empty()) return Compression::kNone;
  if (name == "lz4" || name == "lz4_frame") return Compression::kLz4Frame;
  if (name == "zstd") return Compression::kZstd;
  return Status::Invalid(
      fmt::format("unknown compression '{}'; use one of none, lz4, lz4_frame, zstd", name));
}

}  // namespace flotilla::ipc
