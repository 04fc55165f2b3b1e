// One shuffle fetch over loopback Flight: a reducer's DoGet of many pieces from one worker (the
// pieces of its partition that each map task there wrote), decoded as they arrive. What a piece
// costs beyond its bytes decides how a shuffle of many map tasks and partitions scales: at
// M = N = 2,000 over 4 workers a fetch is ~500 pieces of ~25 rows; at 256 x 256, ~64 pieces of
// ~1,500 rows. Pieces are kept as batches (encoded as they are sent) or as the IPC bytes a
// spilled map task wrote (sent as stored). items/s = pieces per second.

#include <benchmark/benchmark.h>

#include <random>

#include "flotilla/columnar/builder.h"
#include "flotilla/distributed/flight/flight.h"
#include "flotilla/distributed/partition_file.h"

namespace flotilla::distributed {
namespace {

// The shuffle benchmark's table: id, a key, a 32-character string.
RecordBatch Piece(int64_t first, int64_t rows) {
  std::mt19937_64 rng(static_cast<uint64_t>(first));
  Int64Builder ids(int64()), keys(int64());
  StringBuilder strings(utf8());
  for (int64_t i = 0; i < rows; ++i) {
    ids.Append(first + i).Check();
    keys.Append(static_cast<int64_t>(rng() % 1000000)).Check();
    std::string s(32, 'a');
    for (char& c : s)
      c = static_cast<char>('a' + rng() % 26);
    strings.Append(s).Check();
  }
  return RecordBatch::FromColumns({{"id", ids.Finish().ValueOrDie()},
                                   {"k", keys.Finish().ValueOrDie()},
                                   {"s", strings.Finish().ValueOrDie()}})
      .ValueOrDie();
}

void BM_FetchPieces(benchmark::State& state) {
  const int pieces = static_cast<int>(state.range(0));
  const int64_t rows = state.range(1);
  const bool stored = state.range(2) != 0;
  std::vector<ServedPartition> served;
  int64_t bytes = 0;
  for (int p = 0; p < pieces; ++p) {
    RecordBatch b = Piece(p * rows, rows);
    bytes += b.TotalBufferSize();
    if (stored) {
      BufferPtr ipc = ipc::WriteStreamToBuffer(b.schema(), {b}).ValueOrDie();
      served.push_back({b.schema(), ipc, {}});
    } else {
      served.push_back({b.schema(), nullptr, {b}});
    }
  }
  auto server =
      FlightServer::Start(
          "127.0.0.1", 0, "t",
          [&](const std::string&) -> Result<std::vector<ServedPartition>> { return served; })
          .ValueOrDie();
  for (auto _ : state) {
    int64_t got = 0;
    Status s = FlightGetEach(server->address(), "t", "all", pieces, [&](int, RecordBatch b) {
      got += b.num_rows();
      return Status::OK();
    });
    if (!s.ok() || got != pieces * rows) state.SkipWithError(s.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * pieces);
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_FetchPieces)
    ->ArgNames({"pieces", "rows", "stored"})
    ->Args({500, 25, 0})
    ->Args({500, 25, 1})
    ->Args({64, 1500, 0})
    ->Args({64, 1500, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace flotilla::distributed

BENCHMARK_MAIN();
