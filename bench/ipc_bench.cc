// Arrow IPC throughput: writing and reading ~400 MB of int64, float64 and string columns in the
// stream format (uncompressed, lz4, zstd), reading a mapped file (zero-copy), and memcpy of the
// same bytes as the yardstick. Bytes processed = the batches' buffer bytes.

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "flotilla/columnar/builder.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::ipc {
namespace {

constexpr int64_t kRowsPerBatch = 1 << 20;
constexpr int kBatches = 12;

struct Data {
  SchemaPtr schema;
  std::vector<RecordBatch> batches;
  int64_t bytes = 0;
};

// Realistic-ish content: small-range integers (compressible), noisy doubles (barely), short words.
RecordBatch MakeBatch(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Int64Builder ints(int64());
  DoubleBuilder doubles(float64());
  StringBuilder strings(utf8());
  ints.Reserve(kRowsPerBatch).Check();
  doubles.Reserve(kRowsPerBatch).Check();
  static const char* kWords[] = {"alpha", "bravo", "charlie", "delta",   "echo", "foxtrot",
                                 "golf",  "hotel", "india",   "juliett", "kilo", "lima"};
  for (int64_t i = 0; i < kRowsPerBatch; ++i) {
    ints.Append(static_cast<int64_t>(rng() % 100000)).Check();
    doubles.Append(static_cast<double>(rng() % 1000000) / 100.0).Check();
    std::string s = kWords[rng() % 12];
    s += std::to_string(rng() % 1000);
    strings.Append(s).Check();
  }
  return RecordBatch::FromColumns({{"i", ints.Finish().ValueOrDie()},
                                   {"d", doubles.Finish().ValueOrDie()},
                                   {"s", strings.Finish().ValueOrDie()}})
      .ValueOrDie();
}

const Data& GetData() {
  static const Data data = [] {
    Data d;
    for (int i = 0; i < kBatches; ++i)
      d.batches.push_back(MakeBatch(static_cast<uint64_t>(i)));
    d.schema = d.batches[0].schema();
    for (const auto& b : d.batches)
      d.bytes += b.TotalBufferSize();
    return d;
  }();
  return data;
}

// An output stream into memory reserved once, so the benchmark measures IPC, not realloc.
class PreallocatedSink : public io::OutputStream {
 public:
  explicit PreallocatedSink(int64_t capacity) : bytes_(static_cast<size_t>(capacity), '\0') {}
  Status Write(const void* data, int64_t size) override {
    if (position_ + size > static_cast<int64_t>(bytes_.size())) {
      bytes_.resize(static_cast<size_t>((position_ + size) * 2));
    }
    std::memcpy(bytes_.data() + position_, data, static_cast<size_t>(size));
    position_ += size;
    return Status::OK();
  }
  int64_t Tell() const override { return position_; }
  Status Close() override { return Status::OK(); }
  void Reset() { position_ = 0; }

 private:
  std::string bytes_;
  int64_t position_ = 0;
};

Compression CompressionArg(const benchmark::State& state) {
  return static_cast<Compression>(state.range(0));
}

void SetLabel(benchmark::State& state, int64_t encoded) {
  const char* names[] = {"none", "lz4", "zstd"};
  state.SetLabel(fmt::format("{} ({:.0f} MB -> {:.0f} MB)", names[state.range(0)],
                             static_cast<double>(GetData().bytes) / 1e6,
                             static_cast<double>(encoded) / 1e6));
}

void BM_WriteStream(benchmark::State& state) {
  const Data& data = GetData();
  PreallocatedSink sink(data.bytes + (64 << 20));
  for (auto _ : state) {
    sink.Reset();
    auto writer =
        StreamWriter::Open(&sink, data.schema, {.compression = CompressionArg(state)}).ValueOrDie();
    for (const auto& b : data.batches)
      writer->WriteBatch(b).Check();
    writer->Close().Check();
  }
  state.SetBytesProcessed(state.iterations() * data.bytes);
  SetLabel(state, sink.Tell());
}

void BM_ReadStream(benchmark::State& state) {
  const Data& data = GetData();
  BufferPtr bytes =
      WriteStreamToBuffer(data.schema, data.batches, {.compression = CompressionArg(state)})
          .ValueOrDie();
  for (auto _ : state) {
    auto batches = ReadStream(bytes).ValueOrDie();
    benchmark::DoNotOptimize(batches.data());
  }
  state.SetBytesProcessed(state.iterations() * data.bytes);
  SetLabel(state, bytes->size());
}

std::string FilePath() {
  static const std::string path =
      "/tmp/flotilla_ipc_bench_" + std::to_string(::getpid()) + ".arrow";
  return path;
}

// Reads every batch of an uncompressed file through FileReader::Open(path): mmap, no copy.
void BM_ReadFileMmap(benchmark::State& state) {
  const Data& data = GetData();
  WriteFile(FilePath(), data.schema, data.batches).Check();
  for (auto _ : state) {
    auto reader = FileReader::Open(FilePath()).ValueOrDie();
    int64_t rows = 0;
    for (int i = 0; i < reader->num_batches(); ++i)
      rows += reader->ReadBatch(i).ValueOrDie().num_rows();
    benchmark::DoNotOptimize(rows);
  }
  state.SetBytesProcessed(state.iterations() * data.bytes);
  ::unlink(FilePath().c_str());
}

// The yardstick: copying the same number of bytes once.
void BM_Memcpy(benchmark::State& state) {
  const Data& data = GetData();
  std::string src(static_cast<size_t>(data.bytes), 'x');
  std::string dst(static_cast<size_t>(data.bytes), 'y');
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * data.bytes);
}

BENCHMARK(BM_WriteStream)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadStream)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadFileMmap)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace flotilla::ipc

BENCHMARK_MAIN();
