#include "flotilla/compute/gather.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "tests/support/random_data.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::compute::internal {
namespace {

using testing::MakeIndices;
using testing::MakeStrings;
using testing::NaiveTake;

std::string_view DataBytes(const Array& a) {
  const BufferPtr& data = a.data()->buffers[2];
  return data ? data->view() : std::string_view();
}

// Strings are copied one run of consecutive positions at a time; runs end at a null index, a
// jump, a repeat or the end, and a run may cover null values.
TEST(GatherTest, StringRunsWithNulls) {
  Array values = MakeStrings({"a", "bb", std::nullopt, "", "dddd", "e", "ff", "ggg"});
  const std::vector<std::optional<int64_t>> rows = {
      std::nullopt, 0, 1, 2, 3,           4, std::nullopt, 5, 6, 6, 7, 0, 1,
      std::nullopt, 7, 3, 4, std::nullopt};
  for (const auto& index_type : {int32(), int64(), uint32(), uint64()}) {
    SCOPED_TRACE(index_type->ToString());
    Array out = Gather(values, MakeIndices(index_type, rows)).ValueOrDie();
    EXPECT_TRUE(Array::Make(out.data()).ok());
    EXPECT_ARRAYS_EQUAL(NaiveTake(values, rows), out);
    EXPECT_EQ(DataBytes(out), "abbddddeffffgggabbgggdddd");
  }
}

// The bytes under a null value are gathered with the rest of their run, as they were row by
// row, so the output offsets and data stay the same.
TEST(GatherTest, BytesUnderNullValuesKeepTheirPlace) {
  auto data = std::make_shared<ArrayData>();
  data->type = binary();
  data->length = 4;
  const int32_t offsets[] = {0, 2, 5, 6, 9};
  uint8_t validity = 0b1011;  // row 2 is null but spans one byte
  data->buffers = {
      Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(&validity), 1)).ValueOrDie(),
      Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(offsets), sizeof(offsets)))
          .ValueOrDie(),
      Buffer::CopyOf("aabbbcddd").ValueOrDie()};
  data->null_count = 1;
  Array values(data);
  Array out = Gather(values, MakeIndices(int64(), {1, 2, 3, 0})).ValueOrDie();
  EXPECT_TRUE(Array::Make(out.data()).ok());
  EXPECT_EQ(out.null_count(), 1);
  EXPECT_EQ(DataBytes(out), "bbbcdddaa");
  const int32_t* out_offsets = out.data()->buffers[1]->data_as<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(out_offsets, out_offsets + 5),
            (std::vector<int32_t>{0, 3, 4, 7, 9}));
}

// A slice's offsets start past the beginning of its data buffer (here by 100000 bytes); runs
// copy from the right place for both offset widths.
TEST(GatherTest, SlicedStringsWithRunsAndLargeOffsets) {
  for (const auto& type : {utf8(), large_utf8(), binary(), large_binary()}) {
    SCOPED_TRACE(type->ToString());
    std::vector<std::optional<std::string>> strings = {std::string(100000, 'x')};
    for (int i = 0; i < 40; ++i) {
      if (i % 7 == 3) {
        strings.push_back(std::nullopt);
      } else {
        strings.push_back(std::string(static_cast<size_t>(i % 5), static_cast<char>('a' + i % 26)));
      }
    }
    Array values = MakeStrings(strings, type).Slice(1, 38);
    std::vector<std::optional<int64_t>> rows;
    for (int64_t i = 2; i < 20; ++i)
      rows.push_back(i);
    rows.push_back(std::nullopt);
    for (int64_t i = 30; i < 38; ++i)
      rows.push_back(i);
    rows.push_back(0);
    Array indices = MakeIndices(int64(), rows);
    Array out = Gather(values, indices).ValueOrDie();
    EXPECT_TRUE(Array::Make(out.data()).ok());
    EXPECT_ARRAYS_EQUAL(NaiveTake(values, rows), out);
    // Sliced indices too.
    std::vector<std::optional<int64_t>> padded = {5, 6};
    padded.insert(padded.end(), rows.begin(), rows.end());
    Array sliced_out = Gather(values, MakeIndices(uint32(), padded).Slice(2)).ValueOrDie();
    EXPECT_ARRAYS_EQUAL(NaiveTake(values, rows), sliced_out);
  }
}

// Filter-like selections (long runs with gaps) and random ones, against the reference.
TEST(GatherTest, RandomRunsMatchTheReference) {
  std::mt19937_64 rng(11);
  for (const auto& type : {utf8(), large_utf8(), binary()}) {
    for (int keep_percent : {95, 50, 5}) {
      SCOPED_TRACE(type->ToString() + " keeping " + std::to_string(keep_percent) + "%");
      Array values = testing::RandomArray(type, 2000, rng()).Slice(17, 1900);
      std::vector<std::optional<int64_t>> rows;
      for (int64_t i = 0; i < values.length(); ++i) {
        if (static_cast<int>(rng() % 100) < keep_percent) rows.push_back(i);
        if (rng() % 200 == 0) rows.push_back(std::nullopt);
      }
      Array out = Gather(values, MakeIndices(int32(), rows)).ValueOrDie();
      EXPECT_TRUE(Array::Make(out.data()).ok());
      EXPECT_ARRAYS_EQUAL(NaiveTake(values, rows), out);
    }
  }
}

}  // namespace
}  // namespace flotilla::compute::internal
