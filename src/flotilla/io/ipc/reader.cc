// StreamReader and FileReader over the message framing (message.h) and body decoding (loader.h).

#include <fmt/format.h>

#include <cstring>

#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/ipc/loader.h"

namespace flotilla::ipc {
namespace {

std::string_view HeaderName(fb::MessageHeader h) {
  switch (h) {
    case fb::MessageHeader::Schema:
      return "schema";
    case fb::MessageHeader::DictionaryBatch:
      return "dictionary batch";
    case fb::MessageHeader::RecordBatch:
      return "record batch";
    case fb::MessageHeader::Tensor:
      return "tensor";
    case fb::MessageHeader::SparseTensor:
      return "sparse tensor";
    default:
      return "unknown message";
  }
}

// What both readers know once they have a schema.
struct SchemaState {
  SchemaPtr schema;
  DictionaryTree tree;  // DictionaryMemo points into it: never reassigned after Init
  DictionaryMemo memo;
  Codecs codecs;

  Status Init(const fb::Schema* fb_schema) {
    FLOTILLA_ASSIGN_OR_RETURN(schema, SchemaFromFlatbuffer(fb_schema, &tree));
    return memo.Register(schema->fields(), tree);
  }
};

class StreamReaderImpl : public StreamReader {
 public:
  explicit StreamReaderImpl(std::unique_ptr<io::InputStream> source) : source_(std::move(source)) {}

  Status Start() {
    FLOTILLA_ASSIGN_OR_RETURN(auto msg, ReadMessage(source_.get(), 0));
    if (!msg) return Status::Invalid("IPC stream is empty: it has no schema message");
    if (msg->message->header_type() != fb::MessageHeader::Schema) {
      return Status::Invalid(fmt::format("IPC stream starts with a {} instead of a schema",
                                         HeaderName(msg->message->header_type())));
    }
    return state_.Init(msg->message->header_as_Schema()).WithContext("message 0 (schema)");
  }

  const SchemaPtr& schema() const override { return state_.schema; }

  Result<std::optional<RecordBatch>> Next() override {
    while (!done_) {
      const int64_t index = ++message_index_;
      FLOTILLA_ASSIGN_OR_RETURN(auto msg, ReadMessage(source_.get(), index));
      if (!msg) {
        done_ = true;
        break;
      }
      const fb::MessageHeader type = msg->message->header_type();
      const std::string where = fmt::format("message {} ({})", index, HeaderName(type));
      switch (type) {
        case fb::MessageHeader::DictionaryBatch:
          FLOTILLA_RETURN_NOT_OK(state_.memo.Apply(*msg, false, &state_.codecs).WithContext(where));
          continue;
        case fb::MessageHeader::RecordBatch: {
          Result<RecordBatch> batch =
              DecodeRecordBatch(*msg, state_.schema, state_.tree, state_.memo, &state_.codecs);
          if (!batch.ok()) return batch.status().WithContext(where);
          return std::optional<RecordBatch>(std::move(*batch));
        }
        case fb::MessageHeader::Schema:
          return Status::Invalid(where + ": a stream has exactly one schema, at its start");
        default:
          return Status::NotImplemented(where + ": not supported");
      }
    }
    return std::optional<RecordBatch>();
  }

 private:
  std::unique_ptr<io::InputStream> source_;
  SchemaState state_;
  int64_t message_index_ = 0;
  bool done_ = false;
};

class FileReaderImpl : public FileReader {
 public:
  explicit FileReaderImpl(BufferPtr file) : file_(std::move(file)) {}

  Status Start() {
    const int64_t size = file_->size();
    const uint8_t* p = file_->data();
    // Leading magic (padded to 8), trailing footer length and magic.
    if (size < 8 + 4 + kFileMagicSize || std::memcmp(p, kFileMagic, kFileMagicSize) != 0) {
      return Status::Invalid("not an Arrow IPC file: it does not start with ARROW1");
    }
    if (std::memcmp(p + size - kFileMagicSize, kFileMagic, kFileMagicSize) != 0) {
      return Status::Invalid("Arrow IPC file does not end with ARROW1 (truncated?)");
    }
    int32_t footer_size;
    std::memcpy(&footer_size, p + size - kFileMagicSize - 4, 4);
    footer_start_ = size - kFileMagicSize - 4 - footer_size;
    if (footer_size <= 0 || footer_start_ < 8) {
      return Status::Invalid(
          fmt::format("invalid footer length {} in a file of {} bytes", footer_size, size));
    }
    FLOTILLA_ASSIGN_OR_RETURN(footer_buffer_,
                              EnsureAligned(Buffer::SliceOf(file_, footer_start_, footer_size)));
    FLOTILLA_ASSIGN_OR_RETURN(footer_, VerifyFooter(footer_buffer_->data(), footer_size));
    FLOTILLA_RETURN_NOT_OK(state_.Init(footer_->schema()).WithContext("file footer schema"));
    if (footer_->dictionaries() != nullptr) {
      for (flatbuffers::uoffset_t i = 0; i < footer_->dictionaries()->size(); ++i) {
        const std::string where = fmt::format("dictionary block {}", i);
        Result<Message> msg = ReadBlock(LoadStruct(footer_->dictionaries(), i));
        if (!msg.ok()) return msg.status().WithContext(where);
        if (msg->message->header_type() != fb::MessageHeader::DictionaryBatch) {
          return Status::Invalid(
              fmt::format("{} holds a {}", where, HeaderName(msg->message->header_type())));
        }
        FLOTILLA_RETURN_NOT_OK(state_.memo.Apply(*msg, true, &state_.codecs).WithContext(where));
      }
    }
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return state_.schema; }
  const BufferPtr& source() const override { return file_; }

  int num_batches() const override {
    return footer_->recordBatches() ? static_cast<int>(footer_->recordBatches()->size()) : 0;
  }

  Result<RecordBatch> ReadBatch(int i) override {
    if (i < 0 || i >= num_batches()) {
      return Status::IndexError(
          fmt::format("record batch {} out of range: the file has {}", i, num_batches()));
    }
    const std::string where = fmt::format("record batch {}", i);
    Result<Message> msg = ReadBlock(LoadStruct(footer_->recordBatches(), static_cast<size_t>(i)));
    if (!msg.ok()) return msg.status().WithContext(where);
    if (msg->message->header_type() != fb::MessageHeader::RecordBatch) {
      return Status::Invalid(
          fmt::format("{} holds a {}", where, HeaderName(msg->message->header_type())));
    }
    Result<RecordBatch> batch =
        DecodeRecordBatch(*msg, state_.schema, state_.tree, state_.memo, &state_.codecs);
    if (!batch.ok()) return batch.status().WithContext(where);
    return batch;
  }

 private:
  Result<Message> ReadBlock(const fb::Block& block) {
    const int64_t offset = block.offset();
    const int64_t meta = block.metaDataLength();
    const int64_t body = block.bodyLength();
    if (offset < 8 || meta <= 0 || body < 0 || offset > footer_start_ ||
        meta > footer_start_ - offset || body > footer_start_ - offset - meta) {
      return Status::Invalid(
          fmt::format("block [offset {}, metadata {}, body {}] lies outside "
                      "the {} bytes before the footer",
                      offset, meta, body, footer_start_));
    }
    io::BufferReader reader(Buffer::SliceOf(file_, offset, meta + body));
    FLOTILLA_ASSIGN_OR_RETURN(auto msg, ReadMessage(&reader, 0));
    if (!msg) return Status::Invalid(fmt::format("empty message at offset {}", offset));
    return std::move(*msg);
  }

  BufferPtr file_;
  int64_t footer_start_ = 0;
  BufferPtr footer_buffer_;
  const fb::Footer* footer_ = nullptr;
  SchemaState state_;
};

}  // namespace

Result<std::unique_ptr<StreamReader>> StreamReader::Open(std::unique_ptr<io::InputStream> source) {
  auto reader = std::make_unique<StreamReaderImpl>(std::move(source));
  FLOTILLA_RETURN_NOT_OK(reader->Start());
  return std::unique_ptr<StreamReader>(std::move(reader));
}

Result<std::unique_ptr<FileReader>> FileReader::Open(BufferPtr file) {
  if (!file) return Status::Invalid("no file buffer");
  auto reader = std::make_unique<FileReaderImpl>(std::move(file));
  FLOTILLA_RETURN_NOT_OK(reader->Start());
  return std::unique_ptr<FileReader>(std::move(reader));
}

Result<std::unique_ptr<FileReader>> FileReader::Open(const std::string& path) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr mapped, io::MapFile(path));
  Result<std::unique_ptr<FileReader>> reader = Open(std::move(mapped));
  if (!reader.ok()) return reader.status().WithContext("reading '" + path + "'");
  return reader;
}

Result<std::vector<RecordBatch>> ReadStream(BufferPtr stream, SchemaPtr* schema_out) {
  FLOTILLA_ASSIGN_OR_RETURN(
      auto reader, StreamReader::Open(std::make_unique<io::BufferReader>(std::move(stream))));
  std::vector<RecordBatch> batches;
  while (true) {
    FLOTILLA_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    batches.push_back(std::move(*batch));
  }
  if (schema_out != nullptr) *schema_out = reader->schema();
  return batches;
}

Result<std::vector<RecordBatch>> ReadFile(const std::string& path, SchemaPtr* schema_out) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr mapped, io::MapFile(path));
  const bool is_file = mapped->size() >= kFileMagicSize &&
                       std::memcmp(mapped->data(), kFileMagic, kFileMagicSize) == 0;
  if (!is_file) {
    Result<std::vector<RecordBatch>> batches = ReadStream(std::move(mapped), schema_out);
    if (!batches.ok()) return batches.status().WithContext("reading '" + path + "'");
    return batches;
  }
  Result<std::unique_ptr<FileReader>> reader = FileReader::Open(std::move(mapped));
  if (!reader.ok()) return reader.status().WithContext("reading '" + path + "'");
  std::vector<RecordBatch> batches;
  for (int i = 0; i < (*reader)->num_batches(); ++i) {
    Result<RecordBatch> batch = (*reader)->ReadBatch(i);
    if (!batch.ok()) return batch.status().WithContext("reading '" + path + "'");
    batches.push_back(std::move(*batch));
  }
  if (schema_out != nullptr) *schema_out = (*reader)->schema();
  return batches;
}

}  // namespace flotilla::ipc
