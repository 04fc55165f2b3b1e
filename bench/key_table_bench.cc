// KeyTable (src/flotilla/exec/hash/key_table.h) on the shapes of the aggregation and join
// targets: a grouped sum over 10M rows with 1M distinct int64 keys, an inner join of 10M probe
// rows against 1M distinct int64 build keys, and a grouped sum over two string keys (1M distinct
// pairs). Input arrives in 64K-row morsels, as the pipeline will feed it. The same queries in
// DuckDB on the same machine, for the ratio (data of the same shape, generated in SQL):
//
//   CREATE TABLE t AS SELECT (hash(range) % 1000000)::BIGINT AS k, range AS v FROM range(10000000);
//   SELECT count(*), sum(s) FROM (SELECT k, sum(v) AS s FROM t GROUP BY k);
//   CREATE TABLE b AS SELECT range * 7 AS k, range AS w FROM range(1000000);
//   CREATE TABLE p AS SELECT (hash(range) % 1000000) * 7 AS k FROM range(10000000);
//   SELECT count(*), sum(w) FROM p JOIN b USING (k);
//   CREATE TABLE s AS SELECT 'key_' || (h % 1000) AS a, 'name_' || (h // 1000 % 1000) ||
//     '_suffix' AS b, range AS v FROM (SELECT range, hash(range) % 1000000 AS h FROM
//     range(10000000));
//   SELECT count(*), sum(s) FROM (SELECT a, b, sum(v) AS s FROM s GROUP BY a, b);
//
//   ./build/bench/key_table_bench --benchmark_min_time=1
//
// The 2-thread variants: aggregation = one table per thread over alternate morsels, then the
// second table's keys and sums merged into the first (or, "Partitioned", radix-partitioned by
// hash so the threads' tables are disjoint); join = one table built, then probed by both
// threads at once (Find is const).

#include <benchmark/benchmark.h>

#include <array>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/hash.h"
#include "flotilla/exec/hash/key_table.h"

namespace flotilla {
namespace {

using exec::KeyTable;

constexpr int64_t kRows = 10'000'000;
constexpr int64_t kDistinct = 1'000'000;
constexpr int64_t kMorselRows = 65536;

std::vector<Array> Morsels(const Array& column) {
  std::vector<Array> out;
  for (int64_t start = 0; start < column.length(); start += kMorselRows)
    out.push_back(column.Slice(start, kMorselRows));
  return out;
}

Array Int64Column(const std::vector<int64_t>& values) {
  Int64Builder b(int64());
  b.Reserve(static_cast<int64_t>(values.size())).Check();
  for (int64_t v : values)
    b.Append(v).Check();
  return b.Finish().ValueOrDie();
}

// The 1M distinct keys (scattered int64 values) and, per probe/aggregation row, which of them.
struct IntData {
  Array distinct;                   // kDistinct keys
  std::vector<Array> keys;          // kRows keys drawn uniformly from `distinct`, in morsels
  std::vector<Array> values;        // 0, 1, 2, ... in morsels
  std::vector<Array> build_keys;    // `distinct` in morsels (the join's build side)
  std::vector<Array> build_values;  // payload of the build side
};

const IntData& Ints() {
  static const IntData data = [] {
    IntData d;
    std::mt19937_64 rng(1);
    std::vector<int64_t> distinct(kDistinct);
    for (int64_t& v : distinct)
      v = static_cast<int64_t>(rng());
    std::vector<int64_t> keys(kRows), values(kRows), payload(kDistinct);
    for (int64_t i = 0; i < kRows; ++i) {
      keys[i] = distinct[rng() % kDistinct];
      values[i] = i;
    }
    for (int64_t i = 0; i < kDistinct; ++i)
      payload[i] = i;
    d.distinct = Int64Column(distinct);
    d.keys = Morsels(Int64Column(keys));
    d.values = Morsels(Int64Column(values));
    d.build_keys = Morsels(d.distinct);
    d.build_values = Morsels(Int64Column(payload));
    return d;
  }();
  return data;
}

struct StringData {
  std::vector<Array> a, b, values;
};

const StringData& Strings() {
  static const StringData data = [] {
    StringData d;
    std::mt19937_64 rng(2);
    StringBuilder a(utf8()), b(utf8());
    std::vector<int64_t> values(kRows);
    for (int64_t i = 0; i < kRows; ++i) {
      const uint64_t h = rng() % kDistinct;
      a.Append("key_" + std::to_string(h % 1000)).Check();
      b.Append("name_" + std::to_string(h / 1000 % 1000) + "_suffix").Check();
      values[i] = i;
    }
    d.a = Morsels(a.Finish().ValueOrDie());
    d.b = Morsels(b.Finish().ValueOrDie());
    d.values = Morsels(Int64Column(values));
    return d;
  }();
  return data;
}

// SELECT keys, sum(v) GROUP BY keys, over morsels first, first + step, ...
struct GroupedSum {
  std::unique_ptr<KeyTable> table;
  std::vector<int64_t> sums;
  std::vector<uint32_t> ids;

  explicit GroupedSum(std::vector<TypePtr> types)
      : table(KeyTable::Make(std::move(types), true).ValueOrDie()) {}

  void Add(const std::vector<Array>& keys, const int64_t* values) {
    const auto n = static_cast<size_t>(keys[0].length());
    ids.resize(n);
    table->Insert(keys, ids.data()).Check();
    sums.resize(static_cast<size_t>(table->size()), 0);
    for (size_t i = 0; i < n; ++i)
      sums[ids[i]] += values[i];
  }
  void Consume(const std::vector<std::vector<Array>>& columns, const std::vector<Array>& values,
               size_t first, size_t step) {
    for (size_t m = first; m < values.size(); m += step) {
      std::vector<Array> keys;
      for (const auto& column : columns)
        keys.push_back(column[m]);
      Add(keys, values[m].values<int64_t>());
    }
  }
  // Merges another partial aggregate (the second phase).
  void Merge(const GroupedSum& other) {
    std::vector<Array> keys = other.table->Keys().ValueOrDie();
    Add(keys, other.sums.data());
  }
};

void RunGroupedSum(benchmark::State& state, const std::vector<std::vector<Array>>& columns,
                   const std::vector<Array>& values, std::vector<TypePtr> types) {
  const int threads = static_cast<int>(state.range(0));
  int64_t groups = 0, checksum = 0;
  for (auto _ : state) {
    std::vector<GroupedSum> partial;
    for (int t = 0; t < threads; ++t)
      partial.emplace_back(types);
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t)
      workers.emplace_back([&, t] { partial[t].Consume(columns, values, t, threads); });
    partial[0].Consume(columns, values, 0, threads);
    for (auto& w : workers)
      w.join();
    for (int t = 1; t < threads; ++t)
      partial[0].Merge(partial[t]);
    std::vector<Array> keys = partial[0].table->Keys().ValueOrDie();
    benchmark::DoNotOptimize(keys);
    groups = partial[0].table->size();
    checksum = 0;
    for (int64_t s : partial[0].sums)
      checksum += s;
    state.counters["table_MB"] = static_cast<double>(partial[0].table->memory_bytes()) / 1e6;
  }
  state.counters["groups"] = static_cast<double>(groups);
  benchmark::DoNotOptimize(checksum);
  state.SetItemsProcessed(state.iterations() * kRows);
}

void BM_GroupedSumInt64(benchmark::State& state) {
  const IntData& d = Ints();
  RunGroupedSum(state, {d.keys}, d.values, {int64()});
}
BENCHMARK(BM_GroupedSumInt64)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same grouped sum on 2 threads without a merge: every morsel is hashed once and its rows
// split by the top hash bit (a radix partition), then thread p aggregates partition p of all
// morsels into its own table, reusing the hashes (Insert(keys, hashes, ids)). The two tables hold
// disjoint keys.
void BM_GroupedSumInt64Partitioned(benchmark::State& state) {
  const IntData& d = Ints();
  constexpr int kThreads = 2;
  struct Part {
    std::shared_ptr<std::vector<int64_t>> keys = std::make_shared<std::vector<int64_t>>();
    std::vector<int64_t> values;
    std::vector<uint64_t> hashes;
  };
  const size_t morsels = d.keys.size();
  int64_t groups = 0;
  for (auto _ : state) {
    std::vector<std::array<Part, kThreads>> parts(morsels);
    auto partition = [&](size_t first) {
      for (size_t m = first; m < morsels; m += kThreads) {
        Array hashes = compute::HashRows({d.keys[m]}).ValueOrDie();
        const uint64_t* h = hashes.values<uint64_t>();
        const int64_t* k = d.keys[m].values<int64_t>();
        const int64_t* v = d.values[m].values<int64_t>();
        for (int64_t i = 0; i < d.keys[m].length(); ++i) {
          Part& part = parts[m][h[i] >> 63];
          part.keys->push_back(k[i]);
          part.values.push_back(v[i]);
          part.hashes.push_back(h[i]);
        }
      }
    };
    std::vector<GroupedSum> partial;
    for (int t = 0; t < kThreads; ++t)
      partial.emplace_back(std::vector<TypePtr>{int64()});
    auto aggregate = [&](int p) {
      GroupedSum& g = partial[p];
      for (size_t m = 0; m < morsels; ++m) {
        Part& part = parts[m][p];
        const auto n = static_cast<int64_t>(part.keys->size());
        auto data = std::make_shared<ArrayData>();
        data->type = int64();
        data->length = n;
        data->buffers = {nullptr, Buffer::Wrap(reinterpret_cast<const uint8_t*>(part.keys->data()),
                                               n * 8, part.keys)};
        g.ids.resize(static_cast<size_t>(n));
        g.table->Insert({Array(data)}, part.hashes.data(), g.ids.data()).Check();
        g.sums.resize(static_cast<size_t>(g.table->size()), 0);
        for (int64_t i = 0; i < n; ++i)
          g.sums[g.ids[i]] += part.values[i];
      }
    };
    std::thread helper(partition, 1);
    partition(0);
    helper.join();
    std::thread second(aggregate, 1);
    aggregate(0);
    second.join();
    groups = 0;
    for (GroupedSum& g : partial) {
      benchmark::DoNotOptimize(g.table->Keys().ValueOrDie());
      groups += g.table->size();
    }
  }
  state.counters["groups"] = static_cast<double>(groups);
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_GroupedSumInt64Partitioned)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GroupedSumTwoStrings(benchmark::State& state) {
  const StringData& d = Strings();
  RunGroupedSum(state, {d.a, d.b}, d.values, {utf8(), utf8()});
}
BENCHMARK(BM_GroupedSumTwoStrings)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

std::unique_ptr<KeyTable> BuildJoinTable(const IntData& d) {
  auto table = KeyTable::Make({int64()}, false).ValueOrDie();
  std::vector<uint32_t> ids(kMorselRows);
  for (const Array& keys : d.build_keys)
    table->Insert({keys}, ids.data()).Check();
  return table;
}

// The join's build side alone: 1M distinct keys into a fresh table.
void BM_JoinBuild(benchmark::State& state) {
  const IntData& d = Ints();
  for (auto _ : state)
    benchmark::DoNotOptimize(BuildJoinTable(d));
  state.SetItemsProcessed(state.iterations() * kDistinct);
}
BENCHMARK(BM_JoinBuild)->Unit(benchmark::kMillisecond)->UseRealTime();

// SELECT count(*), sum(w) FROM probe JOIN build USING (k): build, then probe with Find and
// gather the build payload by id.
void BM_JoinInt64(benchmark::State& state) {
  const IntData& d = Ints();
  const int threads = static_cast<int>(state.range(0));
  // The payload by build id (ids follow the build rows' order, which is their first appearance).
  std::vector<int64_t> payload;
  for (const Array& v : d.build_values)
    payload.insert(payload.end(), v.values<int64_t>(), v.values<int64_t>() + v.length());
  int64_t matches = 0, sum = 0;
  for (auto _ : state) {
    std::unique_ptr<KeyTable> table = BuildJoinTable(d);
    std::vector<int64_t> counts(threads, 0), sums(threads, 0);
    auto probe = [&](int t) {
      std::vector<uint32_t> ids(kMorselRows);
      for (size_t m = t; m < d.keys.size(); m += threads) {
        table->Find({d.keys[m]}, ids.data()).Check();
        const int64_t n = d.keys[m].length();
        for (int64_t i = 0; i < n; ++i) {
          if (ids[i] != KeyTable::kNotFound) {
            ++counts[t];
            sums[t] += payload[ids[i]];
          }
        }
      }
    };
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t)
      workers.emplace_back(probe, t);
    probe(0);
    for (auto& w : workers)
      w.join();
    matches = sum = 0;
    for (int t = 0; t < threads; ++t) {
      matches += counts[t];
      sum += sums[t];
    }
  }
  state.counters["matches"] = static_cast<double>(matches);
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_JoinInt64)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The share of HashRows in the above: hashing the 10M int64 keys morsel by morsel.
void BM_HashRowsInt64Morsels(benchmark::State& state) {
  const IntData& d = Ints();
  for (auto _ : state) {
    for (const Array& keys : d.keys)
      benchmark::DoNotOptimize(compute::HashRows({keys}).ValueOrDie());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_HashRowsInt64Morsels)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace flotilla

BENCHMARK_MAIN();
