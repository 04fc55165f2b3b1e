// Window functions that read another row's value: lag and lead (an offset from the current row
// within the partition), and first_value, last_value and nth_value (a position in the frame).
// Each picks row indices, then takes the values once.
#include "flotilla/compute/cast.h"
#include "flotilla/compute/concat.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/window/window_internal.h"

namespace flotilla::exec::window_internal {

Result<Array> TakeRows(const Array& values, OutputColumn<int64_t>* indices) {
  return compute::Take(values, indices->Finish());
}

Result<Array> ComputeLagLead(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                             const RecordBatch& batch, const PartitionList& parts) {
  const int64_t n = batch.num_rows();
  const Array& x = batch.column(spec.arguments[0]);
  std::optional<int64_t> offset = 1;
  if (!spec.constants.empty()) offset = ConstantInteger(spec.constants[0]);
  if (!offset) return Array::MakeNull(x.type(), n);

  // A default is appended after x's rows: one row for a constant, n rows for a column.
  Array values = x;
  bool has_default = false, per_row_default = false;
  Array default_values;
  if (spec.arguments.size() == 2) {
    default_values = batch.column(spec.arguments[1]);
    per_row_default = true;
  } else if (spec.constants.size() == 2) {
    default_values = spec.constants[1];
  }
  if (default_values.valid() && default_values.type_id() != TypeId::kNull &&
      default_values.null_count() < default_values.length()) {
    if (!default_values.type()->Equals(*x.type())) {
      FLOTILLA_ASSIGN_OR_RETURN(default_values, compute::Cast(default_values, x.type()));
    }
    FLOTILLA_ASSIGN_OR_RETURN(values, compute::Concat({x, default_values}));
    has_default = true;
  }

  const Int128 shift =
      r.kind == WindowKind::kLag ? -static_cast<Int128>(*offset) : static_cast<Int128>(*offset);
  FLOTILLA_ASSIGN_OR_RETURN(auto indices, OutputColumn<int64_t>::Make(int64(), n));
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t ps = parts.begin(p), pe = parts.end(p);
    for (int64_t i = ps; i < pe; ++i) {
      const Int128 j = static_cast<Int128>(i) + shift;
      if (j >= ps && j < pe) {
        indices.Set(i, static_cast<int64_t>(j));
      } else if (has_default) {
        indices.Set(i, per_row_default ? n + i : n);
      } else {
        indices.SetNull(i);
      }
    }
  }
  return TakeRows(values, &indices);
}

// first_value / last_value / nth_value, and the first / last aggregates.
Result<Array> ComputeFramePick(WindowKind kind, std::optional<int64_t> nth, const Array& x,
                               const PartitionList& parts, FrameComputer* frames) {
  FLOTILLA_ASSIGN_OR_RETURN(auto indices, OutputColumn<int64_t>::Make(int64(), parts.num_rows));
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        for (int64_t k = 0; k < pe - ps; ++k) {
          int64_t pick = -1;
          if (fs[k] < fe[k]) {
            if (kind == WindowKind::kFirstValue) {
              pick = fs[k];
            } else if (kind == WindowKind::kLastValue) {
              pick = fe[k] - 1;
            } else if (fe[k] - fs[k] >= *nth) {
              pick = fs[k] + *nth - 1;
            }
          }
          if (pick >= 0) {
            indices.Set(ps + k, pick);
          } else {
            indices.SetNull(ps + k);
          }
        }
        return Status::OK();
      }));
  return TakeRows(x, &indices);
}

}  // namespace flotilla::exec::window_internal
