#pragma once
// Reading newline-delimited JSON (one object per line; blank lines skipped) with simdjson:
// objects become structs, arrays lists, strings that spell dates and timestamps those types.
#include <optional>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/io/fs/file.h"
#include "flotilla/io/json/options.h"
#include "flotilla/io/text/infer.h"

namespace flotilla::io::json {

/// The top-level keys of the first sample_rows objects of `file` and the kinds of their values.
Result<text::InferredSchema> InferJsonFile(io::RandomAccessFile* file,
                                           const JsonReadOptions& options);

/// Reads the lines in [begin, end) of `file` (both at line starts) as the columns `fields` of
/// `schema`, at most `limit` rows. Errors name the file, line, column and value.
Result<RecordBatch> ReadJsonRange(io::RandomAccessFile* file, int64_t begin, int64_t end,
                                  const SchemaPtr& schema, const std::vector<int>& fields,
                                  std::optional<int64_t> limit = std::nullopt);

/// Line starts splitting [0, size) into chunks of about `target` bytes: {0, ..., size}.
std::vector<int64_t> SplitLines(std::string_view data, int64_t target);

}  // namespace flotilla::io::json
