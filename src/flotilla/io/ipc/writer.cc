// StreamWriter and FileWriter. Both write the same sequence of messages; the file writer also
// remembers where each one went, for the footer.
//
// Dictionaries: each dictionary-encoded field gets an id (pre-order, see AssignDictionaryIds).
// Before a batch, every dictionary that differs from the one last sent for its id is sent:
// as a delta when the old dictionary is a prefix of the new one, nothing when the new one is a
// prefix of the old one, otherwise as a replacement.
// The file format forbids replacements (a reader may load all dictionaries before any batch),
// so the FileWriter fails with Invalid on one instead of silently writing an unreadable file.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "flotilla/io/ipc/encoder.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::ipc {
namespace {

void CollectDictionaries(const ArrayData& d, const DictionaryNode& node,
                         std::map<int64_t, std::shared_ptr<ArrayData>>* out) {
  const ArrayData* inner = &d;
  if (node.id >= 0) {
    (*out)[node.id] = d.dictionary;
    inner = d.dictionary.get();
    if (inner == nullptr) return;
  }
  for (size_t i = 0; i < node.children.size() && i < inner->children.size(); ++i) {
    if (inner->children[i]) CollectDictionaries(*inner->children[i], node.children[i], out);
  }
}

class WriterCore {
 public:
  WriterCore(io::OutputStream* sink, SchemaPtr schema, WriteOptions options, bool file_format)
      : sink_(sink), schema_(std::move(schema)), options_(options), file_format_(file_format) {}

  Status Start() {
    if (!schema_) return Status::Invalid("IPC writer needs a schema");
    if (options_.compression != Compression::kNone) {
      FLOTILLA_ASSIGN_OR_RETURN(codec_, Codec::Make(options_.compression, options_.zstd_level));
    }
    encoder_ = std::make_unique<BatchEncoder>(codec_.get(), options_.compression,
                                              options_.min_compress_bytes);
    start_ = sink_->Tell();
    if (file_format_) {
      const char magic[8] = {'A', 'R', 'R', 'O', 'W', '1', 0, 0};
      FLOTILLA_RETURN_NOT_OK(sink_->Write(magic, 8));
    }
    dictionary_ids_ = AssignDictionaryIds(*schema_);
    FLOTILLA_ASSIGN_OR_RETURN(auto schema, SchemaToFlatbuffer(&fbb_, *schema_, dictionary_ids_));
    fbb_.Finish(fb::CreateMessage(fbb_, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                                  schema.Union(), 0));
    return WriteMessage(&fbb_, {}, nullptr).status();
  }

  Status WriteBatch(const RecordBatch& batch) {
    if (closed_) return Status::Invalid("IPC writer is closed");
    if (batch.num_columns() != schema_->num_fields()) {
      return Status::Invalid(fmt::format("batch has {} columns, the IPC writer's schema has {}",
                                         batch.num_columns(), schema_->num_fields()));
    }
    for (int i = 0; i < batch.num_columns(); ++i) {
      if (!batch.column(i).type()->Equals(*schema_->field(i).type)) {
        return Status::TypeError(fmt::format(
            "column '{}' is {}, the IPC writer's schema says {}", schema_->field(i).name,
            batch.column(i).type()->ToString(), schema_->field(i).type->ToString()));
      }
    }
    FLOTILLA_RETURN_NOT_OK(WriteDictionaries(batch));
    std::vector<BodyBuffer> body;
    FLOTILLA_RETURN_NOT_OK(encoder_->Encode(batch.columns(), batch.num_rows(), &fbb_, &body));
    return WriteMessage(&fbb_, body, &batch_blocks_).status();
  }

  Status Close() {
    if (closed_) return Status::OK();
    closed_ = true;
    FLOTILLA_RETURN_NOT_OK(WriteEndOfStream(sink_));
    if (!file_format_) return Status::OK();
    fbb_.Clear();
    FLOTILLA_ASSIGN_OR_RETURN(auto schema, SchemaToFlatbuffer(&fbb_, *schema_, dictionary_ids_));
    auto footer = fb::CreateFooter(fbb_, fb::MetadataVersion::V5, schema,
                                   fbb_.CreateVectorOfStructs(dictionary_blocks_),
                                   fbb_.CreateVectorOfStructs(batch_blocks_));
    fbb_.Finish(footer);
    const auto size = static_cast<int32_t>(fbb_.GetSize());
    FLOTILLA_RETURN_NOT_OK(sink_->Write(fbb_.GetBufferPointer(), size));
    FLOTILLA_RETURN_NOT_OK(sink_->Write(&size, 4));
    return sink_->Write(kFileMagic, kFileMagicSize);
  }

 private:
  Result<int32_t> WriteMessage(flatbuffers::FlatBufferBuilder* fbb,
                               const std::vector<BodyBuffer>& body,
                               std::vector<fb::Block>* blocks) {
    const int64_t offset = sink_->Tell() - start_;
    FLOTILLA_ASSIGN_OR_RETURN(int32_t metadata_length, ipc::WriteMessage(sink_, *fbb, body));
    if (blocks != nullptr) blocks->emplace_back(offset, metadata_length, PaddedBodyLength(body));
    return metadata_length;
  }

  Status WriteDictionaries(const RecordBatch& batch) {
    std::map<int64_t, std::shared_ptr<ArrayData>> current;
    for (int i = 0; i < batch.num_columns(); ++i) {
      CollectDictionaries(*batch.column(i).data(), dictionary_ids_[i], &current);
    }
    // Highest id first: a dictionary nested in another one's values has the higher id, and the
    // reader must have it before it can decode the outer dictionary.
    for (auto it = current.rbegin(); it != current.rend(); ++it) {
      const auto& [id, dict] = *it;
      if (!dict) return Status::Invalid(fmt::format("dictionary array {} has no dictionary", id));
      auto last = sent_.find(id);
      Array values(dict);
      bool is_delta = false;
      if (last != sent_.end()) {
        Array old(last->second);
        if (last->second == dict) continue;
        const int64_t common = std::min(old.length(), values.length());
        if (values.Slice(0, common).Equals(old.Slice(0, common))) {
          // A prefix of what the reader has: the indices are valid against it already.
          if (values.length() <= old.length()) continue;
          values = values.Slice(old.length());
          is_delta = true;
        } else if (file_format_) {
          return Status::Invalid(fmt::format(
              "the dictionary of id {} changes between batches, which the IPC file format cannot "
              "represent (it allows only appending); write the stream format or use one "
              "dictionary (or growing ones) for all batches",
              id));
        }
      }
      std::vector<BodyBuffer> body;
      FLOTILLA_RETURN_NOT_OK(
          encoder_->Encode({values}, values.length(), &fbb_, &body, id, is_delta));
      FLOTILLA_RETURN_NOT_OK(WriteMessage(&fbb_, body, &dictionary_blocks_).status());
      sent_[id] = dict;
    }
    return Status::OK();
  }

  io::OutputStream* sink_;
  SchemaPtr schema_;
  WriteOptions options_;
  bool file_format_;
  bool closed_ = false;
  int64_t start_ = 0;
  std::unique_ptr<Codec> codec_;
  std::unique_ptr<BatchEncoder> encoder_;
  flatbuffers::FlatBufferBuilder fbb_;
  DictionaryTree dictionary_ids_;
  std::map<int64_t, std::shared_ptr<ArrayData>> sent_;
  std::vector<fb::Block> dictionary_blocks_;
  std::vector<fb::Block> batch_blocks_;
};

template <typename Interface>
class WriterImpl : public Interface {
 public:
  WriterImpl(io::OutputStream* sink, SchemaPtr schema, WriteOptions options, bool file_format)
      : core_(sink, std::move(schema), options, file_format) {}
  Status Start() { return core_.Start(); }
  Status WriteBatch(const RecordBatch& batch) override { return core_.WriteBatch(batch); }
  Status Close() override { return core_.Close(); }

 private:
  WriterCore core_;
};

template <typename Interface>
Result<std::unique_ptr<Interface>> OpenWriter(io::OutputStream* sink, SchemaPtr schema,
                                              WriteOptions options, bool file_format) {
  auto writer =
      std::make_unique<WriterImpl<Interface>>(sink, std::move(schema), options, file_format);
  FLOTILLA_RETURN_NOT_OK(writer->Start());
  return std::unique_ptr<Interface>(std::move(writer));
}

template <typename Writer>
Status WriteAll(Writer* writer, const std::vector<RecordBatch>& batches) {
  for (const RecordBatch& b : batches)
    FLOTILLA_RETURN_NOT_OK(writer->WriteBatch(b));
  return writer->Close();
}

}  // namespace

Result<std::unique_ptr<StreamWriter>> StreamWriter::Open(io::OutputStream* sink, SchemaPtr schema,
                                                         WriteOptions options) {
  return OpenWriter<StreamWriter>(sink, std::move(schema), options, false);
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(io::OutputStream* sink, SchemaPtr schema,
                                                     WriteOptions options) {
  return OpenWriter<FileWriter>(sink, std::move(schema), options, true);
}

Result<BufferPtr> WriteStreamToBuffer(const SchemaPtr& schema,
                                      const std::vector<RecordBatch>& batches,
                                      WriteOptions options) {
  io::BufferOutputStream sink;
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, StreamWriter::Open(&sink, schema, options));
  FLOTILLA_RETURN_NOT_OK(WriteAll(writer.get(), batches));
  return sink.Finish();
}

Result<BufferPtr> WriteFileToBuffer(const SchemaPtr& schema,
                                    const std::vector<RecordBatch>& batches, WriteOptions options) {
  io::BufferOutputStream sink;
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, FileWriter::Open(&sink, schema, options));
  FLOTILLA_RETURN_NOT_OK(WriteAll(writer.get(), batches));
  return sink.Finish();
}

Status WriteFile(const std::string& path, const SchemaPtr& schema,
                 const std::vector<RecordBatch>& batches, WriteOptions options) {
  FLOTILLA_ASSIGN_OR_RETURN(auto sink, io::FileOutputStream::Open(path));
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, FileWriter::Open(sink.get(), schema, options));
  FLOTILLA_RETURN_NOT_OK(WriteAll(writer.get(), batches).WithContext("writing '" + path + "'"));
  return sink->Close();
}

Status WriteStreamFile(const std::string& path, const SchemaPtr& schema,
                       const std::vector<RecordBatch>& batches, WriteOptions options) {
  FLOTILLA_ASSIGN_OR_RETURN(auto sink, io::FileOutputStream::Open(path));
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, StreamWriter::Open(sink.get(), schema, options));
  FLOTILLA_RETURN_NOT_OK(WriteAll(writer.get(), batches).WithContext("writing '" + path + "'"));
  return sink->Close();
}

}  // namespace flotilla::ipc
