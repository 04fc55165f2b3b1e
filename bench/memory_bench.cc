// What each operator that holds rows costs in memory under a budget, measured two ways: the
// memory pool's high-water mark above the input (every column buffer) and the process's resident
// set high-water mark above what it was before the query (everything: buffers, hash-table
// directories, allocator slack). bench/memory.sh runs it per operator and budget and prints the
// table.
//
//   build/bench/memory_bench --query NAME [--rows N] [--threads N] [--memory-limit BYTES]
//
// Input: N rows (default 4,000,000), about 100 bytes each: k = h(i) % (N / 4), v = i % 1000 - 500,
// s = 40 to 120 letters derived from h(i); batches of 100,000 rows, built before measuring.
// Queries (the output is dropped as it arrives, so it is not counted):
//   sort       ORDER BY s
//   aggregate  GROUP BY k: sum(v), min(s)
//   distinct   DISTINCT *
//   join       input JOIN input USING (k) (build side: the whole input)
//   window     row_number(), sum(v) OVER (PARTITION BY k ORDER BY v)
//   top_n      ORDER BY s LIMIT N / 2
//   pivot      PIVOT sum(v) ON sign(v) GROUP BY k
//
// Output "key value" lines: input_mib, pool_peak_mib (above the input), rss_peak_mib (above the
// resident set before the query), spilled_mib, seconds, rows.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/common/memory_pool.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/expr/expression.h"

namespace flotilla::exec {
namespace {

using expr::Column;

struct Options {
  std::string query;
  int64_t rows = 4'000'000;
  int threads = 2;
  int64_t memory_limit = int64_t{256} << 20;
};

uint64_t Hash(int64_t i) {
  return (static_cast<uint64_t>(i) * 2654435761u + 12345) % 4294967291u;
}

/// Kilobytes from a "Name:   123 kB" line of /proc/self/status.
int64_t StatusKiB(const char* name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(name) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::atoll(line.c_str() + prefix.size());
  }
  return -1;
}

std::vector<RecordBatch> Input(int64_t n) {
  std::vector<RecordBatch> batches;
  for (int64_t start = 0; start < n; start += 100'000) {
    const int64_t rows = std::min<int64_t>(100'000, n - start);
    Int64Builder k(int64()), v(int64());
    StringBuilder s(utf8());
    std::string text;
    for (int64_t i = start; i < start + rows; ++i) {
      const uint64_t h = Hash(i);
      (void)k.Append(static_cast<int64_t>(h % static_cast<uint64_t>(std::max<int64_t>(1, n / 4))));
      (void)v.Append(i % 1000 - 500);
      text.assign(40 + h % 81, 'a');
      uint64_t x = h;
      for (char& c : text) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        c = static_cast<char>('a' + (x >> 59) % 26);
      }
      (void)s.Append(text);
    }
    batches.push_back(RecordBatch::FromColumns({{"k", k.Finish().ValueOrDie()},
                                                {"v", v.Finish().ValueOrDie()},
                                                {"s", s.Finish().ValueOrDie()}})
                          .ValueOrDie());
  }
  return batches;
}

PlanPtr BuildPlan(const Options& o, const PlanPtr& t) {
  const std::string& q = o.query;
  if (q == "sort") return MakeSort(t, {{Column("s")}}).ValueOrDie();
  if (q == "aggregate") {
    return MakeAggregate(t, {Column("k")},
                         {{"sum", {Column("v")}, "total"}, {"min", {Column("s")}, "least"}})
        .ValueOrDie();
  }
  if (q == "distinct") return MakeDistinct(t).ValueOrDie();
  if (q == "join") {
    return MakeHashJoin(t, t, {Column("k")}, {Column("k")}, JoinType::kInner).ValueOrDie();
  }
  if (q == "window") {
    return MakeWindow(t, {Column("k")}, {{Column("v")}},
                      {{"row_number", {}, std::nullopt, "rn"},
                       {"sum", {Column("v")}, std::nullopt, "running"}})
        .ValueOrDie();
  }
  if (q == "top_n") return MakeTopN(t, {{Column("s")}}, o.rows / 2).ValueOrDie();
  if (q == "pivot") {
    auto signed_rows =
        MakeProject(t, {Column("k"), Column("v"),
                        expr::Alias(expr::Cast(expr::Call("sign", {Column("v")}), utf8()), "sign")})
            .ValueOrDie();
    return MakePivot(signed_rows, {Column("k")}, Column("sign"), Column("v"), "sum",
                     {"-1", "0", "1"})
        .ValueOrDie();
  }
  std::fprintf(stderr, "unknown query '%s'\n", q.c_str());
  std::exit(2);
}

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--query")
      o.query = value;
    else if (flag == "--rows")
      o.rows = std::atoll(value);
    else if (flag == "--threads")
      o.threads = std::atoi(value);
    else if (flag == "--memory-limit")
      o.memory_limit = ParseByteSize(value);
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  std::vector<RecordBatch> input = Input(o.rows);
  int64_t input_bytes = 0;
  for (const RecordBatch& b : input)
    input_bytes += SliceBytes(b);
  PlanPtr source = MakeInMemorySource(input.front().schema(), input).ValueOrDie();
  PlanPtr plan = BuildPlan(o, source);

  ThreadPool pool(o.threads);
  MemoryManager memory(o.memory_limit);
  ExecOptions options;
  options.pool = &pool;
  options.progress = 0;
  options.memory = &memory;

  MemoryPool* buffers = DefaultMemoryPool();
  const int64_t pool_before = buffers->bytes_allocated();
  buffers->ResetPeak();
  // Writing 5 to clear_refs restarts the resident set's high-water mark (VmHWM) at VmRSS.
  std::ofstream("/proc/self/clear_refs") << "5";
  const int64_t rss_before_kib = StatusKiB("VmRSS");
  const auto start = std::chrono::steady_clock::now();
  int64_t rows = 0, spilled = 0;
  {
    auto stream = Execute(plan, options).ValueOrDie();
    while (true) {
      auto next = stream->Next();
      if (!next.ok()) {
        std::fprintf(stderr, "%s failed: %s\n", o.query.c_str(), next.status().ToString().c_str());
        return 1;
      }
      if (!next->has_value()) break;
      rows += (*next)->batch.num_rows();
    }
    for (const auto& s : stream->stats().operators())
      spilled += s->spilled_bytes.load();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double mib = 1 << 20;
  std::printf(
      "input_mib %.1f\npool_peak_mib %.1f\nrss_peak_mib %.1f\nspilled_mib %.1f\n"
      "seconds %.3f\nrows %lld\n",
      static_cast<double>(input_bytes) / mib,
      static_cast<double>(buffers->peak_bytes() - pool_before) / mib,
      static_cast<double>(StatusKiB("VmHWM") - rss_before_kib) / 1024.0,
      static_cast<double>(spilled) / mib, seconds, static_cast<long long>(rows));
  return 0;
}

}  // namespace
}  // namespace flotilla::exec

int main(int argc, char** argv) {
  return flotilla::exec::Main(argc, argv);
}
