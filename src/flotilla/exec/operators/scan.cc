// Scan: reads scan tasks in parallel — each thread that finds no morsel ready reads the next
// unread task — and hands their batches out in task order, cut into morsels.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <set>

#include "flotilla/exec/operators/operators.h"
#include "flotilla/expr/predicate_filter.h"
#include "flotilla/expr/rewrite.h"

namespace flotilla::exec {

namespace {

class ScanSource final : public Source {
 public:
  static constexpr size_t kMaxReadAhead = 8;

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
      if (loaded_[next_to_serve_]) {
        for (RecordBatch& b : *loaded_[next_to_serve_])
          if (b.num_rows() > 0) current_.push_back(std::move(b));
        loaded_[next_to_serve_].reset();
        ++next_to_serve_;
        continue;
      }
      // Read ahead of the task being served, but only so far: a slow task must not let the
      // other threads pile every later task up in memory.
      if (next_to_read_ < loaded_.size() && next_to_read_ < next_to_serve_ + kMaxReadAhead) {
        const size_t task = next_to_read_++;
        lock.unlock();
        auto batches = ReadTask(task);
        lock.lock();
        if (!batches.ok()) {
          status_ = batches.status();
        } else {
          loaded_[task] = std::move(batches).ValueOrDie();
        }
        ready_.notify_all();
        continue;
      }
      // Another thread is reading the task we must serve next.
      ready_.wait(lock);
    }
  }

 private:
  Result<std::vector<RecordBatch>> ReadTask(size_t index) {
    const ScanTask& task = *node_.tasks[index];
    auto read = task.Read(read_pushdowns_);
    if (!read.ok()) return read.status().WithContext("scanning " + task.ToString());
    std::vector<RecordBatch> batches = std::move(read).ValueOrDie();
    if (node_.pushdowns.filter == nullptr && !node_.pushdowns.columns) return batches;
    std::vector<RecordBatch> out;
    for (RecordBatch& batch : batches) {
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
      out.push_back(std::move(batch));
    }
    return out;
  }

  const ScanNode& node_;
  const int64_t morsel_size_;
  ScanPushdowns read_pushdowns_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::optional<std::vector<RecordBatch>>> loaded_;
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
