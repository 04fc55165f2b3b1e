#include "flotilla/columnar/micro_partition.h"

#include <gtest/gtest.h>

#include "tests/support/random_data.h"

namespace flotilla {
namespace {

class CountingSource : public PartitionSource {
 public:
  explicit CountingSource(RecordBatch batch) : batch_(std::move(batch)) {}
  Result<std::vector<RecordBatch>> Load() const override {
    ++loads;
    return std::vector<RecordBatch>{batch_};
  }
  std::string ToString() const override { return "test source"; }
  mutable int loads = 0;

 private:
  RecordBatch batch_;
};

class FailingSource : public PartitionSource {
 public:
  Result<std::vector<RecordBatch>> Load() const override { return Status::IOError("disk on fire"); }
  std::string ToString() const override { return "file 'x.arrow'"; }
};

TEST(MicroPartitionTest, SlicesAcrossBatches) {
  RecordBatch b = testing::RandomBatchOfAllTypes(100, 3);
  auto p = MicroPartition::FromBatches(b.schema(), {b.Slice(0, 30), b.Slice(30, 70)}).ValueOrDie();
  EXPECT_EQ(p.num_rows(), 100);
  auto s = p.Slice(20, 30).ValueOrDie();
  EXPECT_EQ(s.num_rows(), 30);
  ASSERT_EQ(s.batches().size(), 2u);
  EXPECT_TRUE(s.batches()[0].Equals(b.Slice(20, 10)));
  EXPECT_TRUE(s.batches()[1].Equals(b.Slice(30, 20)));
}

TEST(MicroPartitionTest, RejectsBatchOfAnotherSchema) {
  RecordBatch a = testing::RandomBatchOfAllTypes(5, 1);
  RecordBatch b = a.SelectColumns({0, 1}).ValueOrDie();
  auto r = MicroPartition::FromBatches(a.schema(), {a, b});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTypeError);
}

TEST(MicroPartitionTest, UnloadedLoadsOnDemand) {
  RecordBatch b = testing::RandomBatchOfAllTypes(10, 4);
  auto source = std::make_shared<CountingSource>(b);
  auto p = MicroPartition::Unloaded(b.schema(), source, 10, 1234);
  EXPECT_FALSE(p.is_loaded());
  EXPECT_EQ(p.size_bytes(), 1234);
  EXPECT_EQ(source->loads, 0);
  auto loaded = p.Load().ValueOrDie();
  EXPECT_TRUE(loaded.is_loaded());
  EXPECT_EQ(source->loads, 1);
  EXPECT_TRUE(loaded.batches()[0].Equals(b));
}

TEST(MicroPartitionTest, LoadErrorNamesTheSource) {
  RecordBatch b = testing::RandomBatchOfAllTypes(1, 4);
  auto p = MicroPartition::Unloaded(b.schema(), std::make_shared<FailingSource>());
  auto r = p.Load();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "loading file 'x.arrow': disk on fire");
}

TEST(MicroPartitionTest, StatisticsMustMatchTheSchema) {
  RecordBatch b = testing::RandomBatchOfAllTypes(10, 4);
  auto p = MicroPartition::FromBatches(b.schema(), {b}).ValueOrDie();
  EXPECT_FALSE(p.SetStatistics({}).ok());
  std::vector<ColumnStatistics> stats(b.num_columns());
  stats[5].null_count = b.column(5).null_count();
  stats[5].min = b.column(5).Slice(0, 1);
  stats[5].max = b.column(5).Slice(1, 1);
  EXPECT_TRUE(p.SetStatistics(stats).ok());
  stats[5].min = b.column(4).Slice(0, 1);  // wrong type
  EXPECT_FALSE(p.SetStatistics(stats).ok());
}

}  // namespace
}  // namespace flotilla
