#pragma once
// Partitions, peer groups and frames of the window kernels: where each row's frame starts and
// ends, and the loops that walk frames partition by partition. Not part of the public contract.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/exec/window/window_kernels.h"

namespace flotilla::exec::window_internal {

/// The partitions of a sorted batch, from ComputeWindowFunction's `partition_starts`.
struct PartitionList {
  const std::vector<int64_t>* starts;
  int64_t num_rows;
  size_t size() const { return starts->size(); }
  int64_t begin(size_t p) const { return (*starts)[p]; }
  int64_t end(size_t p) const { return p + 1 < starts->size() ? (*starts)[p + 1] : num_rows; }
};

/// The starts of the peer groups of rows [begin, end), then `end`. Without a comparator the
/// whole range is one group.
void PeerGroups(const compute::RowComparator* peers, int64_t begin, int64_t end,
                std::vector<int64_t>* out);

/// The frame of `spec`, or SQL's default for it.
WindowFrame EffectiveFrame(const WindowFunctionSpec& spec,
                           const std::vector<compute::SortKey>& order_keys);

/// Invalid for frames SQL rejects, NotImplemented for RANGE offsets on unsupported order keys;
/// messages name `function`.
Status CheckFrame(const std::string& function, const WindowFrame& frame, const RecordBatch& batch,
                  const std::vector<compute::SortKey>& order_keys);

/// Computes the frame [start, end) of every row of a partition. Within a partition both ends
/// are non-decreasing in the row (the kernels rely on it).
class FrameComputer {
 public:
  /// `frame` must have passed CheckFrame.
  static Result<std::unique_ptr<FrameComputer>> Make(
      const RecordBatch& batch, const std::vector<compute::SortKey>& order_keys,
      const WindowFrame& frame);

  /// The frames of rows [ps, pe), indexed by row - ps.
  void Compute(int64_t ps, int64_t pe, std::vector<int64_t>* starts, std::vector<int64_t>* ends);

 private:
  FrameComputer() = default;

  static int64_t RowsBound(const FrameBound& b, int64_t ps, int64_t pe, int64_t i, bool is_end);
  void RangeOffsetBounds(int64_t ps, int64_t pe, int64_t* fs, int64_t* fe);
  void SetBlockBounds(int64_t begin, int64_t end, int64_t base, int64_t* fs, int64_t* fe) const;

  WindowFrame frame_;
  bool needs_peers_ = false;
  bool has_offset_ = false;
  std::optional<compute::RowComparator> peers_;
  Array key_;
  bool ascending_ = true;
  bool nulls_first_ = false;
  std::vector<int64_t> peer_starts_;
};

/// Calls `kernel(ps, pe, starts, ends)` for every non-empty partition with its rows' frames.
template <typename Kernel>
Status ForEachFramedPartition(const PartitionList& parts, FrameComputer* frames, Kernel&& kernel) {
  std::vector<int64_t> starts, ends;
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t ps = parts.begin(p), pe = parts.end(p);
    if (ps == pe) continue;
    frames->Compute(ps, pe, &starts, &ends);
    FLOTILLA_RETURN_NOT_OK(kernel(ps, pe, starts.data(), ends.data()));
  }
  return Status::OK();
}

/// Moves a window [lo, hi) over the rows of a partition to successive frames whose ends never
/// move back, calling remove(j) for each row that leaves and add(j) for each row that enters.
class SlidingWindow {
 public:
  explicit SlidingWindow(int64_t begin) : lo_(begin), hi_(begin) {}
  template <typename Add, typename Remove>
  void MoveTo(int64_t start, int64_t end, Add&& add, Remove&& remove) {
    const int64_t drop_end = std::min(start, hi_);
    for (int64_t j = lo_; j < drop_end; ++j)
      remove(j);
    lo_ = std::max(lo_, start);
    if (hi_ < lo_) hi_ = lo_;
    for (; hi_ < end; ++hi_)
      add(hi_);
  }

 private:
  int64_t lo_, hi_;
};

}  // namespace flotilla::exec::window_internal
