#include "flotilla/common/bit_util.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace flotilla::bit_util {
namespace {

TEST(BitUtil, CopyBitmapAtEveryOffsetPairMatchesBitByBit) {
  std::mt19937 rng(3);
  std::vector<uint8_t> src(40);
  for (uint8_t& b : src)
    b = static_cast<uint8_t>(rng());
  for (int64_t src_offset = 0; src_offset < 16; ++src_offset) {
    for (int64_t dst_offset = 0; dst_offset < 16; ++dst_offset) {
      for (int64_t length : {0, 1, 7, 8, 9, 63, 64, 65, 200}) {
        std::vector<uint8_t> dst(40, 0x5A);
        const std::vector<uint8_t> before = dst;
        CopyBitmap(src.data(), src_offset, length, dst.data(), dst_offset);
        for (int64_t i = 0; i < 40 * 8; ++i) {
          const bool inside = i >= dst_offset && i < dst_offset + length;
          const bool expected =
              inside ? GetBit(src.data(), src_offset + i - dst_offset) : GetBit(before.data(), i);
          ASSERT_EQ(GetBit(dst.data(), i), expected)
              << "src " << src_offset << " dst " << dst_offset << " length " << length << " bit "
              << i;
        }
      }
    }
  }
}

TEST(BitUtil, CountSetBitsAndSetBitsTo) {
  std::vector<uint8_t> bits(32, 0);
  SetBitsTo(bits.data(), 3, 150, true);
  EXPECT_EQ(CountSetBits(bits.data(), 0, 256), 150);
  EXPECT_EQ(CountSetBits(bits.data(), 3, 150), 150);
  EXPECT_EQ(CountSetBits(bits.data(), 4, 10), 10);
  EXPECT_EQ(CountSetBits(bits.data(), 0, 3), 0);
  SetBitsTo(bits.data(), 70, 9, false);
  EXPECT_EQ(CountSetBits(bits.data(), 0, 256), 141);
  EXPECT_FALSE(GetBit(bits.data(), 70));
  EXPECT_TRUE(GetBit(bits.data(), 79));
}

}  // namespace
}  // namespace flotilla::bit_util
