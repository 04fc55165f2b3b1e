#include "flotilla/common/bit_util.h"

#include <bit>

namespace flotilla::bit_util {

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  // Leading bits up to a byte boundary, then whole 64-bit words, then the tail.
  for (; i < end && (i & 7) != 0; ++i)
    count += GetBit(bits, i);
  for (; i + 64 <= end; i += 64) {
    uint64_t word;
    std::memcpy(&word, bits + (i >> 3), 8);
    count += std::popcount(word);
  }
  for (; i + 8 <= end; i += 8)
    count += std::popcount(static_cast<unsigned>(bits[i >> 3]));
  for (; i < end; ++i)
    count += GetBit(bits, i);
  return count;
}

void CopyBitmap(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                int64_t dst_offset) {
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    int64_t whole = length >> 3;
    // Guarded: an empty builder has no buffer yet, and memcpy(nullptr, ..., 0) is undefined.
    if (whole > 0) {
      std::memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), static_cast<size_t>(whole));
    }
    for (int64_t i = whole * 8; i < length; ++i) {
      SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
    }
    return;
  }
  // Unaligned: bit by bit up to a destination byte boundary, then whole destination bytes, each
  // from the two source bytes it straddles (both inside the source range: all 8 bits are used).
  int64_t i = 0;
  for (; i < length && ((dst_offset + i) & 7) != 0; ++i)
    SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
  for (; i + 8 <= length; i += 8) {
    const int64_t s = src_offset + i;
    const int shift = static_cast<int>(s & 7);
    const uint8_t* p = src + (s >> 3);
    dst[(dst_offset + i) >> 3] =
        shift == 0 ? p[0] : static_cast<uint8_t>((p[0] >> shift) | (p[1] << (8 - shift)));
  }
  for (; i < length; ++i)
    SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
}

void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value) {
  int64_t i = offset;
  const int64_t end = offset + length;
  for (; i < end && (i & 7) != 0; ++i)
    SetBitTo(bits, i, value);
  int64_t whole_bytes = (end - i) >> 3;
  if (whole_bytes > 0) {
    std::memset(bits + (i >> 3), value ? 0xFF : 0, static_cast<size_t>(whole_bytes));
  }
  i += whole_bytes * 8;
  for (; i < end; ++i)
    SetBitTo(bits, i, value);
}

}  // namespace flotilla::bit_util
