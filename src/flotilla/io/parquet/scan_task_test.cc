// Parquet files as the engine's scan source: globs over several files, projection, statistics
// pruning of row groups (fewer bytes read, same rows), a limit, and plan serialization of the
// scan tasks.
#include "flotilla/io/parquet/scan_task.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "flotilla/columnar/builder.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/io/parquet/reader_cache.h"
#include "flotilla/io/parquet/writer.h"

namespace flotilla::io::parquet {
namespace {

namespace fs = std::filesystem;

// Files part-0..2, each 3000 rows of id (ascending across files) and id % 7 as a string;
// 1000-row row groups, so each row group covers a distinct id range.
class ParquetScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flotilla_scan_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "sub");
    for (int f = 0; f < 3; ++f) {
      NumericBuilder<int64_t> ids(int64());
      StringBuilder names(utf8());
      for (int64_t i = 0; i < 3000; ++i) {
        ASSERT_TRUE(ids.Append(f * 3000 + i).ok());
        ASSERT_TRUE(names.Append(std::to_string((f * 3000 + i) % 7)).ok());
      }
      auto batch = RecordBatch::FromColumns({{"id", *ids.Finish()}, {"name", *names.Finish()}});
      ASSERT_TRUE(batch.ok());
      ParquetWriteOptions options;
      options.row_group_rows = 1000;
      const fs::path path =
          (f == 2 ? dir_ / "sub" : dir_) / ("part-" + std::to_string(f) + ".parquet");
      ASSERT_TRUE(WriteParquetFile(path.string(), batch->schema(), {*batch}, options).ok());
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<int64_t> Rows(const ParquetScan& scan, io::ScanPushdowns pushdowns, int64_t* sum) {
    FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr plan,
                              exec::MakeScan(scan.schema, scan.tasks, pushdowns));
    FLOTILLA_ASSIGN_OR_RETURN(exec::QueryResult result, exec::Run(plan));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch all, result.ToBatch());
    *sum = 0;
    const int id = all.schema()->GetFieldIndex("id");
    for (int64_t i = 0; id >= 0 && i < all.num_rows(); ++i)
      *sum += all.column(id).values<int64_t>()[i];
    return all.num_rows();
  }

  fs::path dir_;
};

int64_t BytesRead(const ParquetScan& scan) {
  int64_t bytes = 0;
  std::set<const io::RandomAccessFile*> seen;
  for (const auto& task : scan.tasks) {
    const auto& file = static_cast<const ParquetScanTask&>(*task).reader().file();
    if (seen.insert(&file).second) bytes += file.bytes_read();
  }
  return bytes;
}

TEST_F(ParquetScanTest, GlobsDirectoriesProjectionAndPruning) {
  auto scan = PlanParquetScan({(dir_ / "**" / "*.parquet").string()});
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  EXPECT_EQ(scan->tasks.size(), 9u);  // 3 files x 3 row groups, in path order
  EXPECT_NE(scan->tasks[0]->ToString().find("part-0.parquet' row groups [0, 1)"),
            std::string::npos);
  EXPECT_EQ(scan->tasks[0]->num_rows(), 1000);

  int64_t sum = 0;
  auto all = Rows(*scan, {}, &sum);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, 9000);
  EXPECT_EQ(sum, 8999LL * 9000 / 2);
  const int64_t full_bytes = BytesRead(*scan);

  // id in [4200, 4300): one row group of one file can match.
  auto pruned_scan = PlanParquetScan({dir_.string()});
  ASSERT_TRUE(pruned_scan.ok());
  io::ScanPushdowns pushdowns;
  pushdowns.columns = std::vector<std::string>{"id"};
  pushdowns.filter = expr::And(expr::GreaterEqual(expr::Column("id"), expr::Literal(int64_t{4200})),
                               expr::Less(expr::Column("id"), expr::Literal(int64_t{4300})));
  auto pruned = Rows(*pruned_scan, pushdowns, &sum);
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  EXPECT_EQ(*pruned, 100);
  EXPECT_EQ(sum, (4200 + 4299) * 100 / 2);
  EXPECT_LT(BytesRead(*pruned_scan) * 4, full_bytes);

  // A string comparison no row group's range admits: nothing read beyond the footers.
  auto none_scan = PlanParquetScan({dir_.string()});
  ASSERT_TRUE(none_scan.ok());
  io::ScanPushdowns none;
  none.filter = expr::Greater(expr::Column("name"), expr::Literal("9"));
  auto zero = Rows(*none_scan, none, &sum);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*zero, 0);
}

TEST_F(ParquetScanTest, ErrorsNameWhatIsWrong) {
  auto missing = PlanParquetScan({(dir_ / "nope*.parquet").string()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("no files match"), std::string::npos);
  std::ofstream(dir_ / "junk.parquet") << "this is not parquet at all";
  auto junk = PlanParquetScan({(dir_ / "junk.parquet").string()});
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.status().ToString().find("junk.parquet"), std::string::npos)
      << junk.status().ToString();
  auto scan = PlanParquetScan({(dir_ / "part-0.parquet").string()});
  ASSERT_TRUE(scan.ok());
  io::ScanPushdowns wrong;
  wrong.columns = std::vector<std::string>{"idd"};
  auto plan = exec::MakeScan(scan->schema, scan->tasks, wrong);
  if (plan.ok()) {
    auto run = exec::Run(*plan);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.status().ToString().find("idd"), std::string::npos);
  } else {
    EXPECT_NE(plan.status().ToString().find("idd"), std::string::npos);
  }
}

TEST_F(ParquetScanTest, ScanTasksSurvivePlanSerialization) {
  auto scan = PlanParquetScan({(dir_ / "part-1.parquet").string()});
  ASSERT_TRUE(scan.ok());
  auto plan = exec::MakeScan(scan->schema, scan->tasks);
  ASSERT_TRUE(plan.ok());
  auto bytes = exec::SerializePlan(*plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  exec::PlanResolver resolver;
  EXPECT_FALSE(exec::DeserializePlan(*bytes, resolver).ok());  // "parquet" not registered
  RegisterParquetScanTasks(&resolver.scan_tasks);
  auto back = exec::DeserializePlan(*bytes, resolver);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  auto result = exec::Run(*back);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->num_rows(), 3000);
}

TEST_F(ParquetScanTest, AFootersIsReadOncePerFileUntilTheFileChanges) {
  const std::string path = (dir_ / "part-0.parquet").string();
  const FooterCacheStats before = FooterCacheCounts();
  auto first = OpenParquetCached(path);
  auto again = OpenParquetCached(path);
  ASSERT_TRUE(first.ok() && again.ok()) << first.status().ToString();
  EXPECT_EQ(&(*first)->metadata(), &(*again)->metadata()) << "one decoded footer, shared";
  EXPECT_EQ(FooterCacheCounts().misses, before.misses + 1);
  EXPECT_EQ(FooterCacheCounts().hits, before.hits + 1);
  // A reader from the cache reads the file's rows.
  auto rows = (*again)->ReadRowGroup(2, {0});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->num_rows(), 1000);
  EXPECT_EQ(rows->column(0).values<int64_t>()[0], 2000);

  // Rewritten in place: read again.
  NumericBuilder<int64_t> ids(int64());
  for (int64_t i = 0; i < 10; ++i)
    ASSERT_TRUE(ids.Append(i).ok());
  auto batch = RecordBatch::FromColumns({{"id", *ids.Finish()}});
  ASSERT_TRUE(WriteParquetFile(path, batch->schema(), {*batch}).ok());
  auto changed = OpenParquetCached(path);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_EQ((*changed)->num_rows(), 10);
  EXPECT_EQ(FooterCacheCounts().misses, before.misses + 2);
  // What is not a Parquet file still says so.
  { std::ofstream(path) << "not parquet at all"; }
  auto bad = OpenParquetCached(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not a Parquet file"), std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace flotilla::io::parquet
