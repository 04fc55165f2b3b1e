#include "flotilla/common/memory_pool.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace flotilla {
namespace {
// A shared non-null address for zero-byte allocations, so callers never see nullptr.
alignas(kBufferAlignment) uint8_t kZeroSizeArea[kBufferAlignment];
}  // namespace

Status MemoryPool::Reserve(int64_t bytes) {
  int64_t now = allocated_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (limit_ >= 0 && bytes > 0 && now > limit_) {
    allocated_.fetch_sub(bytes, std::memory_order_relaxed);
    return Status::OutOfMemory("allocating " + std::to_string(bytes) + " bytes would exceed the " +
                               std::to_string(limit_) + "-byte memory pool limit (" +
                               std::to_string(now - bytes) + " bytes in use)");
  }
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return Status::OK();
}

Status MemoryPool::Allocate(int64_t size, uint8_t** out) {
  if (size < 0) return Status::Invalid("negative allocation size " + std::to_string(size));
  if (size == 0) {
    *out = kZeroSizeArea;
    return Status::OK();
  }
  FLOTILLA_RETURN_NOT_OK(Reserve(size));
  // No transparent huge pages (MADV_HUGEPAGE): where the kernel defragments on fault for
  // regions that ask for them (Debian's default), a fragmented machine stalls the first touch of
  // a large buffer for compaction, and a query's time doubled at random.
  void* p = nullptr;
  if (posix_memalign(&p, kBufferAlignment, static_cast<size_t>(size)) != 0) {
    allocated_.fetch_sub(size, std::memory_order_relaxed);
    return Status::OutOfMemory("the system refused an allocation of " + std::to_string(size) +
                               " bytes");
  }
  allocations_.fetch_add(1, std::memory_order_relaxed);
  *out = static_cast<uint8_t*>(p);
  return Status::OK();
}

Status MemoryPool::Reallocate(int64_t old_size, int64_t new_size, uint8_t** ptr) {
  if (new_size == old_size) return Status::OK();
  uint8_t* fresh = nullptr;
  FLOTILLA_RETURN_NOT_OK(Allocate(new_size, &fresh));
  int64_t keep = old_size < new_size ? old_size : new_size;
  if (keep > 0) std::memcpy(fresh, *ptr, static_cast<size_t>(keep));
  Free(*ptr, old_size);
  *ptr = fresh;
  return Status::OK();
}

void MemoryPool::Free(uint8_t* ptr, int64_t size) {
  if (ptr == kZeroSizeArea || size == 0) return;
  std::free(ptr);
  allocated_.fetch_sub(size, std::memory_order_relaxed);
}

MemoryPool* DefaultMemoryPool() {
  // Column buffers of a few MiB are allocated and freed for every batch. glibc would serve
  // them with fresh mmaps (and trim freed heap back to the system), so every batch pays page
  // faults and TLB shootdowns; kept in the heap below 32 MiB they are reused warm. Set once
  // for the process, when the engine first allocates.
  static const bool tuned = [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    return true;
  }();
  (void)tuned;
  static MemoryPool pool;
  return &pool;
}

}  // namespace flotilla
