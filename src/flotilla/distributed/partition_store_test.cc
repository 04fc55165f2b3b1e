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

TEST(PartitionStoreTest, MissingPartitionsAreKeyErrorsNamingThem) {
  PartitionStore store(0, "/tmp/unused");
  Result<StoredPartition> p = store.Get("q1/t3.1/p0");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kKeyError);
  EXPECT_NE(p.status().message().find("q1/t3.1/p0"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::distributed
