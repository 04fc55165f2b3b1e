#pragma once
// Morsel outputs put back in input order: the building block of the sinks that keep order
// (collect, limit, monotonically increasing id).
#include <map>
#include <vector>

#include "flotilla/exec/pipeline/operator.h"

namespace flotilla::exec {

class SequencedBatches {
 public:
  /// Adds one morsel's output. Not thread-safe.
  void Add(MorselOutput output) {
    const int64_t seq = output.seq;
    pending_.emplace(seq, std::move(output));
  }

  /// Moves out the outputs that continue the in-order prefix (seq next, next + 1, ...), in
  /// order. Morsels after a gap stay until the gap is filled.
  std::vector<MorselOutput> TakeReady() {
    std::vector<MorselOutput> out;
    for (auto it = pending_.find(next_); it != pending_.end(); it = pending_.find(next_)) {
      out.push_back(std::move(it->second));
      pending_.erase(it);
      ++next_;
    }
    return out;
  }

  /// Everything added, in order, grouped by partition (index = partition).
  std::vector<std::vector<RecordBatch>> TakeAllByPartition() {
    std::vector<std::vector<RecordBatch>> partitions;
    for (auto& [seq, output] : pending_) {
      if (output.partition >= static_cast<int>(partitions.size()))
        partitions.resize(static_cast<size_t>(output.partition) + 1);
      for (RecordBatch& batch : output.batches)
        partitions[static_cast<size_t>(output.partition)].push_back(std::move(batch));
    }
    pending_.clear();
    return partitions;
  }

 private:
  std::map<int64_t, MorselOutput> pending_;
  int64_t next_ = 0;
};

}  // namespace flotilla::exec
