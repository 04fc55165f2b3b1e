#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;

TEST(SortOperator, SeveralKeysDirectionsAndNullPlacement) {
  auto input = Batch({{"k", I64({3, N, 1, 3, 2, N, 1})},
                      {"s", Strs({"b", "x", "a", "a", "c", "y", N})},
                      {"i", I64({0, 1, 2, 3, 4, 5, 6})}});
  // k DESC NULLS FIRST, s ASC NULLS LAST
  auto plan =
      MakeSort(MemorySource({input}), {{Column("k"), false, true}, {Column("s"), true, false}})
          .ValueOrDie();
  auto expected = Batch({{"k", I64({N, N, 3, 3, 2, 1, 1})},
                         {"s", Strs({"x", "y", "a", "b", "c", "a", N})},
                         {"i", I64({1, 5, 3, 0, 4, 2, 6})}});
  ExpectPlanRows(plan, expected, true);
}

TEST(SortOperator, IsStableAndSortsByExpressions) {
  // Sort by k % 2: ties keep the input order.
  std::vector<std::optional<int64_t>> k;
  for (int64_t i = 0; i < 40; ++i)
    k.push_back(i);
  auto plan = MakeSort(MemorySource({Batch({{"k", I64(k)}})}),
                       {{expr::Mod(Column("k"), expr::Literal(int64_t{2})), true, false}})
                  .ValueOrDie();
  std::vector<std::optional<int64_t>> expected;
  for (int64_t i = 0; i < 40; i += 2)
    expected.push_back(i);
  for (int64_t i = 1; i < 40; i += 2)
    expected.push_back(i);
  ExpectPlanRows(plan, Batch({{"k", I64(expected)}}), true);
}

TEST(SortOperator, EmptyInput) {
  auto plan = MakeSort(MemorySource({Batch({{"k", I64({})}})}), {{Column("k")}}).ValueOrDie();
  ExpectPlanRows(plan, Batch({{"k", I64({})}}), true);
}

struct Rows {
  std::vector<std::optional<int64_t>> a;
  std::vector<std::optional<std::string>> b;
  std::vector<std::optional<int64_t>> pos;
};

Rows RandomRows(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Rows rows;
  for (int64_t i = 0; i < n; ++i) {
    rows.a.push_back(rng() % 10 == 0 ? std::nullopt : std::optional<int64_t>(rng() % 50));
    rows.b.push_back(rng() % 7 == 0 ? std::nullopt
                                    : std::optional<std::string>("s" + std::to_string(rng() % 30)));
    rows.pos.push_back(i);
  }
  return rows;
}

/// Reference: std::stable_sort by (a DESC NULLS LAST, b ASC NULLS FIRST).
Rows ReferenceSort(const Rows& in) {
  std::vector<size_t> order(in.a.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const auto& ax = in.a[x];
    const auto& ay = in.a[y];
    if (ax.has_value() != ay.has_value()) return ax.has_value();  // nulls last
    if (ax && *ax != *ay) return *ax > *ay;
    const auto& bx = in.b[x];
    const auto& by = in.b[y];
    if (bx.has_value() != by.has_value()) return !bx.has_value();  // nulls first
    if (bx && *bx != *by) return *bx < *by;
    return false;
  });
  Rows out;
  for (size_t i : order) {
    out.a.push_back(in.a[i]);
    out.b.push_back(in.b[i]);
    out.pos.push_back(in.pos[i]);
  }
  return out;
}

RecordBatch ToBatch(const Rows& rows) {
  return Batch({{"a", I64(rows.a)}, {"b", Strs(rows.b)}, {"pos", I64(rows.pos)}});
}

std::vector<RecordBatch> InChunks(const RecordBatch& batch, int64_t chunk) {
  std::vector<RecordBatch> out;
  for (int64_t o = 0; o < batch.num_rows(); o += chunk)
    out.push_back(batch.Slice(o, chunk));
  return out;
}

TEST(SortOperator, MatchesAReferenceStableSort) {
  Rows rows = RandomRows(5000, 7);
  auto plan = MakeSort(MemorySource(InChunks(ToBatch(rows), 700)),
                       {{Column("a"), false, false}, {Column("b"), true, true}})
                  .ValueOrDie();
  ExpectPlanRows(plan, ToBatch(ReferenceSort(rows)), true);
}

TEST(SortOperator, SpillsUnderASmallBudgetWithTheSameResultAndCleansUp) {
  Rows rows = RandomRows(30000, 11);
  auto plan = MakeSort(MemorySource(InChunks(ToBatch(rows), 1000)),
                       {{Column("a"), false, false}, {Column("b"), true, true}})
                  .ValueOrDie();
  const RecordBatch expected = ToBatch(ReferenceSort(rows));
  const ScopedSpillDir spill("sort_spill_test");
  const std::string& spill_dir = spill.path();
  // Equal keys come back in input order even across spilled runs.
  ExpectSameRowsWhenSpilling(plan, expected, true, 64 * 1024, spill_dir);
}

}  // namespace
}  // namespace flotilla::exec
