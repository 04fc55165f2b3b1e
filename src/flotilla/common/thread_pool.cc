#include "flotilla/common/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#include "flotilla/common/logging.h"

namespace flotilla {

Status CheckThreadCount(const std::string& text) {
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n < 1 || n > 1024) {
    return Status::Invalid("threads must be 1..1024, got '" + text + "'");
  }
  return Status::OK();
}

ThreadPool::ThreadPool(int num_threads) {
  const int n = num_threads < 1 ? 1 : num_threads;
  threads_.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    threads_.emplace_back([this] { Work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_)
    t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  // The task works for what its submitter works for: its log lines say so.
  if (log::Context context = log::CurrentContext()) {
    task = [context = std::move(context), inner = std::move(task)] {
      log::ScopedContext scoped(context);
      inner();
    };
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
  }
  ready_.notify_one();
}

namespace {
thread_local ThreadPool* current_pool = nullptr;
}  // namespace

ThreadPool* ThreadPool::Current() {
  return current_pool;
}

Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn) {
  ThreadPool* pool = ThreadPool::Current();
  if (n <= 1 || pool == nullptr || pool->num_threads() == 1) {
    for (int64_t i = 0; i < n; ++i)
      FLOTILLA_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  struct State {
    const std::function<Status(int64_t)>* fn;
    int64_t n;
    std::atomic<int64_t> next{0};
    std::mutex mutex;
    std::condition_variable done;
    int64_t finished = 0;  // items run or skipped
    Status first_error;
  };
  auto state = std::make_shared<State>();
  state->fn = &fn;
  state->n = n;
  // Takes items until none are left. `fn` is only touched for an item taken, and the caller
  // returns only after every taken item has finished, so `fn` outlives its uses.
  auto work = [](State& s) {
    for (int64_t i = s.next++; i < s.n; i = s.next++) {
      bool failed;
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        failed = !s.first_error.ok();
      }
      Status st = failed ? Status::OK() : (*s.fn)(i);
      std::lock_guard<std::mutex> lock(s.mutex);
      if (!st.ok() && s.first_error.ok()) s.first_error = std::move(st);
      if (++s.finished == s.n) s.done.notify_all();
    }
  };
  const int64_t helpers = std::min<int64_t>(n - 1, pool->num_threads() - 1);
  for (int64_t h = 0; h < helpers; ++h)
    pool->Submit([state, work] { work(*state); });
  work(*state);
  std::unique_lock<std::mutex> lock(state->mutex);
  state->done.wait(lock, [&] { return state->finished == state->n; });
  return state->first_error;
}

void ThreadPool::Work() {
  current_pool = this;
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      // Stopping still drains the queue, so no submitted task is dropped.
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

ThreadPool& ThreadPool::Default() {
  static ThreadPool pool([] {
    if (const char* env = std::getenv("FLOTILLA_THREADS")) {
      const int n = std::atoi(env);
      if (n > 0) return n;
    }
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware == 0 ? 1 : static_cast<int>(hardware);
  }());
  return pool;
}

// Shared with the queued tasks, so a task that outlives nothing it needs.
struct TaskGroup::State {
  std::mutex mutex;
  std::condition_variable done;
  int64_t pending = 0;
  std::atomic<bool> cancelled{false};
  Status first_error;
};

TaskGroup::TaskGroup(ThreadPool* pool) : pool_(pool), state_(std::make_shared<State>()) {}

TaskGroup::~TaskGroup() {
  (void)Wait();
}

void TaskGroup::Spawn(std::function<Status()> task) {
  if (cancelled()) return;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->pending;
  }
  pool_->Submit([state = state_, task = std::move(task)] {
    Status status = state->cancelled.load() ? Status::OK() : task();
    std::lock_guard<std::mutex> lock(state->mutex);
    if (!status.ok() && state->first_error.ok()) {
      state->first_error = std::move(status);
      state->cancelled = true;
    }
    if (--state->pending == 0) state->done.notify_all();
  });
}

Status TaskGroup::Wait() {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->done.wait(lock, [this] { return state_->pending == 0; });
  if (!state_->first_error.ok()) return state_->first_error;
  if (state_->cancelled) return Status::Cancelled("the task group was cancelled");
  return Status::OK();
}

void TaskGroup::Cancel() {
  state_->cancelled = true;
}

bool TaskGroup::cancelled() const {
  return state_->cancelled.load();
}

}  // namespace flotilla
