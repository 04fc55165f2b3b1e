#pragma once
// Test helpers for the local engine: small batches, plans run under several thread counts and
// morsel sizes, and row-level comparison of results.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "flotilla/compute/concat.h"
#include "flotilla/exec/memory/memory_manager.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/pipeline/pipeline_builder.h"
#include "flotilla/exec/plan/physical_plan.h"
#include "tests/support/canonical_json.h"
#include "tests/support/literal_arrays.h"

namespace flotilla::testing {

// The local engine's tests speak its terms (plans, options, results).
using namespace ::flotilla::exec;  // NOLINT

inline RecordBatch Batch(std::vector<std::pair<std::string, Array>> columns) {
  return RecordBatch::FromColumns(std::move(columns)).ValueOrDie();
}

/// A source of `batches` (one partition).
inline PlanPtr MemorySource(std::vector<RecordBatch> batches) {
  SchemaPtr schema = batches.front().schema();
  return MakeInMemorySource(schema, std::move(batches)).ValueOrDie();
}

/// The configurations every operator test runs under: one thread with big morsels, several
/// threads with tiny morsels (every row its own morsel), order kept or not.
struct RunMode {
  int threads;
  int64_t morsel_size;
  bool maintain_order;
  std::string ToString() const {
    return std::to_string(threads) + " thread(s), morsels of " + std::to_string(morsel_size) +
           (maintain_order ? ", ordered" : ", unordered");
  }
};

inline std::vector<RunMode> AllModes() {
  return {{1, 131072, true}, {4, 1, true}, {3, 2, false}, {2, 7, true}};
}

inline ThreadPool* PoolOf(int threads) {
  static ThreadPool one(1), two(2), three(3), four(4);
  switch (threads) {
    case 1:
      return &one;
    case 2:
      return &two;
    case 3:
      return &three;
    default:
      return &four;
  }
}

inline ExecOptions OptionsFor(const RunMode& mode) {
  ExecOptions options;
  options.pool = PoolOf(mode.threads);
  options.morsel_size = mode.morsel_size;
  options.maintain_order = mode.maintain_order;
  options.progress = 0;
  return options;
}

inline Result<RecordBatch> RunToBatch(const PlanPtr& plan, const ExecOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(QueryResult result, Run(plan, options));
  return result.ToBatch();
}

/// Checks `actual` holds the rows of `expected` (same column types), in the same order when
/// `ordered`, as a multiset otherwise.
inline void ExpectRows(const RecordBatch& actual, const RecordBatch& expected, bool ordered,
                       const std::string& context = "") {
  ASSERT_EQ(actual.num_columns(), expected.num_columns()) << context;
  for (int c = 0; c < actual.num_columns(); ++c) {
    EXPECT_TRUE(actual.column(c).type()->Equals(*expected.column(c).type()))
        << context << ": column " << c << " is " << actual.column(c).type()->ToString()
        << ", expected " << expected.column(c).type()->ToString();
  }
  std::vector<std::string> a = CanonicalRows(actual);
  std::vector<std::string> e = CanonicalRows(expected);
  if (!ordered) {
    std::sort(a.begin(), a.end());
    std::sort(e.begin(), e.end());
  }
  if (a == e) return;
  size_t i = 0;
  while (i < a.size() && i < e.size() && a[i] == e[i])
    ++i;
  ADD_FAILURE() << context << ": " << a.size() << " rows, expected " << e.size()
                << "; first difference at row " << i << ": "
                << (i < a.size() ? a[i] : std::string("(none)")) << " vs expected "
                << (i < e.size() ? e[i] : std::string("(none)"));
}

/// Runs `plan` in every mode and compares with `expected`. `ordered`: input order is kept, so
/// the rows must come in the expected order in the modes that maintain order; plans that sort
/// are checked for order in every mode.
inline void ExpectPlanRows(const PlanPtr& plan, const RecordBatch& expected, bool ordered) {
  for (const RunMode& mode : AllModes()) {
    auto result = RunToBatch(plan, OptionsFor(mode));
    ASSERT_TRUE(result.ok()) << mode.ToString() << ": " << result.status().ToString();
    const bool check_order = ordered && (mode.maintain_order || HasDefinedOrder(*plan));
    ExpectRows(*result, expected, check_order, mode.ToString());
  }
}

/// A fresh directory for one test's spill files, removed with everything in it at the end.
class ScopedSpillDir {
 public:
  explicit ScopedSpillDir(const std::string& name)
      : path_(::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid())) {
    std::filesystem::create_directories(path_);
  }
  ~ScopedSpillDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScopedSpillDir(const ScopedSpillDir&) = delete;
  ScopedSpillDir& operator=(const ScopedSpillDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Runs `plan` in every mode under a `budget_bytes` memory budget with spill files under
/// `spill_dir`, and expects `expected`'s rows (in order when `ordered`, in the modes that keep
/// order or for plans that sort), spilled bytes, the budget all released and no spill file left.
inline void ExpectSameRowsWhenSpilling(const PlanPtr& plan, const RecordBatch& expected,
                                       bool ordered, int64_t budget_bytes,
                                       const std::string& spill_dir, int64_t min_morsel = 97) {
  for (const RunMode& mode : AllModes()) {
    MemoryManager small(budget_bytes);
    ExecOptions options = OptionsFor(mode);
    options.memory = &small;
    options.spill_dirs = {spill_dir};
    options.morsel_size = std::max<int64_t>(mode.morsel_size, min_morsel);
    auto result = exec::Run(plan, options);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ExpectRows(result->ToBatch().ValueOrDie(), expected,
               ordered && (mode.maintain_order || HasDefinedOrder(*plan)), mode.ToString());
    int64_t spilled = 0;
    for (const auto& s : result->stats->operators())
      spilled += s->spilled_bytes.load();
    EXPECT_GT(spilled, 0) << mode.ToString();
    EXPECT_EQ(small.reserved(), 0);
    EXPECT_TRUE(std::filesystem::is_empty(spill_dir)) << "spill files left behind";
  }
}

}  // namespace flotilla::testing
