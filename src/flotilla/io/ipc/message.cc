#include "flotilla/io/ipc/message.h"

#include <fmt/format.h>

#include <cstring>

#include "flotilla/common/bit_util.h"

namespace flotilla::ipc {
namespace {

const uint8_t kZeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};

Status WritePadding(io::OutputStream* sink, int64_t size) {
  int64_t pad = bit_util::PaddingTo8(size);
  return pad == 0 ? Status::OK() : sink->Write(kZeros, pad);
}

uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

int64_t PaddedBodyLength(const std::vector<BodyBuffer>& body) {
  int64_t total = 0;
  for (const BodyBuffer& b : body)
    total += bit_util::RoundUp(b.total_size(), 8);
  return total;
}

Result<int32_t> WriteMessage(io::OutputStream* sink, const flatbuffers::FlatBufferBuilder& fbb,
                             const std::vector<BodyBuffer>& body) {
  const auto fb_size = static_cast<int64_t>(fbb.GetSize());
  const int64_t metadata_size = bit_util::RoundUp(8 + fb_size, 8) - 8;
  if (metadata_size > INT32_MAX) return Status::Invalid("message metadata too large");
  uint8_t prefix[8];
  const uint32_t continuation = kContinuation;
  const auto size32 = static_cast<int32_t>(metadata_size);
  std::memcpy(prefix, &continuation, 4);
  std::memcpy(prefix + 4, &size32, 4);
  FLOTILLA_RETURN_NOT_OK(sink->Write(prefix, 8));
  FLOTILLA_RETURN_NOT_OK(sink->Write(fbb.GetBufferPointer(), fb_size));
  FLOTILLA_RETURN_NOT_OK(sink->Write(kZeros, metadata_size - fb_size));
  for (const BodyBuffer& b : body) {
    if (b.prefixed) FLOTILLA_RETURN_NOT_OK(sink->Write(&b.prefix, 8));
    if (b.size > 0) FLOTILLA_RETURN_NOT_OK(sink->Write(b.data, b.size));
    FLOTILLA_RETURN_NOT_OK(WritePadding(sink, b.total_size()));
  }
  return static_cast<int32_t>(8 + metadata_size);
}

Status WriteEndOfStream(io::OutputStream* sink) {
  const uint32_t eos[2] = {kContinuation, 0};
  return sink->Write(eos, 8);
}

Result<BufferPtr> EnsureAligned(BufferPtr buffer, int64_t alignment) {
  if (reinterpret_cast<uintptr_t>(buffer->data()) % static_cast<uintptr_t>(alignment) == 0) {
    return buffer;
  }
  return Buffer::CopyOf(buffer->view());
}

Result<std::optional<Message>> ReadMessage(io::InputStream* source, int64_t index) {
  auto where = [&](std::string what) {
    return Status::Invalid(fmt::format("message {} (at byte {}): {}", index, source->Tell(), what));
  };
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr head, source->Read(4));
  if (head->size() == 0) return std::optional<Message>();  // clean end without a marker
  if (head->size() < 4) return where("truncated message length");
  uint32_t word = LoadU32(head->data());
  if (word == kContinuation) {
    FLOTILLA_ASSIGN_OR_RETURN(head, source->Read(4));
    if (head->size() < 4) return where("truncated message length");
    word = LoadU32(head->data());
  }
  // Otherwise a legacy stream (before Arrow 0.15): the length comes without the marker.
  const auto metadata_size = static_cast<int32_t>(word);
  if (metadata_size == 0) return std::optional<Message>();
  if (metadata_size < 0) return where(fmt::format("negative metadata length {}", metadata_size));

  Message msg;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr metadata, source->Read(metadata_size));
  if (metadata->size() < metadata_size) {
    return where(
        fmt::format("metadata of {} bytes truncated to {}", metadata_size, metadata->size()));
  }
  FLOTILLA_ASSIGN_OR_RETURN(msg.metadata, EnsureAligned(std::move(metadata)));
  Result<const fb::Message*> parsed = VerifyMessage(msg.metadata->data(), msg.metadata->size());
  if (!parsed.ok()) return where(parsed.status().message());
  msg.message = *parsed;
  const fb::MetadataVersion version = msg.message->version();
  if (version < fb::MetadataVersion::V4 || version > fb::MetadataVersion::V5) {
    return where(fmt::format("unsupported metadata version {} (V4 and V5 are supported)",
                             static_cast<int>(version) + 1));
  }
  const int64_t body_length = msg.message->bodyLength();
  if (body_length < 0) return where(fmt::format("negative body length {}", body_length));
  FLOTILLA_ASSIGN_OR_RETURN(msg.body, source->Read(body_length));
  if (msg.body->size() < body_length) {
    return where(fmt::format("body of {} bytes truncated to {}", body_length, msg.body->size()));
  }
  return std::optional<Message>(std::move(msg));
}

}  // namespace flotilla::ipc
