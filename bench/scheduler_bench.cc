// Scheduler decisions per second (src/flotilla/distributed/scheduler.h) on a simulated cluster:
// 1,000 workers of 4 to 32 cpus and 16 to 128 GiB, one in ten with gpus, 31 in an actor pool;
// 100,000 tasks of 8 queries with random cpu, memory and gpu requests, 2% for the pool, and input
// bytes on up to 3 random workers. items_per_second is assignments made per second of scheduler
// time (Schedule() and the TaskCompleted() calls that make room); submitting is not timed.
//
//   BM_DrainInRounds: every round schedules what fits, then a random quarter of the running
//     tasks completes, until all 100,000 are done (a backend that batches its events).
//   BM_ScheduleAfterEachCompletion: with the cluster full and ~90,000 tasks queued, one task
//     completes and Schedule() runs, 10,000 times (a backend that schedules on every event).
//
//   ./build/bench/scheduler_bench --benchmark_min_time=1

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "flotilla/distributed/scheduler.h"

namespace flotilla::distributed {
namespace {

constexpr int kWorkers = 1'000;
constexpr int kTasks = 100'000;
constexpr int64_t kGiB = int64_t{1} << 30;

struct Cluster {
  std::vector<WorkerSpec> workers;
  std::vector<TaskSpec> tasks;
};

const Cluster& SimulatedCluster() {
  static const Cluster cluster = [] {
    Cluster c;
    std::mt19937_64 rng(42);
    auto uniform = [&](uint64_t n) { return rng() % n; };
    for (int i = 0; i < kWorkers; ++i) {
      WorkerSpec w;
      w.id = "10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ":7000";
      w.capacity.cpus = static_cast<double>(4 << uniform(4));
      w.capacity.memory_bytes = (int64_t{16} << uniform(4)) * kGiB;
      if (i % 33 == 0) {
        w.pool = "embed";
      } else if (uniform(10) == 0) {
        w.capacity.gpus = static_cast<double>(1 + uniform(4));
      }
      c.workers.push_back(std::move(w));
    }
    static constexpr double kCpus[] = {0.5, 1, 1, 1, 2, 4};
    static constexpr int64_t kMemoryMiB[] = {256, 1024, 2048, 4096, 8192, 16384};
    for (int i = 0; i < kTasks; ++i) {
      TaskSpec t;
      t.task_id = i;
      t.query_id = static_cast<int64_t>(uniform(8));
      t.node_rank = static_cast<int>(uniform(5));
      t.request = {kCpus[uniform(6)], 0, kMemoryMiB[uniform(6)] << 20};
      uint64_t kind = uniform(100);
      if (kind < 2) {
        t.pool = "embed";
      } else if (kind < 7) {
        t.request.gpus = 1;
      }
      for (uint64_t n = uniform(4); n > 0; --n) {
        t.input_bytes.emplace_back(c.workers[uniform(kWorkers)].id,
                                   static_cast<int64_t>(1 + uniform(kGiB)));
      }
      c.tasks.push_back(std::move(t));
    }
    return c;
  }();
  return cluster;
}

std::unique_ptr<Scheduler> LoadedScheduler() {
  auto s = std::make_unique<Scheduler>();
  for (const WorkerSpec& w : SimulatedCluster().workers)
    s->AddWorker(w).Check();
  for (const TaskSpec& t : SimulatedCluster().tasks)
    s->Submit(t).Check();
  return s;
}

// Completes a random share of `running`, 1 in `one_in`.
void CompleteSome(Scheduler* s, std::vector<int64_t>* running, std::mt19937_64* rng,
                  uint64_t one_in) {
  for (size_t i = 0; i < running->size();) {
    if ((*rng)() % one_in != 0) {
      ++i;
      continue;
    }
    s->TaskCompleted((*running)[i]).Check();
    (*running)[i] = running->back();
    running->pop_back();
  }
}

void BM_DrainInRounds(benchmark::State& state) {
  SimulatedCluster();
  std::mt19937_64 rng(7);
  int64_t assignments = 0;
  int64_t rounds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Scheduler> s = LoadedScheduler();
    std::vector<int64_t> running;
    state.ResumeTiming();
    while (true) {
      for (const Assignment& a : s->Schedule()) {
        running.push_back(a.task_id);
        ++assignments;
      }
      ++rounds;
      if (running.empty()) break;
      CompleteSome(s.get(), &running, &rng, 4);
    }
    state.PauseTiming();
    if (s->num_queued() != 0) state.SkipWithError("tasks left queued on an idle cluster");
    s.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(assignments);
  state.counters["rounds"] =
      benchmark::Counter(static_cast<double>(rounds) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_DrainInRounds)->Unit(benchmark::kMillisecond);

void BM_ScheduleAfterEachCompletion(benchmark::State& state) {
  constexpr int kEvents = 10'000;
  SimulatedCluster();
  std::mt19937_64 rng(7);
  int64_t assignments = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Scheduler> s = LoadedScheduler();
    std::vector<int64_t> running;
    for (const Assignment& a : s->Schedule())
      running.push_back(a.task_id);
    state.ResumeTiming();
    for (int e = 0; e < kEvents && !running.empty(); ++e) {
      size_t i = rng() % running.size();
      s->TaskCompleted(running[i]).Check();
      running[i] = running.back();
      running.pop_back();
      for (const Assignment& a : s->Schedule()) {
        running.push_back(a.task_id);
        ++assignments;
      }
    }
    state.PauseTiming();
    s.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(assignments);
}
BENCHMARK(BM_ScheduleAfterEachCompletion)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace flotilla::distributed

BENCHMARK_MAIN();
