#include "flotilla/io/fs/file.h"

#include "flotilla/io/fs/http_file.h"
#include "flotilla/io/stream.h"

namespace flotilla::io {

Result<BufferPtr> RandomAccessFile::ReadAt(int64_t offset, int64_t length) {
  if (offset < 0 || length < 0 || offset > size() || length > size() - offset)
    return Status::IOError("read of bytes [" + std::to_string(offset) + ", " +
                           std::to_string(offset + length) + ") outside '" + name_ + "' of " +
                           std::to_string(size()) + " bytes");
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bytes, DoReadAt(offset, length));
  bytes_read_.fetch_add(length, std::memory_order_relaxed);
  return bytes;
}

namespace {

class BufferFile final : public RandomAccessFile {
 public:
  BufferFile(BufferPtr bytes, std::string name)
      : RandomAccessFile(std::move(name)), bytes_(std::move(bytes)) {}
  int64_t size() const override { return bytes_->size(); }

 protected:
  Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) override {
    return Buffer::SliceOf(bytes_, offset, length);
  }

 private:
  BufferPtr bytes_;
};

}  // namespace

bool IsHttpUrl(const std::string& uri) {
  return uri.rfind("http://", 0) == 0 || uri.rfind("https://", 0) == 0;
}

std::string LocalPath(const std::string& uri) {
  if (uri.rfind("file://", 0) == 0) return uri.substr(7);
  return uri;
}

Result<std::shared_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr mapped, MapFile(path));
  return std::shared_ptr<RandomAccessFile>(std::make_shared<BufferFile>(std::move(mapped), path));
}

std::shared_ptr<RandomAccessFile> MemoryFile(BufferPtr bytes, std::string name) {
  return std::make_shared<BufferFile>(std::move(bytes), std::move(name));
}

Result<std::shared_ptr<RandomAccessFile>> OpenFile(const std::string& uri) {
  if (IsHttpUrl(uri)) return OpenHttpFile(uri);
  return OpenLocalFile(LocalPath(uri));
}

}  // namespace flotilla::io
