#pragma once
// How the operator families call compute kernels on Datums: scalars stay one-row arrays (the
// kernels broadcast them), and a result is a scalar only when every argument is.

#include <vector>

#include "flotilla/expr/datum.h"

namespace flotilla::expr {

/// The row count to run a kernel on: 1 when every argument is a scalar, else `num_rows`.
inline int64_t ElementwiseLength(const std::vector<Datum>& args, int64_t num_rows) {
  for (const Datum& d : args) {
    if (!d.is_scalar()) return num_rows;
  }
  return 1;
}

/// `out` as a scalar when every argument is one, else as a column.
inline Datum WrapResult(const std::vector<Datum>& args, Array out) {
  for (const Datum& d : args) {
    if (!d.is_scalar()) return Datum::Column(std::move(out));
  }
  return Datum::Scalar(std::move(out));
}

}  // namespace flotilla::expr
