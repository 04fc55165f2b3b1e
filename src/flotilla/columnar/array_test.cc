#include "flotilla/columnar/array.h"

#include <gtest/gtest.h>

#include "flotilla/columnar/builder.h"
#include "tests/support/random_data.h"

namespace flotilla {
namespace {

TEST(ArrayTest, Int64BuilderProducesArrowLayout) {
  Int64Builder b(int64());
  ASSERT_TRUE(b.Append(7).ok());
  ASSERT_TRUE(b.AppendNull().ok());
  ASSERT_TRUE(b.Append(-3).ok());
  Array a = b.Finish().ValueOrDie();
  ASSERT_EQ(a.length(), 3);
  EXPECT_EQ(a.null_count(), 1);
  EXPECT_TRUE(a.IsValid(0));
  EXPECT_TRUE(a.IsNull(1));
  EXPECT_EQ(a.values<int64_t>()[2], -3);
  // Validity bitmap LSB-first: rows 0 and 2 valid -> 0b101.
  EXPECT_EQ(a.validity()[0] & 0x7, 0x5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.raw_values()) % kBufferAlignment, 0u);
  EXPECT_EQ(a.ToString(), "[7, null, -3]");
}

TEST(ArrayTest, BuildersKeepValuesAcrossGrowth) {
  // Many reallocations: every value must survive each one, and the padding must be zero.
  Int8Builder b(int8());
  StringBuilder s(utf8());
  for (int i = 0; i < 5000; ++i) {
    ASSERT_TRUE(b.Append(static_cast<int8_t>(i % 101)).ok());
    ASSERT_TRUE(
        s.Append(std::string(static_cast<size_t>(i % 7), static_cast<char>('a' + i % 26))).ok());
  }
  Array a = b.Finish().ValueOrDie();
  Array strings = s.Finish().ValueOrDie();
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(a.values<int8_t>()[i], i % 101) << i;
    ASSERT_EQ(strings.GetView(i),
              std::string(static_cast<size_t>(i % 7), static_cast<char>('a' + i % 26)))
        << i;
  }
  const BufferPtr& values = a.data()->buffers[1];
  for (int64_t i = values->size(); i < values->capacity(); ++i)
    ASSERT_EQ(values->data()[i], 0);
}

TEST(ArrayTest, NoValidityBitmapWhenNoNulls) {
  Int32Builder b(int32());
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(b.Append(i).ok());
  Array a = b.Finish().ValueOrDie();
  EXPECT_EQ(a.validity(), nullptr);
  EXPECT_EQ(a.null_count(), 0);
}

TEST(ArrayTest, StringOffsetsStartAtZero) {
  StringBuilder b(utf8());
  ASSERT_TRUE(b.Append("héllo").ok());
  ASSERT_TRUE(b.AppendNull().ok());
  ASSERT_TRUE(b.Append("").ok());
  ASSERT_TRUE(b.Append("x").ok());
  Array a = b.Finish().ValueOrDie();
  const int32_t* offsets = a.data()->buffers[1]->data_as<int32_t>();
  EXPECT_EQ(offsets[0], 0);
  EXPECT_EQ(offsets[1], 6);
  EXPECT_EQ(offsets[2], 6);
  EXPECT_EQ(offsets[3], 6);
  EXPECT_EQ(offsets[4], 7);
  EXPECT_EQ(a.GetView(0), "héllo");
  EXPECT_EQ(a.GetView(3), "x");
}

TEST(ArrayTest, SliceIsZeroCopyAndCountsNulls) {
  Array a = testing::RandomArray(int32(), 1000, 1);
  Array s = a.Slice(100, 50);
  EXPECT_EQ(s.length(), 50);
  EXPECT_EQ(s.offset(), 100);
  EXPECT_EQ(s.raw_values(), a.raw_values());
  int64_t nulls = 0;
  for (int64_t i = 100; i < 150; ++i)
    nulls += a.IsNull(i);
  EXPECT_EQ(s.null_count(), nulls);
  for (int64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(s.IsNull(i), a.IsNull(100 + i));
    if (s.IsValid(i)) {
      EXPECT_EQ(s.values<int32_t>()[i], a.values<int32_t>()[100 + i]);
    }
  }
}

TEST(ArrayTest, EveryTypeRoundTripsThroughAppendArraySlice) {
  for (const auto& type : AllTypesForTesting()) {
    SCOPED_TRACE(type->ToString());
    Array a = testing::RandomArray(type, 200, 42);
    ASSERT_TRUE(Array::Make(a.data()).ok());
    auto builder = MakeBuilder(type).ValueOrDie();
    ASSERT_TRUE(builder->AppendArraySlice(a, 0, 77).ok());
    ASSERT_TRUE(builder->AppendArraySlice(a, 77, 123).ok());
    Array copy = builder->Finish().ValueOrDie();
    EXPECT_TRUE(copy.Equals(a));
    // A slice copied through a builder equals the zero-copy slice.
    ASSERT_TRUE(builder->AppendArraySlice(a, 13, 40).ok());
    EXPECT_TRUE(builder->Finish().ValueOrDie().Equals(a.Slice(13, 40)));
  }
}

TEST(ArrayTest, MakeNullOfEveryType) {
  for (const auto& type : AllTypesForTesting()) {
    SCOPED_TRACE(type->ToString());
    Array a = Array::MakeNull(type, 5).ValueOrDie();
    EXPECT_EQ(a.length(), 5);
    EXPECT_EQ(a.null_count(), 5);
    EXPECT_TRUE(Array::Make(a.data()).ok());
  }
}

TEST(ArrayTest, ValidationRejectsOutOfRangeOffsets) {
  StringBuilder b(utf8());
  ASSERT_TRUE(b.Append("abc").ok());
  Array a = b.Finish().ValueOrDie();
  auto bad = std::make_shared<ArrayData>(*a.data());
  bad->buffers[2] = Buffer::CopyOf("ab").ValueOrDie();  // 2 bytes, offsets say 3
  auto r = Array::Make(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("offsets reach 3"), std::string::npos)
      << r.status().ToString();
}

TEST(ArrayTest, ValidationRejectsDictionaryIndexOutOfRange) {
  Int32Builder idx(int32());
  ASSERT_TRUE(idx.Append(5).ok());
  StringBuilder dict(utf8());
  ASSERT_TRUE(dict.Append("only").ok());
  auto r = MakeDictionaryArray(idx.Finish().ValueOrDie(), dict.Finish().ValueOrDie());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("out of range"), std::string::npos);
}

TEST(ArrayTest, DecimalAndTemporalFormatting) {
  FixedSizeBinaryBuilder d(decimal128(15, 2));
  ASSERT_TRUE(d.AppendDecimal(-12345).ok());
  ASSERT_TRUE(d.AppendDecimal(5).ok());
  EXPECT_EQ(d.Finish().ValueOrDie().ToString(), "[-123.45, 0.05]");
  Int32Builder dates(date32());
  ASSERT_TRUE(dates.Append(0).ok());
  ASSERT_TRUE(dates.Append(19782).ok());  // 2024-02-29
  ASSERT_TRUE(dates.Append(-1).ok());
  EXPECT_EQ(dates.Finish().ValueOrDie().ToString(), "[1970-01-01, 2024-02-29, 1969-12-31]");
  Int64Builder ts(timestamp(TimeUnit::kMilli));
  ASSERT_TRUE(ts.Append(1500).ok());
  ASSERT_TRUE(ts.Append(-1).ok());
  EXPECT_EQ(ts.Finish().ValueOrDie().ToString(),
            "[1970-01-01 00:00:01.5, 1969-12-31 23:59:59.999]");
}

TEST(MemoryPoolTest, TracksCurrentAndPeakBytes) {
  MemoryPool pool;
  {
    auto a = Buffer::Allocate(1000, &pool).ValueOrDie();
    auto b = Buffer::Allocate(5000, &pool).ValueOrDie();
    EXPECT_GE(pool.bytes_allocated(), 6000);
  }
  EXPECT_EQ(pool.bytes_allocated(), 0);
  EXPECT_GE(pool.peak_bytes(), 6000);
}

TEST(MemoryPoolTest, LimitGivesOutOfMemory) {
  MemoryPool pool(4096);
  auto r = Buffer::Allocate(10000, &pool);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(pool.bytes_allocated(), 0);
}

}  // namespace
}  // namespace flotilla
