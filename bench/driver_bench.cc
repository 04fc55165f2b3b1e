// The query driver (src/flotilla/distributed/query_driver.h) through one M x N shuffle on a
// simulated cluster of 16 workers: M map tasks over in-memory partitions, each writing N
// partitions, then N reduce tasks each reading one partition of every map task. Every
// dispatched task "completes" at once with made-up partition sizes, so only the driver and its
// scheduler are timed: creating tasks, building their messages, following their results.
// items_per_second is driver events (task results and result fetches) per second. A map task's
// result is N integers pairs, which the driver folds into its map node's N partition sizes; a
// reduce task's message names its M inputs as a bitmap over task ids per worker
// (CompactPieces). held_bytes is what the driver holds at the end: it should double, not
// quadruple, when M and N double.
//
//   ./build/bench/driver_bench --benchmark_min_time=1

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <string>
#include <vector>

#include "flotilla/distributed/query_driver.h"
#include "flotilla/distributed/ref_proto.h"
#include "tests/support/literal_arrays.h"

namespace flotilla::distributed {
namespace {

constexpr int kWorkers = 16;

exec::PlanPtr ShufflePlan(int map_tasks, int partitions) {
  std::vector<MicroPartition> parts;
  SchemaPtr schema = std::make_shared<Schema>(std::vector<Field>{{"v", int64(), true}});
  for (int i = 0; i < map_tasks; ++i) {
    RecordBatch b = RecordBatch::Make(schema, {testing::I64({i})}, 1).ValueOrDie();
    parts.push_back(MicroPartition::FromBatches(schema, {b}).ValueOrDie());
  }
  exec::PlanPtr source = exec::MakeInMemorySource(schema, parts).ValueOrDie();
  return exec::MakeRepartitionByHash(source, partitions, {expr::Column("v")}).ValueOrDie();
}

// What a worker would report for `dispatch`: a row count and a size per output partition.
std::string FakeResult(const Dispatch& dispatch) {
  proto::Task task;
  task.ParseFromString(dispatch.bytes);
  proto::TaskResult result;
  result.set_worker(dispatch.worker);
  result.set_address(dispatch.worker);
  for (int i = 0; i < std::max(task.num_outputs(), 1); ++i) {
    result.add_output_rows(1);
    result.add_output_bytes(64);
  }
  result.set_rows(task.num_outputs());
  return result.SerializeAsString();
}

void BM_Shuffle(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0));
  const int n = static_cast<int>(state.range(1));
  const exec::PlanPtr plan = ShufflePlan(m, n);
  int64_t events = 0;
  double held_bytes = 0;
  for (auto _ : state) {
    const size_t before = mallinfo2().uordblks;
    DriverOptions options;
    options.progress = 0;
    options.reduce_task_bytes = 0;  // N reduce tasks, however small the made-up partitions
    auto driver = QueryDriver::Make(plan, options).ValueOrDie();
    for (int w = 0; w < kWorkers; ++w) {
      (void)driver->AddWorker({"worker-" + std::to_string(w), {8, 0, 0}, ""});
    }
    while (!driver->finished()) {
      std::vector<Dispatch> dispatches = driver->Schedule().ValueOrDie();
      if (dispatches.empty() && driver->num_running() == 0) break;
      for (const Dispatch& d : dispatches) {
        (void)driver->OnTaskResult(d.task_id, FakeResult(d));
        ++events;
      }
      for (const PartitionRef& r : driver->TakeReadyResults()) {
        (void)driver->MarkFetched(r.id);  // a failure shows in driver->status() below
        ++events;
      }
    }
    // What the driver holds once every task finished: its bookkeeping for the whole query.
    held_bytes = static_cast<double>(mallinfo2().uordblks - before);
    if (!driver->status().ok() || !driver->finished()) {
      state.SkipWithError(
          ("the simulated query did not finish: " + driver->status().ToString()).c_str());
      return;
    }
  }
  state.SetItemsProcessed(events);  // events per second; 1e6 / that is microseconds per event
  state.counters["driver_MiB"] = held_bytes / (1 << 20);
}

// M = N doubling: the driver's bookkeeping should about double too (O(M + N)).
BENCHMARK(BM_Shuffle)
    ->Args({250, 250})
    ->Args({500, 500})
    ->Args({1000, 1000})
    ->Args({2000, 2000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace flotilla::distributed

BENCHMARK_MAIN();
