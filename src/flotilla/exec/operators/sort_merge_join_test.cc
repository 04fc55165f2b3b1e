#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "flotilla/compute/take.h"
#include "flotilla/expr/expression.h"
#include "tests/support/plan_checks.h"

namespace flotilla::exec {
namespace {

using namespace flotilla::testing;
using expr::Column;

/// Keys as small integers (null: nullopt); each key type maps them one-to-one to its values.
using Keys = std::vector<std::optional<int64_t>>;

Keys RandomKeys(int n, int distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Keys keys;
  for (int i = 0; i < n; ++i) {
    keys.push_back(rng() % 9 == 0 ? std::nullopt
                                  : std::optional<int64_t>(static_cast<int64_t>(rng() % distinct)));
  }
  return keys;
}

/// A key type: its name, how many distinct values it has room for, and the array of `keys`
/// (`left`: the left side's encoding, which may differ in representation but not in value).
struct KeyType {
  std::string name;
  int distinct;
  std::function<Array(const Keys&, bool left)> make;
};

template <typename T>
std::vector<std::optional<T>> Convert(const Keys& keys, const std::function<T(int64_t)>& f) {
  std::vector<std::optional<T>> out;
  for (const auto& k : keys)
    out.push_back(k ? std::optional<T>(f(*k)) : std::nullopt);
  return out;
}

std::vector<std::optional<std::string>> Texts(const Keys& keys) {
  return Convert<std::string>(keys, [](int64_t k) { return "key" + std::to_string(k * 7 % 40); });
}

/// A dictionary<int32, utf8> column of Texts(keys). The left and right sides use different
/// dictionaries (reversed entry order), so the join compares values, not indices.
Array DictionaryKeys(const Keys& keys, bool left, int distinct) {
  std::vector<std::optional<std::string>> entries;
  for (int k = 0; k < distinct; ++k)
    entries.push_back("key" + std::to_string(k * 7 % 40));
  if (!left) std::reverse(entries.begin(), entries.end());
  std::vector<std::optional<int32_t>> indices;
  for (const auto& k : keys)
    indices.push_back(
        k ? std::optional<int32_t>(static_cast<int32_t>(left ? *k : distinct - 1 - *k))
          : std::nullopt);
  Array index = I32(indices);
  auto data = std::make_shared<ArrayData>(*index.data());
  data->type = dictionary(int32(), utf8());
  data->dictionary = Strs(entries).data();
  return Array::Make(data).ValueOrDie();
}

std::vector<KeyType> KeyTypes() {
  return {
      {"int64", 40, [](const Keys& k, bool) { return I64(k); }},
      {"int32", 40,
       [](const Keys& k, bool) {
         return I32(Convert<int32_t>(k, [](int64_t x) { return static_cast<int32_t>(x - 20); }));
       }},
      {"int8", 40,
       [](const Keys& k, bool) {
         return I8(Convert<int8_t>(k, [](int64_t x) { return static_cast<int8_t>(x - 20); }));
       }},
      {"uint8", 40,
       [](const Keys& k, bool) {
         return U8(Convert<uint8_t>(k, [](int64_t x) { return static_cast<uint8_t>(x * 6); }));
       }},
      // -0.0 on the left equals 0.0 on the right; NaN equals NaN.
      {"float64", 40,
       [](const Keys& k, bool left) {
         return F64(Convert<double>(k, [left](int64_t x) {
           if (x == 0) return left ? -0.0 : 0.0;
           if (x == 1) return std::nan("");
           return static_cast<double>(x) * 0.5 - 7.0;
         }));
       }},
      {"float32", 40,
       [](const Keys& k, bool) {
         return F32(Convert<float>(k, [](int64_t x) { return static_cast<float>(x) * 0.25f; }));
       }},
      {"date32", 40,
       [](const Keys& k, bool) {
         return Dates(Convert<int32_t>(k, [](int64_t x) { return static_cast<int32_t>(x * 31); }));
       }},
      {"bool", 2,
       [](const Keys& k, bool) {
         return Bools(Convert<bool>(k, [](int64_t x) { return x == 1; }));
       }},
      {"decimal", 40,
       [](const Keys& k, bool) {
         return Decimals(10, 2, Convert<std::string>(k, [](int64_t x) {
                           return std::to_string(x - 20) + ".5";
                         }));
       }},
      {"utf8", 40, [](const Keys& k, bool) { return Strs(Texts(k)); }},
      {"large_utf8", 40, [](const Keys& k, bool) { return MakeStrings(Texts(k), large_utf8()); }},
      {"dictionary", 40, [](const Keys& k, bool left) { return DictionaryKeys(k, left, 40); }},
  };
}

/// Nested-loop reference: the (left row, right row) pairs of the join, -1 for a null side, in
/// any order. `null_equal[k]`: null matches null in key k.
void ReferencePairs(const std::vector<Keys>& left, const std::vector<Keys>& right, JoinType type,
                    const std::vector<bool>& null_equal, Keys* li, Keys* ri) {
  const size_t nl = left[0].size(), nr = right[0].size();
  std::vector<bool> right_matched(nr, false);
  auto match = [&](size_t i, size_t j) {
    for (size_t k = 0; k < left.size(); ++k) {
      const auto& a = left[k][i];
      const auto& b = right[k][j];
      const bool equal =
          (a.has_value() && b.has_value() && *a == *b) || (null_equal[k] && !a && !b);
      if (!equal) return false;
    }
    return true;
  };
  for (size_t i = 0; i < nl; ++i) {
    bool any = false;
    for (size_t j = 0; j < nr; ++j) {
      if (!match(i, j)) continue;
      any = true;
      right_matched[j] = true;
      li->push_back(static_cast<int64_t>(i));
      ri->push_back(static_cast<int64_t>(j));
    }
    if (!any && (type == JoinType::kLeft || type == JoinType::kFull)) {
      li->push_back(static_cast<int64_t>(i));
      ri->push_back(std::nullopt);
    }
  }
  if (type == JoinType::kRight || type == JoinType::kFull) {
    for (size_t j = 0; j < nr; ++j) {
      if (right_matched[j]) continue;
      li->push_back(std::nullopt);
      ri->push_back(static_cast<int64_t>(j));
    }
  }
}

/// The joined rows of `left` and `right` for the reference pairs.
RecordBatch Expected(const RecordBatch& left, const RecordBatch& right, const Keys& li,
                     const Keys& ri) {
  std::vector<std::pair<std::string, Array>> columns;
  const Array l = I64(li), r = I64(ri);
  for (int c = 0; c < left.num_columns(); ++c)
    columns.emplace_back("l" + std::to_string(c), compute::Take(left.column(c), l).ValueOrDie());
  for (int c = 0; c < right.num_columns(); ++c)
    columns.emplace_back("r" + std::to_string(c), compute::Take(right.column(c), r).ValueOrDie());
  return Batch(std::move(columns));
}

/// `batch` as a source of chunks of `chunk` rows.
PlanPtr Chunked(const RecordBatch& batch, int chunk) {
  std::vector<RecordBatch> chunks;
  for (int64_t o = 0; o < batch.num_rows(); o += chunk)
    chunks.push_back(batch.Slice(o, chunk));
  if (chunks.empty()) chunks.push_back(batch);
  return MemorySource(chunks);
}

RecordBatch SideBatch(const Array& key, int64_t n, int64_t first_value) {
  std::vector<std::optional<int64_t>> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(first_value + i);
  return Batch({{"k", key}, {"v", I64(v)}});
}

constexpr JoinType kTypes[] = {JoinType::kInner, JoinType::kLeft, JoinType::kRight,
                               JoinType::kFull};

TEST(SortMergeJoinOperator, EveryKeyTypeAndJoinTypeMatchesANestedLoopReference) {
  for (const KeyType& key_type : KeyTypes()) {
    // Few distinct keys: many duplicates on both sides, and nulls.
    const int distinct = std::min(key_type.distinct, 12);
    const Keys lk = RandomKeys(90, distinct, 11);
    const Keys rk = RandomKeys(70, distinct, 12);
    const RecordBatch left = SideBatch(key_type.make(lk, true), 90, 0);
    const RecordBatch right = SideBatch(key_type.make(rk, false), 70, 1000);
    for (JoinType type : kTypes) {
      for (bool null_equal : {false, true}) {
        SCOPED_TRACE(key_type.name + " " + JoinTypeName(type) + (null_equal ? " null-equal" : ""));
        auto plan = MakeSortMergeJoin(Chunked(left, 16), Chunked(right, 9), {Column("k")},
                                      {Column("k")}, type, {null_equal})
                        .ValueOrDie();
        Keys li, ri;
        ReferencePairs({lk}, {rk}, type, {null_equal}, &li, &ri);
        ExpectPlanRows(plan, Expected(left, right, li, ri), false);
      }
    }
  }
}

TEST(SortMergeJoinOperator, SeveralKeysWithPerKeyNullEquality) {
  const int n_left = 150, n_right = 120;
  const Keys la = RandomKeys(n_left, 4, 21), lb = RandomKeys(n_left, 5, 22);
  const Keys ra = RandomKeys(n_right, 4, 23), rb = RandomKeys(n_right, 5, 24);
  std::vector<std::optional<int64_t>> lv, rv;
  for (int i = 0; i < n_left; ++i)
    lv.push_back(i);
  for (int i = 0; i < n_right; ++i)
    rv.push_back(1000 + i);
  auto left = Batch({{"a", I64(la)}, {"b", Strs(Texts(lb))}, {"v", I64(lv)}});
  auto right = Batch({{"x", Strs(Texts(rb))}, {"y", I64(ra)}, {"w", I64(rv)}});
  for (JoinType type : kTypes) {
    for (bool ne_a : {false, true}) {
      for (bool ne_b : {false, true}) {
        SCOPED_TRACE(std::string(JoinTypeName(type)) + (ne_a ? " a null-equal" : "") +
                     (ne_b ? " b null-equal" : ""));
        auto plan =
            MakeSortMergeJoin(Chunked(left, 40), Chunked(right, 33), {Column("a"), Column("b")},
                              {Column("y"), Column("x")}, type, {ne_a, ne_b})
                .ValueOrDie();
        Keys li, ri;
        ReferencePairs({la, lb}, {ra, rb}, type, {ne_a, ne_b}, &li, &ri);
        ExpectPlanRows(plan, Expected(left, right, li, ri), false);
      }
    }
  }
}

TEST(SortMergeJoinOperator, ExpressionKeys) {
  // Keys are expressions: v % 3 on the left against w - 10 on the right.
  auto left = Batch({{"v", I64({0, 1, 2, 3, 4, 5, N})}});
  auto right = Batch({{"w", I64({10, 11, 11, 15, N})}});
  auto plan =
      MakeSortMergeJoin(MemorySource({left}), MemorySource({right}),
                        {expr::Mod(Column("v"), expr::Literal(int64_t{3}))},
                        {expr::Subtract(Column("w"), expr::Literal(int64_t{10}))}, JoinType::kLeft)
          .ValueOrDie();
  auto expected = Batch(
      {{"v", I64({0, 3, 1, 1, 4, 4, 2, 5, N})}, {"w", I64({10, 10, 11, 11, 11, 11, N, N, N})}});
  ExpectPlanRows(plan, expected, false);
}

TEST(SortMergeJoinOperator, LargeDuplicateGroupsAcrossManyBatches) {
  // 3 keys, hundreds of rows each: every group spans many sorted batches and its cross product
  // many morsels.
  const Keys lk = RandomKeys(600, 3, 31);
  const Keys rk = RandomKeys(400, 3, 32);
  const RecordBatch left = SideBatch(I64(lk), 600, 0);
  const RecordBatch right = SideBatch(I64(rk), 400, 1000);
  for (JoinType type : kTypes) {
    SCOPED_TRACE(JoinTypeName(type));
    auto plan =
        MakeSortMergeJoin(Chunked(left, 50), Chunked(right, 64), {Column("k")}, {Column("k")}, type)
            .ValueOrDie();
    Keys li, ri;
    ReferencePairs({lk}, {rk}, type, {false}, &li, &ri);
    const RecordBatch expected = Expected(left, right, li, ri);
    for (const RunMode& mode :
         {RunMode{1, 131072, true}, RunMode{4, 97, false}, RunMode{2, 1000, true}}) {
      auto result = RunToBatch(plan, OptionsFor(mode));
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      ExpectRows(*result, expected, false, mode.ToString());
    }
  }
}

TEST(SortMergeJoinOperator, EmptySides) {
  const Keys some = RandomKeys(20, 5, 41);
  const RecordBatch full = SideBatch(I64(some), 20, 0);
  const RecordBatch empty = SideBatch(I64({}), 0, 0);
  for (JoinType type : kTypes) {
    SCOPED_TRACE(JoinTypeName(type));
    Keys li, ri;
    ReferencePairs({some}, {Keys{}}, type, {false}, &li, &ri);
    auto a =
        MakeSortMergeJoin(Chunked(full, 8), Chunked(empty, 8), {Column("k")}, {Column("k")}, type)
            .ValueOrDie();
    ExpectPlanRows(a, Expected(full, empty, li, ri), false);
    li.clear();
    ri.clear();
    ReferencePairs({Keys{}}, {some}, type, {false}, &li, &ri);
    auto b =
        MakeSortMergeJoin(Chunked(empty, 8), Chunked(full, 8), {Column("k")}, {Column("k")}, type)
            .ValueOrDie();
    ExpectPlanRows(b, Expected(empty, full, li, ri), false);
  }
}

TEST(SortMergeJoinOperator, AgreesWithHashJoin) {
  const Keys lk = RandomKeys(500, 60, 51);
  const Keys rk = RandomKeys(400, 70, 52);
  for (const KeyType& key_type : KeyTypes()) {
    const int distinct = key_type.distinct;
    Keys l2 = lk, r2 = rk;
    for (auto& k : l2)
      if (k) *k %= distinct;
    for (auto& k : r2)
      if (k) *k %= distinct;
    const RecordBatch left = SideBatch(key_type.make(l2, true), 500, 0);
    const RecordBatch right = SideBatch(key_type.make(r2, false), 400, 1000);
    for (JoinType type : kTypes) {
      for (bool null_equal : {false, true}) {
        SCOPED_TRACE(key_type.name + " " + JoinTypeName(type) + (null_equal ? " null-equal" : ""));
        auto merge = MakeSortMergeJoin(Chunked(left, 64), Chunked(right, 50), {Column("k")},
                                       {Column("k")}, type, {null_equal})
                         .ValueOrDie();
        auto hash = MakeHashJoin(Chunked(left, 64), Chunked(right, 50), {Column("k")},
                                 {Column("k")}, type, nullptr, {null_equal})
                        .ValueOrDie();
        const RunMode mode{3, 37, false};
        auto merged = RunToBatch(merge, OptionsFor(mode));
        auto hashed = RunToBatch(hash, OptionsFor(mode));
        ASSERT_TRUE(merged.ok()) << merged.status().ToString();
        ASSERT_TRUE(hashed.ok()) << hashed.status().ToString();
        EXPECT_GT(hashed->num_rows(), 0);
        ExpectRows(*merged, *hashed, false);
      }
    }
  }
}

TEST(SortMergeJoinOperator, SemiAndAntiAreRejectedAtPlanTime) {
  auto side = MemorySource({SideBatch(I64({1}), 1, 0)});
  for (JoinType type : {JoinType::kSemi, JoinType::kAnti}) {
    auto plan = MakeSortMergeJoin(side, side, {Column("k")}, {Column("k")}, type);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), StatusCode::kNotImplemented);
  }
}

}  // namespace
}  // namespace flotilla::exec
