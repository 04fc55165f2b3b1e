#include "flotilla/distributed/partition_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "flotilla/common/memory_pool.h"
#include "tests/support/plan_checks.h"

namespace flotilla::distributed {
namespace {

using flotilla::testing::Batch;
using namespace flotilla::testing;

StoredPartition Rows(int64_t first, int64_t n) {
  std::vector<std::optional<int64_t>> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(first + i);
  RecordBatch b = Batch({{"v", I64(v)}});
  return {b.schema(), {b}};
}

TEST(PartitionStoreTest, SpillsTheOldestPastItsBudgetAndReadsThemBack) {
  auto dir = std::filesystem::temp_directory_path() / "flotilla-store-test";
  std::filesystem::remove_all(dir);
  PartitionStore store(/*memory_budget=*/100000, dir.string());
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(store.Put("q1/p" + std::to_string(i), Rows(i * 10000, 10000)).ok());
  PartitionStoreStats s = store.stats();
  EXPECT_EQ(s.partitions, 5);
  EXPECT_LE(s.memory_bytes, 100000);
  EXPECT_GE(s.spills, 3);
  EXPECT_GT(s.spilled_bytes, 0);
  for (int i = 0; i < 5; ++i) {
    Result<StoredPartition> p = store.Get("q1/p" + std::to_string(i));
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    StoredPartition want = Rows(i * 10000, 10000);
    EXPECT_EQ(CanonicalJson(*p->schema, p->batches), CanonicalJson(*want.schema, want.batches));
  }
  store.DropPrefix("q1/");
  EXPECT_EQ(store.stats().partitions, 0);
  EXPECT_EQ(store.stats().spilled_bytes, 0);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// Measured through the memory pool every buffer comes from, not the store's own accounting: what
// the store keeps in memory never exceeds its budget by more than the partition being put.
TEST(PartitionStoreTest, MemoryHeldStaysWithinTheBudget) {
  auto dir = std::filesystem::temp_directory_path() /
             ("flotilla-store-budget-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  constexpr int64_t kBudget = 1 << 20;
  constexpr int64_t kRowsEach = 32768;  // 256 KiB a partition
  const int64_t partition_bytes = PartitionBytes(Rows(0, kRowsEach).batches);
  MemoryPool* pool = DefaultMemoryPool();
  const int64_t before = pool->bytes_allocated();
  pool->ResetPeak();
  {
    PartitionStore store(kBudget, dir.string());
    for (int i = 0; i < 40; ++i) {
      ASSERT_TRUE(store.Put("q/p" + std::to_string(i), Rows(i * kRowsEach, kRowsEach)).ok());
      EXPECT_LE(pool->bytes_allocated() - before, kBudget + partition_bytes) << "after put " << i;
    }
    EXPECT_GE(store.stats().spills, 35);
    // Reading back holds the partition read, not the store's spilled data.
    for (int i = 0; i < 40; i += 7) {
      Result<StoredPartition> p = store.Get("q/p" + std::to_string(i));
      ASSERT_TRUE(p.ok()) << p.status().ToString();
      EXPECT_EQ(p->num_rows(), kRowsEach);
      EXPECT_EQ(p->batches[0].column(0).values<int64_t>()[5], i * kRowsEach + 5);
    }
  }
  EXPECT_LE(pool->peak_bytes() - before, kBudget + 3 * partition_bytes);
  std::filesystem::remove_all(dir);
}

// A map task's N partitions are one entry: one spill file whatever N is, each partition read
// back alone from its byte range, and served from disk as the IPC stream it is stored as.
TEST(PartitionStoreTest, AMapTasksPartitionsAreOneEntryAndOneSpillFile) {
  auto dir = std::filesystem::temp_directory_path() /
             ("flotilla-store-encoded-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  constexpr int kMaps = 6, kPartitions = 16;
  auto partition = [](int map, int p) { return Rows(map * 1000000 + p * 10000, 2000 + p); };
  {
    PartitionStore store(/*memory_budget=*/200000, dir.string());
    for (int m = 0; m < kMaps; ++m) {
      std::vector<std::vector<RecordBatch>> parts;
      for (int p = 0; p < kPartitions; ++p)
        parts.push_back(partition(m, p).batches);
      parts[3].clear();  // an empty partition
      SchemaPtr schema = parts[0][0].schema();
      ASSERT_TRUE(store
                      .PutGroup("q1/t" + std::to_string(m) + ".0", schema, std::move(parts),
                                m % 2 ? ipc::Compression::kZstd : ipc::Compression::kLz4Frame)
                      .ok());
    }
    PartitionStoreStats s = store.stats();
    EXPECT_EQ(s.partitions, kMaps);
    EXPECT_EQ(s.spills, kMaps - 1) << "all but the newest past the budget";
    int files = 0;
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
      (void)f;
      ++files;
    }
    EXPECT_EQ(files, s.spills) << "one file per spilled map task";
    auto open_descriptors = [] {
      return std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                           std::filesystem::directory_iterator());
    };
    const auto descriptors_before = open_descriptors();
    for (int m = 0; m < kMaps; ++m) {
      for (int p = 0; p < kPartitions; ++p) {
        const std::string id = "q1/t" + std::to_string(m) + ".0/p" + std::to_string(p);
        Result<StoredPartition> got = store.Get(id);
        ASSERT_TRUE(got.ok()) << id << ": " << got.status().ToString();
        StoredPartition want = partition(m, p);
        if (p == 3) want.batches.clear();
        EXPECT_EQ(CanonicalJson(*got->schema, got->batches),
                  CanonicalJson(*want.schema, want.batches))
            << id;
        Result<ServedPartition> served = store.Serve(id);
        ASSERT_TRUE(served.ok());
        if (m == kMaps - 1) {
          EXPECT_EQ(served->ipc, nullptr) << "in memory: served from its batches";
          continue;
        }
        ASSERT_NE(served->ipc, nullptr) << "spilled: served as stored";
        auto decoded = DecodePartition(served->ipc);
        ASSERT_TRUE(decoded.ok());
        const StoredPartition again{want.schema, *decoded};
        EXPECT_EQ(again.num_rows(), want.num_rows());
        // Located, it is not read until asked (the server reads a ticket's pieces in turn).
        Result<ServedPartition> located = store.Locate(id);
        ASSERT_TRUE(located.ok());
        EXPECT_EQ(located->ipc, nullptr);
        EXPECT_EQ(located->Bytes(), served->ipc->size());
        Result<BufferPtr> stream = located->Stream();
        ASSERT_TRUE(stream.ok());
        EXPECT_EQ((*stream)->view(), served->ipc->view());
      }
    }
    // Each spilled file stays open once read (not once per partition read), until dropped.
    EXPECT_EQ(open_descriptors(), descriptors_before + s.spills);
    EXPECT_FALSE(store.Contains("q1/t0.0/p16"));
    EXPECT_FALSE(store.Contains("q1/t0.0"));
    EXPECT_FALSE(store.Contains("q1/t0.0/px"));
    std::vector<ListedPartition> listed = store.List("q1/t2.0/");
    ASSERT_EQ(listed.size(), static_cast<size_t>(kPartitions));
    EXPECT_EQ(listed[7].id, "q1/t2.0/p7");
    EXPECT_EQ(listed[7].rows, 2007);
    store.DropPrefix("q1/");
    EXPECT_EQ(store.stats().partitions, 0);
    EXPECT_TRUE(std::filesystem::is_empty(dir));
    EXPECT_EQ(open_descriptors(), descriptors_before) << "dropped files are closed";
  }
  std::filesystem::remove_all(dir);
}

// Tiny partitions cost more than their values: 2,000 of 25 int64 rows are 400 KB of values,
// within a 1 MiB budget, but their arrays and buffers are not, and the store counts them.
TEST(PartitionStoreTest, TinyPartitionsAreCountedWithWhatHoldsThem) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("flotilla-store-tiny-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    PartitionStore store(int64_t{1} << 20, dir.string());
    int64_t values = 0;
    for (int i = 0; i < 2000; ++i) {
      StoredPartition p = Rows(i * 25, 25);
      values += PartitionBytes(p.batches);
      ASSERT_TRUE(store.Put("q1/t" + std::to_string(i) + ".0", std::move(p)).ok());
    }
    EXPECT_LT(values, int64_t{1} << 20);
    EXPECT_GT(store.stats().spills, 0) << "held past the budget";
    EXPECT_LE(store.stats().memory_bytes, int64_t{1} << 20);
    EXPECT_GT(HeldBytes(Rows(0, 25).batches[0]), 3 * PartitionBytes(Rows(0, 25).batches));
  }
  std::filesystem::remove_all(dir);
}

TEST(PartitionStoreTest, MissingPartitionsAreKeyErrorsNamingThem) {
  PartitionStore store(0, "/tmp/unused");
  Result<StoredPartition> p = store.Get("q1/t3.1/p0");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kKeyError);
  EXPECT_NE(p.status().message().find("q1/t3.1/p0"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::distributed
