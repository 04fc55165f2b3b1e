#pragma once
// Turns arrays into the body of a RecordBatch message: field nodes and buffers in pre-order of
// the field tree, with slices normalized (bitmaps re-aligned to bit 0, offsets rebased to 0, only
// the referenced values kept) and optionally compressed.

#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/io/ipc/compression.h"
#include "flotilla/io/ipc/message.h"

namespace flotilla::ipc {

class BatchEncoder {
 public:
  /// `codec` may be null (no compression).
  BatchEncoder(Codec* codec, Compression compression, int64_t min_compress_bytes)
      : codec_(codec), compression_(compression), min_compress_bytes_(min_compress_bytes) {}

  /// Encodes `columns` (all of `length` rows) as a RecordBatch message into `fbb` (finished)
  /// and `body`. With `dictionary_id` >= 0 the message is a DictionaryBatch instead.
  Status Encode(const std::vector<Array>& columns, int64_t length,
                flatbuffers::FlatBufferBuilder* fbb, std::vector<BodyBuffer>* body,
                int64_t dictionary_id = -1, bool is_delta = false);

 private:
  Status Visit(const Array& array, int depth);
  Status AddView(const BufferPtr& buffer, int64_t offset, int64_t size);
  Status AddBitmap(const BufferPtr& bitmap, int64_t bit_offset, int64_t length);
  template <typename Offset>
  Result<std::pair<int64_t, int64_t>> AddOffsets(const ArrayData& data);
  Status Compress();

  Codec* codec_;
  Compression compression_;
  int64_t min_compress_bytes_;
  std::vector<fb::FieldNode> nodes_;
  std::vector<BodyBuffer> buffers_;
};

}  // namespace flotilla::ipc
