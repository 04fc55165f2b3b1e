#pragma once
// Buffer: a contiguous, immutable-once-shared block of bytes. Either owned (allocated from a
// MemoryPool, 64-byte aligned, resizable while being built) or a view that keeps its owner alive
// (a slice of another buffer, a region of a memory-mapped file).

#include <cstdint>
#include <memory>
#include <string_view>

#include "flotilla/common/memory_pool.h"
#include "flotilla/common/result.h"

namespace flotilla {

class Buffer {
 public:
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// A new owned buffer of `size` bytes; the bytes are uninitialized, the padding up to the
  /// 64-byte-rounded capacity is zeroed.
  static Result<std::shared_ptr<Buffer>> Allocate(int64_t size,
                                                  MemoryPool* pool = DefaultMemoryPool());
  /// Like Allocate, with every byte zeroed.
  static Result<std::shared_ptr<Buffer>> AllocateZeroed(int64_t size,
                                                        MemoryPool* pool = DefaultMemoryPool());
  /// A view of memory owned by `owner` (which stays alive as long as the view).
  static std::shared_ptr<Buffer> Wrap(const uint8_t* data, int64_t size,
                                      std::shared_ptr<const void> owner);
  /// A view of [offset, offset + length) of `parent`, sharing its memory.
  static std::shared_ptr<Buffer> SliceOf(const std::shared_ptr<Buffer>& parent, int64_t offset,
                                         int64_t length);
  /// An owned copy of `bytes`.
  static Result<std::shared_ptr<Buffer>> CopyOf(std::string_view bytes,
                                                MemoryPool* pool = DefaultMemoryPool());

  const uint8_t* data() const { return data_; }
  /// Writable access; only for owned buffers that are still being filled.
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  bool is_owned() const { return pool_ != nullptr; }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }

  /// Changes the size of an owned buffer, growing the capacity geometrically. New bytes are
  /// uninitialized except the padding beyond `new_size`, which is zeroed.
  Status Resize(int64_t new_size);
  /// Ensures capacity for `capacity` bytes without changing the size.
  Status Reserve(int64_t capacity);

 private:
  Buffer() = default;

  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
  MemoryPool* pool_ = nullptr;         // set when owned
  std::shared_ptr<const void> owner_;  // set when a view
};

using BufferPtr = std::shared_ptr<Buffer>;

}  // namespace flotilla
