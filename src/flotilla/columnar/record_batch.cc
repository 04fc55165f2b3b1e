#include "flotilla/columnar/record_batch.h"

#include <fmt/format.h>

#include <algorithm>

namespace flotilla {

Result<RecordBatch> RecordBatch::Make(SchemaPtr schema, std::vector<Array> columns,
                                      int64_t num_rows) {
  if (!schema) return Status::Invalid("record batch without a schema");
  if (static_cast<int>(columns.size()) != schema->num_fields()) {
    return Status::Invalid(fmt::format("record batch has {} columns but its schema has {} fields",
                                       columns.size(), schema->num_fields()));
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& f = schema->field(static_cast<int>(i));
    if (!columns[i].valid()) return Status::Invalid("column '" + f.name + "' is missing");
    if (!columns[i].type()->Equals(*f.type)) {
      return Status::TypeError(fmt::format("column '{}' is {} but the schema says {}", f.name,
                                           columns[i].type()->ToString(), f.type->ToString()));
    }
    if (columns[i].length() != num_rows) {
      return Status::Invalid(fmt::format("column '{}' has {} rows, expected {}", f.name,
                                         columns[i].length(), num_rows));
    }
  }
  return RecordBatch(std::move(schema), std::move(columns), num_rows);
}

Result<RecordBatch> RecordBatch::MakeEmpty(SchemaPtr schema) {
  std::vector<Array> columns;
  for (const Field& f : schema->fields()) {
    FLOTILLA_ASSIGN_OR_RETURN(Array empty, Array::MakeEmpty(f.type));
    columns.push_back(std::move(empty));
  }
  return Make(std::move(schema), std::move(columns), 0);
}

Result<RecordBatch> RecordBatch::Make(SchemaPtr schema, std::vector<Array> columns) {
  int64_t rows = columns.empty() || !columns[0].valid() ? 0 : columns[0].length();
  return Make(std::move(schema), std::move(columns), rows);
}

Result<RecordBatch> RecordBatch::FromColumns(std::vector<std::pair<std::string, Array>> columns) {
  std::vector<Field> fields;
  std::vector<Array> arrays;
  for (auto& [name, array] : columns) {
    fields.push_back(Field{name, array.type(), true});
    arrays.push_back(std::move(array));
  }
  return Make(std::make_shared<Schema>(std::move(fields)), std::move(arrays));
}

Result<Array> RecordBatch::GetColumn(std::string_view name) const {
  FLOTILLA_ASSIGN_OR_RETURN(int i, schema_->FindField(name));
  return columns_[i];
}

RecordBatch RecordBatch::Slice(int64_t offset, int64_t length) const {
  std::vector<Array> cols;
  cols.reserve(columns_.size());
  for (const auto& c : columns_)
    cols.push_back(c.Slice(offset, length));
  int64_t rows = cols.empty()
                     ? std::clamp<int64_t>(length, 0, std::max<int64_t>(0, num_rows_ - offset))
                     : cols[0].length();
  return RecordBatch(schema_, std::move(cols), rows);
}

Result<RecordBatch> RecordBatch::SelectColumns(const std::vector<int>& indices) const {
  std::vector<Field> fields;
  std::vector<Array> cols;
  for (int i : indices) {
    if (i < 0 || i >= num_columns()) {
      return Status::IndexError(
          fmt::format("column index {} out of range for {} columns", i, num_columns()));
    }
    fields.push_back(schema_->field(i));
    cols.push_back(columns_[i]);
  }
  return RecordBatch(std::make_shared<Schema>(std::move(fields), schema_->metadata()),
                     std::move(cols), num_rows_);
}

int64_t TotalBufferSize(const ArrayData& array) {
  int64_t total = 0;
  for (const auto& b : array.buffers)
    total += b ? b->size() : 0;
  for (const auto& c : array.children)
    total += c ? TotalBufferSize(*c) : 0;
  if (array.dictionary) total += TotalBufferSize(*array.dictionary);
  return total;
}

int64_t RecordBatch::TotalBufferSize() const {
  int64_t total = 0;
  for (const auto& c : columns_)
    total += flotilla::TotalBufferSize(*c.data());
  return total;
}

bool RecordBatch::Equals(const RecordBatch& other) const {
  if (num_rows_ != other.num_rows_ || !schema_->Equals(*other.schema_)) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i].Equals(other.columns_[i])) return false;
  }
  return true;
}

}  // namespace flotilla
