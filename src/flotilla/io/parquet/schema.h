#pragma once
// A Parquet file's schema as Flotilla sees it: the tree of groups and leaves of the footer's
// flattened schema, with the Arrow type of every node, the definition and repetition levels the
// record assembly needs, and one descriptor per leaf column.
//
// Mapping: groups become structs; LIST-annotated groups (the standard 3-level form and the
// legacy 2-level ones) and bare repeated fields become lists; MAP groups become
// list<struct<key, value>>. Leaves take their logical (or legacy converted) type.
#include <cstdint>
#include <string>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/types/schema.h"

namespace flotilla::io::parquet {

struct ColumnDescriptor {
  int index = 0;     // the column's position among the file's leaves
  std::string path;  // dotted path, for messages: "a.list.element"
  std::vector<std::string> path_in_schema;
  SchemaElement element;  // the leaf's schema element
  int16_t max_def = 0;
  int16_t max_rep = 0;
  TypePtr type;             // Arrow type of the leaf's values
  std::string unsupported;  // set when the leaf's type cannot be read, with the reason

  /// Bytes per value of the physical type as the reader and writer buffer it: 1 for booleans
  /// (one byte each), the fixed width otherwise, 0 for variable-length byte arrays.
  int physical_width() const;
};

struct SchemaNode {
  enum class Kind { kLeaf, kStruct, kList };
  Kind kind = Kind::kLeaf;
  std::string name;
  TypePtr type;
  bool nullable = true;
  int16_t def_level = 0;    // the definition level at which this node is present (not null)
  int16_t rep_level = 0;    // lists: the repetition level of their elements
  int16_t element_def = 0;  // lists: the definition level at which a list has an element
  int leaf = -1;            // leaves: the column index
  int first_leaf = 0, end_leaf = 0;  // the leaves under this node: [first_leaf, end_leaf)
  std::vector<SchemaNode> children;  // struct fields, or a list's one element

  Field ToField() const { return Field{name, type, nullable}; }
};

struct FileSchema {
  std::vector<SchemaNode> fields;  // the top-level columns
  std::vector<ColumnDescriptor> leaves;
  SchemaPtr arrow;
};

/// Builds the tree from the footer's schema; errors name the offending element.
Result<FileSchema> BuildFileSchema(const FileMetaData& metadata);

}  // namespace flotilla::io::parquet
