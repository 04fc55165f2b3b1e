#pragma once
// What every operator of one running query can reach: its options, the thread pool, the memory
// budget, the query's spill files and its cancellation flag.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "flotilla/common/thread_pool.h"
#include "flotilla/exec/memory/memory_manager.h"
#include "flotilla/exec/memory/spill_file.h"

namespace flotilla::exec {

class PartitionWriter;

struct ExecOptions {
  /// Rows per morsel handed to a thread.
  int64_t morsel_size = 131072;
  /// Keep input order where a user expects it (scan order through streaming operators, the
  /// order of a sort through what follows it). Off: rows come out in whatever order threads
  /// finish, which is faster.
  bool maintain_order = true;
  /// nullptr: ThreadPool::Default().
  ThreadPool* pool = nullptr;
  /// Threads per pipeline; 0: every thread of the pool.
  int num_threads = 0;
  /// nullptr: MemoryManager::Default().
  MemoryManager* memory = nullptr;
  /// Where spill files go (the first that works); empty: the system's temporary directory.
  std::vector<std::string> spill_dirs;
  /// Progress display on stderr: -1 auto (stderr is a terminal and FLOTILLA_PROGRESS is not
  /// 0), 0 off, 1 on.
  int progress = -1;
  /// Batches the result stream buffers before producers wait for the consumer.
  int result_queue_capacity = 8;
  /// Set: the plan's hash repartition (a shuffle's map side has one, at its root) hands its
  /// partitions here as it splits its input, and outputs no partitions itself.
  PartitionWriter* partition_writer = nullptr;
};

class ExecContext {
 public:
  explicit ExecContext(const ExecOptions& options)
      : options_(options),
        pool_(options.pool != nullptr ? options.pool : &ThreadPool::Default()),
        memory_(options.memory != nullptr ? options.memory : &MemoryManager::Default()),
        spill_(options.spill_dirs) {}

  const ExecOptions& options() const { return options_; }
  ThreadPool* pool() const { return pool_; }
  int num_threads() const {
    return options_.num_threads > 0 ? options_.num_threads : pool_->num_threads();
  }
  int64_t morsel_size() const { return options_.morsel_size > 0 ? options_.morsel_size : 131072; }
  bool maintain_order() const { return options_.maintain_order; }
  MemoryManager* memory() const { return memory_; }
  SpillManager* spill() { return &spill_; }

  void Cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  ExecOptions options_;
  ThreadPool* pool_;
  MemoryManager* memory_;
  SpillManager spill_;
  std::atomic<bool> cancelled_{false};
};

/// What rows held in memory whole (a morsel's output until it is delivered, a collected result,
/// the right side of a join without conditions) may take: the memory budget, but at least
/// 64 MiB, so that the small budgets that make operators spill do not refuse ordinary results.
int64_t HeldOutputLimit(const MemoryManager& memory);

}  // namespace flotilla::exec
