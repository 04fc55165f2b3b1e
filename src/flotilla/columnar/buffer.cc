#include "flotilla/columnar/buffer.h"

#include <cstring>

#include "flotilla/common/bit_util.h"

namespace flotilla {

Buffer::~Buffer() {
  if (pool_ != nullptr) pool_->Free(const_cast<uint8_t*>(data_), capacity_);
}

Result<std::shared_ptr<Buffer>> Buffer::Allocate(int64_t size, MemoryPool* pool) {
  std::shared_ptr<Buffer> buf(new Buffer());
  buf->pool_ = pool;
  FLOTILLA_RETURN_NOT_OK(buf->Resize(size));
  return buf;
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateZeroed(int64_t size, MemoryPool* pool) {
  FLOTILLA_ASSIGN_OR_RETURN(auto buf, Allocate(size, pool));
  if (size > 0) std::memset(buf->mutable_data(), 0, static_cast<size_t>(size));
  return buf;
}

std::shared_ptr<Buffer> Buffer::Wrap(const uint8_t* data, int64_t size,
                                     std::shared_ptr<const void> owner) {
  std::shared_ptr<Buffer> buf(new Buffer());
  buf->data_ = data;
  buf->size_ = size;
  buf->capacity_ = size;
  buf->owner_ = std::move(owner);
  return buf;
}

std::shared_ptr<Buffer> Buffer::SliceOf(const std::shared_ptr<Buffer>& parent, int64_t offset,
                                        int64_t length) {
  return Wrap(parent->data() + offset, length, parent);
}

Result<std::shared_ptr<Buffer>> Buffer::CopyOf(std::string_view bytes, MemoryPool* pool) {
  FLOTILLA_ASSIGN_OR_RETURN(auto buf, Allocate(static_cast<int64_t>(bytes.size()), pool));
  if (!bytes.empty()) std::memcpy(buf->mutable_data(), bytes.data(), bytes.size());
  return buf;
}

Status Buffer::Reserve(int64_t capacity) {
  if (pool_ == nullptr) return Status::Internal("Reserve on a buffer view");
  if (capacity <= capacity_ && data_ != nullptr) return Status::OK();
  int64_t target = bit_util::RoundUp(capacity < 64 ? 64 : capacity, kBufferAlignment);
  if (data_ != nullptr && target < capacity_ * 2) target = capacity_ * 2;
  uint8_t* ptr = const_cast<uint8_t*>(data_);
  if (ptr == nullptr) {
    FLOTILLA_RETURN_NOT_OK(pool_->Allocate(target, &ptr));
  } else {
    // Builders write up to the capacity without changing size_, so keep all old bytes.
    FLOTILLA_RETURN_NOT_OK(pool_->Reallocate(capacity_, target, &ptr));
  }
  // New bytes stay uninitialized (zeroing them would double the cost of every fresh array);
  // Resize zeroes the padding past the final size, so no stale memory reaches a file.
  data_ = ptr;
  capacity_ = target;
  return Status::OK();
}

Status Buffer::Resize(int64_t new_size) {
  if (new_size < 0) return Status::Invalid("negative buffer size");
  FLOTILLA_RETURN_NOT_OK(Reserve(new_size));
  std::memset(mutable_data() + new_size, 0, static_cast<size_t>(capacity_ - new_size));
  size_ = new_size;
  return Status::OK();
}

}  // namespace flotilla
