#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace flotilla {

/// True when the bytes are valid UTF-8 (SIMD-accelerated).
bool IsValidUtf8(const char* data, size_t size);

/// `bytes` with each byte that does not belong to a valid UTF-8 sequence replaced by U+FFFD, for
/// text fields of formats that do not promise UTF-8 (WARC headers, HTTP bodies).
std::string ToValidUtf8(std::string_view bytes);

/// 3 when `bytes` starts with a UTF-8 byte-order mark (EF BB BF), which text readers skip as
/// other readers do (it is not part of the first column's name or the first JSON value), else 0.
inline int64_t Utf8BomSize(std::string_view bytes) {
  return bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

}  // namespace flotilla
