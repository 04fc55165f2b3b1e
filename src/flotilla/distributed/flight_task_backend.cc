#include "flotilla/distributed/flight_task_backend.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "flotilla/common/logging.h"
#include "flotilla/distributed/flight/flight.h"
#include "flotilla/distributed/proto/task.pb.h"

namespace flotilla::distributed {

struct FlightTaskBackend::State {
  std::string token;
  std::mutex mutex;
  std::condition_variable idle;
  std::condition_variable news;                  // a call returned, or Interrupt
  std::map<std::string, std::string> addresses;  // worker -> its Flight server
  std::map<int64_t, std::string> in_flight;      // task -> the address running it
  int calls = 0;                                 // threads not returned yet
  std::vector<BackendEvents::Finished> finished;
  std::vector<std::string> lost;
  bool closed = false;
  // The loop is blocked in the inner backend's Wait: only then does news need to wake it
  // through the inner backend (Python's, which needs the GIL); otherwise `news` does.
  bool waiting = false;
  bool interrupted = false;
  std::chrono::steady_clock::time_point inner_asked{};

  bool HasNews() const { return !finished.empty() || !lost.empty() || interrupted; }
};

namespace {

// While calls are out, the loop waits for them here and asks the inner backend this often:
// what only it knows (workers joining or leaving, samples) is not worth a trip through Python
// (the GIL, a thread switch) for every task that returns.
constexpr auto kInnerPollInterval = std::chrono::milliseconds(10);

void Merge(BackendEvents* into, BackendEvents from) {
  for (auto& f : from.finished)
    into->finished.push_back(std::move(f));
  for (auto& w : from.lost)
    into->lost.push_back(std::move(w));
  for (auto& w : from.joined)
    into->joined.push_back(std::move(w));
  for (auto& s : from.samples)
    into->samples.push_back(std::move(s));
}

}  // namespace

FlightTaskBackend::FlightTaskBackend(ClusterBackend& inner, std::string token)
    : inner_(inner), state_(std::make_shared<State>()) {
  state_->token = std::move(token);
}

FlightTaskBackend::~FlightTaskBackend() {
  Close();
}

void FlightTaskBackend::SetAddress(const std::string& worker, const std::string& address) {
  std::lock_guard lock(state_->mutex);
  state_->addresses[worker] = address;
}

void FlightTaskBackend::Close() {
  std::map<int64_t, std::string> running;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->closed) return;
    state_->closed = true;
    running = state_->in_flight;
  }
  for (const auto& [task, address] : running)
    (void)FlightAction(address, state_->token, "cancel_task", std::to_string(task));
  std::unique_lock lock(state_->mutex);
  state_->idle.wait(lock, [&] { return state_->calls == 0; });
}

Status FlightTaskBackend::Submit(const std::string& worker, int64_t task_id, std::string bytes) {
  std::string address;
  {
    std::lock_guard lock(state_->mutex);
    auto it = state_->addresses.find(worker);
    if (it == state_->addresses.end()) return inner_.Submit(worker, task_id, std::move(bytes));
    if (state_->closed) return Status::Cancelled("the task backend closed");
    address = it->second;
    state_->in_flight[task_id] = address;
    state_->calls += 1;
  }
  // A thread per task in flight: at most the cluster's task slots, each blocked in its call.
  std::thread([state = state_, inner = &inner_, worker, address, task_id, b = std::move(bytes)] {
    Result<std::string> result = FlightAction(address, state->token, "run_task", b);
    bool wake = false;
    {
      std::lock_guard lock(state->mutex);
      state->in_flight.erase(task_id);
      wake = state->waiting;
      if (result.ok()) {
        state->finished.push_back({task_id, worker, result.MoveValueUnsafe()});
      } else if (result.status().code() != StatusCode::kIOError) {
        // The worker answered but refused the call (a wrong token, a message it will not
        // take): the task fails, naming why, and the worker stays.
        proto::TaskResult failed;
        failed.set_worker(worker);
        failed.set_error("task " + std::to_string(task_id) + " could not be sent to worker " +
                         worker + ": " + result.status().ToString());
        failed.set_code(static_cast<int32_t>(result.status().code()));
        state->finished.push_back({task_id, worker, failed.SerializeAsString()});
      } else {
        // The worker could not take or finish the call: as good as gone (the worker's own
        // failures come back inside a result).
        log::Warn("task {} on worker {}: {}", task_id, worker, result.status().ToString());
        state->lost.push_back(worker);
      }
    }
    state->news.notify_all();
    // Not under the lock: the inner backend may take locks of its own (Python's GIL) that a
    // caller of SetAddress holds.
    if (wake) inner->Interrupt();
    std::lock_guard lock(state->mutex);
    state->calls -= 1;
    state->idle.notify_all();
  }).detach();
  return Status::OK();
}

void FlightTaskBackend::Cancel(const std::string& worker, int64_t task_id) {
  std::string address;
  {
    std::lock_guard lock(state_->mutex);
    auto it = state_->in_flight.find(task_id);
    if (it == state_->in_flight.end()) {
      if (state_->addresses.count(worker) == 0) inner_.Cancel(worker, task_id);
      return;
    }
    address = it->second;
    state_->calls += 1;
  }
  // Not waited for: the loop goes on while the worker stops the task.
  std::thread([state = state_, address, task_id] {
    (void)FlightAction(address, state->token, "cancel_task", std::to_string(task_id));
    std::lock_guard lock(state->mutex);
    state->calls -= 1;
    state->idle.notify_all();
  }).detach();
}

void FlightTaskBackend::Interrupt() {
  bool wake = false;
  {
    std::lock_guard lock(state_->mutex);
    state_->interrupted = true;
    wake = state_->waiting;
  }
  state_->news.notify_all();
  if (wake) inner_.Interrupt();
}

Result<BackendEvents> FlightTaskBackend::Wait(double timeout_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(std::max(0.0, timeout_seconds)));
  BackendEvents events;
  std::unique_lock lock(state_->mutex);
  // The inner backend, without the lock (it may call back, or wait for a call to return).
  auto ask_inner = [&](double timeout) -> Status {
    state_->waiting = timeout > 0;
    lock.unlock();
    Result<BackendEvents> inner = inner_.Wait(timeout);
    lock.lock();
    state_->waiting = false;
    state_->inner_asked = Clock::now();
    FLOTILLA_RETURN_NOT_OK(inner.status());
    Merge(&events, inner.MoveValueUnsafe());
    return Status::OK();
  };
  for (;;) {
    if (state_->in_flight.empty() && !state_->HasNews()) {
      // No call out: only the inner backend has anything to say (a call made meanwhile wakes
      // it, as `waiting` says).
      const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      FLOTILLA_RETURN_NOT_OK(ask_inner(std::max(0.0, left)));
      break;
    }
    if (Clock::now() - state_->inner_asked >= kInnerPollInterval) {
      FLOTILLA_RETURN_NOT_OK(ask_inner(0));
    }
    if (state_->HasNews() || !events.empty() || !events.samples.empty() ||
        Clock::now() >= deadline) {
      break;
    }
    state_->news.wait_until(lock, std::min(deadline, state_->inner_asked + kInnerPollInterval));
  }
  state_->interrupted = false;
  for (BackendEvents::Finished& f : state_->finished)
    events.finished.push_back(std::move(f));
  state_->finished.clear();
  for (std::string& w : state_->lost)
    events.lost.push_back(std::move(w));
  state_->lost.clear();
  return events;
}

void FlightTaskBackend::Forget(const std::string& worker) {
  {
    std::lock_guard lock(state_->mutex);
    state_->addresses.erase(worker);
  }
  inner_.Forget(worker);
}

}  // namespace flotilla::distributed
