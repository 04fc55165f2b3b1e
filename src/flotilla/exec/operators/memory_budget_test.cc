// Every operator that holds rows stays within the memory budget plus a constant, measured as the
// high-water mark of the memory pool every buffer comes from (not the operators' own accounting,
// which is what could be wrong). The input is built before the clock starts and the output is
// dropped as it arrives, so what the pool's peak rises by is what the operator and the pipeline
// around it held.
//
// The constant: four morsels per thread (the morsel being worked on, what an operator derives
// from it, a spill run's sort or a merge's output chunk) plus kSlackBytes, and what a streaming
// pipeline over the same input holds at once, measured in the same run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>

#include "flotilla/common/memory_pool.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;
using expr::Literal;

constexpr int64_t kRows = 240000;
constexpr int64_t kMorselRows = 4096;
constexpr int kThreads = 2;
constexpr int64_t kBudget = int64_t{4} << 20;
// Headroom for what no morsel accounts for: hash-table directories, merge cursors, spill
// writers' compression buffers.
constexpr int64_t kSlackBytes = int64_t{1} << 20;

/// About 100 bytes a row: a key with about kRows / 4 distinct values, a value and a string of
/// 40 to 120 random letters. Batches of 30,000 rows, as a scan would deliver them.
std::vector<RecordBatch> Input() {
  std::mt19937_64 rng(42);
  std::vector<std::optional<int64_t>> k, v;
  std::vector<std::optional<std::string>> s;
  for (int64_t i = 0; i < kRows; ++i) {
    k.push_back(static_cast<int64_t>(rng() % (kRows / 4)));
    v.push_back(static_cast<int64_t>(rng() % 1000) - 500);
    std::string text(40 + rng() % 81, 'a');
    for (char& c : text)
      c = static_cast<char>('a' + rng() % 26);
    s.push_back(std::move(text));
  }
  RecordBatch all = Batch({{"k", I64(k)}, {"v", I64(v)}, {"s", Strs(s)}});
  std::vector<RecordBatch> batches;
  for (int64_t start = 0; start < kRows; start += 30000)
    batches.push_back(all.Slice(start, std::min<int64_t>(30000, kRows - start)));
  return batches;
}

struct Measured {
  int64_t peak_bytes = 0;  // the pool's high-water mark above what it held before the run
  int64_t spilled_bytes = 0;
  int64_t rows = 0;
};

class MemoryBudgetTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { input_ = new std::vector<RecordBatch>(Input()); }
  static void TearDownTestSuite() {
    delete input_;
    input_ = nullptr;
  }
  void SetUp() override {
    spill_dir_ = std::filesystem::temp_directory_path() /
                 ("flotilla-memory-budget-" + std::to_string(::getpid()));
    std::filesystem::create_directories(spill_dir_);
  }
  void TearDown() override { std::filesystem::remove_all(spill_dir_); }

  static PlanPtr Source() { return MemorySource(*input_); }

  Measured Measure(const PlanPtr& plan, int64_t budget = kBudget) {
    MemoryManager memory(budget);
    ExecOptions options = OptionsFor({kThreads, kMorselRows, false});
    options.memory = &memory;
    options.spill_dirs = {spill_dir_.string()};
    MemoryPool* pool = DefaultMemoryPool();
    const int64_t before = pool->bytes_allocated();
    pool->ResetPeak();
    Measured m;
    {
      auto stream = Execute(plan, options);
      EXPECT_TRUE(stream.ok()) << stream.status().ToString();
      if (!stream.ok()) return m;
      while (true) {
        auto next = (*stream)->Next();
        EXPECT_TRUE(next.ok()) << next.status().ToString();
        if (!next.ok() || !next->has_value()) break;
        m.rows += (*next)->batch.num_rows();
      }
      for (const auto& s : (*stream)->stats().operators())
        m.spilled_bytes += s->spilled_bytes.load();
    }
    m.peak_bytes = pool->peak_bytes() - before;
    EXPECT_EQ(memory.reserved(), 0) << "reservations left after the query";
    return m;
  }

  /// What an operator may hold: the budget plus a streaming pipeline's morsels plus slack.
  int64_t Allowed() {
    if (streaming_peak_ < 0) {
      streaming_peak_ =
          Measure(MakeFilter(Source(), expr::GreaterEqual(Column("v"), Literal(int64_t{-1000})))
                      .ValueOrDie())
              .peak_bytes;
    }
    const int64_t morsel_bytes = InputBytes() * kMorselRows / kRows;
    return kBudget + streaming_peak_ + kThreads * 4 * morsel_bytes + kSlackBytes;
  }

  /// Runs `plan` under the budget; expects `rows` output rows, spilling when `must_spill`, and
  /// the pool's peak within Allowed(). Prints the figures (the docs' table comes from them).
  void ExpectWithinBudget(const std::string& what, const PlanPtr& plan, int64_t rows,
                          bool must_spill = true) {
    const int64_t allowed = Allowed();
    Measured m = Measure(plan);
    std::printf("%-34s peak %6.2f MiB (allowed %5.2f MiB)  spilled %7.2f MiB\n", what.c_str(),
                static_cast<double>(m.peak_bytes) / (1 << 20),
                static_cast<double>(allowed) / (1 << 20),
                static_cast<double>(m.spilled_bytes) / (1 << 20));
    EXPECT_EQ(m.rows, rows) << what;
    if (must_spill) {
      EXPECT_GT(m.spilled_bytes, 0) << what << " did not spill";
    }
    EXPECT_LE(m.peak_bytes, allowed)
        << what << " held " << m.peak_bytes << " bytes under a " << kBudget << "-byte budget";
  }

  static int64_t InputBytes() {
    int64_t bytes = 0;
    for (const RecordBatch& b : *input_)
      bytes += SliceBytes(b);
    return bytes;
  }

  static std::vector<RecordBatch>* input_;
  std::filesystem::path spill_dir_;
  int64_t streaming_peak_ = -1;
};

std::vector<RecordBatch>* MemoryBudgetTest::input_ = nullptr;

TEST_F(MemoryBudgetTest, TheInputIsManyTimesTheBudget) {
  EXPECT_GT(InputBytes(), 5 * kBudget);
  // What the allowance adds to the budget is a few morsels, not the input.
  EXPECT_LT(Allowed() - kBudget, InputBytes() / 4);
}

TEST_F(MemoryBudgetTest, Sort) {
  ExpectWithinBudget("sort by a string",
                     MakeSort(Source(), {{Column("s"), true, false}}).ValueOrDie(), kRows);
}

TEST_F(MemoryBudgetTest, Aggregate) {
  auto plan = MakeAggregate(Source(), {Column("k")},
                            {{"sum", {Column("v")}, "total"}, {"min", {Column("s")}, "first"}})
                  .ValueOrDie();
  Measured all =
      Measure(MakeDistinct(MakeProject(Source(), {Column("k")}).ValueOrDie()).ValueOrDie(),
              int64_t{1} << 40);
  ExpectWithinBudget("aggregate by k (sum, min)", plan, all.rows);
}

TEST_F(MemoryBudgetTest, Distinct) {
  ExpectWithinBudget("distinct rows", MakeDistinct(Source()).ValueOrDie(), kRows);
}

TEST_F(MemoryBudgetTest, HashJoin) {
  // Every row of the build side is the probe side's too: the join output is the sum over keys of
  // count squared, computed here without the engine.
  std::vector<int64_t> counts(kRows / 4, 0);
  for (const RecordBatch& b : *input_) {
    const Array& k = b.column(0);
    for (int64_t i = 0; i < b.num_rows(); ++i)
      ++counts[static_cast<size_t>(k.values<int64_t>()[i])];
  }
  int64_t pairs = 0;
  for (int64_t c : counts)
    pairs += c * c;
  auto plan =
      MakeHashJoin(Source(), Source(), {Column("k")}, {Column("k")}, JoinType::kInner).ValueOrDie();
  ExpectWithinBudget("hash join (build side = input)", plan, pairs);
}

TEST_F(MemoryBudgetTest, Window) {
  auto plan = MakeWindow(Source(), {Column("k")}, {{Column("v"), true, false}},
                         {{"row_number", {}, std::nullopt, "rn"},
                          {"sum", {Column("v")}, std::nullopt, "running"}})
                  .ValueOrDie();
  ExpectWithinBudget("window by k (row_number, sum)", plan, kRows);
}

TEST_F(MemoryBudgetTest, TopNOfMostRows) {
  // N far past what fits: top-N cannot keep its best rows in memory.
  const int64_t n = kRows * 3 / 4;
  auto plan = MakeTopN(Source(), {{Column("s"), true, false}}, n).ValueOrDie();
  ExpectWithinBudget("top-N, N = 3/4 of the rows", plan, n);
}

TEST_F(MemoryBudgetTest, TopNOfFewRowsSpillsNothing) {
  auto plan = MakeTopN(Source(), {{Column("s"), true, false}}, 100).ValueOrDie();
  ExpectWithinBudget("top-N, N = 100", plan, 100, /*must_spill=*/false);
}

TEST_F(MemoryBudgetTest, Pivot) {
  auto names = MakeProject(Source(), {Column("k")}).ValueOrDie();
  Measured groups = Measure(MakeDistinct(names).ValueOrDie(), int64_t{1} << 40);
  // Pivot on v's sign: three names.
  auto with_sign = MakeProject(Source(), {Column("k"), Column("v"),
                                          expr::Alias(expr::Call("sign", {Column("v")}), "sign")})
                       .ValueOrDie();
  auto plan = MakePivot(with_sign, {Column("k")}, expr::Cast(Column("sign"), utf8()), Column("v"),
                        "sum", {"-1", "0", "1"})
                  .ValueOrDie();
  ExpectWithinBudget("pivot by k (3 names)", plan, groups.rows);
}

}  // namespace
}  // namespace flotilla::exec
