// The scan source hands out a task's batches as the task delivers them (ScanTask::ReadEach), in
// task order, before the task has finished reading.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "flotilla/exec/operators/operators.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;

// Waits until told to go on, or 10 s pass: a test then fails instead of hanging.
class GoOnSignal {
 public:
  Status Wait() const {
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
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
  mutable bool go_on_ = false;
};

// A scan source over `tasks`, with the plan it reads (declared first: it outlives the source).
struct ScanOf {
  ScanOf(SchemaPtr schema, std::vector<std::shared_ptr<const io::ScanTask>> tasks,
         int64_t morsel_size)
      : plan(MakeScan(std::move(schema), std::move(tasks)).ValueOrDie()),
        source(MakeScanSource(static_cast<const ScanNode&>(*plan), morsel_size)) {}
  PlanPtr plan;
  std::unique_ptr<Source> source;
};

// Delivers its first batch, then holds the rest back until told to go on. Read whole, it
// delivers nothing until then.
class HeldBackTask final : public io::ScanTask {
 public:
  HeldBackTask(RecordBatch first, RecordBatch rest) : first_(first), rest_(rest) {}
  // Whole: only once told to go on.
  Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns&) const override {
    FLOTILLA_RETURN_NOT_OK(go_on_.Wait());
    return std::vector<RecordBatch>{first_, rest_};
  }
  Status ReadEach(const io::ScanPushdowns&,
                  const std::function<Status(RecordBatch)>& each) const override {
    FLOTILLA_RETURN_NOT_OK(each(first_));
    FLOTILLA_RETURN_NOT_OK(go_on_.Wait());
    return each(rest_);
  }
  std::string ToString() const override { return "held back"; }
  void GoOn() const { go_on_.GoOn(); }

 private:
  RecordBatch first_, rest_;
  GoOnSignal go_on_;
};

TEST(ScanSource, ATasksFirstBatchIsServedWhileTheTaskStillReads) {
  RecordBatch first = Batch({{"v", I64({1, 2})}});
  RecordBatch rest = Batch({{"v", I64({3})}});
  auto task = std::make_shared<HeldBackTask>(first, rest);
  auto tail =
      std::make_shared<io::InMemoryScanTask>(std::vector<RecordBatch>{Batch({{"v", I64({4})}})});
  ScanOf scan(first.schema(), {task, tail}, /*morsel_size=*/1024);
  Source* source = scan.source.get();
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

// A task that streams: `batches` copies of `batch`, counting those handed over; optionally it
// waits after the first until told to go on.
class StreamingTask final : public io::ScanTask {
 public:
  StreamingTask(RecordBatch batch, int batches, bool hold)
      : batch_(batch), batches_(batches), hold_(hold) {}
  Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns&) const override {
    return Status::Invalid("read whole");
  }
  Status ReadEach(const io::ScanPushdowns&,
                  const std::function<Status(RecordBatch)>& each) const override {
    for (int i = 0; i < batches_; ++i) {
      if (i == 1 && hold_) FLOTILLA_RETURN_NOT_OK(go_on_.Wait());
      FLOTILLA_RETURN_NOT_OK(each(batch_));
      handed_.fetch_add(1);
    }
    return Status::OK();
  }
  bool Streams() const override { return true; }
  std::string ToString() const override { return "streaming"; }
  void GoOn() const { go_on_.GoOn(); }
  int handed() const { return handed_.load(); }

 private:
  RecordBatch batch_;
  int batches_;
  bool hold_;
  mutable std::atomic<int> handed_{0};
  GoOnSignal go_on_;
};

RecordBatch MiB() {  // 128K int64 rows
  std::vector<std::optional<int64_t>> v(1 << 17, int64_t{7});
  return Batch({{"v", I64(v)}});
}

// What a streaming task read ahead of the one served holds is bounded: it waits, not piling up
// its whole partition, until its turn; then all of it arrives, in task order.
TEST(ScanSource, AStreamingTaskReadAheadHoldsABoundedQueue) {
  auto served = std::make_shared<StreamingTask>(Batch({{"v", I64({1})}}), 2, /*hold=*/true);
  auto ahead = std::make_shared<StreamingTask>(MiB(), 64, /*hold=*/false);
  ScanOf scan(MiB().schema(), {served, ahead}, /*morsel_size=*/1 << 20);
  Source* source = scan.source.get();
  auto first = source->Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  // The task ahead reads on its own thread until its queue is full.
  // (Until it has handed over some and then nothing more for 100 ms; 10 s at most.)
  int before = -1, still = 0;
  for (int i = 0; i < 1000 && still < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const int now = ahead->handed();
    still = now > 0 && now == before ? still + 1 : 0;
    before = now;
  }
  EXPECT_GT(ahead->handed(), 0) << "the task ahead is read meanwhile";
  EXPECT_LE(ahead->handed(), 9) << "8 MiB queued at most, and the batch that filled it";
  served->GoOn();
  int64_t rows = 0;
  std::vector<int64_t> firsts;
  while (true) {
    auto next = source->Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!next->has_value()) break;
    rows += (*next)->batch.num_rows();
    firsts.push_back((*next)->batch.column(0).values<int64_t>()[0]);
  }
  EXPECT_EQ(rows, 1 + 64 * (int64_t{1} << 17));
  ASSERT_FALSE(firsts.empty());
  EXPECT_EQ(firsts[0], 1) << "the served task's rest comes before the task ahead";
  EXPECT_EQ(ahead->handed(), 64);
}

// A scan closed early (a limit reached, a query cancelled) stops the streams it started, even
// one waiting for room in its queue.
TEST(ScanSource, ClosingAScanStopsItsStreams) {
  auto ahead = std::make_shared<StreamingTask>(MiB(), 64, /*hold=*/false);
  auto next = std::make_shared<StreamingTask>(MiB(), 64, /*hold=*/false);
  ScanOf scan(MiB().schema(), {ahead, next}, /*morsel_size=*/1 << 20);
  auto first = scan.source->Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  scan.source.reset();  // joins the streams: a hang fails the test by its timeout
  EXPECT_LT(ahead->handed(), 64);
  EXPECT_LT(next->handed(), 64);
}

// A stream's failure reaches the threads reading the scan, naming the task.
TEST(ScanSource, AStreamsFailureIsTheScans) {
  class Failing final : public io::ScanTask {
   public:
    Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns&) const override {
      return Status::IOError("lost worker");
    }
    Status ReadEach(const io::ScanPushdowns&,
                    const std::function<Status(RecordBatch)>&) const override {
      return Status::IOError("lost worker");
    }
    bool Streams() const override { return true; }
    std::string ToString() const override { return "the fetch"; }
  };
  ScanOf scan(MiB().schema(), {std::make_shared<Failing>()}, /*morsel_size=*/1 << 20);
  auto got = scan.source->Next();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kIOError);
  EXPECT_NE(got.status().ToString().find("the fetch"), std::string::npos)
      << got.status().ToString();
  EXPECT_NE(got.status().ToString().find("lost worker"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::exec
