// Any aggregate over window frames through its GroupedAccumulator, one group per distinct frame:
// frames with a fixed start feed each row once into a running state and snapshot it (one Merge)
// per distinct frame end; frames whose start moves feed each frame's rows again.
#include <algorithm>
#include <memory>
#include <utility>

#include "flotilla/compute/concat.h"
#include "flotilla/exec/window/window_internal.h"
#include "flotilla/expr/aggregate/aggregate_function.h"

namespace flotilla::exec::window_internal {
namespace {

class GenericFrameAggregate {
 public:
  GenericFrameAggregate(const expr::AggregateFunction* function, std::vector<TypePtr> types,
                        std::vector<Array> constants, std::vector<Array> args, int64_t num_rows)
      : function_(function),
        types_(std::move(types)),
        constants_(std::move(constants)),
        args_(std::move(args)),
        row_group_(static_cast<size_t>(num_rows)) {}

  Status Partition(int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) {
    const int64_t m = pe - ps;
    const bool fixed_start = std::all_of(fs, fs + m, [&](int64_t s) { return s == fs[0]; });
    if (fixed_start) {
      // One running state fed each row once; each distinct frame end snapshots it into a group.
      FLOTILLA_ASSIGN_OR_RETURN(auto running, function_->MakeAccumulator(types_, constants_));
      FLOTILLA_RETURN_NOT_OK(running->Resize(1));
      int64_t fed = fs[0];
      for (int64_t k = 0; k < m; ++k) {
        if (k > 0 && fe[k] == fe[k - 1]) {
          row_group_[ps + k] = row_group_[ps + k - 1];
          continue;
        }
        if (fe[k] > fed) {
          FLOTILLA_RETURN_NOT_OK(Feed(running.get(), fed, fe[k], 0));
          fed = fe[k];
        }
        FLOTILLA_ASSIGN_OR_RETURN(uint32_t group, NewGroup(ps + k));
        FLOTILLA_RETURN_NOT_OK(chunk_->Merge(*running, &group));
      }
      return Status::OK();
    }
    for (int64_t k = 0; k < m; ++k) {
      if (k > 0 && fs[k] == fs[k - 1] && fe[k] == fe[k - 1]) {
        row_group_[ps + k] = row_group_[ps + k - 1];
        continue;
      }
      FLOTILLA_ASSIGN_OR_RETURN(uint32_t group, NewGroup(ps + k));
      FLOTILLA_RETURN_NOT_OK(Feed(chunk_.get(), fs[k], fe[k], group));
    }
    return Status::OK();
  }

  Result<Array> Finish() {
    FLOTILLA_RETURN_NOT_OK(FlushChunk());
    Array values;
    if (finished_.size() == 1) {
      values = finished_[0];
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(values, compute::Concat(finished_));
    }
    // Groups are numbered in row order, so one group per row is the identity.
    if (total_groups_ == static_cast<int64_t>(row_group_.size())) return values;
    FLOTILLA_ASSIGN_OR_RETURN(auto indices,
                              OutputColumn<int64_t>::Make(int64(), row_group_.size()));
    std::copy(row_group_.begin(), row_group_.end(), indices.values());
    return TakeRows(values, &indices);
  }

 private:
  // Groups live in chunks of a bounded number of groups, so that functions with large states
  // (approx_count_distinct's registers) keep only one chunk's worth alive.
  static constexpr int64_t kGroupsPerChunk = 1024;

  // A new group for `row`, returned as its id within the current chunk.
  Result<uint32_t> NewGroup(int64_t row) {
    if (chunk_ == nullptr || chunk_groups_ == kGroupsPerChunk) {
      FLOTILLA_RETURN_NOT_OK(FlushChunk());
      FLOTILLA_ASSIGN_OR_RETURN(chunk_, function_->MakeAccumulator(types_, constants_));
      chunk_groups_ = 0;
    }
    const auto group = static_cast<uint32_t>(chunk_groups_++);
    FLOTILLA_RETURN_NOT_OK(chunk_->Resize(chunk_groups_));
    row_group_[row] = total_groups_++;
    return group;
  }

  Status FlushChunk() {
    if (chunk_ == nullptr) return Status::OK();
    FLOTILLA_ASSIGN_OR_RETURN(Array values, chunk_->Finalize());
    finished_.push_back(std::move(values));
    chunk_.reset();
    return Status::OK();
  }

  // Updates `acc` with rows [begin, end) into `group`.
  Status Feed(expr::GroupedAccumulator* acc, int64_t begin, int64_t end, uint32_t group) {
    if (end <= begin) return Status::OK();
    const int64_t length = end - begin;
    std::vector<Array> sliced;
    sliced.reserve(args_.size());
    for (size_t i = 0; i < args_.size(); ++i) {
      sliced.push_back(constants_[i].valid() ? args_[i] : args_[i].Slice(begin, length));
    }
    group_ids_.assign(static_cast<size_t>(length), group);
    return acc->Update(sliced, group_ids_.data(), length);
  }

  const expr::AggregateFunction* function_;
  std::vector<TypePtr> types_;
  std::vector<Array> constants_;  // per argument: the constant, or invalid for a column
  std::vector<Array> args_;       // per argument: the column, or the constant
  std::vector<int64_t> row_group_;
  std::vector<uint32_t> group_ids_;
  std::unique_ptr<expr::GroupedAccumulator> chunk_;
  int64_t chunk_groups_ = 0;
  int64_t total_groups_ = 0;
  std::vector<Array> finished_;
};

}  // namespace

Result<Array> ComputeGenericAggregate(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                                      const RecordBatch& batch, const PartitionList& parts,
                                      FrameComputer* frames) {
  std::vector<Array> constants, args;
  for (int column : spec.arguments) {
    constants.emplace_back();
    args.push_back(batch.column(column));
  }
  for (const Array& constant : spec.constants) {
    constants.push_back(constant);
    args.push_back(constant);
  }
  GenericFrameAggregate aggregate(r.aggregate, r.arg_types, std::move(constants), std::move(args),
                                  batch.num_rows());
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) {
        return aggregate.Partition(ps, pe, fs, fe);
      }));
  return aggregate.Finish();
}

}  // namespace flotilla::exec::window_internal
