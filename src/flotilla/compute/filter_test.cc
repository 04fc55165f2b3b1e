#include "flotilla/compute/filter.h"

#include <gtest/gtest.h>

#include "tests/support/random_data.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::compute {
namespace {

using testing::MakeMask;
using testing::MakeNumeric;
using testing::MakeStrings;
using testing::NaiveTake;

TEST(FilterTest, NullInTheMaskDropsTheRow) {
  Array values = MakeNumeric<int32_t>(int32(), {1, 2, std::nullopt, 4, 5});
  Array out = Filter(values, MakeMask({1, -1, 1, 0, 1})).ValueOrDie();
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int32_t>(int32(), {1, std::nullopt, 5}), out);
  EXPECT_TRUE(Array::Make(out.data()).ok());
}

TEST(FilterTest, Strings) {
  Array values = MakeStrings({"a", "bb", std::nullopt, "dddd"});
  EXPECT_ARRAYS_EQUAL(MakeStrings({"bb", "dddd"}),
                      Filter(values, MakeMask({0, 1, 0, 1})).ValueOrDie());
}

TEST(FilterTest, SelectingEverythingIsZeroCopy) {
  Array values = testing::RandomArray(utf8(), 200, 1);
  std::vector<int> all(200, 1);
  Array out = Filter(values, MakeMask(all)).ValueOrDie();
  EXPECT_EQ(out.data(), values.data());
  RecordBatch batch = RecordBatch::FromColumns({{"s", values}}).ValueOrDie();
  RecordBatch filtered = Filter(batch, MakeMask(all)).ValueOrDie();
  EXPECT_EQ(filtered.column(0).data(), values.data());
}

TEST(FilterTest, SelectingNothing) {
  Array values = testing::RandomArray(int64(), 70, 1);
  Array out = Filter(values, MakeMask(std::vector<int>(70, 0))).ValueOrDie();
  EXPECT_EQ(out.length(), 0);
  EXPECT_TRUE(Array::Make(out.data()).ok());
  EXPECT_EQ(Filter(values, MakeMask(std::vector<int>(70, -1))).ValueOrDie().length(), 0);
}

TEST(FilterTest, Errors) {
  Array values = MakeNumeric<int32_t>(int32(), {1, 2});
  auto wrong_type = Filter(values, values);
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.status().code(), StatusCode::kTypeError);
  auto wrong_length = Filter(values, MakeMask({1}));
  ASSERT_FALSE(wrong_length.ok());
  EXPECT_NE(wrong_length.status().message().find("1 rows"), std::string::npos);
}

TEST(FilterTest, SelectedPositions) {
  std::vector<int> bits(130, 0);
  bits[0] = bits[63] = bits[64] = bits[129] = 1;
  bits[100] = -1;
  Array positions = SelectedPositions(MakeMask(bits)).ValueOrDie();
  ASSERT_EQ(positions.type_id(), TypeId::kUInt32);
  EXPECT_EQ(positions.ToString(), "[0, 63, 64, 129]");
}

// Every type, with a sliced mask and sliced values at different offsets (so the mask words
// are read unaligned), at several selectivities, against the row-by-row reference.
TEST(FilterTest, AllTypesMatchTheReference) {
  std::mt19937_64 rng(11);
  for (const auto& type : AllTypesForTesting()) {
    for (int percent : {1, 50, 97}) {
      SCOPED_TRACE(type->ToString() + " at " + std::to_string(percent) + "%");
      Array values = testing::RandomArray(type, 400, rng()).Slice(5, 333);
      std::vector<int> bits;
      for (int i = 0; i < 333 + 11; ++i) {
        int r = static_cast<int>(rng() % 100);
        bits.push_back(r < percent ? 1 : (r % 7 == 0 ? -1 : 0));
      }
      Array mask = MakeMask(bits).Slice(11);
      std::vector<std::optional<int64_t>> rows;
      for (int64_t i = 0; i < 333; ++i) {
        if (mask.IsValid(i) && mask.BoolValue(i)) rows.push_back(i);
      }
      Array out = Filter(values, mask).ValueOrDie();
      EXPECT_TRUE(Array::Make(out.data()).ok());
      EXPECT_ARRAYS_EQUAL(NaiveTake(values, rows), out);
    }
  }
}

TEST(FilterTest, RecordBatch) {
  RecordBatch batch = testing::RandomBatchOfAllTypes(50, 9).Slice(3, 40);
  std::vector<int> bits(40, 0);
  std::vector<std::optional<int64_t>> rows;
  for (int i = 0; i < 40; i += 3) {
    bits[i] = 1;
    rows.push_back(i);
  }
  RecordBatch out = Filter(batch, MakeMask(bits)).ValueOrDie();
  ASSERT_EQ(out.num_rows(), static_cast<int64_t>(rows.size()));
  for (int c = 0; c < batch.num_columns(); ++c) {
    EXPECT_ARRAYS_EQUAL(NaiveTake(batch.column(c), rows), out.column(c));
  }
}

}  // namespace
}  // namespace flotilla::compute
