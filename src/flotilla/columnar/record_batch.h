#pragma once
// RecordBatch: a schema and equal-length columns; the unit that flows through the engine.

#include <memory>
#include <string>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/types/schema.h"

namespace flotilla {

class RecordBatch {
 public:
  RecordBatch() = default;

  /// Checks that there is one column per field, of the field's type, all of `num_rows` rows.
  static Result<RecordBatch> Make(SchemaPtr schema, std::vector<Array> columns, int64_t num_rows);
  /// Like Make, with num_rows taken from the first column (0 when there are no columns).
  static Result<RecordBatch> Make(SchemaPtr schema, std::vector<Array> columns);
  /// A batch of no rows with `schema`'s columns.
  static Result<RecordBatch> MakeEmpty(SchemaPtr schema);
  /// A batch with one nullable column per (name, array) pair.
  static Result<RecordBatch> FromColumns(std::vector<std::pair<std::string, Array>> columns);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const Array& column(int i) const { return columns_[i]; }
  const std::vector<Array>& columns() const { return columns_; }
  /// The column called `name`, or a KeyError suggesting the closest name.
  Result<Array> GetColumn(std::string_view name) const;

  /// Zero-copy view of rows [offset, offset + length).
  RecordBatch Slice(int64_t offset, int64_t length) const;
  /// A batch with the columns at `indices`, in that order.
  Result<RecordBatch> SelectColumns(const std::vector<int>& indices) const;

  /// Bytes of the buffers this batch references (a slice counts its whole buffers).
  int64_t TotalBufferSize() const;
  bool Equals(const RecordBatch& other) const;

 private:
  RecordBatch(SchemaPtr schema, std::vector<Array> columns, int64_t num_rows)
      : schema_(std::move(schema)), columns_(std::move(columns)), num_rows_(num_rows) {}

  SchemaPtr schema_;
  std::vector<Array> columns_;
  int64_t num_rows_ = 0;
};

/// Bytes of all buffers under `array` (children and dictionary included).
int64_t TotalBufferSize(const ArrayData& array);

}  // namespace flotilla
