#pragma once
// Schema: the ordered fields of a RecordBatch, with optional key/value metadata.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/types/data_type.h"

namespace flotilla {

class Schema {
 public:
  using Metadata = std::vector<std::pair<std::string, std::string>>;

  explicit Schema(std::vector<Field> fields, Metadata metadata = {})
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  int num_fields() const { return static_cast<int>(fields_.size()); }
  const Field& field(int i) const { return fields_[i]; }
  const std::vector<Field>& fields() const { return fields_; }
  const Metadata& metadata() const { return metadata_; }
  std::vector<std::string> field_names() const;

  /// Index of the first field called `name`, or -1.
  int GetFieldIndex(std::string_view name) const;
  /// Index of the field called `name`, or a KeyError that suggests the closest name.
  Result<int> FindField(std::string_view name) const;

  bool Equals(const Schema& other, bool check_metadata = false) const;
  std::string ToString() const;  // one "name: type" per line

 private:
  std::vector<Field> fields_;
  Metadata metadata_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

}  // namespace flotilla
