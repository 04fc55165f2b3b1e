// Scan: reads scan tasks in parallel — each thread that finds no morsel ready reads the next
// unread task — and hands their batches out in task order, cut into morsels. The task being
// served hands its batches out as they arrive; tasks read ahead of it are held, at most
// kMaxReadAhead of them. A task that streams (a shuffle's fetch) is read instead on a thread of
// its own, at most kMaxStreams at once, and waits while kStreamQueueBytes of its batches are
// not handed out: read inline, a fetch ahead of the one being served would pile its whole
// partition up in memory while the thread reading it serves nothing.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "flotilla/common/logging.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/operators/operators.h"
#include "flotilla/expr/predicate_filter.h"
#include "flotilla/expr/rewrite.h"

namespace flotilla::exec {

namespace {

class ScanSource final : public Source {
 public:
  static constexpr size_t kMaxReadAhead = 8;
  static constexpr size_t kMaxStreams = 4;
  static constexpr int64_t kStreamQueueBytes = 8 << 20;

  ScanSource(const ScanNode& node, int64_t morsel_size)
      : node_(node), morsel_size_(morsel_size), loaded_(node.tasks.size()) {
    read_pushdowns_ = node.pushdowns;
    if (node.pushdowns.filter != nullptr && node.pushdowns.columns) {
      // The task reads the filter's columns too; they are dropped after filtering.
      std::set<std::string> needed;
      expr::CollectColumns(node.pushdowns.filter, &needed);
      std::vector<std::string> columns = *node.pushdowns.columns;
      for (const std::string& name : needed) {
        if (std::find(columns.begin(), columns.end(), name) == columns.end())
          columns.push_back(name);
      }
      read_pushdowns_.columns = columns;
    }
  }

  ~ScanSource() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    space_.notify_all();
    for (std::thread& t : streams_)
      t.join();
  }

  const SchemaPtr& schema() const override { return node_.schema(); }

  Result<std::optional<Morsel>> Next() override {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      if (!status_.ok()) return status_;
      if (!current_.empty()) {
        RecordBatch& batch = current_.front();
        const int64_t length = std::min(morsel_size_, batch.num_rows() - offset_);
        Morsel morsel{seq_++, 0, batch.Slice(offset_, length)};
        offset_ += length;
        if (offset_ >= batch.num_rows()) {
          current_.pop_front();
          offset_ = 0;
        }
        return std::optional<Morsel>(std::move(morsel));
      }
      if (next_to_serve_ >= loaded_.size()) return std::optional<Morsel>();
      // The task being served hands out its batches as they arrive, read to the end or not.
      Loaded& serving = loaded_[next_to_serve_];
      if (!serving.batches.empty()) {
        for (RecordBatch& b : serving.batches)
          current_.push_back(std::move(b));
        serving.batches.clear();
        serving.bytes = 0;
        space_.notify_all();
        continue;
      }
      if (serving.done) {
        ++next_to_serve_;
        continue;
      }
      // Read ahead of the task being served, but only so far: a slow task must not let the
      // other threads pile every later task up in memory.
      if (next_to_read_ < loaded_.size() && next_to_read_ < next_to_serve_ + kMaxReadAhead &&
          node_.tasks[next_to_read_]->Streams()) {
        if (streaming_ < kMaxStreams) {
          ++streaming_;
          streams_.emplace_back(&ScanSource::Stream, this, next_to_read_++, log::CurrentContext());
          continue;
        }
      } else if (next_to_read_ < loaded_.size() && next_to_read_ < next_to_serve_ + kMaxReadAhead) {
        const size_t task = next_to_read_++;
        lock.unlock();
        Status read = ReadTask(task);
        lock.lock();
        if (!read.ok() && status_.ok()) status_ = std::move(read);
        loaded_[task].done = true;
        ready_.notify_all();
        continue;
      }
      // Another thread is reading the task we must serve next.
      ready_.wait(lock);
    }
  }

 private:
  // What one task read so far (a vector, not a deque: there is one per task, and an empty
  // deque allocates).
  struct Loaded {
    std::vector<RecordBatch> batches;  // not handed out yet
    int64_t bytes = 0;                 // theirs, when the task streams
    bool done = false;                 // read to the end (or failed)
  };

  // A streaming task's thread: reads it (the log lines it writes name what the scan's did).
  void Stream(size_t index, log::Context context) {
    log::ScopedContext scoped(std::move(context));
    Status read = ReadTask(index);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!read.ok() && status_.ok() && !stopping_) status_ = std::move(read);
    loaded_[index].done = true;
    --streaming_;
    ready_.notify_all();
  }

  // Reads task `index`, each batch filtered and projected as the pushdowns say (outside the
  // lock) and then queued for the threads serving it.
  Status ReadTask(size_t index) {
    const ScanTask& task = *node_.tasks[index];
    Status consumer;  // an error of ours, not the task's
    const bool streams = task.Streams();
    Loaded& loaded = loaded_[index];
    Status read = task.ReadEach(read_pushdowns_, [&](RecordBatch batch) -> Status {
      Result<RecordBatch> prepared = Prepare(std::move(batch), task);
      std::unique_lock<std::mutex> lock(mutex_);
      if (streams) {
        space_.wait(lock,
                    [&] { return loaded.bytes < kStreamQueueBytes || !status_.ok() || stopping_; });
      }
      if (!prepared.ok()) consumer = prepared.status();
      if (consumer.ok() && !status_.ok()) consumer = status_;  // failed elsewhere: stop reading
      if (consumer.ok() && stopping_) consumer = Status::Cancelled("the scan was closed");
      if (!consumer.ok()) return consumer;
      if (prepared->num_rows() > 0) {
        if (streams) loaded.bytes += SliceBytes(*prepared);
        loaded.batches.push_back(*std::move(prepared));
      }
      ready_.notify_all();
      return Status::OK();
    });
    if (!consumer.ok()) return consumer;
    return read.ok() ? read : read.WithContext("scanning " + task.ToString());
  }

  Result<RecordBatch> Prepare(RecordBatch batch, const ScanTask& task) const {
    if (node_.pushdowns.filter == nullptr && !node_.pushdowns.columns) return batch;
    if (node_.pushdowns.filter != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(
          auto predicate, expr::PredicateFilter::Make(node_.pushdowns.filter, *batch.schema()));
      FLOTILLA_ASSIGN_OR_RETURN(batch, predicate.Apply(batch));
    }
    if (node_.pushdowns.columns) {
      std::vector<int> indices;
      for (const std::string& name : *node_.pushdowns.columns) {
        FLOTILLA_ASSIGN_OR_RETURN(int i, batch.schema()->FindField(name));
        indices.push_back(i);
      }
      FLOTILLA_ASSIGN_OR_RETURN(batch, batch.SelectColumns(indices));
    }
    if (!batch.schema()->Equals(*node_.schema())) {
      return Status::Invalid("scanning " + task.ToString() + ": read schema\n" +
                             batch.schema()->ToString() + "\nexpected\n" +
                             node_.schema()->ToString());
    }
    return batch;
  }

  const ScanNode& node_;
  const int64_t morsel_size_;
  ScanPushdowns read_pushdowns_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable space_;  // a streaming task's queue was emptied, or the scan stops
  std::vector<Loaded> loaded_;
  std::vector<std::thread> streams_;
  size_t streaming_ = 0;  // streams_ still reading
  bool stopping_ = false;
  size_t next_to_read_ = 0;
  size_t next_to_serve_ = 0;
  std::deque<RecordBatch> current_;
  int64_t offset_ = 0;
  int64_t seq_ = 0;
  Status status_;
};

}  // namespace

std::unique_ptr<Source> MakeScanSource(const ScanNode& node, int64_t morsel_size) {
  return std::make_unique<ScanSource>(node, morsel_size);
}

}  // namespace flotilla::exec
