#pragma once
// Encoding one leaf's buffered values as a column chunk: a dictionary page when the values
// repeat enough, data pages cut so that the page index can skip parts of a row group, and the
// chunk's metadata, statistics and page index.
#include <cstdint>
#include <optional>
#include <string>

#include "flotilla/io/parquet/column_shredder.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/io/parquet/schema.h"
#include "flotilla/io/parquet/writer.h"

namespace flotilla::io::parquet {

class PageCodec;

/// A column chunk's metadata and its page index (written after the row groups, before the
/// footer). Offsets are relative to the chunk's start until the chunk is placed in the file.
struct EncodedChunk {
  ColumnChunk chunk;
  std::optional<ColumnIndex> column_index;  // none when the column has no order or NaN pages
  OffsetIndex offset_index;
};

/// Encodes `leaf`, the values of `column`, as one column chunk appended to `out`, whose first
/// byte lands at file offset `base`; pages are compressed with `codec`.
Result<EncodedChunk> WriteColumnChunk(const ColumnDescriptor& column,
                                      const ParquetWriteOptions& options, PageCodec* codec,
                                      const LeafBuffer& leaf, int64_t base, std::string* out);

}  // namespace flotilla::io::parquet
