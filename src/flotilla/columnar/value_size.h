#pragma once
// The largest single string or binary value the engine builds (repeat, lpad/rpad, string_agg):
// 1 GiB, as PostgreSQL's field limit. A request past it is an error at once instead of minutes
// of copying and gigabytes of memory, and the size is computed without overflow.
#include <cstdint>
#include <string>
#include <string_view>

#include "flotilla/common/status.h"

namespace flotilla {

inline constexpr uint64_t kMaxValueBytes = uint64_t{1} << 30;

/// Invalid, naming `what`, when `count` pieces of `piece_bytes` each exceed kMaxValueBytes.
inline Status CheckValueSize(std::string_view what, uint64_t count, uint64_t piece_bytes) {
  uint64_t bytes = 0;
  if (!__builtin_mul_overflow(count, piece_bytes, &bytes) && bytes <= kMaxValueBytes) {
    return Status::OK();
  }
  return Status::Invalid(std::string(what) + " would build a value of " + std::to_string(count) +
                         " x " + std::to_string(piece_bytes) +
                         " bytes; one value may hold at most 1 GiB");
}

}  // namespace flotilla
