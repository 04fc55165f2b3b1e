#pragma once
// Decoding of RecordBatch and DictionaryBatch bodies into arrays. All input is untrusted: every
// count, length and buffer location is checked before use, and every array produced passes
// Array::Make's validation. Uncompressed buffers are zero-copy views of the message body.

#include <map>
#include <memory>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/record_batch.h"
#include "flotilla/io/ipc/compression.h"
#include "flotilla/io/ipc/message.h"

namespace flotilla::ipc {

/// The dictionaries read so far, by id.
class DictionaryMemo {
 public:
  /// Records the ids that `fields` declare (`tree` must outlive the memo).
  Status Register(const std::vector<Field>& fields, const DictionaryTree& tree);
  /// Decodes a DictionaryBatch message and stores (or, for a delta, extends) its dictionary.
  /// `file_format` forbids replacing a dictionary that is already present.
  Status Apply(const Message& message, bool file_format, class Codecs* codecs);
  /// The current dictionary for `id`, or null.
  std::shared_ptr<ArrayData> Get(int64_t id) const;

 private:
  struct Entry {
    TypePtr value_type;
    const DictionaryNode* node;
    std::shared_ptr<ArrayData> values;
  };
  Status RegisterField(const Field& field, const DictionaryNode& node, int depth);
  std::map<int64_t, Entry> entries_;
};

/// Decompressors, created on first use.
class Codecs {
 public:
  Result<Codec*> Get(const fb::BodyCompression* compression);

 private:
  std::unique_ptr<Codec> lz4_;
  std::unique_ptr<Codec> zstd_;
};

/// Decodes a RecordBatch message of `schema` (with dictionary ids `tree`) into a batch.
Result<RecordBatch> DecodeRecordBatch(const Message& message, const SchemaPtr& schema,
                                      const DictionaryTree& tree, const DictionaryMemo& memo,
                                      Codecs* codecs);

}  // namespace flotilla::ipc
