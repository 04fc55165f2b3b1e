#pragma once
// Encapsulated IPC messages: the framing shared by the stream and file formats.
//
//   <0xFFFFFFFF> <int32 metadata size> <Message flatbuffer, padded> <body>
//
// The metadata size counts the flatbuffer and its padding, chosen so that the prefix plus the
// metadata is a multiple of 8 bytes; the body is bodyLength bytes, every buffer 8-byte aligned.

#include <cstdint>
#include <optional>
#include <vector>

#include "flotilla/io/ipc/metadata.h"
#include "flotilla/io/stream.h"

namespace flotilla::ipc {

inline constexpr uint32_t kContinuation = 0xFFFFFFFFu;
inline constexpr char kFileMagic[] = "ARROW1";  // 6 bytes (the array has a trailing NUL)
inline constexpr int64_t kFileMagicSize = 6;

/// One body buffer to write: a view of memory that `owner` keeps alive (may be null when the
/// caller guarantees the lifetime). With `prefixed`, the 8-byte compression length prefix
/// `prefix` is written right before the data (and counts in the buffer's length).
struct BodyBuffer {
  const uint8_t* data = nullptr;
  int64_t size = 0;
  BufferPtr owner;
  bool prefixed = false;
  int64_t prefix = 0;

  int64_t total_size() const { return size + (prefixed ? 8 : 0); }
};

/// Writes one message: prefix, the finished flatbuffer of `fbb`, padding, then the body buffers
/// each padded to 8 bytes. Returns the metadata length (prefix included) as the file footer's
/// Block records it.
Result<int32_t> WriteMessage(io::OutputStream* sink, const flatbuffers::FlatBufferBuilder& fbb,
                             const std::vector<BodyBuffer>& body);
/// The body length WriteMessage will write for `body` (each buffer padded to 8).
int64_t PaddedBodyLength(const std::vector<BodyBuffer>& body);
/// Writes the end-of-stream marker: 0xFFFFFFFF 0x00000000.
Status WriteEndOfStream(io::OutputStream* sink);

/// A message read from the input: its verified metadata and its body.
struct Message {
  BufferPtr metadata;  // keeps `message` alive; 8-byte aligned
  const fb::Message* message = nullptr;
  BufferPtr body;
};

/// Reads the next message. Returns nullopt at the end-of-stream marker or when the input ends
/// cleanly between two messages. Accepts the legacy framing without the continuation marker.
/// Fails on truncated or malformed input, naming `index` (the message's position) in errors.
Result<std::optional<Message>> ReadMessage(io::InputStream* source, int64_t index);

/// Makes sure a buffer view is aligned for `alignment`-byte loads, copying it when it is not.
Result<BufferPtr> EnsureAligned(BufferPtr buffer, int64_t alignment = 8);

}  // namespace flotilla::ipc
