#pragma once
// Reading CSV: what a file holds (where its rows start, its column names from the header, the
// kinds of a sample of its values) and the conversion of a byte range of rows into typed columns.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/io/csv/options.h"
#include "flotilla/io/fs/file.h"
#include "flotilla/io/text/infer.h"

namespace flotilla::io::csv {

struct CsvFileInfo {
  /// Offset of the first data row (after skip_rows and the header).
  int64_t data_offset = 0;
  /// The columns: names from the header (or column0, column1...) and, unless a schema was given,
  /// kinds inferred from the first sample_rows rows.
  text::InferredSchema columns;
};

Result<CsvFileInfo> InspectCsvFile(io::RandomAccessFile* file, const CsvReadOptions& options);

/// Reads the rows in [begin, end) of `file` (both at row starts) as the columns `fields` of
/// `schema`, at most `limit` rows. Errors name the file, line, column and value.
Result<RecordBatch> ReadCsvRange(io::RandomAccessFile* file, int64_t begin, int64_t end,
                                 const SchemaPtr& schema, const std::vector<int>& fields,
                                 const CsvParseOptions& options,
                                 std::optional<int64_t> limit = std::nullopt);

}  // namespace flotilla::io::csv
