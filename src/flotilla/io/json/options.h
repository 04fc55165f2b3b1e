#pragma once
// Options of the newline-delimited JSON reader.
#include <cstdint>

#include "flotilla/types/schema.h"

namespace flotilla::io::json {

struct JsonReadOptions {
  /// Column names and types; when set nothing is inferred, keys not in it are ignored and
  /// missing keys are null.
  SchemaPtr schema;
  /// Lines of each file sampled to infer the schema.
  int64_t sample_rows = 20480;
  /// Files larger than this are read as several scan tasks of about this many bytes.
  int64_t chunk_bytes = int64_t{16} << 20;
};

}  // namespace flotilla::io::json
