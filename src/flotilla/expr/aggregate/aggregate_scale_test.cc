// Large inputs: one huge group, 100k groups, and the accuracy of the approximate aggregates.

#include <algorithm>
#include <random>

#include "tests/support/aggregate_runs.h"

namespace flotilla::expr {

using namespace flotilla::testing;  // NOLINT

namespace {

Array Int64Column(const std::vector<int64_t>& values) {
  Int64Builder builder(int64());
  builder.AppendValues(values.data(), static_cast<int64_t>(values.size())).Check();
  return builder.Finish().ValueOrDie();
}

Array DoubleColumn(const std::vector<double>& values) {
  DoubleBuilder builder(float64());
  builder.AppendValues(values.data(), static_cast<int64_t>(values.size())).Check();
  return builder.Finish().ValueOrDie();
}

TEST(AggregateScale, SingleHugeGroup) {
  const int64_t n = 2'000'000;
  std::vector<int64_t> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = i;
  Array x = Int64Column(values);
  const std::vector<uint32_t> groups(n, 0);
  EXPECT_EQ(RunSingle("count", {x}, groups, 1).ValueOrDie().ToString(), "[2000000]");
  EXPECT_EQ(RunSingle("sum", {x}, groups, 1).ValueOrDie().ToString(), "[1999999000000]");
  EXPECT_EQ(RunSingle("min", {x}, groups, 1).ValueOrDie().ToString(), "[0]");
  EXPECT_EQ(RunSingle("max", {x}, groups, 1).ValueOrDie().ToString(), "[1999999]");
  EXPECT_EQ(RunSingle("count_distinct", {x}, groups, 1).ValueOrDie().ToString(), "[2000000]");
  Array mean = RunSingle("mean", {x}, groups, 1).ValueOrDie();
  EXPECT_DOUBLE_EQ(mean.values<double>()[0], 999999.5);
  // Variance of 0..n-1 is (n^2 - 1) / 12.
  Array var = RunSingle("var_pop", {x}, groups, 1).ValueOrDie();
  EXPECT_NEAR(var.values<double>()[0], (static_cast<double>(n) * n - 1) / 12, 1e-3);
  Array merged = RunSplit("var_samp", {x}, groups, 1, 3, true).ValueOrDie();
  EXPECT_NEAR(merged.values<double>()[0], (static_cast<double>(n) * n - 1) / 12 * n / (n - 1),
              1e-3);
  Array lists = RunSingle("list", {x}, groups, 1).ValueOrDie();
  EXPECT_EQ(lists.ValueLength(0), n);
}

TEST(AggregateScale, HundredThousandGroups) {
  const int64_t groups_count = 100'000, n = 400'000;
  std::vector<int64_t> values(n);
  std::vector<uint32_t> groups(n);
  for (int64_t i = 0; i < n; ++i) {
    values[i] = i;
    groups[i] = static_cast<uint32_t>((i * 7919) % groups_count);
  }
  Array x = Int64Column(values);
  // Each group g gets the 4 rows i = g * 7919^-1 (mod 100k) + k * 100k; check sums exactly.
  Array sums = RunSingle("sum", {x}, groups, groups_count).ValueOrDie();
  Array counts = RunSingle("count", {x}, groups, groups_count).ValueOrDie();
  std::vector<int64_t> expected(groups_count, 0);
  for (int64_t i = 0; i < n; ++i)
    expected[groups[i]] += values[i];
  for (int64_t g = 0; g < groups_count; ++g) {
    ASSERT_EQ(sums.values<int64_t>()[g], expected[g]) << g;
    ASSERT_EQ(counts.values<int64_t>()[g], 4) << g;
  }
  for (const char* f : {"sum", "min", "first", "last", "count_distinct", "approx_count_distinct",
                        "var_samp", "list"}) {
    SCOPED_TRACE(f);
    Array single = RunSingle(f, {x}, groups, groups_count).ValueOrDie();
    Array two_phase = RunSplit(f, {x}, groups, groups_count, 3, true).ValueOrDie();
    ExpectSameResult(single, two_phase);
  }
  Array approx = RunSingle("approx_count_distinct", {x}, groups, groups_count).ValueOrDie();
  for (int64_t g = 0; g < groups_count; ++g)
    ASSERT_EQ(approx.values<int64_t>()[g], 4);
}

TEST(AggregateScale, HyperLogLogWithinThreePercent) {
  for (int64_t distinct : {100'000, 1'000'000}) {
    SCOPED_TRACE(distinct);
    // Every value twice, in two orders, so duplicates must not count.
    std::vector<int64_t> values;
    for (int64_t i = 0; i < distinct; ++i)
      values.push_back(i * 31 + 7);
    for (int64_t i = distinct - 1; i >= 0; --i)
      values.push_back(i * 31 + 7);
    Array x = Int64Column(values);
    const std::vector<uint32_t> groups(values.size(), 0);
    Array single = RunSingle("approx_count_distinct", {x}, groups, 1).ValueOrDie();
    const double estimate = static_cast<double>(single.values<int64_t>()[0]);
    EXPECT_NEAR(estimate / static_cast<double>(distinct), 1.0, 0.03) << estimate;
    Array two_phase = RunSplit("approx_count_distinct", {x}, groups, 1, 3, true).ValueOrDie();
    EXPECT_EQ(two_phase.values<int64_t>()[0], single.values<int64_t>()[0]);
  }
  // Strings hash through their bytes.
  StringBuilder builder(utf8());
  for (int i = 0; i < 100'000; ++i)
    builder.Append("value-" + std::to_string(i)).Check();
  Array s = builder.Finish().ValueOrDie();
  Array r =
      RunSingle("approx_count_distinct", {s}, std::vector<uint32_t>(100'000, 0), 1).ValueOrDie();
  EXPECT_NEAR(static_cast<double>(r.values<int64_t>()[0]) / 100'000, 1.0, 0.03);
}

// The documented bound: rank error under 1% of n (quantile_sketch.h).
TEST(AggregateScale, ApproxPercentileRankError) {
  const int64_t n = 100'000;
  std::mt19937_64 rng(42);
  std::vector<double> values(n);
  for (auto& v : values)
    v = std::normal_distribution<double>(100, 15)(rng);
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  Array x = DoubleColumn(values);
  const std::vector<uint32_t> groups(n, 0);
  for (double q : {0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0}) {
    SCOPED_TRACE(q);
    Array qa = DoubleColumn(std::vector<double>(n, q));
    for (bool split : {false, true}) {
      Array r = split ? RunSplit("approx_percentile", {x, qa}, groups, 1, 3, true).ValueOrDie()
                      : RunSingle("approx_percentile", {x, qa}, groups, 1).ValueOrDie();
      const double estimate = r.values<double>()[0];
      const auto rank = std::lower_bound(sorted.begin(), sorted.end(), estimate) - sorted.begin();
      const double exact_rank = q * static_cast<double>(n - 1);
      EXPECT_LE(std::abs(static_cast<double>(rank) - exact_rank), 0.01 * n)
          << "estimate " << estimate << " split " << split;
    }
  }
}

}  // namespace
}  // namespace flotilla::expr
