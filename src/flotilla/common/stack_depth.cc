#include "flotilla/common/stack_depth.h"

#include <pthread.h>

#include <cstdint>
#include <string>

namespace flotilla {
namespace {

// The lowest address of the calling thread's stack (stacks grow down here), 0 when unknown.
uintptr_t StackLow() {
  thread_local uintptr_t low = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t{0};
    void* addr = nullptr;
    size_t size = 0;
    const bool ok = pthread_attr_getstack(&attr, &addr, &size) == 0;
    pthread_attr_destroy(&attr);
    return ok ? reinterpret_cast<uintptr_t>(addr) : uintptr_t{0};
  }();
  return low;
}

}  // namespace

Status CheckStackDepth(const char* what) {
  const uintptr_t low = StackLow();
  // The frame address is on the real stack even where a sanitizer moves locals elsewhere.
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (low == 0 || here < low || here - low > static_cast<uintptr_t>(kStackReserveBytes)) {
    return Status::OK();
  }
  return Status::Invalid(std::string(what) +
                         " is nested too deeply (the stack is nearly used up); simplify it");
}

}  // namespace flotilla
