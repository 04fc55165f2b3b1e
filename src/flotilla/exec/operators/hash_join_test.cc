#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>

#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;

struct Side {
  std::vector<std::optional<int64_t>> k;
  std::vector<std::optional<int64_t>> v;
};

// Keys in [0, distinct), one in `null_every` null.
Side RandomSide(int n, int distinct, uint64_t seed, int null_every = 11) {
  std::mt19937_64 rng(seed);
  Side s;
  for (int i = 0; i < n; ++i) {
    s.k.push_back(rng() % null_every == 0
                      ? std::nullopt
                      : std::optional<int64_t>(static_cast<int64_t>(rng() % distinct)));
    s.v.push_back(i);
  }
  return s;
}

/// Reference join on k (= or null-safe), pairing each left row with the right rows of its key, with
/// an optional residual lv < rv + bias.
RecordBatch Reference(const Side& l, const Side& r, JoinType type, bool null_equal,
                      std::optional<int64_t> bias) {
  std::vector<std::optional<int64_t>> lk, lv, rk, rv;
  std::vector<bool> right_matched(r.k.size(), false);
  // The right rows of each key (in row order), null keys apart: every pair with equal keys.
  std::map<int64_t, std::vector<size_t>> right_rows;
  std::vector<size_t> right_nulls;
  for (size_t j = 0; j < r.k.size(); ++j) {
    if (r.k[j]) {
      right_rows[*r.k[j]].push_back(j);
    } else {
      right_nulls.push_back(j);
    }
  }
  const std::vector<size_t> none;
  auto candidates = [&](size_t i) -> const std::vector<size_t>& {
    if (!l.k[i]) return null_equal ? right_nulls : none;
    auto it = right_rows.find(*l.k[i]);
    return it == right_rows.end() ? none : it->second;
  };
  for (size_t i = 0; i < l.k.size(); ++i) {
    bool any = false;
    for (size_t j : candidates(i)) {
      if (bias && !(*l.v[i] < *r.v[j] + *bias)) continue;
      any = true;
      right_matched[j] = true;
      if (type != JoinType::kInner && type != JoinType::kLeft && type != JoinType::kRight &&
          type != JoinType::kFull) {
        continue;
      }
      lk.push_back(l.k[i]);
      lv.push_back(l.v[i]);
      rk.push_back(r.k[j]);
      rv.push_back(r.v[j]);
    }
    if ((type == JoinType::kSemi && any) || (type == JoinType::kAnti && !any)) {
      lk.push_back(l.k[i]);
      lv.push_back(l.v[i]);
    }
    if (!any && (type == JoinType::kLeft || type == JoinType::kFull)) {
      lk.push_back(l.k[i]);
      lv.push_back(l.v[i]);
      rk.push_back(std::nullopt);
      rv.push_back(std::nullopt);
    }
  }
  if (type == JoinType::kRight || type == JoinType::kFull) {
    for (size_t j = 0; j < r.k.size(); ++j) {
      if (right_matched[j]) continue;
      lk.push_back(std::nullopt);
      lv.push_back(std::nullopt);
      rk.push_back(r.k[j]);
      rv.push_back(r.v[j]);
    }
  }
  if (type == JoinType::kSemi || type == JoinType::kAnti)
    return Batch({{"k", I64(lk)}, {"v", I64(lv)}});
  if (type == JoinType::kRightSemi || type == JoinType::kRightAnti) {
    // The right rows with a partner (semi) or without (anti), under their own names.
    for (size_t j = 0; j < r.k.size(); ++j) {
      if (right_matched[j] != (type == JoinType::kRightSemi)) continue;
      rk.push_back(r.k[j]);
      rv.push_back(r.v[j]);
    }
    return Batch({{"k", I64(rk)}, {"v", I64(rv)}});
  }
  return Batch({{"k", I64(lk)}, {"v", I64(lv)}, {"right.k", I64(rk)}, {"right.v", I64(rv)}});
}

PlanPtr SideSource(const Side& s, int chunk) {
  auto batch = Batch({{"k", I64(s.k)}, {"v", I64(s.v)}});
  std::vector<RecordBatch> chunks;
  for (int64_t o = 0; o < batch.num_rows(); o += chunk)
    chunks.push_back(batch.Slice(o, chunk));
  if (chunks.empty()) chunks.push_back(batch);
  return MemorySource(chunks);
}

TEST(HashJoinOperator, EveryJoinTypeMatchesTheReference) {
  const Side left = RandomSide(400, 40, 1);
  const Side right = RandomSide(300, 50, 2);  // many duplicate keys on both sides
  for (JoinType type :
       {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull, JoinType::kSemi,
        JoinType::kAnti, JoinType::kRightSemi, JoinType::kRightAnti}) {
    for (bool null_equal : {false, true}) {
      for (std::optional<int64_t> bias : {std::optional<int64_t>(), std::optional<int64_t>(50)}) {
        expr::ExprPtr residual =
            bias ? expr::Less(Column("v"), expr::Add(Column("right.v"), expr::Literal(*bias)))
                 : nullptr;
        auto plan = MakeHashJoin(SideSource(left, 64), SideSource(right, 50), {Column("k")},
                                 {Column("k")}, type, residual, {null_equal})
                        .ValueOrDie();
        SCOPED_TRACE(std::string(JoinTypeName(type)) + (null_equal ? " null-equal" : "") +
                     (bias ? " with residual" : ""));
        ExpectPlanRows(plan, Reference(left, right, type, null_equal, bias), false);
      }
    }
  }
}

// A build side of 2^19 rows or more is split into partitions built by several threads (one
// thread builds one table): the joins must give the reference's rows either way. The types
// cover probing alone, marking build rows, and both.
TEST(HashJoinOperator, ALargeBuildSideIsPartitionedWithTheSameResult) {
  // Few nulls: null-equal joins pair every null with every null.
  const Side left = RandomSide(40000, 300000, 6, 1000);
  const Side right = RandomSide(530000, 300000, 7, 1000);
  for (JoinType type : {JoinType::kInner, JoinType::kFull, JoinType::kAnti, JoinType::kRightSemi}) {
    for (bool null_equal : {false, true}) {
      std::optional<int64_t> bias;
      if (!null_equal) bias = 250000;
      expr::ExprPtr residual =
          bias ? expr::Less(Column("v"), expr::Add(Column("right.v"), expr::Literal(*bias)))
               : nullptr;
      auto plan = MakeHashJoin(SideSource(left, 4096), SideSource(right, 65536), {Column("k")},
                               {Column("k")}, type, residual, {null_equal})
                      .ValueOrDie();
      const RecordBatch expected = Reference(left, right, type, null_equal, bias);
      for (const RunMode& mode : {RunMode{1, 131072, true}, RunMode{3, 4096, false}}) {
        auto result = RunToBatch(plan, OptionsFor(mode));
        ASSERT_TRUE(result.ok()) << result.status().ToString();
        ExpectRows(*result, expected, false,
                   std::string(JoinTypeName(type)) + (null_equal ? " null-equal " : " ") +
                       mode.ToString());
      }
    }
  }
}

TEST(HashJoinOperator, EmptySidesAndSeveralKeys) {
  Side empty;
  const Side some = RandomSide(20, 5, 3);
  for (JoinType type :
       {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull, JoinType::kSemi,
        JoinType::kAnti, JoinType::kRightSemi, JoinType::kRightAnti}) {
    auto a =
        MakeHashJoin(SideSource(some, 8), SideSource(empty, 8), {Column("k")}, {Column("k")}, type)
            .ValueOrDie();
    ExpectPlanRows(a, Reference(some, empty, type, false, std::nullopt), false);
    auto b =
        MakeHashJoin(SideSource(empty, 8), SideSource(some, 8), {Column("k")}, {Column("k")}, type)
            .ValueOrDie();
    ExpectPlanRows(b, Reference(empty, some, type, false, std::nullopt), false);
  }
  auto l = Batch({{"a", I64({1, 1, 2})}, {"b", Strs({"x", "y", "x"})}});
  auto r = Batch({{"c", Strs({"x", "x", "y"})}, {"d", I64({1, 2, 1})}});
  auto plan = MakeHashJoin(MemorySource({l}), MemorySource({r}), {Column("a"), Column("b")},
                           {Column("d"), Column("c")}, JoinType::kInner)
                  .ValueOrDie();
  ExpectPlanRows(plan,
                 Batch({{"a", I64({1, 1, 2})},
                        {"b", Strs({"x", "y", "x"})},
                        {"c", Strs({"x", "y", "x"})},
                        {"d", I64({1, 1, 2})}}),
                 false);
}

TEST(HashJoinOperator, GraceJoinSpillsUnderASmallBudgetWithTheSameResult) {
  const Side left = RandomSide(2500, 300, 4);
  const Side right = RandomSide(2000, 400, 5);
  const ScopedSpillDir spill("join_spill_test");
  const std::string& spill_dir = spill.path();
  for (JoinType type :
       {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull, JoinType::kSemi,
        JoinType::kAnti, JoinType::kRightSemi, JoinType::kRightAnti}) {
    for (bool null_equal : {false, true}) {
      auto residual =
          expr::Less(Column("v"), expr::Add(Column("right.v"), expr::Literal(int64_t{2000})));
      auto plan = MakeHashJoin(SideSource(left, 500), SideSource(right, 400), {Column("k")},
                               {Column("k")}, type, residual, {null_equal})
                      .ValueOrDie();
      const RecordBatch expected = Reference(left, right, type, null_equal, 2000);
      for (const RunMode& mode : {RunMode{1, 131072, true}, RunMode{3, 300, false}}) {
        MemoryManager small(24 * 1024);
        ExecOptions options = OptionsFor(mode);
        options.memory = &small;
        options.spill_dirs = {spill_dir};
        auto result = exec::Run(plan, options);
        ASSERT_TRUE(result.ok()) << result.status().ToString();
        ExpectRows(result->ToBatch().ValueOrDie(), expected, false,
                   std::string(JoinTypeName(type)) + " " + mode.ToString());
        int64_t spilled = 0;
        for (const auto& s : result->stats->operators())
          spilled += s->spilled_bytes.load();
        EXPECT_GT(spilled, 0);
        EXPECT_TRUE(std::filesystem::is_empty(spill_dir)) << "spill files left behind";
      }
    }
  }
}

TEST(HashJoinOperator, KeyTypeMismatchIsAPlanError) {
  auto l = Batch({{"a", I64({1})}});
  auto r = Batch({{"b", Strs({"1"})}});
  auto plan = MakeHashJoin(MemorySource({l}), MemorySource({r}), {Column("a")}, {Column("b")},
                           JoinType::kInner);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().ToString().find("cast one side"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::exec
