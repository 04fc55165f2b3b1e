#include "flotilla/exec/memory/memory_manager.h"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace flotilla::exec {

MemoryManager& MemoryManager::Default() {
  static MemoryManager manager([] {
    if (const char* env = std::getenv("FLOTILLA_MEMORY_LIMIT")) {
      if (int64_t bytes = ParseByteSize(env); bytes > 0) return bytes;
    }
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return int64_t{8} << 30;
    return static_cast<int64_t>(static_cast<double>(pages) * static_cast<double>(page_size) * 0.8);
  }());
  return manager;
}

bool MemoryManager::TryReserve(int64_t bytes) {
  int64_t current = reserved_.load(std::memory_order_relaxed);
  while (true) {
    if (current + bytes > limit_) return false;
    if (reserved_.compare_exchange_weak(current, current + bytes, std::memory_order_relaxed)) {
      UpdatePeak(current + bytes);
      return true;
    }
  }
}

void MemoryManager::ForceReserve(int64_t bytes) {
  UpdatePeak(reserved_.fetch_add(bytes, std::memory_order_relaxed) + bytes);
}

void MemoryManager::Release(int64_t bytes) {
  reserved_.fetch_sub(bytes, std::memory_order_relaxed);
}

void MemoryManager::UpdatePeak(int64_t now) {
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

int64_t ParseByteSize(const char* text) {
  if (text == nullptr) return -1;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || !(value >= 0) || !std::isfinite(value)) return -1;
  std::string suffix;
  for (const char* p = end; *p; ++p) {
    if (!std::isspace(static_cast<unsigned char>(*p)))
      suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  }
  double scale = 1;
  if (!suffix.empty() && suffix != "b") {
    const char unit = suffix[0];
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "b" && rest != "ib") return -1;
    switch (unit) {
      case 'k':
        scale = 1024.0;
        break;
      case 'm':
        scale = 1024.0 * 1024;
        break;
      case 'g':
        scale = 1024.0 * 1024 * 1024;
        break;
      case 't':
        scale = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        return -1;
    }
  }
  return static_cast<int64_t>(value * scale);
}

bool MemoryReservation::TryResize(int64_t bytes) {
  if (bytes > size_) {
    if (!manager_->TryReserve(bytes - size_)) return false;
  } else if (bytes < size_) {
    manager_->Release(size_ - bytes);
  }
  size_ = bytes;
  if (size_ > peak_) peak_ = size_;
  return true;
}

void MemoryReservation::ForceResize(int64_t bytes) {
  if (bytes > size_) {
    manager_->ForceReserve(bytes - size_);
  } else if (bytes < size_) {
    manager_->Release(size_ - bytes);
  }
  size_ = bytes;
  if (size_ > peak_) peak_ = size_;
}

}  // namespace flotilla::exec
