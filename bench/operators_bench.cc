// The local engine's operators on generated data, the same queries DuckDB runs in
// bench/operators_duckdb.mjs; bench/operators.sh runs both and prints the ratios.
//
//   build/bench/operators_bench --query NAME [--rows N] [--threads N] [--repeats N]
//                               [--memory-limit BYTES]
//
// Queries (N rows, default 10,000,000; i = 0 .. N-1; h(i) = (i * 2654435761 + 12345) %
// 4294967291, the formulas bench/operators_duckdb.mjs repeats in SQL):
//   group_sum   t(k = (i * 2654435761) % 1000000, v = i % 1000): SELECT k, sum(v) GROUP BY k
//               (1,000,000 groups)
//   join        probe(k = (i * 2654435761) % 1000000, v = i % 1000) JOIN build(k = j,
//               w = j * 3 % 1000) ON k for j < 1,000,000: SELECT v, w (N rows out)
//   sort        t(x = h(i)) ORDER BY x
//   top100      t(x = h(i)) ORDER BY x DESC LIMIT 100
//   row_number  t(p = i % 1000, o = h(i)) row_number() OVER (PARTITION BY p ORDER BY o)
// Each repeat runs the plan to completion with the result materialized in memory.
//
// Output "key value" lines: `check NAME VALUE` (must equal DuckDB's), `seconds S1 S2 ...`,
// `peak_rss_mib M` (the process's high-water mark, input table included), `spilled_bytes B`.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "flotilla/compute/elementwise.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/expr/expression.h"

namespace flotilla::exec {
namespace {

struct Options {
  std::string query;
  int64_t rows = 10'000'000;
  int threads = 2;
  int repeats = 3;
  int64_t memory_limit = 0;
};

int64_t Hash(int64_t i) {
  return (i * 2654435761 + 12345) % 4294967291;
}

Array Int64Column(int64_t n, const std::function<int64_t(int64_t)>& f) {
  BufferPtr values = compute::AllocateUninitializedValues(n, 8).ValueOrDie();
  auto* out = reinterpret_cast<int64_t*>(values->mutable_data());
  for (int64_t i = 0; i < n; ++i)
    out[i] = f(i);
  return compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(values));
}

PlanPtr Table(int64_t n,
              std::vector<std::pair<std::string, std::function<int64_t(int64_t)>>> columns) {
  // Batches of one million rows, as a reader would produce them.
  std::vector<RecordBatch> batches;
  for (int64_t start = 0; start < n; start += 1'000'000) {
    const int64_t rows = std::min<int64_t>(1'000'000, n - start);
    std::vector<std::pair<std::string, Array>> arrays;
    for (auto& [name, f] : columns)
      arrays.emplace_back(name, Int64Column(rows, [&](int64_t i) { return f(start + i); }));
    batches.push_back(RecordBatch::FromColumns(std::move(arrays)).ValueOrDie());
  }
  SchemaPtr schema = batches.front().schema();
  return MakeInMemorySource(schema, std::move(batches)).ValueOrDie();
}

using expr::Column;

PlanPtr BuildPlan(const Options& o) {
  const int64_t n = o.rows;
  auto group_key = [](int64_t i) { return (i * 2654435761) % 1000000; };
  if (o.query == "group_sum") {
    auto t = Table(n, {{"k", group_key}, {"v", [](int64_t i) { return i % 1000; }}});
    return MakeAggregate(t, {Column("k")}, {{"sum", {Column("v")}, "s"}}).ValueOrDie();
  }
  if (o.query == "join") {
    auto probe = Table(n, {{"k", group_key}, {"v", [](int64_t i) { return i % 1000; }}});
    auto build = Table(1'000'000, {{"bk", [](int64_t j) { return j; }},
                                   {"w", [](int64_t j) { return j * 3 % 1000; }}});
    auto join =
        MakeHashJoin(probe, build, {Column("k")}, {Column("bk")}, JoinType::kInner).ValueOrDie();
    return MakeProject(join, {Column("v"), Column("w")}).ValueOrDie();
  }
  if (o.query == "sort") {
    return MakeSort(Table(n, {{"x", Hash}}), {{Column("x")}}).ValueOrDie();
  }
  if (o.query == "top100") {
    return MakeTopN(Table(n, {{"x", Hash}}), {{Column("x"), false, false}}, 100).ValueOrDie();
  }
  if (o.query == "row_number") {
    auto t = Table(n, {{"p", [](int64_t i) { return i % 1000; }}, {"o", Hash}});
    return MakeWindow(t, {Column("p")}, {{Column("o")}}, {{"row_number", {}, std::nullopt, "rn"}})
        .ValueOrDie();
  }
  std::fprintf(stderr, "unknown query '%s'\n", o.query.c_str());
  std::exit(2);
}

/// The checks bench/operators_duckdb.mjs computes too.
void PrintChecks(const Options& o, const RecordBatch& r) {
  const int64_t rows = r.num_rows();
  std::printf("check rows %lld\n", static_cast<long long>(rows));
  auto col = [&](int c) { return r.column(c).values<int64_t>(); };
  if (o.query == "group_sum") {
    int64_t sum = 0, weighted = 0;
    for (int64_t i = 0; i < rows; ++i) {
      sum += col(1)[i];
      weighted += col(0)[i] * col(1)[i];
    }
    std::printf("check sum %lld\ncheck weighted %lld\n", static_cast<long long>(sum),
                static_cast<long long>(weighted));
  } else if (o.query == "join") {
    int64_t sum = 0;
    for (int64_t i = 0; i < rows; ++i)
      sum += col(0)[i] + col(1)[i];
    std::printf("check sum %lld\n", static_cast<long long>(sum));
  } else if (o.query == "sort" || o.query == "top100") {
    int64_t sum = 0, positional = 0;
    bool ordered = true;
    for (int64_t i = 0; i < rows; ++i) {
      sum += col(0)[i];
      positional += (i % 1000) * (col(0)[i] % 1000);
      if (i > 0 && (o.query == "sort" ? col(0)[i - 1] > col(0)[i] : col(0)[i - 1] < col(0)[i]))
        ordered = false;
    }
    std::printf("check sum %lld\ncheck positional %lld\ncheck ordered %d\n",
                static_cast<long long>(sum), static_cast<long long>(positional), ordered ? 1 : 0);
  } else if (o.query == "row_number") {
    int64_t weighted = 0;
    for (int64_t i = 0; i < rows; ++i)
      weighted += col(2)[i] * (col(1)[i] % 1000);
    std::printf("check weighted %lld\n", static_cast<long long>(weighted));
  }
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
    else if (flag == "--repeats")
      o.repeats = std::atoi(value);
    else if (flag == "--memory-limit")
      o.memory_limit = ParseByteSize(value);
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  PlanPtr plan = BuildPlan(o);
  ThreadPool pool(o.threads);
  std::unique_ptr<MemoryManager> memory;
  ExecOptions options;
  options.pool = &pool;
  options.progress = 0;
  if (o.memory_limit > 0) {
    memory = std::make_unique<MemoryManager>(o.memory_limit);
    options.memory = memory.get();
  }
  std::vector<double> seconds;
  int64_t spilled = 0;
  for (int r = 0; r < o.repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto result = Run(plan, options);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result.ok()) {
      std::fprintf(stderr, "%s failed: %s\n", o.query.c_str(), result.status().ToString().c_str());
      return 1;
    }
    seconds.push_back(s);
    spilled = 0;
    for (const auto& stats : result->stats->operators())
      spilled += stats->spilled_bytes.load();
    if (r == 0) PrintChecks(o, result->ToBatch().ValueOrDie());
  }
  std::printf("seconds");
  for (double s : seconds)
    std::printf(" %.4f", s);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("\npeak_rss_mib %.1f\nspilled_bytes %lld\n", usage.ru_maxrss / 1024.0,
              static_cast<long long>(spilled));
  return 0;
}

}  // namespace
}  // namespace flotilla::exec

int main(int argc, char** argv) {
  return flotilla::exec::Main(argc, argv);
}
