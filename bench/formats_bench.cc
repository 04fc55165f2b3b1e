// Parquet reading and writing through the engine, the same work DuckDB does in
// bench/formats_duckdb.mjs on the same file; bench/formats.sh generates the file and runs both.
//
//   build/bench/formats_bench --query NAME --file LINEITEM.parquet [--threads N] [--repeats N]
//                             [--out FILE]
//
// Queries over the lineitem-like file (16 columns, rows ordered by l_orderkey):
//   scan_all  count(*) and every column folded into a sum the footer's statistics cannot answer
//             (numbers: sum; strings: sum(length); dates: sum(year))
//   scan4     the same for l_orderkey, l_quantity, l_extendedprice, l_shipdate
//   filter    count, sum(l_quantity) WHERE l_orderkey < 15000 (row groups pruned by statistics)
//   write     the whole table, read into memory beforehand, written as zstd Parquet with
//             --threads encoding threads (as DuckDB's COPY gets); kept at --out when given
//             (bench/formats.sh reads it back with both engines)
//
// Output "key value" lines: `check NAME VALUE` (must equal DuckDB's), `seconds S1 S2 ...`,
// `peak_rss_mib M`.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "flotilla/common/thread_pool.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/expr/expression.h"
#include "flotilla/io/parquet/scan_task.h"
#include "flotilla/io/parquet/writer.h"

namespace flotilla::exec {
namespace {

using expr::Column;

struct Options {
  std::string query, file;
  int threads = 2;
  int repeats = 3;
  std::string out;  // write: where the written file is kept ("": removed)
};

Result<PlanPtr> BuildPlan(const Options& o, const io::parquet::ParquetScan& scan) {
  ScanPushdowns pushdowns;
  if (o.query == "scan_all" || o.query == "scan4") {
    std::vector<std::string> columns = scan.schema->field_names();
    if (o.query == "scan4") {
      columns = {"l_orderkey", "l_quantity", "l_extendedprice", "l_shipdate"};
      pushdowns.columns = columns;
    }
    std::vector<AggregateSpec> aggs = {{"count_star", {}, "rows"}};
    for (const std::string& c : columns) {
      const TypeId id = scan.schema->field(scan.schema->GetFieldIndex(c)).type->id();
      expr::ExprPtr value = id == TypeId::kString   ? expr::Call("length", {Column(c)})
                            : id == TypeId::kDate32 ? expr::Call("year", {Column(c)})
                                                    : Column(c);
      aggs.push_back({"sum", {value}, "s_" + c});
    }
    FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, MakeScan(scan.schema, scan.tasks, pushdowns));
    return MakeAggregate(plan, {}, std::move(aggs));
  }
  if (o.query != "filter") return Status::Invalid("unknown query '" + o.query + "'");
  pushdowns.columns = std::vector<std::string>{"l_orderkey", "l_quantity"};
  pushdowns.filter = expr::Less(Column("l_orderkey"), expr::Literal(int64_t{15000}));
  expr::ExprPtr filter = pushdowns.filter;
  FLOTILLA_ASSIGN_OR_RETURN(PlanPtr plan, MakeScan(scan.schema, scan.tasks, pushdowns));
  FLOTILLA_ASSIGN_OR_RETURN(plan, MakeFilter(plan, filter));
  return MakeAggregate(
      plan, {},
      {{"count", {Column("l_orderkey")}, "rows"}, {"sum", {Column("l_quantity")}, "sum_quantity"}});
}

int Fail(const Status& st) {
  std::fprintf(stderr, "%s\n", st.ToString().c_str());
  return 1;
}

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--query")
      o.query = value;
    else if (flag == "--file")
      o.file = value;
    else if (flag == "--threads")
      o.threads = std::atoi(value);
    else if (flag == "--repeats")
      o.repeats = std::atoi(value);
    else if (flag == "--out")
      o.out = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  ThreadPool pool(o.threads);
  ExecOptions options;
  options.pool = &pool;
  options.progress = 0;
  std::vector<double> seconds;
  if (o.query == "write") {
    auto scan = io::parquet::PlanParquetScan({o.file});
    if (!scan.ok()) return Fail(scan.status());
    auto plan = MakeScan(scan->schema, scan->tasks, {});
    if (!plan.ok()) return Fail(plan.status());
    auto result = Run(*plan, options);
    if (!result.ok()) return Fail(result.status());
    std::vector<RecordBatch> batches;
    int64_t rows = 0;
    for (const MicroPartition& p : result->partitions)
      for (const RecordBatch& b : p.batches()) {
        batches.push_back(b);
        rows += b.num_rows();
      }
    std::printf("check rows %lld\n", static_cast<long long>(rows));
    const std::string out = o.out.empty() ? o.file + ".flotilla-write.parquet" : o.out;
    io::parquet::ParquetWriteOptions write_options;
    write_options.codec = io::parquet::Codec::kZstd;
    write_options.encode_threads = o.threads;
    for (int r = 0; r < o.repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      Status st = io::parquet::WriteParquetFile(out, scan->schema, batches, write_options);
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (!st.ok()) return Fail(st);
    }
    if (o.out.empty()) std::remove(out.c_str());
  } else {
    for (int r = 0; r < o.repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      // Planning (opening the footer) is part of the query, as for DuckDB.
      auto scan = io::parquet::PlanParquetScan({o.file});
      if (!scan.ok()) return Fail(scan.status());
      auto plan = BuildPlan(o, *scan);
      if (!plan.ok()) return Fail(plan.status());
      auto result = Run(*plan, options);
      if (!result.ok()) return Fail(result.status());
      auto batch = result->ToBatch();
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (!batch.ok()) return Fail(batch.status());
      if (r == 0) {
        std::printf("check result_rows %lld\n", static_cast<long long>(batch->num_rows()));
        for (int c = 0; c < batch->num_columns(); ++c)
          std::printf("check %s %s\n", batch->schema()->field(c).name.c_str(),
                      batch->column(c).ValueToString(0).c_str());
      }
    }
  }
  std::printf("seconds");
  for (double s : seconds)
    std::printf(" %.4f", s);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("\npeak_rss_mib %.1f\n", usage.ru_maxrss / 1024.0);
  return 0;
}

}  // namespace
}  // namespace flotilla::exec

int main(int argc, char** argv) {
  return flotilla::exec::Main(argc, argv);
}
