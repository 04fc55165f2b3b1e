#include "flotilla/common/utf8.h"

#include <simdjson.h>

namespace flotilla {

bool IsValidUtf8(const char* data, size_t size) {
  return simdjson::validate_utf8(data, size);
}

std::string ToValidUtf8(std::string_view bytes) {
  if (IsValidUtf8(bytes.data(), bytes.size())) return std::string(bytes);
  std::string out;
  out.reserve(bytes.size() + 16);
  size_t i = 0;
  while (i < bytes.size()) {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    const size_t length = lead < 0x80         ? 1
                          : (lead >> 5) == 6  ? 2
                          : (lead >> 4) == 14 ? 3
                          : (lead >> 3) == 30 ? 4
                                              : 0;
    if (length > 0 && i + length <= bytes.size() && IsValidUtf8(bytes.data() + i, length)) {
      out.append(bytes.data() + i, length);
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace flotilla
