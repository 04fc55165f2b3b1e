// Compute kernels against memcpy of the same byte volume, in one binary and one run, so the
// ratio to the machine's copy bandwidth is what to read (absolute times are noisy here).
//
//   ./build/bench/compute_bench --benchmark_min_time=0.2

#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/concat.h"
#include "flotilla/compute/filter.h"
#include "flotilla/compute/hash.h"
#include "flotilla/compute/sort.h"
#include "flotilla/compute/take.h"

namespace flotilla {
namespace {

constexpr int64_t kRows = 10'000'000;

Array Int64Column(int64_t n, uint64_t seed) {
  Int64Builder b(int64());
  b.Reserve(n).Check();
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < n; ++i)
    b.Append(static_cast<int64_t>(rng())).Check();
  return b.Finish().ValueOrDie();
}

Array StringColumn(int64_t n, uint64_t seed) {
  StringBuilder b(utf8());
  b.Reserve(n).Check();
  std::mt19937_64 rng(seed);
  std::string s;
  for (int64_t i = 0; i < n; ++i) {
    s.resize(8 + rng() % 17);  // 8..24 random letters
    uint64_t bits = rng();
    for (char& c : s) {
      c = static_cast<char>('a' + bits % 26);
      bits = bits / 26 ? bits / 26 : rng();
    }
    b.Append(s).Check();
  }
  return b.Finish().ValueOrDie();
}

const Array& Ints() {
  static Array a = Int64Column(kRows, 1);
  return a;
}
const Array& Strings() {
  static Array a = StringColumn(kRows, 2);
  return a;
}

int64_t DataBytes(const Array& a) {
  if (a.type()->is_binary_like()) return a.ValueOffset(a.length()) + (a.length() + 1) * 4;
  return a.length() * a.type()->byte_width();
}

Array RandomIndices(int64_t n, int64_t range) {
  UInt32Builder b(uint32());
  b.Reserve(n).Check();
  std::mt19937_64 rng(3);
  for (int64_t i = 0; i < n; ++i)
    b.Append(static_cast<uint32_t>(rng() % range)).Check();
  return b.Finish().ValueOrDie();
}

Array Mask(int64_t n, int percent) {
  BooleanBuilder b;
  std::mt19937_64 rng(4);
  for (int64_t i = 0; i < n; ++i)
    b.Append(static_cast<int>(rng() % 100) < percent).Check();
  return b.Finish().ValueOrDie();
}

// memcpy of `bytes`, the yardstick for every kernel below.
void BM_Memcpy(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  std::vector<uint8_t> src(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_Memcpy)->Arg(kRows * 8)->Arg(kRows * 8 / 2)->Unit(benchmark::kMillisecond);

// memcpy into a buffer allocated per iteration: what every kernel that returns a new array
// pays (first-touch page faults and the pool's zeroing), so the fairer yardstick.
void BM_MemcpyFreshBuffer(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  std::vector<uint8_t> src(bytes, 1);
  for (auto _ : state) {
    BufferPtr dst = Buffer::Allocate(bytes).ValueOrDie();
    std::memcpy(dst->mutable_data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst->data());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_MemcpyFreshBuffer)->Arg(kRows * 8)->Unit(benchmark::kMillisecond);

void BM_TakeInt64Random(benchmark::State& state) {
  const Array& values = Ints();
  Array indices = RandomIndices(kRows, kRows);
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::Take(values, indices).ValueOrDie());
  state.SetBytesProcessed(state.iterations() * kRows * 8);
}
BENCHMARK(BM_TakeInt64Random)->Unit(benchmark::kMillisecond);

void BM_TakeStringRandom(benchmark::State& state) {
  const Array& values = Strings();
  Array indices = RandomIndices(kRows, kRows);
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::Take(values, indices).ValueOrDie());
  state.SetBytesProcessed(state.iterations() * DataBytes(values));
}
BENCHMARK(BM_TakeStringRandom)->Unit(benchmark::kMillisecond);

void BM_FilterInt64(benchmark::State& state) {
  const Array& values = Ints();
  Array mask = Mask(kRows, static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::Filter(values, mask).ValueOrDie());
  state.SetBytesProcessed(state.iterations() * kRows * 8);  // input bytes scanned
}
BENCHMARK(BM_FilterInt64)->Arg(50)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_FilterString(benchmark::State& state) {
  const Array& values = Strings();
  Array mask = Mask(kRows, static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::Filter(values, mask).ValueOrDie());
  state.SetBytesProcessed(state.iterations() * DataBytes(values));
}
BENCHMARK(BM_FilterString)->Arg(50)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_HashRowsInt64(benchmark::State& state) {
  const Array& values = Ints();
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::HashRows({values}).ValueOrDie());
  state.SetBytesProcessed(state.iterations() * kRows * 8);
}
BENCHMARK(BM_HashRowsInt64)->Unit(benchmark::kMillisecond);

void BM_HashRowsString(benchmark::State& state) {
  const Array& values = Strings();
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::HashRows({values}).ValueOrDie());
  state.SetBytesProcessed(state.iterations() * DataBytes(values));
}
BENCHMARK(BM_HashRowsString)->Unit(benchmark::kMillisecond);

void BM_ConcatInt64(benchmark::State& state) {
  const Array& values = Ints();
  std::vector<Array> parts;
  for (int64_t s = 0; s < kRows; s += kRows / 10)
    parts.push_back(values.Slice(s, kRows / 10));
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::Concat(parts).ValueOrDie());
  state.SetBytesProcessed(state.iterations() * kRows * 8);
}
BENCHMARK(BM_ConcatInt64)->Unit(benchmark::kMillisecond);

void BM_ConcatString(benchmark::State& state) {
  const Array& values = Strings();
  std::vector<Array> parts;
  for (int64_t s = 0; s < kRows; s += kRows / 10)
    parts.push_back(values.Slice(s, kRows / 10));
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::Concat(parts).ValueOrDie());
  state.SetBytesProcessed(state.iterations() * DataBytes(values));
}
BENCHMARK(BM_ConcatString)->Unit(benchmark::kMillisecond);

void BM_SortInt64(benchmark::State& state) {
  RecordBatch batch = RecordBatch::FromColumns({{"x", Ints().Slice(0, kRows / 10)}}).ValueOrDie();
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::SortIndices(batch, {{0}}).ValueOrDie());
  state.SetItemsProcessed(state.iterations() * batch.num_rows());
  state.SetBytesProcessed(state.iterations() * batch.num_rows() * 8);
}
BENCHMARK(BM_SortInt64)->Unit(benchmark::kMillisecond);

void BM_SortString(benchmark::State& state) {
  RecordBatch batch =
      RecordBatch::FromColumns({{"s", Strings().Slice(0, kRows / 10)}}).ValueOrDie();
  for (auto _ : state)
    benchmark::DoNotOptimize(compute::SortIndices(batch, {{0}}).ValueOrDie());
  state.SetItemsProcessed(state.iterations() * batch.num_rows());
}
BENCHMARK(BM_SortString)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace flotilla

BENCHMARK_MAIN();
