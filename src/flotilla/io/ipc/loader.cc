#include "flotilla/io/ipc/loader.h"

#include <fmt/format.h>

#include <cstring>

#include "flotilla/columnar/builder.h"

namespace flotilla::ipc {
namespace {

// Offsets of an empty string/list array when the writer sent an empty offsets buffer.
const BufferPtr& ZeroOffsets() {
  static const uint8_t kZeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  static const BufferPtr kBuffer = Buffer::Wrap(kZeros, 8, nullptr);
  return kBuffer;
}

class ArrayLoader {
 public:
  ArrayLoader(const fb::RecordBatch* meta, BufferPtr body, Codec* codec, const DictionaryMemo* memo)
      : meta_(meta), body_(std::move(body)), codec_(codec), memo_(memo) {}

  Result<std::vector<Array>> Load(const std::vector<Field>& fields,
                                  const std::vector<DictionaryNode>& nodes) {
    const int64_t length = meta_->length();
    if (length < 0 || length > kMaxArrayLength) {
      return Status::Invalid(fmt::format("invalid batch length {}", length));
    }
    std::vector<Array> columns;
    for (size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      path_ = f.name;
      Result<std::shared_ptr<ArrayData>> data = LoadField(f, nodes[i], 0);
      if (!data.ok()) return data.status().WithContext(fmt::format("field '{}'", path_));
      if ((*data)->length != length) {
        return Status::Invalid(fmt::format("field '{}' has {} rows, the batch has {}", f.name,
                                           (*data)->length, length));
      }
      Result<Array> array = Array::Make(*data);
      if (!array.ok()) return array.status().WithContext(fmt::format("field '{}'", f.name));
      columns.push_back(*array);
    }
    const size_t num_nodes = meta_->nodes() ? meta_->nodes()->size() : 0;
    const size_t num_buffers = meta_->buffers() ? meta_->buffers()->size() : 0;
    if (next_node_ != num_nodes || next_buffer_ != num_buffers) {
      return Status::Invalid(
          fmt::format("batch has {} field nodes and {} buffers, its schema has {} and {}",
                      num_nodes, num_buffers, next_node_, next_buffer_));
    }
    return columns;
  }

 private:
  // `is_null_type`: a null-type array is all nulls by definition, so its node's null_count
  // carries no information and is not checked (arrow-js writes -1 for sliced null columns).
  Result<fb::FieldNode> NextNode(bool is_null_type = false) {
    const auto* nodes = meta_->nodes();
    if (nodes == nullptr || next_node_ >= nodes->size()) {
      return Status::Invalid(fmt::format("batch has only {} field nodes, the schema needs more",
                                         nodes ? nodes->size() : 0));
    }
    const fb::FieldNode node = LoadStruct(nodes, next_node_++);
    if (node.length() < 0 || node.length() > kMaxArrayLength) {
      return Status::Invalid(fmt::format("invalid array length {}", node.length()));
    }
    if (!is_null_type && (node.null_count() < 0 || node.null_count() > node.length())) {
      return Status::Invalid(
          fmt::format("invalid null count {} for length {}", node.null_count(), node.length()));
    }
    return node;
  }

  // `alignment`: what the values need for typed loads (the format only promises 8 bytes).
  Result<BufferPtr> NextBuffer(int64_t alignment = 8) {
    const auto* buffers = meta_->buffers();
    const size_t index = next_buffer_++;
    if (buffers == nullptr || index >= buffers->size()) {
      return Status::Invalid(fmt::format("batch has only {} buffers, the schema needs more",
                                         buffers ? buffers->size() : 0));
    }
    const fb::Buffer b = LoadStruct(buffers, index);
    const int64_t offset = b.offset();
    const int64_t length = b.length();
    const int64_t body_size = body_->size();
    if (offset < 0 || length < 0 || offset > body_size || length > body_size - offset) {
      return Status::Invalid(fmt::format("buffer {} [{}, +{}) lies outside the body of {} bytes",
                                         index, offset, length, body_size));
    }
    BufferPtr slice = Buffer::SliceOf(body_, offset, length);
    if (codec_ == nullptr || length == 0) return EnsureAligned(std::move(slice), alignment);
    if (length < 8) {
      return Status::Invalid(
          fmt::format("compressed buffer {} is shorter than its 8-byte prefix", index));
    }
    int64_t uncompressed;
    std::memcpy(&uncompressed, slice->data(), 8);
    if (uncompressed == -1) {
      return EnsureAligned(Buffer::SliceOf(body_, offset + 8, length - 8), alignment);
    }
    if (uncompressed < 0 || uncompressed > MaxDecompressedSize(length - 8)) {
      return Status::Invalid(fmt::format(
          "buffer {} declares an implausible uncompressed length {} for {} compressed bytes", index,
          uncompressed, length - 8));
    }
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(uncompressed));
    Status st =
        codec_->Decompress(slice->data() + 8, length - 8, out->mutable_data(), uncompressed);
    if (!st.ok()) return st.WithContext(fmt::format("buffer {}", index));
    return out;
  }

  // Offsets of a string or list array, standing in a single 0 for an empty array's empty buffer.
  Result<BufferPtr> NextOffsets(int64_t length) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr offsets, NextBuffer());
    if (length == 0 && offsets->size() == 0) return ZeroOffsets();
    return offsets;
  }

  Result<std::shared_ptr<ArrayData>> LoadField(const Field& field, const DictionaryNode& dict_node,
                                               int depth) {
    if (depth > kMaxNestingDepth) return Status::Invalid("types nested too deeply");
    const DataType& t = *field.type;
    FLOTILLA_ASSIGN_OR_RETURN(const fb::FieldNode node, NextNode(t.id() == TypeId::kNull));
    auto d = std::make_shared<ArrayData>();
    d->type = field.type;
    d->length = node.length();
    d->null_count = node.null_count();
    d->buffers.resize(NumBuffers(t));
    if (t.id() == TypeId::kNull) {
      d->null_count = d->length;
      return d;
    }

    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, NextBuffer());
    if (node.null_count() > 0) {
      if (validity->size() == 0) {
        return Status::Invalid(fmt::format("{} nulls but no validity bitmap", node.null_count()));
      }
      d->buffers[0] = std::move(validity);
      d->null_count = -1;  // recounted from the bitmap by Array::Make, not trusted
    }
    switch (t.id()) {
      case TypeId::kDictionary: {
        FLOTILLA_ASSIGN_OR_RETURN(d->buffers[1], NextBuffer());
        d->dictionary = memo_->Get(dict_node.id);
        if (!d->dictionary) {
          return Status::Invalid(
              fmt::format("dictionary id {} was not sent before this batch", dict_node.id));
        }
        return d;
      }
      case TypeId::kString:
      case TypeId::kBinary:
      case TypeId::kLargeString:
      case TypeId::kLargeBinary: {
        FLOTILLA_ASSIGN_OR_RETURN(d->buffers[1], NextOffsets(d->length));
        FLOTILLA_ASSIGN_OR_RETURN(d->buffers[2], NextBuffer());
        return d;
      }
      case TypeId::kList: {
        FLOTILLA_ASSIGN_OR_RETURN(d->buffers[1], NextOffsets(d->length));
        return LoadChildren(t, dict_node, depth, d);
      }
      case TypeId::kFixedSizeList:
      case TypeId::kStruct:
        return LoadChildren(t, dict_node, depth, d);
      default: {
        // 128-bit decimals are read as __int128, which wants 16-byte alignment.
        FLOTILLA_ASSIGN_OR_RETURN(d->buffers[1],
                                  NextBuffer(t.id() == TypeId::kDecimal128 ? 16 : 8));
        return d;
      }
    }
  }

  Result<std::shared_ptr<ArrayData>> LoadChildren(const DataType& t,
                                                  const DictionaryNode& dict_node, int depth,
                                                  std::shared_ptr<ArrayData> d) {
    if (dict_node.children.size() != t.fields().size()) {
      return Status::Internal("dictionary id tree does not match the schema");
    }
    const std::string parent = path_;
    for (size_t i = 0; i < t.fields().size(); ++i) {
      path_ = parent + "." + t.fields()[i].name;
      FLOTILLA_ASSIGN_OR_RETURN(auto child,
                                LoadField(t.fields()[i], dict_node.children[i], depth + 1));
      d->children.push_back(std::move(child));
    }
    path_ = parent;
    return d;
  }

  const fb::RecordBatch* meta_;
  BufferPtr body_;
  Codec* codec_;
  const DictionaryMemo* memo_;
  size_t next_node_ = 0;
  size_t next_buffer_ = 0;
  std::string path_;  // of the field being loaded, for errors
};

Result<Array> Concatenate(const Array& a, const Array& b) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(a.type()));
  FLOTILLA_RETURN_NOT_OK(builder->AppendArraySlice(a, 0, a.length()));
  FLOTILLA_RETURN_NOT_OK(builder->AppendArraySlice(b, 0, b.length()));
  return builder->Finish();
}

}  // namespace

Result<Codec*> Codecs::Get(const fb::BodyCompression* compression) {
  if (compression == nullptr) return nullptr;
  if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
    return Status::NotImplemented("unknown body compression method");
  }
  switch (compression->codec()) {
    case fb::CompressionType::LZ4_FRAME:
      if (!lz4_) {
        FLOTILLA_ASSIGN_OR_RETURN(lz4_, Codec::Make(Compression::kLz4Frame));
      }
      return lz4_.get();
    case fb::CompressionType::ZSTD:
      if (!zstd_) {
        FLOTILLA_ASSIGN_OR_RETURN(zstd_, Codec::Make(Compression::kZstd));
      }
      return zstd_.get();
  }
  return Status::NotImplemented(
      fmt::format("unknown compression codec {}", static_cast<int>(compression->codec())));
}

Status DictionaryMemo::Register(const std::vector<Field>& fields, const DictionaryTree& tree) {
  for (size_t i = 0; i < fields.size(); ++i)
    FLOTILLA_RETURN_NOT_OK(RegisterField(fields[i], tree[i], 0));
  return Status::OK();
}

Status DictionaryMemo::RegisterField(const Field& field, const DictionaryNode& node, int depth) {
  if (depth > kMaxNestingDepth) return Status::Invalid("types nested too deeply");
  const DataType* type = field.type.get();
  if (node.id >= 0) {
    type = type->value_type().get();
    auto [it, inserted] = entries_.try_emplace(node.id, Entry{field.type->value_type(), &node, {}});
    if (!inserted && !it->second.value_type->Equals(*type)) {
      return Status::Invalid(fmt::format("dictionary id {} is used for both {} and {}", node.id,
                                         it->second.value_type->ToString(), type->ToString()));
    }
  }
  for (size_t i = 0; i < type->fields().size(); ++i) {
    FLOTILLA_RETURN_NOT_OK(RegisterField(type->fields()[i], node.children[i], depth + 1));
  }
  return Status::OK();
}

std::shared_ptr<ArrayData> DictionaryMemo::Get(int64_t id) const {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : it->second.values;
}

Status DictionaryMemo::Apply(const Message& message, bool file_format, Codecs* codecs) {
  const fb::DictionaryBatch* batch = message.message->header_as_DictionaryBatch();
  if (batch == nullptr || batch->data() == nullptr) {
    return Status::Invalid("dictionary batch without data");
  }
  const int64_t id = batch->id();
  auto it = entries_.find(id);
  if (it == entries_.end()) {
    return Status::Invalid(fmt::format("dictionary batch for id {}, which no field uses", id));
  }
  Entry& entry = it->second;
  FLOTILLA_ASSIGN_OR_RETURN(Codec * codec, codecs->Get(batch->data()->compression()));
  ArrayLoader loader(batch->data(), message.body, codec, this);
  std::vector<Field> fields = {Field{"dictionary", entry.value_type, true}};
  std::vector<DictionaryNode> nodes = {DictionaryNode{-1, entry.node->children}};
  Result<std::vector<Array>> columns = loader.Load(fields, nodes);
  if (!columns.ok()) return columns.status().WithContext(fmt::format("dictionary id {}", id));
  Array values = (*columns)[0];
  if (batch->isDelta()) {
    if (!entry.values) {
      return Status::Invalid(fmt::format("delta for dictionary id {} before the dictionary", id));
    }
    FLOTILLA_ASSIGN_OR_RETURN(values, Concatenate(Array(entry.values), values));
  } else if (entry.values && file_format) {
    return Status::Invalid(
        fmt::format("dictionary id {} is replaced, which the IPC file format does not allow", id));
  }
  entry.values = values.data();
  return Status::OK();
}

Result<RecordBatch> DecodeRecordBatch(const Message& message, const SchemaPtr& schema,
                                      const DictionaryTree& tree, const DictionaryMemo& memo,
                                      Codecs* codecs) {
  const fb::RecordBatch* meta = message.message->header_as_RecordBatch();
  if (meta == nullptr) return Status::Invalid("record batch message without a header");
  FLOTILLA_ASSIGN_OR_RETURN(Codec * codec, codecs->Get(meta->compression()));
  ArrayLoader loader(meta, message.body, codec, &memo);
  FLOTILLA_ASSIGN_OR_RETURN(auto columns, loader.Load(schema->fields(), tree));
  return RecordBatch::Make(schema, std::move(columns), meta->length());
}

}  // namespace flotilla::ipc
