#pragma once
// Conversion between our Schema/DataType and the flatbuffer metadata of the IPC format, and the
// dictionary ids that tie dictionary-encoded fields to DictionaryBatch messages.

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/io/ipc/format/File_generated.h"
#include "flotilla/io/ipc/format/Message_generated.h"
#include "flotilla/io/ipc/format/Schema_generated.h"
#include "flotilla/types/schema.h"

namespace flotilla::ipc {

namespace fb = org::apache::arrow::flatbuf;

/// Types nested deeper than this are rejected (the reader recurses once per level).
inline constexpr int kMaxNestingDepth = 64;
/// Field nodes longer than this are rejected: it keeps every size computed from a length and a
/// width (<= 2^31) far from int64 overflow.
inline constexpr int64_t kMaxArrayLength = (int64_t{1} << 31) - 1;

/// The dictionary ids of one field and of the fields below it, mirroring the type tree. For a
/// dictionary-encoded field `children` follow the fields of the dictionary's value type.
struct DictionaryNode {
  int64_t id = -1;  // -1: the field is not dictionary-encoded
  std::vector<DictionaryNode> children;
};
using DictionaryTree = std::vector<DictionaryNode>;  // one per top-level field

/// Numbers the dictionary-encoded fields of `schema` 0, 1, ... in pre-order (a dictionary
/// field before the fields inside its value type).
DictionaryTree AssignDictionaryIds(const Schema& schema);

/// Serializes `schema`, with the ids of `dictionaries` on its dictionary-encoded fields.
Result<flatbuffers::Offset<fb::Schema>> SchemaToFlatbuffer(flatbuffers::FlatBufferBuilder* fbb,
                                                           const Schema& schema,
                                                           const DictionaryTree& dictionaries);

/// Parses a verified flatbuffer Schema; fills `dictionaries` with the ids it declares.
Result<SchemaPtr> SchemaFromFlatbuffer(const fb::Schema* schema, DictionaryTree* dictionaries);

/// Element i of a flatbuffer vector of structs (FieldNode, Buffer, Block), copied out: the
/// verifier only checks such vectors for 4-byte alignment, and the structs want 8.
template <typename T>
T LoadStruct(const flatbuffers::Vector<const T*>* vector, size_t i) {
  T out;
  std::memcpy(static_cast<void*>(&out), vector->Data() + i * sizeof(T), sizeof(T));
  return out;
}

/// Verifies `size` bytes at `data` as a Message (resp. Footer) flatbuffer. `data` must be
/// 8-byte aligned.
Result<const fb::Message*> VerifyMessage(const uint8_t* data, int64_t size);
Result<const fb::Footer*> VerifyFooter(const uint8_t* data, int64_t size);

}  // namespace flotilla::ipc
