#include "flotilla/distributed/shuffle_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "tests/support/plan_checks.h"

namespace flotilla::distributed {
namespace {

using namespace flotilla::testing;

RecordBatch Rows(int64_t first, int64_t n) {
  std::vector<std::optional<int64_t>> v;
  for (int64_t i = first; i < first + n; ++i)
    v.push_back(i);
  return Batch({{"v", I64(v)}});
}

constexpr int kPartitions = 5;

// Morsel m's pieces: partition p gets rows [m * 100000 + p * 10000, + rows) (none for p = 3).
std::vector<std::vector<RecordBatch>> Morsel(int m, int64_t rows) {
  std::vector<std::vector<RecordBatch>> pieces(kPartitions);
  for (int p = 0; p < kPartitions; ++p)
    if (p != 3) pieces[static_cast<size_t>(p)].push_back(Rows(m * 100000 + p * 10000, rows));
  return pieces;
}

class ShuffleWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("flotilla-shuffle-writer-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  int Files() const {
    if (!std::filesystem::exists(dir_)) return 0;
    int n = 0;
    for (const auto& f : std::filesystem::directory_iterator(dir_)) {
      (void)f;
      ++n;
    }
    return n;
  }
  // Every partition of the entry `key` as the store gives it, read and served, is exactly the
  // morsels' pieces in the order written.
  void ExpectPartitions(const PartitionStore& store, const std::string& key, int morsels,
                        int64_t rows) {
    for (int p = 0; p < kPartitions; ++p) {
      std::vector<RecordBatch> want;
      for (int m = 0; m < morsels; ++m)
        if (p != 3) want.push_back(Rows(m * 100000 + p * 10000, rows));
      const std::string id = key + "/p" + std::to_string(p);
      Result<StoredPartition> got = store.Get(id);
      ASSERT_TRUE(got.ok()) << id << ": " << got.status().ToString();
      EXPECT_EQ(CanonicalJson(*got->schema, got->batches),
                CanonicalJson(*Rows(0, 1).schema(), want))
          << id;
      std::vector<ListedPartition> listed = store.List(id);
      ASSERT_EQ(listed.size(), 1u);
      EXPECT_EQ(listed[0].rows, p == 3 ? 0 : morsels * rows);
    }
  }
  std::filesystem::path dir_;
};

TEST_F(ShuffleWriterTest, WithinTheBudgetTheOutputStaysInMemory) {
  PartitionStore store(/*memory_budget=*/int64_t{64} << 20, dir_.string());
  {
    ShuffleWriter writer(&store, Rows(0, 1).schema(), kPartitions, ipc::Compression::kLz4Frame);
    for (int m = 0; m < 10; ++m)
      ASSERT_TRUE(writer.Write(Morsel(m, 1000)).ok());
    EXPECT_EQ(store.stats().memory_bytes, 10 * 4 * HeldBytes(Rows(0, 1000)))
        << "what it holds is reserved";
    ASSERT_TRUE(writer.Finish("q1/t0.0").ok());
    EXPECT_EQ(writer.flushes(), 0);
    EXPECT_EQ(writer.rows()[1], 10000);
    EXPECT_EQ(writer.rows()[3], 0);
  }
  EXPECT_EQ(store.stats().spills, 0);
  EXPECT_EQ(Files(), 0);
  ExpectPartitions(store, "q1/t0.0", 10, 1000);
  Result<ServedPartition> served = store.Serve("q1/t0.0/p0");
  ASSERT_TRUE(served.ok());
  EXPECT_EQ(served->ipc, nullptr) << "served from its batches";
  store.DropPrefix("q1/");
  EXPECT_EQ(store.stats().memory_bytes, 0);
}

// Past the budget the writer writes what it holds to one file of its own as it goes: memory
// stays within the budget and one chunk's worth, however much the task outputs.
TEST_F(ShuffleWriterTest, PastTheBudgetItWritesOneFileAsItGoes) {
  constexpr int64_t kBudget = 256 << 10, kFlush = 128 << 10;
  PartitionStore store(kBudget, dir_.string());
  // Another task's output already takes most of the budget.
  ASSERT_TRUE(store.Put("q1/other", {Rows(0, 1).schema(), {Rows(0, 24000)}}).ok());
  const int64_t morsel_bytes = 4 * PartitionBytes({Rows(0, 2000)});
  {
    ShuffleWriter writer(&store, Rows(0, 1).schema(), kPartitions, ipc::Compression::kZstd, kFlush);
    for (int m = 0; m < 40; ++m) {  // 40 x 64 KB: ten times the budget
      ASSERT_TRUE(writer.Write(Morsel(m, 2000)).ok());
      EXPECT_LE(store.stats().memory_bytes, kBudget + kFlush + morsel_bytes) << "morsel " << m;
    }
    EXPECT_GE(writer.flushes(), 10);
    EXPECT_LE(writer.peak_bytes(), kFlush + morsel_bytes);
    EXPECT_EQ(Files(), 1) << "one file, however many flushes";
    ASSERT_TRUE(writer.Finish("q1/t1.0").ok());
  }
  EXPECT_EQ(Files(), 1) << "the store keeps the file";
  EXPECT_EQ(store.stats().spills, 1);
  EXPECT_LE(store.stats().memory_bytes, kBudget);
  ExpectPartitions(store, "q1/t1.0", 40, 2000);
  Result<ServedPartition> served = store.Serve("q1/t1.0/p2");
  ASSERT_TRUE(served.ok());
  ASSERT_NE(served->ipc, nullptr) << "served as stored";
  EXPECT_EQ(served->compression, ipc::Compression::kZstd);
  EXPECT_EQ(store.DropTask("q1/t1.0") > 0, true);
  EXPECT_EQ(Files(), 0) << "dropping the task deletes its file";
}

// Several threads write at once (as a repartition's threads do); every row lands once.
TEST_F(ShuffleWriterTest, ThreadsWritingAtOnceLoseNothing) {
  PartitionStore store(/*memory_budget=*/100 << 10, dir_.string());
  {
    ShuffleWriter writer(&store, Rows(0, 1).schema(), kPartitions, ipc::Compression::kNone,
                         /*flush_bytes=*/32 << 10);
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int m = t; m < 64; m += 4)
          if (!writer.Write(Morsel(m, 300)).ok()) ++failures;
      });
    }
    for (std::thread& t : threads)
      t.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_GT(writer.flushes(), 0);
    ASSERT_TRUE(writer.Finish("q1/t2.0").ok());
  }
  for (int p = 0; p < kPartitions; ++p) {
    Result<StoredPartition> got = store.Get("q1/t2.0/p" + std::to_string(p));
    ASSERT_TRUE(got.ok());
    std::vector<int64_t> values;
    for (const RecordBatch& b : got->batches)
      for (int64_t r = 0; r < b.num_rows(); ++r)
        values.push_back(b.column(0).values<int64_t>()[r]);
    std::sort(values.begin(), values.end());
    std::vector<int64_t> want;
    for (int m = 0; m < 64 && p != 3; ++m)
      for (int64_t r = 0; r < 300; ++r)
        want.push_back(m * 100000 + p * 10000 + r);
    EXPECT_EQ(values, want) << "partition " << p;
  }
}

TEST_F(ShuffleWriterTest, AWriterNeverFinishedLeavesNothingBehind) {
  PartitionStore store(/*memory_budget=*/64 << 10, dir_.string());
  {
    ShuffleWriter writer(&store, Rows(0, 1).schema(), kPartitions, ipc::Compression::kNone,
                         /*flush_bytes=*/16 << 10);
    for (int m = 0; m < 10; ++m)
      ASSERT_TRUE(writer.Write(Morsel(m, 2000)).ok());
    EXPECT_GT(writer.flushes(), 0);
    EXPECT_EQ(Files(), 1);
  }  // the task failed or was cancelled
  EXPECT_EQ(Files(), 0);
  EXPECT_EQ(store.stats().memory_bytes, 0);
  EXPECT_EQ(store.stats().partitions, 0);
}

}  // namespace
}  // namespace flotilla::distributed
