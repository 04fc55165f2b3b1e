// libFuzzer target: arbitrary bytes through image_decode's decoder (as stored and as RGB), and a
// decoded image through resize, PNG encoding and decoding again, which must give it back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/expr/functions/image_codec.h"

using namespace flotilla::expr::functions;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (int32_t channels : {0, 3}) {
    auto image = DecodeImage(bytes, channels);
    if (!image.ok()) continue;
    const ImageView view{image->width, image->height, image->channels, image->pixels};
    if (static_cast<size_t>(view.width) * view.height * view.channels != view.pixels.size())
      __builtin_trap();
    if (static_cast<int64_t>(view.width) * view.height > 4096) continue;  // keep runs fast
    auto png = EncodeImage(view, "png", 90);
    if (!png.ok()) __builtin_trap();
    auto again = DecodeImage(*png, 0);
    if (!again.ok() || again->pixels != image->pixels) __builtin_trap();
  }
  return 0;
}
