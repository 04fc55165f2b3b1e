#pragma once
// Byte streams the file formats read from and write to: files, memory, memory-mapped files.
// Reads from memory and from mapped files are zero-copy: they return Buffers that view the source.

#include <cstdint>
#include <memory>
#include <string>

#include "flotilla/columnar/buffer.h"
#include "flotilla/common/result.h"

namespace flotilla::io {

class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Write(const void* data, int64_t size) = 0;
  /// Bytes written so far.
  virtual int64_t Tell() const = 0;
  virtual Status Close() = 0;
};

/// Writes to a file (created or truncated); buffered.
class FileOutputStream : public OutputStream {
 public:
  static Result<std::unique_ptr<FileOutputStream>> Open(const std::string& path);
  ~FileOutputStream() override;
  Status Write(const void* data, int64_t size) override;
  int64_t Tell() const override { return position_; }
  Status Close() override;

 private:
  FileOutputStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Status Flush();

  int fd_;
  std::string path_;
  std::string pending_;
  int64_t position_ = 0;
};

/// Collects everything written in memory.
class BufferOutputStream : public OutputStream {
 public:
  Status Write(const void* data, int64_t size) override;
  int64_t Tell() const override { return static_cast<int64_t>(bytes_.size()); }
  Status Close() override { return Status::OK(); }
  const std::string& bytes() const { return bytes_; }
  /// Moves the bytes out into a Buffer.
  Result<BufferPtr> Finish();

 private:
  std::string bytes_;
};

/// A sequential reader.
class InputStream {
 public:
  virtual ~InputStream() = default;
  /// Up to `size` bytes (fewer only at the end of the stream). Zero-copy where the source allows.
  virtual Result<BufferPtr> Read(int64_t size) = 0;
  virtual int64_t Tell() const = 0;
};

/// Reads from a file descriptor-backed file, sequentially (for pipes and large files).
class FileInputStream : public InputStream {
 public:
  static Result<std::unique_ptr<FileInputStream>> Open(const std::string& path);
  ~FileInputStream() override;
  Result<BufferPtr> Read(int64_t size) override;
  int64_t Tell() const override { return position_; }

 private:
  FileInputStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
  int64_t position_ = 0;
};

/// Reads a Buffer; every Read is a zero-copy slice of it.
class BufferReader : public InputStream {
 public:
  explicit BufferReader(BufferPtr buffer) : buffer_(std::move(buffer)) {}
  Result<BufferPtr> Read(int64_t size) override;
  int64_t Tell() const override { return position_; }
  /// Zero-copy random access: [offset, offset + size), clamped to the buffer.
  Result<BufferPtr> ReadAt(int64_t offset, int64_t size) const;
  int64_t size() const { return buffer_->size(); }
  const BufferPtr& buffer() const { return buffer_; }

 private:
  BufferPtr buffer_;
  int64_t position_ = 0;
};

/// Maps a whole file read-only; the returned Buffer unmaps it when the last view is gone.
Result<BufferPtr> MapFile(const std::string& path);
/// Reads a whole file into memory.
Result<BufferPtr> ReadFile(const std::string& path);

}  // namespace flotilla::io
