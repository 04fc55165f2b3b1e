#pragma once
// Growable byte and bit buffers used by the array builders.

#include <cstring>

#include "flotilla/columnar/buffer.h"
#include "flotilla/common/bit_util.h"

namespace flotilla {

class BufferBuilder {
 public:
  explicit BufferBuilder(MemoryPool* pool = DefaultMemoryPool()) : pool_(pool) {}

  int64_t size() const { return size_; }
  uint8_t* mutable_data() { return buffer_ ? buffer_->mutable_data() : nullptr; }
  const uint8_t* data() const { return buffer_ ? buffer_->data() : nullptr; }

  Status Reserve(int64_t additional) {
    if (!buffer_) {
      FLOTILLA_ASSIGN_OR_RETURN(buffer_, Buffer::Allocate(0, pool_));
    }
    return buffer_->Reserve(size_ + additional);
  }
  Status Append(const void* bytes, int64_t n) {
    FLOTILLA_RETURN_NOT_OK(Reserve(n));
    if (n > 0) std::memcpy(buffer_->mutable_data() + size_, bytes, static_cast<size_t>(n));
    size_ += n;
    return Status::OK();
  }
  template <typename T>
  Status Append(T value) {
    return Append(&value, sizeof(T));
  }
  Status AppendZeros(int64_t n) {
    FLOTILLA_RETURN_NOT_OK(Reserve(n));
    std::memset(buffer_->mutable_data() + size_, 0, static_cast<size_t>(n));
    size_ += n;
    return Status::OK();
  }
  /// Appends without checking capacity; call Reserve first.
  template <typename T>
  void UnsafeAppend(T value) {
    std::memcpy(buffer_->mutable_data() + size_, &value, sizeof(T));
    size_ += sizeof(T);
  }
  /// Grows to `size` bytes, the new ones zeroed (or shrinks).
  Status Resize(int64_t size) {
    if (size > size_) return AppendZeros(size - size_);
    size_ = size;
    return Status::OK();
  }
  /// Marks `n` more bytes, written through mutable_data() after a Reserve, as used.
  void UnsafeAdvance(int64_t n) { size_ += n; }
  /// Hands over the bytes as a buffer and resets the builder.
  Result<BufferPtr> Finish() {
    if (!buffer_) FLOTILLA_RETURN_NOT_OK(Reserve(0));
    FLOTILLA_RETURN_NOT_OK(buffer_->Resize(size_));
    BufferPtr out = std::move(buffer_);
    buffer_ = nullptr;
    size_ = 0;
    return out;
  }

 private:
  MemoryPool* pool_;
  BufferPtr buffer_;
  int64_t size_ = 0;
};

/// A bitmap built one bit at a time (LSB first).
class BitmapBuilder {
 public:
  explicit BitmapBuilder(MemoryPool* pool = DefaultMemoryPool()) : bytes_(pool) {}

  int64_t length() const { return length_; }
  int64_t false_count() const { return false_count_; }

  Status Append(bool bit) {
    if ((length_ & 7) == 0) FLOTILLA_RETURN_NOT_OK(bytes_.Append<uint8_t>(0));
    if (bit) {
      bit_util::SetBit(bytes_.mutable_data(), length_);
    } else {
      ++false_count_;
    }
    ++length_;
    return Status::OK();
  }
  Status AppendN(int64_t n, bool bit) {
    int64_t need = bit_util::BytesForBits(length_ + n) - bytes_.size();
    if (need > 0) FLOTILLA_RETURN_NOT_OK(bytes_.AppendZeros(need));
    if (bit) bit_util::SetBitsTo(bytes_.mutable_data(), length_, n, true);
    if (!bit) false_count_ += n;
    length_ += n;
    return Status::OK();
  }
  /// Copies bits [offset, offset + n) of `bits` (nullptr means all set).
  Status AppendBits(const uint8_t* bits, int64_t offset, int64_t n) {
    if (bits == nullptr) return AppendN(n, true);
    int64_t need = bit_util::BytesForBits(length_ + n) - bytes_.size();
    if (need > 0) FLOTILLA_RETURN_NOT_OK(bytes_.AppendZeros(need));
    bit_util::CopyBitmap(bits, offset, n, bytes_.mutable_data(), length_);
    false_count_ += n - bit_util::CountSetBits(bits, offset, n);
    length_ += n;
    return Status::OK();
  }
  Result<BufferPtr> Finish() {
    length_ = 0;
    false_count_ = 0;
    return bytes_.Finish();
  }

 private:
  BufferBuilder bytes_;
  int64_t length_ = 0;
  int64_t false_count_ = 0;
};

}  // namespace flotilla
