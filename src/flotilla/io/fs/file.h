#pragma once
// Readable files for the file formats: local paths, file:// URIs and http(s):// URLs behind one
// random-access interface, with a count of the bytes each file has served.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "flotilla/columnar/buffer.h"
#include "flotilla/common/result.h"

namespace flotilla::io {

class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  /// The name the file was opened by, for messages.
  const std::string& name() const { return name_; }
  virtual int64_t size() const = 0;
  /// Exactly the bytes [offset, offset + length); an error when they are not all in the file.
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length);
  /// Bytes returned by ReadAt so far.
  int64_t bytes_read() const { return bytes_read_.load(std::memory_order_relaxed); }

 protected:
  explicit RandomAccessFile(std::string name) : name_(std::move(name)) {}
  virtual Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) = 0;

 private:
  std::string name_;
  std::atomic<int64_t> bytes_read_{0};
};

/// Opens a local path, a file:// URI or an http(s):// URL.
Result<std::shared_ptr<RandomAccessFile>> OpenFile(const std::string& uri);
/// A local file, memory-mapped: reads are zero-copy views of the mapping.
Result<std::shared_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path);
/// An in-memory file (tests, fuzzing).
std::shared_ptr<RandomAccessFile> MemoryFile(BufferPtr bytes, std::string name = "memory");

/// True for http:// and https:// URLs.
bool IsHttpUrl(const std::string& uri);
/// A local path for `uri`: strips "file://" (and decodes nothing else).
std::string LocalPath(const std::string& uri);

}  // namespace flotilla::io
