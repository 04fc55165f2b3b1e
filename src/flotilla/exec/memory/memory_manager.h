#pragma once
// The process's memory budget for query operators, and reservations against it.
//
// Operators that hold data (hash tables, sort runs, join builds) reserve what they hold before
// they grow. When a reservation cannot grow, the operator spills part of its data to disk
// (spill_file.h) and releases it, so a query that does not fit runs slower instead of being
// killed. Streaming operators hold a morsel at a time and do not reserve.
#include <atomic>
#include <cstdint>

namespace flotilla::exec {

class MemoryManager {
 public:
  /// A budget of `limit_bytes` (must be positive).
  explicit MemoryManager(int64_t limit_bytes) : limit_(limit_bytes) {}
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;

  /// The process-wide manager: FLOTILLA_MEMORY_LIMIT bytes (suffixes K, M, G, T accepted, e.g.
  /// "8GiB") when set, else 80% of the machine's RAM.
  static MemoryManager& Default();

  /// Reserves `bytes` when the budget allows it; false (and nothing reserved) otherwise.
  bool TryReserve(int64_t bytes);
  /// Reserves `bytes` even past the budget (memory an operator cannot do without: one morsel).
  void ForceReserve(int64_t bytes);
  void Release(int64_t bytes);

  int64_t limit() const { return limit_; }
  int64_t reserved() const { return reserved_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  void UpdatePeak(int64_t now);

  const int64_t limit_;
  std::atomic<int64_t> reserved_{0};
  std::atomic<int64_t> peak_{0};
};

/// Parses "1024", "64MiB", "1.5GB", "8g" as bytes (binary multiples for every suffix);
/// -1 when the text is not a size.
int64_t ParseByteSize(const char* text);

/// What one operator holds of the budget; released when destroyed. Not thread-safe: one per
/// owner (an operator's thread state, or its global state under its lock).
class MemoryReservation {
 public:
  explicit MemoryReservation(MemoryManager* manager) : manager_(manager) {}
  ~MemoryReservation() { Clear(); }
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;

  /// Sets the reserved size to `bytes`; false when growing would exceed the budget (then the
  /// reservation keeps its old size).
  bool TryResize(int64_t bytes);
  /// Sets the reserved size to `bytes` whatever the budget.
  void ForceResize(int64_t bytes);
  void Clear() { ForceResize(0); }
  int64_t size() const { return size_; }
  int64_t peak() const { return peak_; }
  MemoryManager* manager() const { return manager_; }

 private:
  MemoryManager* manager_;
  int64_t size_ = 0;
  int64_t peak_ = 0;
};

}  // namespace flotilla::exec
