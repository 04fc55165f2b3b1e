// Dataset writes: Hive-style partition directories (escaped values, nulls), several files per
// partition from the row target, the written-files table, every row read back from the files
// under its partition, and an abandoned write leaving nothing behind.
#include "flotilla/io/dataset/dataset_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "flotilla/columnar/builder.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/expr/expression.h"
#include "flotilla/io/csv/scan_task.h"
#include "flotilla/io/dataset/hive_partitions.h"
#include "flotilla/io/json/scan_task.h"
#include "flotilla/io/parquet/scan_task.h"

namespace flotilla::io {
namespace {

namespace fs = std::filesystem;

class DatasetWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flotilla_dataset_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    // 1000 rows: k in {"a", "b/c", null}, y in {2023, 2024}, v = row number.
    StringBuilder k(utf8());
    Int64Builder y(int64()), v(int64());
    for (int64_t i = 0; i < 1000; ++i) {
      const int m = static_cast<int>(i % 3);
      EXPECT_TRUE((m == 2 ? k.AppendNull() : k.Append(m == 0 ? "a" : "b/c")).ok());
      EXPECT_TRUE(y.Append(2023 + (i / 7) % 2).ok());
      EXPECT_TRUE(v.Append(i).ok());
    }
    batch_ =
        *RecordBatch::FromColumns({{"k", *k.Finish()}, {"y", *y.Finish()}, {"v", *v.Finish()}});
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> AllFiles() const {
    std::vector<std::string> out;
    if (!fs::exists(dir_)) return out;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir_).string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
  RecordBatch batch_;
};

TEST(PartitionDirectory, EscapesWhatPathsCannotHold) {
  const std::string v = "a/b=c%d";
  EXPECT_EQ(PartitionDirectory("k", &v), "k=a%2Fb%3Dc%25d");
  EXPECT_EQ(PartitionDirectory("k", nullptr), "k=__HIVE_DEFAULT_PARTITION__");
  const std::string date = "2024-01-01";
  EXPECT_EQ(PartitionDirectory("d", &date), "d=2024-01-01");
}

TEST_F(DatasetWriterTest, PartitionedParquetWithSeveralFilesPerPartition) {
  DatasetWriteOptions options;
  options.partition_by = {"k", "y"};
  options.max_rows_per_file = 100;
  auto written = WriteDataset(dir_.string(), batch_.schema(),
                              {batch_.Slice(0, 400), batch_.Slice(400, 600)}, options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->schema()->field_names(),
            (std::vector<std::string>{"path", "k", "y", "rows", "bytes"}));

  // Every file listed exists, under its partition's directory; no temporary file is left.
  int64_t total = 0;
  std::map<std::string, int64_t> rows_per_partition;
  for (int64_t f = 0; f < written->num_rows(); ++f) {
    const std::string path(written->column(0).GetView(f));
    EXPECT_TRUE(fs::exists(path)) << path;
    const std::string k = written->column(1).IsNull(f) ? "__HIVE_DEFAULT_PARTITION__"
                          : written->column(1).GetView(f) == "b/c"
                              ? "b%2Fc"
                              : std::string(written->column(1).GetView(f));
    const std::string dir = "k=" + k + "/y=" + std::string(written->column(2).GetView(f));
    EXPECT_NE(path.find(dir + "/part-"), std::string::npos) << path;
    const int64_t rows = written->column(3).values<int64_t>()[f];
    EXPECT_LE(rows, 100);
    EXPECT_GT(written->column(4).values<int64_t>()[f], 0);
    total += rows;
    rows_per_partition[dir] += rows;
  }
  EXPECT_EQ(total, 1000);
  EXPECT_EQ(rows_per_partition.size(), 6u);
  for (const std::string& f : AllFiles())
    EXPECT_EQ(fs::path(f).filename().string()[0], 'p') << f;

  // Each partition's files hold exactly its rows (the partition columns are in the path only,
  // and come back as columns when read).
  auto scan = parquet::PlanParquetScan({(dir_ / "k=b%2Fc" / "y=2024").string()});
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  EXPECT_EQ(scan->schema->ToString(), "v: int64\nk: string\ny: int64\n");
  std::vector<int64_t> got;
  for (const auto& task : scan->tasks) {
    auto batches = task->Read({});
    ASSERT_TRUE(batches.ok());
    for (const RecordBatch& b : *batches)
      for (int64_t r = 0; r < b.num_rows(); ++r) {
        got.push_back(b.column(0).values<int64_t>()[r]);
        EXPECT_EQ(b.column(1).GetView(r), "b/c");
        EXPECT_EQ(b.column(2).values<int64_t>()[r], 2024);
      }
  }
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 1000; ++i)
    if (i % 3 == 1 && (i / 7) % 2 == 1) expected.push_back(i);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
}

// The whole dataset read back: every row with its partition values, nulls included, also through
// plan serialization and with only partition columns projected.
TEST_F(DatasetWriterTest, PartitionedDatasetsReadBackWithTheirColumns) {
  DatasetWriteOptions options;
  options.partition_by = {"k", "y"};
  options.format = FileFormat::kJson;
  ASSERT_TRUE(WriteDataset(dir_.string(), batch_.schema(), {batch_}, options).ok());
  auto scan = json::PlanJsonScan({dir_.string()});
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  EXPECT_EQ(scan->schema->ToString(), "v: int64\nk: string\ny: int64\n");
  io::ScanPushdowns pushdowns;
  pushdowns.columns = std::vector<std::string>{"y", "k", "v"};
  auto plan = exec::MakeScan(scan->schema, scan->tasks, pushdowns);
  ASSERT_TRUE(plan.ok());
  auto bytes = exec::SerializePlan(*plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  exec::PlanResolver resolver;
  json::RegisterJsonScanTasks(&resolver.scan_tasks);
  RegisterHivePartitionTasks(&resolver.scan_tasks);
  auto back = exec::DeserializePlan(*bytes, resolver);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  auto result = exec::Run(*back);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  auto all = result->ToBatch();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->num_rows(), 1000);
  for (int64_t r = 0; r < all->num_rows(); ++r) {
    const int64_t v = all->column(2).values<int64_t>()[r];
    EXPECT_EQ(all->column(0).values<int64_t>()[r], 2023 + (v / 7) % 2);
    if (v % 3 == 2) {
      EXPECT_TRUE(all->column(1).IsNull(r));
    } else {
      EXPECT_EQ(all->column(1).GetView(r), v % 3 == 0 ? "a" : "b/c");
    }
  }
  // A filter on partition columns skips the other partitions' files without reading them.
  io::ScanPushdowns y2024;
  y2024.filter = expr::And(expr::Equal(expr::Column("y"), expr::Literal(int64_t{2024})),
                           expr::Greater(expr::Column("v"), expr::Literal(int64_t{-1})));
  int64_t read_tasks = 0, rows_2024 = 0;
  for (const auto& task : scan->tasks) {
    auto batches = task->Read(y2024);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    if (!batches->empty()) ++read_tasks;
    for (const RecordBatch& b : *batches) {
      for (int64_t r = 0; r < b.num_rows(); ++r)
        EXPECT_EQ(b.column(2).values<int64_t>()[r], 2024);
      rows_2024 += b.num_rows();
    }
  }
  EXPECT_EQ(read_tasks, 3);   // k in {a, b/c, null} under y=2024
  EXPECT_EQ(rows_2024, 497);  // rows with (i / 7) odd among 0..999
  io::ScanPushdowns only_partitions;
  only_partitions.columns = std::vector<std::string>{"y"};
  auto counted = exec::MakeScan(scan->schema, scan->tasks, only_partitions);
  ASSERT_TRUE(counted.ok());
  auto ys = exec::Run(*counted);
  ASSERT_TRUE(ys.ok());
  EXPECT_EQ(ys->ToBatch()->num_rows(), 1000);
}

TEST_F(DatasetWriterTest, UnpartitionedCsvAndFormatNames) {
  DatasetWriteOptions options;
  options.format = FileFormat::kCsv;
  options.max_rows_per_file = 300;
  auto written = WriteDataset(dir_.string(), batch_.schema(), {batch_}, options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->num_rows(), 4);  // 300 + 300 + 300 + 100
  auto scan = csv::PlanCsvScan({dir_.string()});
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  int64_t rows = 0;
  for (const auto& task : scan->tasks)
    rows += (*task->Read({}))[0].num_rows();
  EXPECT_EQ(rows, 1000);

  EXPECT_EQ(*ParseFileFormat("Parquet"), FileFormat::kParquet);
  EXPECT_FALSE(ParseFileFormat("xlsx").ok());
}

TEST_F(DatasetWriterTest, AbandonedAndFailedWritesLeaveNothing) {
  {
    DatasetWriteOptions options;
    options.partition_by = {"y"};
    auto writer = DatasetWriter::Open(dir_.string(), batch_.schema(), options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write(batch_).ok());
    EXPECT_FALSE(AllFiles().empty());  // hidden temporary files while writing
  }                                    // destroyed unfinished
  EXPECT_TRUE(AllFiles().empty());
  // Nor the directories it made (the root included, which it created).
  EXPECT_FALSE(fs::exists(dir_)) << "partition directories left behind";
  // A root that was there already stays, with what it held.
  fs::create_directories(dir_ / "mine");
  {
    DatasetWriteOptions options;
    options.partition_by = {"y"};
    auto writer = DatasetWriter::Open(dir_.string(), batch_.schema(), options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write(batch_).ok());
    (*writer)->Abort();
  }
  EXPECT_TRUE(fs::exists(dir_ / "mine"));
  EXPECT_FALSE(fs::exists(dir_ / "y=2023"));
  fs::remove_all(dir_);

  // A column JSON cannot hold fails the write before anything is written.
  StringBuilder blob(binary());
  ASSERT_TRUE(blob.Append("x").ok());
  auto bad = RecordBatch::FromColumns({{"b", *blob.Finish()}});
  DatasetWriteOptions json;
  json.format = FileFormat::kJson;
  auto result = WriteDataset(dir_.string(), bad->schema(), {*bad}, json);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(AllFiles().empty());

  DatasetWriteOptions all_partitions;
  all_partitions.partition_by = {"k", "y", "v"};
  EXPECT_FALSE(DatasetWriter::Open(dir_.string(), batch_.schema(), all_partitions).ok());
}

}  // namespace
}  // namespace flotilla::io
