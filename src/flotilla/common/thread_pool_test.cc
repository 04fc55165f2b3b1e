#include "flotilla/common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace flotilla {
namespace {

TEST(ThreadPoolTest, RunsEveryTask) {
  ThreadPool pool(2);
  TaskGroup group(&pool);
  std::atomic<int64_t> sum{0};
  for (int64_t i = 1; i <= 1000; ++i) {
    group.Spawn([&sum, i] {
      sum += i;
      return Status::OK();
    });
  }
  ASSERT_TRUE(group.Wait().ok());
  EXPECT_EQ(sum.load(), 500500);
}

TEST(ThreadPoolTest, UsesSeveralThreads) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.num_threads(), 3);
  TaskGroup group(&pool);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> started{0};
  for (int i = 0; i < 3; ++i) {
    group.Spawn([&] {
      ++started;
      // Each task waits until all three run at once, which needs three threads.
      while (started.load() < 3)
        std::this_thread::yield();
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
      return Status::OK();
    });
  }
  ASSERT_TRUE(group.Wait().ok());
  EXPECT_EQ(ids.size(), 3u);
}

TEST(ThreadPoolTest, FirstErrorCancelsTheRest) {
  ThreadPool pool(1);  // one thread: tasks run in submission order
  TaskGroup group(&pool);
  std::atomic<int> ran{0};
  group.Spawn([&] {
    ++ran;
    return Status::Invalid("task 0 failed");
  });
  for (int i = 0; i < 10; ++i) {
    group.Spawn([&] {
      ++ran;
      return Status::Invalid("a later task");
    });
  }
  Status status = group.Wait();
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_EQ(status.message(), "task 0 failed");
  EXPECT_EQ(ran.load(), 1);
  EXPECT_TRUE(group.cancelled());
  group.Spawn([&] {
    ++ran;
    return Status::OK();
  });
  EXPECT_EQ(group.Wait().message(), "task 0 failed");
  EXPECT_EQ(ran.load(), 1);
}

TEST(ThreadPoolTest, CancelSkipsQueuedTasks) {
  ThreadPool pool(1);
  TaskGroup group(&pool);
  std::atomic<bool> started{false}, release{false};
  std::atomic<int> ran{0};
  group.Spawn([&] {
    started = true;
    while (!release.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++ran;
    return Status::OK();
  });
  for (int i = 0; i < 5; ++i) {
    group.Spawn([&] {
      ++ran;
      return Status::OK();
    });
  }
  while (!started.load())
    std::this_thread::yield();
  group.Cancel();
  release = true;
  EXPECT_EQ(group.Wait().code(), StatusCode::kCancelled);
  EXPECT_EQ(ran.load(), 1);  // the running task finished; the queued ones were skipped
}

TEST(ThreadPoolTest, EmptyGroupAndDrainingDestructor) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(2);
    TaskGroup empty(&pool);
    EXPECT_TRUE(empty.Wait().ok());
    for (int i = 0; i < 100; ++i)
      pool.Submit([&] { ++ran; });
  }  // the destructor runs what was submitted before joining
  EXPECT_EQ(ran.load(), 100);
  EXPECT_GE(ThreadPool::Default().num_threads(), 1);
}

TEST(ParallelForTest, RunsEveryItemOnceAndUsesTheCallersPool) {
  ThreadPool pool(2);
  TaskGroup group(&pool);
  std::vector<std::atomic<int>> runs(200);
  std::atomic<bool> together{false};
  group.Spawn([&] {
    EXPECT_EQ(ThreadPool::Current(), &pool);
    std::atomic<int> arrived{0};
    return ParallelFor(200, [&](int64_t i) {
      ++runs[static_cast<size_t>(i)];
      if (i < 2) {
        // Items 0 and 1 wait (boundedly) for each other: both running at once means the idle
        // pool thread took part.
        ++arrived;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (arrived.load() < 2 && std::chrono::steady_clock::now() < until)
          std::this_thread::yield();
        if (arrived.load() == 2) together = true;
      }
      return Status::OK();
    });
  });
  ASSERT_TRUE(group.Wait().ok());
  for (const auto& r : runs)
    EXPECT_EQ(r.load(), 1);
  EXPECT_TRUE(together.load());
  EXPECT_EQ(ThreadPool::Current(), nullptr);
}

TEST(ParallelForTest, ReturnsTheFirstErrorAndRunsSeriallyOutsideAPool) {
  std::vector<int64_t> order;
  Status st = ParallelFor(10, [&](int64_t i) {
    order.push_back(i);
    return i == 4 ? Status::Invalid("item 4") : Status::OK();
  });
  EXPECT_EQ(st.message(), "item 4");
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));  // serial: stops at the error

  ThreadPool pool(1);  // one thread: the caller does every item, nothing to wait for
  TaskGroup group(&pool);
  std::atomic<int> count{0};
  group.Spawn([&] {
    Status inner = ParallelFor(50, [&](int64_t i) {
      ++count;
      return i == 10 ? Status::Invalid("item 10") : Status::OK();
    });
    EXPECT_EQ(inner.message(), "item 10");
    return Status::OK();
  });
  ASSERT_TRUE(group.Wait().ok());
  EXPECT_EQ(count.load(), 11);
}

}  // namespace
}  // namespace flotilla
