#pragma once
// Reads one column chunk: walks its pages (dictionary, data v1 and v2), decompresses them,
// decodes the repetition and definition levels and the values of every encoding, and returns the
// levels with the chunk's non-null values as one dense Arrow array of the leaf's type.
#include <cstdint>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/io/parquet/schema.h"

namespace flotilla::io::parquet {

struct LeafData {
  std::vector<int16_t> def;  // empty when the column's max definition level is 0 or 1 (below)
  std::vector<int16_t> rep;  // empty when the column's max repetition level is 0
  int64_t entries = 0;       // level entries (rows, for columns outside lists)
  Array values;              // the values of entries whose def == max_def, in order
  // Columns outside lists with max definition level 1 (a top-level optional column, the common
  // case) keep their levels as a bitmap instead: bit i = (def[i] == 1); null when all are 1.
  bool def_bitmap = false;
  BufferPtr def_bits;

  /// The definition level of entry i, whichever way the levels are held.
  int16_t Def(int64_t i) const {
    if (def_bitmap) return def_bits == nullptr || bit_util::GetBit(def_bits->data(), i);
    return def.empty() ? 0 : def[static_cast<size_t>(i)];
  }
};

/// Bytes holding whole pages of a column chunk: `entries` level entries' worth of data pages,
/// or (`dictionary`) the dictionary page.
struct PageSpan {
  const uint8_t* data = nullptr;
  int64_t size = 0;
  int64_t entries = 0;
  bool dictionary = false;
};

/// Some of a chunk's pages (the dictionary span first): what a page-index selection reads.
Result<LeafData> ReadColumnPages(const std::vector<PageSpan>& spans, const ColumnMetaData& meta,
                                 const ColumnDescriptor& column);

/// `chunk`: the column chunk's bytes (from its first page to the end of its last).
Result<LeafData> ReadColumnChunk(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                                 const ColumnDescriptor& column);

/// The bytes of the column chunk within the file: [*offset, *offset + *length).
Status ColumnChunkRange(const ColumnMetaData& meta, int64_t file_size, int64_t* offset,
                        int64_t* length);

}  // namespace flotilla::io::parquet
