#include "flotilla/compute/hash.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/random_data.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::compute {
namespace {

using testing::MakeNumeric;
using testing::MakeStrings;

std::vector<uint64_t> Hashes(const std::vector<Array>& columns, uint64_t seed = 0) {
  Array h = HashRows(columns, seed).ValueOrDie();
  EXPECT_EQ(h.type_id(), TypeId::kUInt64);
  return {h.values<uint64_t>(), h.values<uint64_t>() + h.length()};
}

Array Copy(const Array& a) {
  auto b = MakeBuilder(a.type()).ValueOrDie();
  b->AppendArraySlice(a, 0, a.length()).Check();
  return b->Finish().ValueOrDie();
}

// Pinned values: the hash is a cross-process contract. If this test fails, the definition in
// hash.h changed; that breaks shuffles between old and new versions, so update it deliberately.
TEST(HashTest, GoldenValues) {
  Array ints = MakeNumeric<int64_t>(int64(), {0, 1, -1, std::nullopt});
  Array strings = MakeStrings({"", "flotilla", std::nullopt, "é"});
  // Combine(0, 0) = XXH3_64bits_withSeed(8 zero bytes, seed 0), per the definition in hash.h.
  EXPECT_EQ(Hashes({ints}), (std::vector<uint64_t>{0xc77b3abb6f87acd9ull, 0x2fbc593564db792eull,
                                                   0x5111c7e47d784413ull, 0xf1d44f947e9fe56bull}));
  EXPECT_EQ(Hashes({strings}),
            (std::vector<uint64_t>{0x9f77619e37e86919ull, 0x7a166fdc2b529032ull,
                                   0xf1d44f947e9fe56bull, 0xc1066289aacdec4bull}));
  EXPECT_EQ(Hashes({ints, strings}, 42),
            (std::vector<uint64_t>{0xc035c03abac2d708ull, 0x43bd37ff7c04b2acull,
                                   0x5efb2f63b86fde9dull, 0x3f555b81ac415653ull}));
}

TEST(HashTest, DefinitionOfSimpleCases) {
  // Integers of any width hash as their 64-bit value, so int32 and int64 keys agree.
  Array i32 = MakeNumeric<int32_t>(int32(), {-5, 7, std::nullopt});
  Array i64 = MakeNumeric<int64_t>(int64(), {-5, 7, std::nullopt});
  EXPECT_EQ(Hashes({i32}), Hashes({i64}));
  // A null hashes like its fixed value whatever the type.
  Array null_str = MakeStrings({std::nullopt});
  EXPECT_EQ(Hashes({null_str})[0], Hashes({i64})[2]);
  // Float and double agree on exactly representable values.
  EXPECT_EQ(Hashes({MakeNumeric<float>(float32(), {1.5f, -2.0f})}),
            Hashes({MakeNumeric<double>(float64(), {1.5, -2.0})}));
}

TEST(HashTest, NegativeZeroAndNaNs) {
  const double nan1 = std::nan(""), nan2 = -std::nan("0x123");
  auto h = Hashes({MakeNumeric<double>(float64(), {0.0, -0.0, nan1, nan2})});
  EXPECT_EQ(h[0], h[1]);
  EXPECT_EQ(h[2], h[3]);
  EXPECT_NE(h[0], h[2]);
}

TEST(HashTest, SeedAndColumnOrderMatter) {
  Array a = MakeNumeric<int64_t>(int64(), {1, 2});
  Array b = MakeNumeric<int64_t>(int64(), {2, 1});
  EXPECT_NE(Hashes({a}, 0), Hashes({a}, 1));
  auto ab = Hashes({a, b}), ba = Hashes({b, a});
  EXPECT_NE(ab[0], ba[0]);
  EXPECT_NE(ab[0], ab[1]);
}

TEST(HashTest, SlicedEqualsUnslicedCopyForEveryType) {
  for (const auto& type : AllTypesForTesting()) {
    SCOPED_TRACE(type->ToString());
    Array full = testing::RandomArray(type, 200, 17);
    Array slice = full.Slice(37, 120);
    EXPECT_EQ(Hashes({slice}, 9), Hashes({Copy(slice)}, 9));
    // And each row's hash is that of the row on its own.
    auto all = Hashes({full});
    auto some = Hashes({slice});
    for (int64_t i = 0; i < slice.length(); ++i)
      ASSERT_EQ(some[i], all[37 + i]) << i;
  }
}

TEST(HashTest, DictionaryHashesLikeTheDenseColumn) {
  for (const auto& type : {dictionary(int32(), utf8()), dictionary(int8(), large_utf8())}) {
    Array dict = testing::RandomArray(type, 300, 5).Slice(11);
    EXPECT_EQ(Hashes({dict}), Hashes({testing::DecodeDictionary(dict)}));
  }
  // The same values under two different dictionaries hash the same.
  Array a = MakeStrings({"x", "y", std::nullopt}, dictionary(int32(), utf8()));
  Array b = MakeStrings({"y", "x", "y", std::nullopt}, dictionary(int32(), utf8())).Slice(1);
  EXPECT_EQ(Hashes({a}), Hashes({b}));
}

TEST(HashTest, EveryTypeHashesDeterministicallyAndDistinguishesValues) {
  for (const auto& type : AllTypesForTesting()) {
    SCOPED_TRACE(type->ToString());
    Array a = testing::RandomArray(type, 100, 23);
    EXPECT_EQ(Hashes({a}), Hashes({a}));
    if (type->id() == TypeId::kNull || type->id() == TypeId::kBool) continue;
    auto h = Hashes({a});
    std::sort(h.begin(), h.end());
    EXPECT_GT(std::unique(h.begin(), h.end()) - h.begin(), 5);
  }
}

TEST(HashTest, Errors) {
  EXPECT_EQ(HashRows({}).status().code(), StatusCode::kInvalid);
  auto mismatch = HashRows({MakeNumeric<int64_t>(int64(), {1}), MakeNumeric<int64_t>(int64(), {})});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("same length"), std::string::npos);
  EXPECT_EQ(HashRows({MakeNumeric<int64_t>(int64(), {})}).ValueOrDie().length(), 0);
}

}  // namespace
}  // namespace flotilla::compute
