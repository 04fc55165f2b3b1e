#include "flotilla/expr/datum.h"

#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/take.h"

namespace flotilla::expr {

Result<Array> Datum::ToColumn(int64_t num_rows) const {
  if (!scalar_) return array_;
  // Row 0 gathered num_rows times: one typed pass instead of a builder call per row.
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr zeros, compute::AllocateValues(num_rows, sizeof(int32_t)));
  return compute::Take(
      array_, compute::MakeFixedWidthArray(int32(), num_rows, nullptr, 0, std::move(zeros)));
}

}  // namespace flotilla::expr
