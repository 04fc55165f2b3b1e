#pragma once
// Column buffers the generator fills row by row. TPC-H columns have no nulls, so these skip the
// validity bitmap that the general builders keep, and grow without per-value checks.
#include <string_view>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/decimal.h"

namespace flotilla::tpch {

/// An array of `type` without nulls holding a copy of `length` values of `width` bytes.
Result<Array> FixedWidthArray(const TypePtr& type, const void* values, int64_t length,
                              int64_t width);

/// int32, int64, date32 and decimal128 values (T is their C type: int32_t, int64_t, Int128).
template <typename T>
class FixedColumn {
 public:
  FixedColumn(TypePtr type, int64_t expected_rows) : type_(std::move(type)) {
    values_.reserve(static_cast<size_t>(expected_rows));
  }
  void Append(T value) { values_.push_back(value); }
  int64_t size() const { return static_cast<int64_t>(values_.size()); }

  Result<Array> Finish() const {
    return FixedWidthArray(type_, values_.data(), size(), static_cast<int64_t>(sizeof(T)));
  }

 private:
  TypePtr type_;
  std::vector<T> values_;
};

/// utf8 values.
class StringColumn {
 public:
  StringColumn(int64_t expected_rows, int64_t expected_bytes) {
    offsets_.reserve(static_cast<size_t>(expected_rows) + 1);
    offsets_.push_back(0);
    chars_.reserve(static_cast<size_t>(expected_bytes));
  }
  void Append(std::string_view value) {
    chars_.append(value);
    offsets_.push_back(static_cast<int32_t>(chars_.size()));
  }
  /// Appends the value as pieces: the row ends at EndRow().
  void AppendPiece(std::string_view piece) { chars_.append(piece); }
  void EndRow() { offsets_.push_back(static_cast<int32_t>(chars_.size())); }

  Result<Array> Finish() const;

 private:
  std::vector<int32_t> offsets_;
  std::string chars_;
};

}  // namespace flotilla::tpch
