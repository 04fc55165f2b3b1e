#pragma once
#include <cstddef>

namespace flotilla::text {

/// True when the bytes are valid UTF-8 (SIMD-accelerated).
bool IsValidUtf8(const char* data, size_t size);

}  // namespace flotilla::text
