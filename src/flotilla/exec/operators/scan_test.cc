// The scan source hands out a task's batches as the task delivers them (ScanTask::ReadEach), in
// task order, before the task has finished reading.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include "flotilla/exec/operators/operators.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;

// Delivers its first batch, then holds the rest back until told to go on (or 10 s pass: the
// test then fails instead of hanging). Read whole, it delivers nothing until then.
class HeldBackTask final : public io::ScanTask {
 public:
  HeldBackTask(RecordBatch first, RecordBatch rest) : first_(first), rest_(rest) {}
  // Whole: only once told to go on.
  Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns&) const override {
    FLOTILLA_RETURN_NOT_OK(WaitToGoOn());
    return std::vector<RecordBatch>{first_, rest_};
  }
  Status ReadEach(const io::ScanPushdowns&,
                  const std::function<Status(RecordBatch)>& each) const override {
    FLOTILLA_RETURN_NOT_OK(each(first_));
    FLOTILLA_RETURN_NOT_OK(WaitToGoOn());
    return each(rest_);
  }
  std::string ToString() const override { return "held back"; }
  Status WaitToGoOn() const {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, std::chrono::seconds(10), [&] { return go_on_; })) {
      return Status::Invalid("never told to go on");
    }
    return Status::OK();
  }
  void GoOn() const {
    std::lock_guard lock(mutex_);
    go_on_ = true;
    cv_.notify_all();
  }

 private:
  RecordBatch first_, rest_;
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  mutable bool go_on_ = false;
};

TEST(ScanSource, ATasksFirstBatchIsServedWhileTheTaskStillReads) {
  RecordBatch first = Batch({{"v", I64({1, 2})}});
  RecordBatch rest = Batch({{"v", I64({3})}});
  auto task = std::make_shared<HeldBackTask>(first, rest);
  auto tail =
      std::make_shared<io::InMemoryScanTask>(std::vector<RecordBatch>{Batch({{"v", I64({4})}})});
  PlanPtr plan = MakeScan(first.schema(), {task, tail}).ValueOrDie();
  std::unique_ptr<Source> source =
      MakeScanSource(static_cast<const ScanNode&>(*plan), /*morsel_size=*/1024);
  // Two threads ask: one reads the task (and is held inside it), the other must be served the
  // first batch meanwhile.
  auto a = std::async(std::launch::async, [&] { return source->Next(); });
  auto b = std::async(std::launch::async, [&] { return source->Next(); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (a.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready &&
         b.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready &&
         std::chrono::steady_clock::now() < deadline) {
  }
  const bool served_early = a.wait_for(std::chrono::seconds(0)) == std::future_status::ready ||
                            b.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  task->GoOn();
  EXPECT_TRUE(served_early) << "nothing was served while the task read";
  auto first_out = a.get();
  auto other = b.get();
  ASSERT_TRUE(first_out.ok()) << first_out.status().ToString();
  ASSERT_TRUE(first_out->has_value());
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  ASSERT_TRUE(other->has_value());
  std::vector<Morsel> morsels{std::move(**first_out), std::move(**other)};
  while (true) {
    auto next = source->Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!next->has_value()) break;
    morsels.push_back(std::move(**next));
  }
  std::vector<int64_t> seen;
  std::sort(morsels.begin(), morsels.end(),
            [](const Morsel& a, const Morsel& b) { return a.seq < b.seq; });
  for (const Morsel& m : morsels) {
    for (int64_t i = 0; i < m.batch.num_rows(); ++i)
      seen.push_back(m.batch.column(0).values<int64_t>()[i]);
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 3, 4})) << "task order kept";
}

}  // namespace
}  // namespace flotilla::exec
