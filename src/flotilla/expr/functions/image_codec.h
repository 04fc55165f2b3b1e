#pragma once
// Image files to pixels and back: JPEG (libjpeg-turbo), PNG (libpng), WebP (libwebp), told apart
// by their magic bytes.
#include <cstdint>
#include <string>
#include <string_view>

#include "flotilla/common/result.h"
#include "flotilla/expr/functions/image_type.h"

namespace flotilla::expr::functions {

/// Images with more pixels than this are refused before any allocation (a 60-byte file can
/// claim 65535 x 65535).
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

struct DecodedImage {
  int32_t width = 0, height = 0, channels = 0;
  std::string pixels;
};

/// Decodes `bytes`; `channels` 1-4 converts to that many, 0 keeps what the file holds (grey,
/// grey + alpha, RGB or RGBA). Errors say what is wrong (unknown format, corrupt data).
Result<DecodedImage> DecodeImage(std::string_view bytes, int32_t channels);

/// Encodes to "png" (lossless), "jpeg" or "webp" (lossy, at `quality` 1-100; JPEG drops alpha).
Result<std::string> EncodeImage(const ImageView& image, std::string_view format, int quality);

/// `image`'s pixels with `channels` channels: grey replicated, colour to grey by ITU-R 601-2
/// luma, alpha dropped or added opaque.
std::string ConvertChannels(const ImageView& image, int32_t channels);

}  // namespace flotilla::expr::functions
