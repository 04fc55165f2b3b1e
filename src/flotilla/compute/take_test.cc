#include "flotilla/compute/take.h"

#include <gtest/gtest.h>

#include <random>

#include "flotilla/compute/gather.h"
#include "tests/support/random_data.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::compute {
namespace {

using testing::MakeIndices;
using testing::MakeNumeric;
using testing::MakeStrings;
using testing::NaiveTake;

TEST(TakeTest, Int64WithNullValuesAndNullIndices) {
  Array values = MakeNumeric<int64_t>(int64(), {10, std::nullopt, 30, 40});
  Array indices = MakeIndices(int32(), {3, 0, std::nullopt, 1, 3});
  Array out = Take(values, indices).ValueOrDie();
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int64_t>(int64(), {40, 10, std::nullopt, std::nullopt, 40}), out);
  EXPECT_EQ(out.null_count(), 2);
  EXPECT_TRUE(Array::Make(out.data()).ok());
}

TEST(TakeTest, NoNullsGivesNoValidityBitmap) {
  Array values = MakeNumeric<int32_t>(int32(), {1, 2, 3});
  Array out = Take(values, MakeIndices(uint64(), {2, 2, 0})).ValueOrDie();
  EXPECT_EQ(out.validity(), nullptr);
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int32_t>(int32(), {3, 3, 1}), out);
}

TEST(TakeTest, Strings) {
  Array values = MakeStrings({"a", std::nullopt, "", "héllo"});
  Array out = Take(values, MakeIndices(int64(), {3, 1, 2, 0, std::nullopt, 3})).ValueOrDie();
  EXPECT_ARRAYS_EQUAL(MakeStrings({"héllo", std::nullopt, "", "a", std::nullopt, "héllo"}), out);
  EXPECT_TRUE(Array::Make(out.data()).ok());
}

TEST(TakeTest, BoolAndLargeString) {
  Array bools = testing::MakeMask({1, 0, -1, 1});
  EXPECT_ARRAYS_EQUAL(testing::MakeMask({1, -1, 0, 1}),
                      Take(bools, MakeIndices(uint32(), {0, 2, 1, 3})).ValueOrDie());
  Array large = MakeStrings({"x", "yy"}, large_utf8());
  EXPECT_ARRAYS_EQUAL(MakeStrings({"yy", "yy", "x"}, large_utf8()),
                      Take(large, MakeIndices(int32(), {1, 1, 0})).ValueOrDie());
}

TEST(TakeTest, DictionaryKeepsItsDictionary) {
  Array values = MakeStrings({"red", "blue", std::nullopt, "red"}, dictionary(int32(), utf8()));
  Array out = Take(values, MakeIndices(int32(), {1, 2, 3})).ValueOrDie();
  EXPECT_EQ(out.data()->dictionary, values.data()->dictionary);
  EXPECT_ARRAYS_EQUAL(MakeStrings({"blue", std::nullopt, "red"}, dictionary(int32(), utf8())), out);
}

TEST(TakeTest, OutOfRangeIndexIsAnIndexErrorNamingIt) {
  Array values = MakeNumeric<int64_t>(int64(), {1, 2, 3});
  auto r = Take(values, MakeIndices(int64(), {0, 7, 1}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIndexError);
  EXPECT_NE(r.status().message().find("index 7"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("length 3"), std::string::npos) << r.status().message();

  auto negative = Take(values, MakeIndices(int32(), {-1}));
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("index -1"), std::string::npos);
  // A null index is never checked, whatever bits it holds.
  EXPECT_TRUE(Take(values, MakeIndices(int32(), {std::nullopt})).ok());
}

TEST(TakeTest, WrongIndexTypeIsATypeError) {
  Array values = MakeNumeric<int64_t>(int64(), {1});
  auto r = Take(values, MakeNumeric<int8_t>(int8(), {0}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTypeError);
  EXPECT_NE(r.status().message().find("int8"), std::string::npos);
}

TEST(TakeTest, EmptyAndAllNull) {
  for (const auto& type : AllTypesForTesting()) {
    SCOPED_TRACE(type->ToString());
    Array empty = Array::MakeEmpty(type).ValueOrDie();
    Array out = Take(empty, MakeIndices(int64(), {})).ValueOrDie();
    EXPECT_EQ(out.length(), 0);
    Array nulls = Array::MakeNull(type, 5).ValueOrDie();
    out = Take(nulls, MakeIndices(int32(), {4, 0, std::nullopt})).ValueOrDie();
    EXPECT_EQ(out.length(), 3);
    EXPECT_EQ(out.null_count(), 3);
    EXPECT_TRUE(Array::Make(out.data()).ok());
  }
}

// Every type, every index type, sliced values and sliced indices, against the row-by-row
// reference.
TEST(TakeTest, AllTypesMatchTheReference) {
  std::mt19937_64 rng(7);
  for (const auto& type : AllTypesForTesting()) {
    for (const auto& index_type : {int32(), int64(), uint32(), uint64()}) {
      SCOPED_TRACE(type->ToString() + " by " + index_type->ToString());
      Array full = testing::RandomArray(type, 300, rng());
      Array values = full.Slice(13, 250);
      std::vector<std::optional<int64_t>> rows;
      for (int i = 0; i < 400; ++i) {
        if (rng() % 10 == 0) {
          rows.push_back(std::nullopt);
        } else {
          rows.push_back(static_cast<int64_t>(rng() % values.length()));
        }
      }
      // Pad the indices so they can be sliced too.
      std::vector<std::optional<int64_t>> padded = {0, 1, 2};
      padded.insert(padded.end(), rows.begin(), rows.end());
      Array indices = MakeIndices(index_type, padded).Slice(3);
      Array out = Take(values, indices).ValueOrDie();
      EXPECT_TRUE(Array::Make(out.data()).ok());
      EXPECT_ARRAYS_EQUAL(NaiveTake(values, rows), out);
    }
  }
}

TEST(TakeTest, RecordBatch) {
  RecordBatch batch = testing::RandomBatchOfAllTypes(100, 3);
  Array indices = MakeIndices(int64(), {99, 0, 50, std::nullopt});
  RecordBatch out = Take(batch, indices).ValueOrDie();
  ASSERT_EQ(out.num_rows(), 4);
  for (int c = 0; c < batch.num_columns(); ++c) {
    EXPECT_ARRAYS_EQUAL(NaiveTake(batch.column(c), {99, 0, 50, std::nullopt}), out.column(c));
  }
  EXPECT_FALSE(Take(batch, MakeIndices(int64(), {100})).ok());
}

// Positions that are mostly long runs (what a filter keeping most rows gives) are copied run by
// run for every column type that supports it: the same rows as a row-by-row gather, from a
// sliced batch, with runs that start and end mid-byte of the bitmaps.
TEST(TakeTest, RecordBatchByLongRuns) {
  std::mt19937_64 rng(9);
  RecordBatch batch = testing::RandomBatchOfAllTypes(5000, 4).Slice(37, 4900);
  for (int keep_percent : {100, 99, 97}) {
    std::vector<std::optional<int64_t>> rows;
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      if (static_cast<int>(rng() % 100) < keep_percent) rows.push_back(i);
    }
    ASSERT_TRUE(internal::ConsecutiveRuns(MakeIndices(uint32(), rows),
                                          static_cast<int64_t>(rows.size()) / 16)
                    .has_value());
    RecordBatch out = Take(batch, MakeIndices(uint32(), rows)).ValueOrDie();
    ASSERT_EQ(out.num_rows(), static_cast<int64_t>(rows.size()));
    for (int c = 0; c < batch.num_columns(); ++c) {
      SCOPED_TRACE(batch.column(c).type()->ToString() + " keeping " + std::to_string(keep_percent) +
                   "%");
      EXPECT_TRUE(Array::Make(out.column(c).data()).ok());
      EXPECT_ARRAYS_EQUAL(NaiveTake(batch.column(c), rows), out.column(c));
    }
  }
}

}  // namespace
}  // namespace flotilla::compute
