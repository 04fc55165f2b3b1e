#include "flotilla/compute/concat.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/support/random_data.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::compute {
namespace {

using testing::MakeNumeric;
using testing::MakeStrings;

Array NaiveConcat(const std::vector<Array>& arrays) {
  auto builder = MakeBuilder(arrays[0].type()).ValueOrDie();
  for (const Array& a : arrays) {
    for (int64_t i = 0; i < a.length(); ++i)
      builder->AppendArraySlice(a, i, 1).Check();
  }
  return builder->Finish().ValueOrDie();
}

TEST(ConcatTest, Int64) {
  Array out =
      Concat({MakeNumeric<int64_t>(int64(), {1, 2}),
              MakeNumeric<int64_t>(int64(), {std::nullopt, 4}), MakeNumeric<int64_t>(int64(), {})})
          .ValueOrDie();
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int64_t>(int64(), {1, 2, std::nullopt, 4}), out);
}

TEST(ConcatTest, SlicedStrings) {
  Array a = MakeStrings({"skip", "a", std::nullopt}).Slice(1);
  Array b = MakeStrings({"bb", "", "skip"}).Slice(0, 2);
  Array out = Concat({a, b}).ValueOrDie();
  EXPECT_ARRAYS_EQUAL(MakeStrings({"a", std::nullopt, "bb", ""}), out);
  EXPECT_TRUE(Array::Make(out.data()).ok());
}

TEST(ConcatTest, Errors) {
  auto none = Concat({});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalid);
  auto mixed = Concat({MakeNumeric<int64_t>(int64(), {1}), MakeStrings({"a"})});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().code(), StatusCode::kTypeError);
  EXPECT_NE(mixed.status().message().find("string"), std::string::npos);
  EXPECT_NE(mixed.status().message().find("int64"), std::string::npos);
}

TEST(ConcatTest, AllTypesMatchTheReference) {
  for (const auto& type : AllTypesForTesting()) {
    SCOPED_TRACE(type->ToString());
    std::vector<Array> parts = {
        testing::RandomArray(type, 100, 1).Slice(7, 50), Array::MakeEmpty(type).ValueOrDie(),
        testing::RandomArray(type, 80, 2), Array::MakeNull(type, 3).ValueOrDie(),
        testing::RandomArray(type, 90, 3).Slice(89)};
    Array out = Concat(parts).ValueOrDie();
    EXPECT_TRUE(Array::Make(out.data()).ok());
    EXPECT_ARRAYS_EQUAL(NaiveConcat(parts), out);
  }
}

TEST(ConcatTest, SharedDictionaryIsKept) {
  Array a = MakeStrings({"x", "y", "x"}, dictionary(int8(), utf8()));
  Array out = Concat({a.Slice(1), a}).ValueOrDie();
  EXPECT_EQ(out.data()->dictionary, a.data()->dictionary);
  EXPECT_ARRAYS_EQUAL(MakeStrings({"y", "x", "x", "y", "x"}, dictionary(int8(), utf8())), out);
}

TEST(ConcatTest, DifferentDictionariesAreUnified) {
  auto type = dictionary(int16(), utf8());
  Array a = MakeStrings({"red", "green", std::nullopt, "red"}, type);
  Array b = MakeStrings({"blue", "red", "blue"}, type);
  Array out = Concat({a, b.Slice(1)}).ValueOrDie();
  EXPECT_TRUE(Array::Make(out.data()).ok());
  EXPECT_ARRAYS_EQUAL(MakeStrings({"red", "green", std::nullopt, "red", "red", "blue"}, utf8()),
                      testing::DecodeDictionary(out));
  // Each distinct value once, in order of first appearance.
  EXPECT_EQ(out.dictionary().ToString(), "[red, green, blue]");
}

TEST(ConcatTest, UnifiedDictionaryTooLargeForItsIndexType) {
  auto type = dictionary(int8(), utf8());
  std::vector<std::optional<std::string>> first, second;
  for (int i = 0; i < 100; ++i)
    first.push_back("a" + std::to_string(i));
  for (int i = 0; i < 100; ++i)
    second.push_back("b" + std::to_string(i));
  auto r = Concat({MakeStrings(first, type), MakeStrings(second, type)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("wider index type"), std::string::npos);
}

TEST(ConcatTest, RandomDictionariesUnifyToDistinctValues) {
  auto type = dictionary(int32(), utf8());
  std::vector<Array> parts;
  for (uint64_t s = 0; s < 4; ++s)
    parts.push_back(testing::RandomArray(type, 60, s).Slice(s));
  Array out = Concat(parts).ValueOrDie();
  std::vector<Array> dense;
  for (const Array& p : parts)
    dense.push_back(testing::DecodeDictionary(p));
  EXPECT_ARRAYS_EQUAL(Concat(dense).ValueOrDie(), testing::DecodeDictionary(out));
  std::set<std::string> distinct;
  for (int64_t i = 0; i < out.dictionary().length(); ++i) {
    distinct.insert(std::string(out.dictionary().GetView(i)));
  }
  EXPECT_EQ(static_cast<int64_t>(distinct.size()), out.dictionary().length());
}

TEST(ConcatTest, Batches) {
  RecordBatch a = testing::RandomBatchOfAllTypes(30, 1);
  RecordBatch b = testing::RandomBatchOfAllTypes(20, 2).Slice(5, 10);
  RecordBatch out = ConcatBatches({a, b}).ValueOrDie();
  ASSERT_EQ(out.num_rows(), 40);
  for (int c = 0; c < out.num_columns(); ++c) {
    EXPECT_ARRAYS_EQUAL(NaiveConcat({a.column(c), b.column(c)}), out.column(c));
  }
  RecordBatch other =
      RecordBatch::FromColumns({{"x", MakeNumeric<int64_t>(int64(), {1})}}).ValueOrDie();
  auto mismatch = ConcatBatches({a, other});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), StatusCode::kTypeError);
}

}  // namespace
}  // namespace flotilla::compute
