#pragma once
// Bit and alignment helpers for Arrow validity bitmaps (LSB-first bit order).

#include <cstdint>
#include <cstring>

namespace flotilla::bit_util {

inline bool GetBit(const uint8_t* bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}
inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool v) {
  bits[i >> 3] = static_cast<uint8_t>((bits[i >> 3] & ~(1u << (i & 7))) | (uint32_t{v} << (i & 7)));
}
inline int64_t BytesForBits(int64_t bits) {
  return (bits + 7) >> 3;
}
inline int64_t RoundUp(int64_t value, int64_t factor) {
  return (value + factor - 1) / factor * factor;
}
inline int64_t PaddingTo8(int64_t value) {
  return RoundUp(value, 8) - value;
}

/// Number of set bits in [offset, offset + length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);

/// Copies `length` bits starting at bit `src_offset` to `dst` starting at bit `dst_offset`.
void CopyBitmap(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                int64_t dst_offset);

/// Sets bits [offset, offset + length) to `value`.
void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value);

}  // namespace flotilla::bit_util
