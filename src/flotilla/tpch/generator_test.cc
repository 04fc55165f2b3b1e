// Writing the tables to files: one file or several per table, readable back with their rows.
#include "flotilla/tpch/generator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "flotilla/io/parquet/reader.h"
#include "tests/support/file_scan_test.h"

namespace flotilla::tpch {
namespace {

using GeneratorTest = testing::FileScanTest;

int64_t RowsIn(const std::string& path) {
  auto reader = io::parquet::ParquetFileReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return reader.ok() ? (*reader)->num_rows() : -1;
}

TEST_F(GeneratorTest, WritesEveryTableAsOneFile) {
  GenerateOptions options;
  options.scale_factor = 0.01;
  options.out_dir = dir_.string();
  options.threads = 2;
  auto written = GenerateTables(options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_EQ(written->size(), 8u);
  const Scale scale = *Scale::Of(0.01);
  for (const GeneratedTable& t : *written) {
    const std::string path = (dir_ / (std::string(TableName(t.table)) + ".parquet")).string();
    EXPECT_EQ(RowsIn(path), t.rows) << path;
    EXPECT_EQ(t.files, 1);
    auto reader = io::parquet::ParquetFileReader::Open(path);
    ASSERT_TRUE(reader.ok());
    EXPECT_TRUE((*reader)->schema()->Equals(*TableSchema(t.table))) << path;
  }
  EXPECT_EQ((*written)[static_cast<int>(Table::kOrders)].rows, scale.orders);
  EXPECT_EQ((*written)[static_cast<int>(Table::kPartSupp)].rows, 4 * scale.parts);
}

TEST_F(GeneratorTest, SplitsTablesIntoSeveralFilesOfTheSameRows) {
  GenerateOptions options;
  options.scale_factor = 0.01;
  options.out_dir = (dir_ / "one").string();
  options.tables = {Table::kNation, Table::kLineitem};
  auto one = GenerateTables(options);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  options.out_dir = (dir_ / "three").string();
  options.files_per_table = 3;
  auto three = GenerateTables(options);
  ASSERT_TRUE(three.ok()) << three.status().ToString();
  EXPECT_EQ((*three)[1].files, 3);
  EXPECT_EQ((*three)[1].rows, (*one)[1].rows);
  int64_t rows = 0;
  for (int f = 0; f < 3; ++f) {
    rows +=
        RowsIn((dir_ / "three" / "lineitem" / ("part-" + std::to_string(f) + ".parquet")).string());
  }
  EXPECT_EQ(rows, (*one)[1].rows);

  // The other layout already there is refused rather than mixed with.
  options.out_dir = (dir_ / "one").string();
  auto mixed = GenerateTables(options);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("nation.parquet' exists"), std::string::npos)
      << mixed.status().ToString();
}

std::string Bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(GeneratorTest, FilesAreTheSameWhateverTheThreads) {
  GenerateOptions options;
  options.scale_factor = 0.01;
  options.tables = {Table::kSupplier, Table::kOrders};
  options.row_group_rows = 4000;  // several row groups
  options.threads = 1;
  options.out_dir = (dir_ / "one").string();
  ASSERT_TRUE(GenerateTables(options).ok());
  options.threads = 3;
  options.out_dir = (dir_ / "three").string();
  ASSERT_TRUE(GenerateTables(options).ok());
  for (const char* name : {"supplier.parquet", "orders.parquet"}) {
    const std::string one = Bytes(dir_ / "one" / name);
    EXPECT_GT(one.size(), 1000u);
    EXPECT_TRUE(one == Bytes(dir_ / "three" / name)) << name;
  }
}

TEST_F(GeneratorTest, RejectsBadOptions) {
  GenerateOptions options;
  options.out_dir = dir_.string();
  options.scale_factor = -2;
  EXPECT_FALSE(GenerateTables(options).ok());
  options.scale_factor = 0.01;
  options.files_per_table = 0;
  EXPECT_FALSE(GenerateTables(options).ok());
}

}  // namespace
}  // namespace flotilla::tpch
