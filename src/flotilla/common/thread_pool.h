#pragma once
// The process-wide pool of worker threads that runs query work, and task groups on top of it.
//
// A ThreadPool is a fixed set of threads taking tasks from one queue in submission order.
// A TaskGroup collects the tasks of one piece of work (a pipeline, a query): the first task
// that fails cancels the group, tasks spawned or still queued after that are skipped, and
// Wait() returns that first error. Tasks that run long check cancelled() themselves.
//
// Wait() blocks its caller: call it from outside the pool (the driver of a query), never from
// a pool thread, which could leave no thread to run the tasks it waits for. ParallelFor is the
// form that pool threads may use.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "flotilla/common/status.h"

namespace flotilla {

/// The thread counts a user may ask for (SET threads, --threads): 1..1024.
Status CheckThreadCount(const std::string& text);

class ThreadPool {
 public:
  /// Starts `num_threads` threads (at least one).
  explicit ThreadPool(int num_threads);
  /// Runs every task already submitted, then joins the threads.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(threads_.size()); }

  /// Queues `task`; it runs on one of the pool's threads.
  void Submit(std::function<void()> task);

  /// The process-wide pool: FLOTILLA_THREADS threads when that is set to a positive number,
  /// else one per hardware thread. Created on first use.
  static ThreadPool& Default();

  /// The pool whose thread is calling, or null outside every pool.
  static ThreadPool* Current();

 private:
  void Work();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

/// \brief Runs fn(0) .. fn(n - 1), in parallel when called on a pool thread: the caller works
/// through the items and queues helpers on its own pool that take items too. The caller only
/// ever waits for items a running helper has taken, so this is safe on a pool thread (a helper
/// that starts once the work is gone just returns). Returns the first error; items not yet
/// started then are skipped.
Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn);

class TaskGroup {
 public:
  explicit TaskGroup(ThreadPool* pool);
  /// Waits for the group's tasks (a group must not be destroyed with tasks in flight).
  ~TaskGroup();
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  /// Runs `task` on the pool unless the group is cancelled by then.
  void Spawn(std::function<Status()> task);
  /// Waits until every spawned task has finished or been skipped; returns the first error
  /// (Cancelled when Cancel() came first and no task failed).
  Status Wait();
  /// Skips every task that has not started; running ones see cancelled().
  void Cancel();
  bool cancelled() const;

 private:
  struct State;
  ThreadPool* pool_;
  std::shared_ptr<State> state_;
};

}  // namespace flotilla
