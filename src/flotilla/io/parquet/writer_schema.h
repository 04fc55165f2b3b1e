#pragma once
// The Parquet schema the writer declares for an Arrow schema (see writer_schema.cc).
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/types/schema.h"

namespace flotilla::io::parquet {

/// The type a column is stored as: a dictionary's value type (Parquet chooses its own
/// dictionaries), or the type itself.
TypePtr StorageType(const TypePtr& type);

/// Appends the schema elements of `field` (one for a leaf, a group and its children for lists
/// and structs) to `out`; NotImplemented for types Parquet cannot store.
Status AddSchemaElements(const Field& field, std::vector<SchemaElement>* out);

}  // namespace flotilla::io::parquet
