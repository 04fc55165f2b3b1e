// The page index: the writer's per-page statistics and locations, and the reader decoding only
// the pages a filter can need, with the same rows as a full read.
#include "flotilla/io/parquet/page_index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "flotilla/columnar/builder.h"
#include "flotilla/io/fs/file.h"
#include "flotilla/io/parquet/reader.h"
#include "flotilla/io/parquet/writer.h"

namespace flotilla::io::parquet {
namespace {

namespace fs = std::filesystem;
using expr::Column;
using expr::Literal;

// 100,000 rows of k = 0, 1, ... (sorted), s = "v<k % 13>", and x = k / 7 with every tenth row
// null; row groups of 50,000 rows cut into pages of 1,000 rows.
class PageIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() /
             ("flotilla_page_index_" + std::to_string(::getpid()) + ".parquet"))
                .string();
    NumericBuilder<int64_t> k(int64()), x(int64());
    StringBuilder s(utf8());
    for (int64_t i = 0; i < kRows; ++i) {
      ASSERT_TRUE(k.Append(i).ok());
      ASSERT_TRUE(s.Append("v" + std::to_string(i % 13)).ok());
      ASSERT_TRUE((i % 10 == 0 ? x.AppendNull() : x.Append(i / 7)).ok());
    }
    auto batch =
        RecordBatch::FromColumns({{"k", *k.Finish()}, {"s", *s.Finish()}, {"x", *x.Finish()}});
    ASSERT_TRUE(batch.ok());
    batch_ = *batch;
    ParquetWriteOptions options;
    options.row_group_rows = 50000;
    options.page_rows = 1000;
    ASSERT_TRUE(WriteParquetFile(path_, batch_.schema(), {batch_}, options).ok());
    auto reader = ParquetFileReader::Open(path_);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    reader_ = *reader;
  }
  void TearDown() override { fs::remove(path_); }

  // Rows [begin, end) of the written batch, for comparison with what the reader returns.
  RecordBatch Expected(int64_t begin, int64_t end) const {
    return batch_.Slice(begin, end - begin);
  }

  static constexpr int64_t kRows = 100000;
  std::string path_;
  RecordBatch batch_;
  std::shared_ptr<ParquetFileReader> reader_;
};

TEST_F(PageIndexTest, EveryChunkHasAnOffsetIndexAndOrderedColumnsAColumnIndex) {
  const FileMetaData& meta = reader_->metadata();
  ASSERT_EQ(meta.row_groups.size(), 2u);
  for (const RowGroup& rg : meta.row_groups) {
    for (const ColumnChunk& chunk : rg.columns) {
      ASSERT_TRUE(chunk.offset_index_offset && chunk.offset_index_length);
      ASSERT_TRUE(chunk.column_index_offset && chunk.column_index_length);
    }
  }
  // k's index, read back from the file: 50 pages of 1,000 rows, ascending, page 3 is [3000, 3999].
  auto file = io::OpenFile(path_);
  ASSERT_TRUE(file.ok());
  const ColumnChunk& k = meta.row_groups[0].columns[0];
  auto bytes = (*file)->ReadAt(*k.column_index_offset, *k.column_index_length);
  ASSERT_TRUE(bytes.ok());
  auto index = DecodeColumnIndex((*bytes)->data(), (*bytes)->size());
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  ASSERT_EQ(index->min_values.size(), 50u);
  EXPECT_EQ(index->boundary_order, BoundaryOrder::kAscending);
  int64_t min = 0, max = 0;
  std::memcpy(&min, index->min_values[3].data(), 8);
  std::memcpy(&max, index->max_values[3].data(), 8);
  EXPECT_EQ(min, 3000);
  EXPECT_EQ(max, 3999);
  // x: 100 nulls per page.
  const ColumnChunk& x = meta.row_groups[1].columns[2];
  bytes = (*file)->ReadAt(*x.column_index_offset, *x.column_index_length);
  ASSERT_TRUE(bytes.ok());
  index = DecodeColumnIndex((*bytes)->data(), (*bytes)->size());
  ASSERT_TRUE(index.ok());
  ASSERT_EQ(index->null_counts.size(), 50u);
  EXPECT_EQ(index->null_counts[7], 100);
  EXPECT_FALSE(index->null_pages[7]);
}

TEST_F(PageIndexTest, AFilterSelectsOnlyThePagesThatCanMatch) {
  // 1500 <= k < 2600 lies in pages 1 and 2 of row group 0; row group 1 has none of it.
  auto filter = expr::And(expr::GreaterEqual(Column("k"), Literal(int64_t{1500})),
                          expr::Less(Column("k"), Literal(int64_t{2600})));
  auto rows = reader_->RowsMayMatch(0, filter);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_TRUE(rows->has_value());
  EXPECT_EQ(**rows, (RowRanges{{1000, 3000}}));
  rows = reader_->RowsMayMatch(1, filter);
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(rows->has_value());
  EXPECT_TRUE((*rows)->empty());

  auto batch = reader_->ReadRowGroup(0, {0, 1, 2}, &**reader_->RowsMayMatch(0, filter));
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_TRUE(batch->Equals(Expected(1000, 3000)));
}

TEST_F(PageIndexTest, SeveralRangesAndConditionsOnSeveralColumns) {
  // k < 500 or k >= 49800: pages 0 and 49 of row group 0 (two ranges, concatenated).
  auto ends = expr::Or(expr::Less(Column("k"), Literal(int64_t{500})),
                       expr::GreaterEqual(Column("k"), Literal(int64_t{49800})));
  auto rows = reader_->RowsMayMatch(0, ends);
  ASSERT_TRUE(rows.ok() && rows->has_value());
  EXPECT_EQ(**rows, (RowRanges{{0, 1000}, {49000, 50000}}));
  auto batch = reader_->ReadRowGroup(0, {2, 0}, &**rows);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->num_rows(), 2000);
  auto expected = Expected(0, 1000).SelectColumns({2, 0});
  auto tail = Expected(49000, 50000).SelectColumns({2, 0});
  ASSERT_TRUE(expected.ok() && tail.ok());
  EXPECT_TRUE(batch->Slice(0, 1000).Equals(*expected));
  EXPECT_TRUE(batch->Slice(1000, 1000).Equals(*tail));

  // Two columns: x >= 7000 starts at k = 49000 (page 49); k < 49500 keeps page 49 only.
  auto both = expr::And(expr::GreaterEqual(Column("x"), Literal(int64_t{7000})),
                        expr::Less(Column("k"), Literal(int64_t{49500})));
  rows = reader_->RowsMayMatch(0, both);
  ASSERT_TRUE(rows.ok() && rows->has_value());
  EXPECT_EQ(**rows, (RowRanges{{49000, 50000}}));
  // A filter the statistics cannot judge prunes nothing.
  rows = reader_->RowsMayMatch(0, expr::Equal(Column("s"), Column("s")));
  ASSERT_TRUE(rows.ok());
  EXPECT_FALSE(rows->has_value());
}

TEST(PageIndexRanges, IntersectAppendAndTake) {
  RowRanges a;
  AppendRange(&a, 0, 10);
  AppendRange(&a, 10, 20);  // touching: merged
  AppendRange(&a, 30, 40);
  EXPECT_EQ(a, (RowRanges{{0, 20}, {30, 40}}));
  EXPECT_EQ(Intersect(a, {{5, 35}}), (RowRanges{{5, 20}, {30, 35}}));
  EXPECT_EQ(Intersect(a, {{20, 30}}), RowRanges{});
  EXPECT_EQ(CountRows(a), 30);

  NumericBuilder<int64_t> b(int64());
  for (int64_t v : {0, 1, 2, 3, 30, 31, 32})
    ASSERT_TRUE(b.Append(v).ok());
  Array values = *b.Finish();  // rows [0, 4) and [30, 33)
  auto taken = TakeRows(values, {{0, 4}, {30, 33}}, {{1, 3}, {31, 33}});
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(taken->ToString(), "[1, 2, 31, 32]");
  EXPECT_FALSE(TakeRows(values, {{0, 4}}, {{3, 6}}).ok());  // rows 4, 5 were not read
}

TEST(PageIndexRanges, CorruptOffsetIndexesAreErrors) {
  OffsetIndex index;
  index.page_locations = {{100, 50, 0}, {140, 50, 10}};  // the pages overlap
  Status st = CheckOffsetIndex(index, 20, 100, 200);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("overlaps"), std::string::npos) << st.ToString();
  index.page_locations = {{100, 50, 0}, {150, 50, 30}};  // row 30 of a 20-row group
  EXPECT_FALSE(CheckOffsetIndex(index, 20, 100, 200).ok());
  index.page_locations = {{100, 50, 0}, {150, 500, 10}};  // past the chunk
  EXPECT_FALSE(CheckOffsetIndex(index, 20, 100, 200).ok());
  index.page_locations = {{100, 50, 0}, {150, 50, 10}};
  EXPECT_TRUE(CheckOffsetIndex(index, 20, 100, 200).ok());
}

}  // namespace
}  // namespace flotilla::io::parquet
