#pragma once
// Datum: what an expression evaluates to over a batch — a whole column, or one value that
// stands for every row (a literal, or a function of literals). Scalars are one-row arrays, so
// every kernel reads them with the same accessors as columns.

#include <cstdint>

#include "flotilla/columnar/array.h"

namespace flotilla::expr {

class Datum {
 public:
  Datum() = default;
  /// A column; its length is the batch's row count.
  static Datum Column(Array values) { return Datum(std::move(values), false); }
  /// One value (a one-row array) broadcast to every row.
  static Datum Scalar(Array one_value) { return Datum(std::move(one_value), true); }

  bool is_scalar() const { return scalar_; }
  const Array& array() const { return array_; }
  const TypePtr& type() const { return array_.type(); }
  /// Row i's position in array(): i for a column, 0 for a scalar.
  int64_t index(int64_t row) const { return scalar_ ? 0 : row; }
  bool IsNull(int64_t row) const { return array_.IsNull(index(row)); }

  /// The values as a column of `num_rows` rows (a scalar is repeated).
  Result<Array> ToColumn(int64_t num_rows) const;

 private:
  Datum(Array array, bool scalar) : array_(std::move(array)), scalar_(scalar) {}
  Array array_;
  bool scalar_ = false;
};

}  // namespace flotilla::expr
