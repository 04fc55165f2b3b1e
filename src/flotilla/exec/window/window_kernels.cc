// The window function entry points: argument and partition checks, then dispatch to the kernel
// families (window_ranking.cc, window_offsets.cc, window_aggregates.cc).
#include "flotilla/exec/window/window_kernels.h"

#include "flotilla/exec/window/window_internal.h"

namespace flotilla::exec {
namespace {

using namespace window_internal;  // NOLINT

bool IsRanking(WindowKind kind) {
  return kind == WindowKind::kRowNumber || kind == WindowKind::kRank ||
         kind == WindowKind::kDenseRank || kind == WindowKind::kPercentRank ||
         kind == WindowKind::kCumeDist;
}

bool UsesFrame(WindowKind kind) {
  return kind == WindowKind::kFirstValue || kind == WindowKind::kLastValue ||
         kind == WindowKind::kNthValue || kind == WindowKind::kAggregate;
}

Status CheckPartitionStarts(const std::vector<int64_t>& starts, int64_t num_rows) {
  if (starts.empty()) {
    if (num_rows == 0) return Status::OK();
    return Status::Invalid("partition_starts is empty for a batch of " + std::to_string(num_rows) +
                           " rows; pass {0} for a single partition");
  }
  if (starts[0] != 0) {
    return Status::Invalid("partition_starts must begin with 0, got " + std::to_string(starts[0]));
  }
  for (size_t p = 1; p < starts.size(); ++p) {
    if (starts[p] < starts[p - 1] || starts[p] > num_rows) {
      return Status::Invalid("partition_starts must ascend within [0, " + std::to_string(num_rows) +
                             "], got " + std::to_string(starts[p]) + " at position " +
                             std::to_string(p) + " after " + std::to_string(starts[p - 1]));
    }
  }
  return Status::OK();
}

Status CheckOrderKeys(const RecordBatch& batch, const std::vector<compute::SortKey>& order_keys) {
  for (const compute::SortKey& key : order_keys) {
    if (key.column < 0 || key.column >= batch.num_columns()) {
      return Status::IndexError("order key column " + std::to_string(key.column) +
                                " is out of range for a batch of " +
                                std::to_string(batch.num_columns()) + " columns");
    }
  }
  return Status::OK();
}

}  // namespace

Result<TypePtr> WindowFunctionType(const Schema& schema, const WindowFunctionSpec& spec) {
  FLOTILLA_ASSIGN_OR_RETURN(ResolvedSpec r, Resolve(schema, spec));
  return r.type;
}

Result<Array> ComputeWindowFunction(const RecordBatch& sorted,
                                    const std::vector<int64_t>& partition_starts,
                                    const std::vector<compute::SortKey>& order_keys,
                                    const WindowFunctionSpec& spec) {
  FLOTILLA_ASSIGN_OR_RETURN(ResolvedSpec r, Resolve(*sorted.schema(), spec));
  FLOTILLA_RETURN_NOT_OK(CheckPartitionStarts(partition_starts, sorted.num_rows()));
  FLOTILLA_RETURN_NOT_OK(CheckOrderKeys(sorted, order_keys));
  const PartitionList parts{&partition_starts, sorted.num_rows()};

  std::unique_ptr<FrameComputer> frames;
  if (UsesFrame(r.kind)) {
    const WindowFrame frame = EffectiveFrame(spec, order_keys);
    FLOTILLA_RETURN_NOT_OK(CheckFrame(r.name, frame, sorted, order_keys));
    FLOTILLA_ASSIGN_OR_RETURN(frames, FrameComputer::Make(sorted, order_keys, frame));
  }
  if (r.kind == WindowKind::kNthValue) {
    const std::optional<int64_t> nth = ConstantInteger(spec.constants[0]);
    if (nth && *nth <= 0) {
      return Status::Invalid("nth_value(): n must be greater than zero, got " +
                             std::to_string(*nth));
    }
  }
  if (sorted.num_rows() == 0) return Array::MakeEmpty(r.type);

  if (IsRanking(r.kind)) return ComputeRanking(r.kind, sorted, parts, order_keys);
  switch (r.kind) {
    case WindowKind::kNtile:
      return ComputeNtile(sorted, parts, spec.constants[0]);
    case WindowKind::kLag:
    case WindowKind::kLead:
      return ComputeLagLead(r, spec, sorted, parts);
    case WindowKind::kFirstValue:
    case WindowKind::kLastValue:
      return ComputeFramePick(r.kind, 1, sorted.column(spec.arguments[0]), parts, frames.get());
    case WindowKind::kNthValue: {
      const std::optional<int64_t> nth = ConstantInteger(spec.constants[0]);
      const Array& x = sorted.column(spec.arguments[0]);
      if (!nth) return Array::MakeNull(x.type(), sorted.num_rows());
      return ComputeFramePick(r.kind, nth, x, parts, frames.get());
    }
    default:
      return ComputeAggregate(r, spec, sorted, parts, frames.get());
  }
}

Result<std::vector<int64_t>> PartitionStarts(const RecordBatch& sorted,
                                             const std::vector<int>& partition_columns) {
  std::vector<compute::SortKey> keys;
  for (int column : partition_columns) {
    if (column < 0 || column >= sorted.num_columns()) {
      return Status::IndexError("partition column " + std::to_string(column) +
                                " is out of range for a batch of " +
                                std::to_string(sorted.num_columns()) + " columns");
    }
    keys.push_back(compute::SortKey{column});
  }
  std::vector<int64_t> starts;
  if (sorted.num_rows() == 0) return starts;
  starts.push_back(0);
  if (keys.empty()) return starts;
  FLOTILLA_ASSIGN_OR_RETURN(compute::RowComparator cmp, compute::RowComparator::Make(sorted, keys));
  for (int64_t i = 1; i < sorted.num_rows(); ++i) {
    if (cmp.Compare(i - 1, i) != 0) starts.push_back(i);
  }
  return starts;
}

}  // namespace flotilla::exec
