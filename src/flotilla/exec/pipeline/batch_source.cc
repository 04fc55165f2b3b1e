#include <mutex>

#include "flotilla/exec/pipeline/operator.h"

namespace flotilla::exec {

namespace {

class BatchSource final : public Source {
 public:
  BatchSource(SchemaPtr schema, std::vector<std::vector<RecordBatch>> partitions,
              int64_t morsel_size)
      : schema_(std::move(schema)),
        partitions_(std::move(partitions)),
        morsel_size_(morsel_size > 0 ? morsel_size : 131072) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<std::optional<Morsel>> Next() override {
    std::lock_guard<std::mutex> lock(mutex_);
    while (partition_ < partitions_.size()) {
      auto& batches = partitions_[partition_];
      if (batch_ < batches.size()) {
        const RecordBatch& batch = batches[batch_];
        const int64_t length = std::min(morsel_size_, batch.num_rows() - offset_);
        Morsel morsel{seq_++, static_cast<int>(partition_), batch.Slice(offset_, length)};
        offset_ += length;
        if (offset_ >= batch.num_rows()) {
          // Release the batch as soon as its last morsel is out.
          batches[batch_] = RecordBatch();
          ++batch_;
          offset_ = 0;
        }
        return std::optional<Morsel>(std::move(morsel));
      }
      ++partition_;
      batch_ = 0;
    }
    return std::optional<Morsel>();
  }

 private:
  SchemaPtr schema_;
  std::vector<std::vector<RecordBatch>> partitions_;
  const int64_t morsel_size_;
  std::mutex mutex_;
  size_t partition_ = 0;
  size_t batch_ = 0;
  int64_t offset_ = 0;
  int64_t seq_ = 0;
};

}  // namespace

std::unique_ptr<Source> MakeBatchSource(SchemaPtr schema,
                                        std::vector<std::vector<RecordBatch>> partitions,
                                        int64_t morsel_size) {
  return std::make_unique<BatchSource>(std::move(schema), std::move(partitions), morsel_size);
}

}  // namespace flotilla::exec
