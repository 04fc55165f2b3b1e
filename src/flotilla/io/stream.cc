#include "flotilla/io/stream.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace flotilla::io {
namespace {

// Writes at least this large bypass the write buffer (no point copying them first).
constexpr size_t kWriteBufferSize = 1 << 20;
// A read of n bytes does not allocate n up front: a corrupt length must not cost a huge
// allocation before we find out that the file is shorter.
constexpr int64_t kInitialReadChunk = 1 << 20;

Status ErrnoStatus(std::string_view what, const std::string& path) {
  return Status::IOError(fmt::format("{} '{}': {}", what, path, std::strerror(errno)));
}

Status WriteAll(int fd, const char* p, size_t left, const std::string& path) {
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot write to", path);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<FileOutputStream>> FileOutputStream::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("cannot create", path);
  return std::unique_ptr<FileOutputStream>(new FileOutputStream(fd, path));
}

FileOutputStream::~FileOutputStream() {
  if (fd_ >= 0) (void)Close();
}

Status FileOutputStream::Flush() {
  FLOTILLA_RETURN_NOT_OK(WriteAll(fd_, pending_.data(), pending_.size(), path_));
  pending_.clear();
  return Status::OK();
}

Status FileOutputStream::Write(const void* data, int64_t size) {
  if (fd_ < 0) return Status::IOError(fmt::format("write to closed file '{}'", path_));
  if (size < 0) return Status::Invalid("negative write size");
  const auto n = static_cast<size_t>(size);
  if (pending_.size() + n > kWriteBufferSize) FLOTILLA_RETURN_NOT_OK(Flush());
  if (n < kWriteBufferSize) {
    pending_.append(static_cast<const char*>(data), n);
  } else {
    // Large writes go straight to the file: copying them into the buffer first gains nothing.
    FLOTILLA_RETURN_NOT_OK(WriteAll(fd_, static_cast<const char*>(data), n, path_));
  }
  position_ += size;
  return Status::OK();
}

Status FileOutputStream::Close() {
  if (fd_ < 0) return Status::OK();
  Status st = Flush();
  if (::close(fd_) != 0 && st.ok()) st = ErrnoStatus("cannot close", path_);
  fd_ = -1;
  return st;
}

Status BufferOutputStream::Write(const void* data, int64_t size) {
  if (size < 0) return Status::Invalid("negative write size");
  bytes_.append(static_cast<const char*>(data), static_cast<size_t>(size));
  return Status::OK();
}

Result<BufferPtr> BufferOutputStream::Finish() {
  // The string's heap block is 16-byte aligned at least; readers copy misaligned buffers anyway.
  auto owner = std::make_shared<std::string>(std::move(bytes_));
  bytes_.clear();
  auto* data = reinterpret_cast<const uint8_t*>(owner->data());
  auto size = static_cast<int64_t>(owner->size());
  return Buffer::Wrap(data, size, std::move(owner));
}

Result<std::unique_ptr<FileInputStream>> FileInputStream::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path);
  return std::unique_ptr<FileInputStream>(new FileInputStream(fd, path));
}

FileInputStream::~FileInputStream() {
  if (fd_ >= 0) ::close(fd_);
}

Result<BufferPtr> FileInputStream::Read(int64_t size) {
  if (size < 0) return Status::Invalid(fmt::format("negative read size from '{}'", path_));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(std::min(size, kInitialReadChunk)));
  int64_t got = 0;
  while (got < size) {
    if (got == out->size()) {
      FLOTILLA_RETURN_NOT_OK(out->Resize(std::min(size, out->size() * 2)));
    }
    ssize_t n = ::read(fd_, out->mutable_data() + got, static_cast<size_t>(out->size() - got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot read", path_);
    }
    if (n == 0) break;
    got += n;
  }
  FLOTILLA_RETURN_NOT_OK(out->Resize(got));
  position_ += got;
  return out;
}

Result<BufferPtr> BufferReader::Read(int64_t size) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, ReadAt(position_, size));
  position_ += out->size();
  return out;
}

Result<BufferPtr> BufferReader::ReadAt(int64_t offset, int64_t size) const {
  if (offset < 0 || size < 0) {
    return Status::Invalid(fmt::format("invalid read of {} bytes at offset {}", size, offset));
  }
  int64_t start = std::min(offset, buffer_->size());
  int64_t length = std::min(size, buffer_->size() - start);
  return Buffer::SliceOf(buffer_, start, length);
}

namespace {

struct Mapping {
  void* address = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (address != nullptr) ::munmap(address, size);
  }
};

Result<int64_t> FileSize(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus("cannot stat", path);
  if (!S_ISREG(st.st_mode)) return Status::IOError(fmt::format("'{}' is not a regular file", path));
  return static_cast<int64_t>(st.st_size);
}

}  // namespace

Result<BufferPtr> MapFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path);
  Result<int64_t> size = FileSize(fd, path);
  if (!size.ok()) {
    ::close(fd);
    return size.status();
  }
  auto mapping = std::make_shared<Mapping>();
  if (*size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(*size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      Status st = ErrnoStatus("cannot map", path);
      ::close(fd);
      return st;
    }
    mapping->address = p;
    mapping->size = static_cast<size_t>(*size);
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  static const uint8_t kEmpty[1] = {0};
  const uint8_t* data = mapping->address ? static_cast<const uint8_t*>(mapping->address) : kEmpty;
  return Buffer::Wrap(data, *size, std::move(mapping));
}

Result<BufferPtr> ReadFile(const std::string& path) {
  FLOTILLA_ASSIGN_OR_RETURN(auto stream, FileInputStream::Open(path));
  // Read in growing chunks until the end: works for pipes and files alike.
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr all, Buffer::Allocate(0));
  while (true) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr chunk, stream->Read(kInitialReadChunk * 4));
    if (chunk->size() == 0) break;
    int64_t old = all->size();
    FLOTILLA_RETURN_NOT_OK(all->Resize(old + chunk->size()));
    std::memcpy(all->mutable_data() + old, chunk->data(), static_cast<size_t>(chunk->size()));
  }
  return all;
}

}  // namespace flotilla::io
