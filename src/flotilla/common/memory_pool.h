#pragma once
// Memory pools: every columnar buffer is allocated from one, so the engine always knows how many
// bytes it holds (current and peak). The memory manager reads these numbers.

#include <atomic>
#include <cstdint>

#include "flotilla/common/status.h"

namespace flotilla {

/// All allocations are aligned to this many bytes (cache line; what SIMD loads want).
inline constexpr int64_t kBufferAlignment = 64;

class MemoryPool {
 public:
  /// `limit_bytes` < 0 means no limit.
  explicit MemoryPool(int64_t limit_bytes = -1) : limit_(limit_bytes) {}
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  /// Allocates `size` bytes aligned to kBufferAlignment. Thread-safe.
  Status Allocate(int64_t size, uint8_t** out);
  /// Grows or shrinks an allocation made by this pool, keeping its contents.
  Status Reallocate(int64_t old_size, int64_t new_size, uint8_t** ptr);
  void Free(uint8_t* ptr, int64_t size);

  int64_t bytes_allocated() const { return allocated_.load(std::memory_order_relaxed); }
  int64_t peak_bytes() const { return peak_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }
  int64_t num_allocations() const { return allocations_.load(std::memory_order_relaxed); }
  /// Starts a new high-water mark at what is allocated now (to measure one piece of work).
  void ResetPeak() { peak_.store(bytes_allocated(), std::memory_order_relaxed); }

 private:
  Status Reserve(int64_t bytes);

  int64_t limit_;
  std::atomic<int64_t> allocated_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocations_{0};
};

/// The process-wide pool used when no other is given.
MemoryPool* DefaultMemoryPool();

}  // namespace flotilla
