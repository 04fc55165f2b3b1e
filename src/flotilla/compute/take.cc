#include "flotilla/compute/take.h"

#include <fmt/format.h>

#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/gather.h"

namespace flotilla::compute {
namespace {

// Finds the first valid index outside [0, length). The scan is split so the common case (no
// null indices) is a branch-free reduction the compiler can vectorise; the exact culprit is
// only searched for once we know there is one.
template <typename IndexT>
Status CheckBounds(const Array& indices, int64_t length) {
  const IndexT* idx = indices.values<IndexT>();
  const int64_t n = indices.length();
  const uint64_t limit = static_cast<uint64_t>(length);
  // Casting through int64 makes a negative index a huge unsigned value, so one compare
  // catches both ends of the range.
  auto out_of_range = [&](int64_t i) {
    return static_cast<uint64_t>(static_cast<int64_t>(idx[i])) >= limit;
  };
  bool any_bad = false;
  if (indices.null_count() == 0) {
    uint64_t bad = 0;
    for (int64_t i = 0; i < n; ++i)
      bad |= out_of_range(i);
    any_bad = bad != 0;
  } else {
    for (int64_t i = 0; i < n && !any_bad; ++i)
      any_bad = indices.IsValid(i) && out_of_range(i);
  }
  if (!any_bad) return Status::OK();
  for (int64_t i = 0; i < n; ++i) {
    if (indices.IsValid(i) && out_of_range(i)) {
      return Status::IndexError(fmt::format(
          "Take: index {} (at position {} of the indices) is out of range for an array of "
          "length {}; indices must be in [0, {})",
          idx[i], i, length, length));
    }
  }
  return Status::OK();
}

Status CheckIndices(const Array& indices, int64_t length) {
  if (!indices.valid()) return Status::Invalid("Take: the indices array is missing");
  switch (indices.type_id()) {
    case TypeId::kInt32:
      return CheckBounds<int32_t>(indices, length);
    case TypeId::kUInt32:
      return CheckBounds<uint32_t>(indices, length);
    case TypeId::kInt64:
      return CheckBounds<int64_t>(indices, length);
    case TypeId::kUInt64:
      return CheckBounds<uint64_t>(indices, length);
    default:
      return Status::TypeError(fmt::format(
          "Take: indices must be int32, int64, uint32 or uint64, got {}; cast them to int64 "
          "first",
          indices.type()->ToString()));
  }
}

}  // namespace

Result<Array> Take(const Array& values, const Array& indices, MemoryPool* pool) {
  FLOTILLA_RETURN_NOT_OK(CheckIndices(indices, values.length()));
  return internal::Gather(values, indices, pool);
}

Result<RecordBatch> Take(const RecordBatch& batch, const Array& indices, MemoryPool* pool) {
  FLOTILLA_RETURN_NOT_OK(CheckIndices(indices, batch.num_rows()));
  // Positions that are mostly long runs (a filter keeping most rows) are copied run by run:
  // runs found once for every column, of 16 rows on average at least.
  const int64_t n = indices.length();
  const auto runs = internal::ConsecutiveRuns(indices, n / 16);
  std::vector<Array> columns;
  columns.reserve(batch.num_columns());
  for (const Array& column : batch.columns()) {
    Result<Array> taken = runs && internal::GathersByRuns(*column.type())
                              ? internal::GatherRuns(column, *runs, n, pool)
                              : internal::Gather(column, indices, pool);
    FLOTILLA_RETURN_NOT_OK(taken.status());
    columns.push_back(std::move(taken).ValueOrDie());
  }
  return RecordBatch::Make(batch.schema(), std::move(columns), n);
}

Result<Array> TakeIndices(const std::vector<int64_t>& indices) {
  const int64_t n = static_cast<int64_t>(indices.size());
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
  auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
  BufferPtr validity;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t index = indices[static_cast<size_t>(i)];
    out[i] = index < 0 ? 0 : index;
    if (index < 0) FLOTILLA_RETURN_NOT_OK(compute::SetNull(&validity, i, n, &nulls));
  }
  return compute::MakeFixedWidthArray(int64(), n, std::move(validity), nulls, std::move(values));
}

Result<Array> TakeIndices(int64_t n, const std::function<int64_t(int64_t)>& at) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, compute::AllocateUninitializedValues(n, 8));
  auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
  for (int64_t i = 0; i < n; ++i)
    out[i] = at(i);
  return compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values));
}

}  // namespace flotilla::compute
