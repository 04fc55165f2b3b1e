// TPC-H Q1's filter and projections evaluated by the expression layer over generated lineitem
// rows, the same expressions DuckDB evaluates over the same rows in bench/expr_q1_duckdb.mjs.
// Run both through the driver, which checks the data is identical and prints the ratio:
//
//   make bench                  (builds, runs every benchmark, this one via bench/expr_q1.sh)
//   bench/expr_q1.sh [BUILD_DIR]  (just this one; BUILD_DIR defaults to build)
//
// or this side alone:
//
//   build/bench/expr_q1_bench [--rows N] [--batch-rows N] [--threads 1,2] [--repeats N]
//                             [--breakdown]
//
// Timed, per repeat: over every batch (morsel) of the in-memory table, the predicate
//   l_shipdate <= date_sub(date '1998-12-01', 90, 'day')
// then Filter of the columns the projections read, then the projections
//   l_returnflag, l_linestatus, l_quantity, l_extendedprice,
//   disc_price = l_extendedprice * (1 - l_discount),
//   charge = l_extendedprice * (1 - l_discount) * (1 + l_tax), l_discount
// into result batches kept in memory (as DuckDB's CREATE TEMP TABLE materialises them). With
// several threads, each pulls the next batch from a shared counter until none is left.
//
// Output, "key value" lines the driver reads:
//   checksum NAME VALUE             of the generated data; must equal DuckDB's
//   seconds THREADS S1 S2 ...       wall time of each repeat
//   sum_charge VALUE                exact sum of charge over the selected rows
//   breakdown STEP MS NS_PER_ROW    (--breakdown) one thread, time of each step over all batches

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/columnar/decimal.h"
#include "flotilla/columnar/record_batch.h"
#include "flotilla/compute/filter.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/expression.h"

namespace flotilla {
namespace {

using expr::ExprPtr;

struct Options {
  int64_t rows = 6'000'000;
  int64_t batch_rows = 65'536;
  std::vector<int> threads = {1, 2};
  int repeats = 5;
  bool breakdown = false;
};

// ---- Data -----------------------------------------------------------------------------------
// Every value is an integer formula of the row index i, written identically in
// expr_q1_duckdb.mjs, so both engines hold the same rows without a file format between them.
// h spreads consecutive rows over [0, 2^32); products stay far below 2^63 for i < 10^9.
//   h               = (i * 2654435761 + 12345) % 4294967291
//   l_quantity      = h % 50 + 1                                      (1..50)
//   l_extendedprice = (h % 50 + 1) * (90000 + (i * 7919 + 13) % 110000) cents
//   l_discount      = (h / 50) % 11 cents                             (0.00..0.10)
//   l_tax           = (h / 550) % 9 cents                             (0.00..0.08)
//   l_returnflag    = "ANR"[(h / 4950) % 3]
//   l_shipdate      = 1992-01-02 + (h / 14850) % 2526 days            (..1998-12-01)
//   l_linestatus    = l_shipdate > 1995-06-17 ? "O" : "F"

int64_t RowHash(int64_t i) {
  return (i * 2654435761 + 12345) % 4294967291;
}

SchemaPtr LineitemSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      {"l_quantity", decimal128(15, 2)},
      {"l_extendedprice", decimal128(15, 2)},
      {"l_discount", decimal128(15, 2)},
      {"l_tax", decimal128(15, 2)},
      {"l_returnflag", utf8()},
      {"l_linestatus", utf8()},
      {"l_shipdate", date32()},
  });
}

Result<RecordBatch> GenerateBatch(const SchemaPtr& schema, int64_t begin, int64_t end) {
  const int32_t first_shipdate = DaysFromCivil(1992, 1, 2);
  const int32_t open_after = DaysFromCivil(1995, 6, 17);
  FixedSizeBinaryBuilder quantity(decimal128(15, 2)), price(decimal128(15, 2)),
      discount(decimal128(15, 2)), tax(decimal128(15, 2));
  StringBuilder returnflag(utf8()), linestatus(utf8());
  Int32Builder shipdate(date32());
  for (int64_t i = begin; i < end; ++i) {
    const int64_t h = RowHash(i);
    const int64_t units = h % 50 + 1;
    const int32_t day = first_shipdate + static_cast<int32_t>((h / 14850) % 2526);
    FLOTILLA_RETURN_NOT_OK(quantity.AppendDecimal(units * 100));
    FLOTILLA_RETURN_NOT_OK(price.AppendDecimal(units * (90000 + (i * 7919 + 13) % 110000)));
    FLOTILLA_RETURN_NOT_OK(discount.AppendDecimal((h / 50) % 11));
    FLOTILLA_RETURN_NOT_OK(tax.AppendDecimal((h / 550) % 9));
    FLOTILLA_RETURN_NOT_OK(returnflag.Append(std::string_view("ANR" + (h / 4950) % 3, 1)));
    FLOTILLA_RETURN_NOT_OK(linestatus.Append(day > open_after ? "O" : "F"));
    FLOTILLA_RETURN_NOT_OK(shipdate.Append(day));
  }
  std::vector<Array> columns;
  for (ArrayBuilder* b : std::initializer_list<ArrayBuilder*>{
           &quantity, &price, &discount, &tax, &returnflag, &linestatus, &shipdate}) {
    FLOTILLA_ASSIGN_OR_RETURN(Array column, b->Finish());
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema, std::move(columns), end - begin);
}

// Separate buffers per batch, as a scan would hand them out.
Result<std::vector<RecordBatch>> Generate(const Options& options) {
  SchemaPtr schema = LineitemSchema();
  std::vector<RecordBatch> batches;
  for (int64_t begin = 0; begin < options.rows; begin += options.batch_rows) {
    FLOTILLA_ASSIGN_OR_RETURN(
        RecordBatch batch,
        GenerateBatch(schema, begin, std::min(options.rows, begin + options.batch_rows)));
    batches.push_back(std::move(batch));
  }
  return batches;
}

Int128 DecimalSum(const Array& column) {
  Int128 sum = 0;
  const Int128* v = column.values<Int128>();
  for (int64_t i = 0; i < column.length(); ++i)
    sum += v[i];
  return sum;
}

// Read back from the arrays (not recomputed from the formulas), so they check what is timed.
// Names and formats match expr_q1_duckdb.mjs.
void PrintChecksums(const std::vector<RecordBatch>& batches) {
  const int32_t cutoff = DaysFromCivil(1998, 9, 2);
  int64_t rows = 0, shipdate_sum = 0, shipdate_le = 0, flag_a = 0, flag_r = 0, status_o = 0;
  Int128 sums[4] = {0, 0, 0, 0};
  for (const RecordBatch& b : batches) {
    rows += b.num_rows();
    for (int c = 0; c < 4; ++c)
      sums[c] += DecimalSum(b.column(c));
    const int32_t* days = b.column(6).values<int32_t>();
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      shipdate_sum += days[i];
      shipdate_le += days[i] <= cutoff;
      flag_a += b.column(4).GetView(i) == "A";
      flag_r += b.column(4).GetView(i) == "R";
      status_o += b.column(5).GetView(i) == "O";
    }
  }
  fmt::print("checksum rows {}\n", rows);
  const char* names[4] = {"sum_quantity", "sum_extendedprice", "sum_discount", "sum_tax"};
  for (int c = 0; c < 4; ++c)
    fmt::print("checksum {} {}\n", names[c], DecimalToString(sums[c], 2));
  fmt::print("checksum sum_shipdate_days {}\n", shipdate_sum);
  fmt::print("checksum count_shipdate_le_1998_09_02 {}\n", shipdate_le);
  fmt::print("checksum count_returnflag_a {}\n", flag_a);
  fmt::print("checksum count_returnflag_r {}\n", flag_r);
  fmt::print("checksum count_linestatus_o {}\n", status_o);
  std::fflush(stdout);  // lets a profiler attach once generation is done
}

// ---- The query ------------------------------------------------------------------------------

ExprPtr DiscPrice() {
  using namespace expr;
  return Multiply(Column("l_extendedprice"), Subtract(Literal(1), Column("l_discount")));
}

ExprPtr Charge() {
  using namespace expr;
  return Multiply(DiscPrice(), Add(Literal(1), Column("l_tax")));
}

struct Query {
  expr::BoundExpression predicate;                 // over the lineitem schema
  std::vector<int> inputs;                         // the lineitem columns the projections read
  SchemaPtr input_schema;                          // those columns
  std::vector<expr::BoundExpression> projections;  // over input_schema, filtered rows
  SchemaPtr output_schema;
};

Result<Query> MakeQuery(const SchemaPtr& lineitem) {
  using namespace expr;
  Query q;
  ExprPtr cutoff = Call("date_sub", {DateLiteral(1998, 12, 1), Literal(90), Literal("day")});
  FLOTILLA_ASSIGN_OR_RETURN(q.predicate, Bind(LessEqual(Column("l_shipdate"), cutoff), *lineitem));

  const std::vector<ExprPtr> projections = {
      Column("l_returnflag"),    Column("l_linestatus"),           Column("l_quantity"),
      Column("l_extendedprice"), Alias(DiscPrice(), "disc_price"), Alias(Charge(), "charge"),
      Column("l_discount"),
  };
  std::vector<Field> input_fields;
  for (const char* name :
       {"l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus"}) {
    FLOTILLA_ASSIGN_OR_RETURN(int index, lineitem->FindField(name));
    q.inputs.push_back(index);
    input_fields.push_back(lineitem->field(index));
  }
  q.input_schema = std::make_shared<Schema>(std::move(input_fields));
  std::vector<Field> output_fields;
  for (const ExprPtr& p : projections) {
    FLOTILLA_ASSIGN_OR_RETURN(BoundExpression bound, Bind(p, *q.input_schema));
    output_fields.push_back({bound.name, bound.type()});
    q.projections.push_back(std::move(bound));
  }
  q.output_schema = std::make_shared<Schema>(std::move(output_fields));
  return q;
}

Result<RecordBatch> RunBatch(const Query& q, const RecordBatch& batch) {
  FLOTILLA_ASSIGN_OR_RETURN(expr::Datum mask, expr::Evaluate(q.predicate, batch));
  FLOTILLA_ASSIGN_OR_RETURN(Array mask_column, mask.ToColumn(batch.num_rows()));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch inputs, batch.SelectColumns(q.inputs));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch selected, compute::Filter(inputs, mask_column));
  std::vector<Array> columns;
  for (const expr::BoundExpression& p : q.projections) {
    FLOTILLA_ASSIGN_OR_RETURN(expr::Datum value, expr::Evaluate(p, selected));
    FLOTILLA_ASSIGN_OR_RETURN(Array column, value.ToColumn(selected.num_rows()));
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(q.output_schema, std::move(columns), selected.num_rows());
}

// Morsel-driven: each thread takes the next batch index until none is left; results land in
// the batch's own slot, so no lock is taken.
Result<std::vector<RecordBatch>> RunQuery(const Query& q, const std::vector<RecordBatch>& input,
                                          int threads) {
  std::vector<RecordBatch> out(input.size());
  std::vector<Status> errors(threads);
  std::atomic<size_t> next{0};
  auto work = [&](int t) {
    for (size_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < input.size();) {
      Result<RecordBatch> r = RunBatch(q, input[b]);
      if (!r.ok()) {
        errors[t] = r.status();
        next.store(input.size());
        return;
      }
      out[b] = r.MoveValueUnsafe();
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t)
    helpers.emplace_back(work, t);
  work(0);
  for (std::thread& h : helpers)
    h.join();
  for (const Status& s : errors)
    FLOTILLA_RETURN_NOT_OK(s);
  return out;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// ---- Where the time goes (one thread) -------------------------------------------------------

struct Step {
  std::string name;
  double seconds = 0;
};

// Times each step of RunBatch separately, plus the sub-expressions of the two computed
// projections, over all batches.
Status Breakdown(const Query& q, const std::vector<RecordBatch>& input) {
  using namespace expr;
  std::vector<std::pair<std::string, ExprPtr>> parts = {
      {"1 - l_discount", Subtract(Literal(1), Column("l_discount"))},
      {"1 + l_tax", Add(Literal(1), Column("l_tax"))},
  };
  std::vector<BoundExpression> bound_parts;
  for (auto& [name, e] : parts) {
    FLOTILLA_ASSIGN_OR_RETURN(BoundExpression b, Bind(e, *q.input_schema));
    bound_parts.push_back(std::move(b));
  }
  std::vector<Step> steps = {{"predicate"}, {"filter"}};
  for (const BoundExpression& p : q.projections)
    steps.push_back({"project " + p.name});
  for (auto& [name, e] : parts)
    steps.push_back({"  part " + name});

  int64_t rows = 0;
  for (const RecordBatch& batch : input) {
    rows += batch.num_rows();
    auto start = std::chrono::steady_clock::now();
    FLOTILLA_ASSIGN_OR_RETURN(Datum mask, Evaluate(q.predicate, batch));
    steps[0].seconds += Seconds(start);
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch columns, batch.SelectColumns(q.inputs));
    start = std::chrono::steady_clock::now();
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch selected, compute::Filter(columns, mask.array()));
    steps[1].seconds += Seconds(start);
    size_t s = 2;
    for (const BoundExpression& p : q.projections) {
      start = std::chrono::steady_clock::now();
      FLOTILLA_ASSIGN_OR_RETURN(Datum value, Evaluate(p, selected));
      steps[s++].seconds += Seconds(start);
    }
    for (const BoundExpression& p : bound_parts) {
      start = std::chrono::steady_clock::now();
      FLOTILLA_ASSIGN_OR_RETURN(Datum value, Evaluate(p, selected));
      steps[s++].seconds += Seconds(start);
    }
  }
  for (const Step& step : steps) {
    fmt::print("breakdown {:<32} {:8.1f} ms {:6.2f} ns/row\n", step.name, step.seconds * 1e3,
               step.seconds * 1e9 / static_cast<double>(rows));
  }
  return Status::OK();
}

// ---- Main -----------------------------------------------------------------------------------

Result<std::vector<int>> ParseThreadList(std::string_view text) {
  std::vector<int> out;
  while (!text.empty()) {
    const size_t comma = std::min(text.find(','), text.size());
    int value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + comma, value);
    if (error != std::errc() || end != text.data() + comma || value < 1) {
      return Status::Invalid("--threads expects a list like 1,2 of counts >= 1");
    }
    out.push_back(value);
    text.remove_prefix(std::min(comma + 1, text.size()));
  }
  if (out.empty()) return Status::Invalid("--threads expects a list like 1,2");
  return out;
}

Result<Options> ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--breakdown") {
      o.breakdown = true;
      continue;
    }
    if (i + 1 >= argc)
      return Status::Invalid("unknown or incomplete option '" + std::string(arg) + "'");
    const std::string_view value = argv[++i];
    auto number = [&](int64_t* out) -> Status {
      auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), *out);
      if (error != std::errc() || end != value.data() + value.size() || *out < 1) {
        return Status::Invalid(std::string(arg) + " expects a positive integer, got '" +
                               std::string(value) + "'");
      }
      return Status::OK();
    };
    int64_t n = 0;
    if (arg == "--rows") {
      FLOTILLA_RETURN_NOT_OK(number(&o.rows));
    } else if (arg == "--batch-rows") {
      FLOTILLA_RETURN_NOT_OK(number(&o.batch_rows));
    } else if (arg == "--repeats") {
      FLOTILLA_RETURN_NOT_OK(number(&n));
      o.repeats = static_cast<int>(n);
    } else if (arg == "--threads") {
      FLOTILLA_ASSIGN_OR_RETURN(o.threads, ParseThreadList(value));
    } else {
      return Status::Invalid("unknown option '" + std::string(arg) + "'");
    }
  }
  return o;
}

Status Run(const Options& options) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, Generate(options));
  PrintChecksums(batches);
  FLOTILLA_ASSIGN_OR_RETURN(Query query, MakeQuery(batches.front().schema()));

  std::vector<RecordBatch> results;
  for (int threads : options.threads) {
    fmt::print("seconds {}", threads);
    for (int r = 0; r < options.repeats; ++r) {
      results.clear();  // freeing the previous results is not part of the next run
      const auto start = std::chrono::steady_clock::now();
      FLOTILLA_ASSIGN_OR_RETURN(results, RunQuery(query, batches, threads));
      fmt::print(" {:.6f}", Seconds(start));
    }
    fmt::print("\n");
  }

  const int charge = query.output_schema->GetFieldIndex("charge");
  Int128 sum = 0;
  for (const RecordBatch& b : results) {
    if (b.column(charge).null_count() > 0) return Status::Internal("charge has nulls");
    sum += DecimalSum(b.column(charge));
  }
  fmt::print("sum_charge {}\n",
             DecimalToString(sum, query.output_schema->field(charge).type->scale()));
  fmt::print("charge_type {}\n", query.output_schema->field(charge).type->ToString());
  if (options.breakdown) FLOTILLA_RETURN_NOT_OK(Breakdown(query, batches));
  return Status::OK();
}

}  // namespace
}  // namespace flotilla

int main(int argc, char** argv) {
  flotilla::Result<flotilla::Options> options = flotilla::ParseOptions(argc, argv);
  if (!options.ok()) {
    fmt::print(stderr, "expr_q1_bench: {}\n", options.status().ToString());
    fmt::print(stderr,
               "usage: expr_q1_bench [--rows N] [--batch-rows N] [--threads 1,2] "
               "[--repeats N] [--breakdown]\n");
    return 2;
  }
  flotilla::Status status = flotilla::Run(*options);
  if (!status.ok()) {
    fmt::print(stderr, "expr_q1_bench: {}\n", status.ToString());
    return 1;
  }
  return 0;
}
