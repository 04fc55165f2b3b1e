#include "flotilla/compute/sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/take.h"
#include "tests/support/random_data.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::compute {
namespace {

using testing::MakeNumeric;
using testing::MakeStrings;

std::vector<uint64_t> ToVector(const Array& indices) {
  return {indices.values<uint64_t>(), indices.values<uint64_t>() + indices.length()};
}

RecordBatch Batch(std::vector<std::pair<std::string, Array>> columns) {
  return RecordBatch::FromColumns(std::move(columns)).ValueOrDie();
}

std::vector<uint64_t> Sort(const RecordBatch& batch, const std::vector<SortKey>& keys) {
  return ToVector(SortIndices(batch, keys).ValueOrDie());
}

TEST(SortTest, Int64DirectionsAndNulls) {
  RecordBatch b = Batch({{"x", MakeNumeric<int64_t>(int64(), {3, std::nullopt, -1, 3, 0})}});
  using V = std::vector<uint64_t>;
  EXPECT_EQ(Sort(b, {{0, true, false}}), (V{2, 4, 0, 3, 1}));
  EXPECT_EQ(Sort(b, {{0, true, true}}), (V{1, 2, 4, 0, 3}));
  EXPECT_EQ(Sort(b, {{0, false, false}}), (V{0, 3, 4, 2, 1}));
  EXPECT_EQ(Sort(b, {{0, false, true}}), (V{1, 0, 3, 4, 2}));
}

TEST(SortTest, FloatsNaNIsLargestAndNegativeZeroEqualsZero) {
  const double nan = std::nan("");
  RecordBatch b = Batch({{"x", MakeNumeric<double>(float64(), {nan, 1.5, -0.0, std::nullopt,
                                                               -INFINITY, 0.0, -nan, INFINITY})}});
  using V = std::vector<uint64_t>;
  // -0.0 (row 2) and 0.0 (row 5) tie, so they keep their order; the NaNs tie too.
  EXPECT_EQ(Sort(b, {{0}}), (V{4, 2, 5, 1, 7, 0, 6, 3}));
  EXPECT_EQ(Sort(b, {{0, false}}), (V{0, 6, 7, 1, 2, 5, 4, 3}));
}

TEST(SortTest, StableOnTiesAndSeveralKeys) {
  RecordBatch b = Batch({{"k", MakeStrings({"b", "a", "b", std::nullopt, "a", "b"})},
                         {"v", MakeNumeric<int32_t>(int32(), {1, 2, 1, 5, 2, 0})}});
  using V = std::vector<uint64_t>;
  EXPECT_EQ(Sort(b, {{0}}), (V{1, 4, 0, 2, 5, 3}));
  EXPECT_EQ(Sort(b, {{0}, {1, false}}), (V{1, 4, 0, 2, 5, 3}));
  EXPECT_EQ(Sort(b, {{0, false}, {1}}), (V{5, 0, 2, 1, 4, 3}));
  EXPECT_EQ(Sort(b, {{1}, {0, true, true}}), (V{5, 0, 2, 1, 4, 3}));
}

TEST(SortTest, DictionarySortsByValue) {
  auto type = dictionary(int32(), utf8());
  RecordBatch b =
      Batch({{"d", MakeStrings({"pear", "apple", std::nullopt, "fig", "apple"}, type)}});
  EXPECT_EQ(Sort(b, {{0}}), (std::vector<uint64_t>{1, 4, 3, 0, 2}));
  EXPECT_EQ(Sort(b, {{0, false, true}}), (std::vector<uint64_t>{2, 0, 3, 1, 4}));
}

TEST(SortTest, Errors) {
  RecordBatch b = Batch({{"l", testing::RandomArray(list(int32()), 5, 1)}});
  auto nested = SortIndices(b, {{0}});
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(nested.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(nested.status().message().find("'l'"), std::string::npos);
  auto out_of_range = SortIndices(b, {{3}});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.status().code(), StatusCode::kIndexError);
}

TEST(SortTest, EmptyAndNoKeys) {
  RecordBatch empty = Batch({{"x", MakeNumeric<int64_t>(int64(), {})}});
  EXPECT_EQ(SortIndices(empty, {{0}}).ValueOrDie().length(), 0);
  RecordBatch b = Batch({{"x", MakeNumeric<int64_t>(int64(), {2, 1})}});
  EXPECT_EQ(Sort(b, {}), (std::vector<uint64_t>{0, 1}));
}

// --- Reference: typed comparisons written independently of the kernel ---------------------

int NaiveValueCompare(const Array& a, int64_t i, int64_t j) {
  auto three = [](auto x, auto y) { return (x > y) - (x < y); };
  auto fp = [&](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return int{std::isnan(x)} - int{std::isnan(y)};
    return three(x, y);
  };
  switch (a.type_id()) {
    case TypeId::kBool:
      return three(int{a.BoolValue(i)}, int{a.BoolValue(j)});
    case TypeId::kInt8:
      return three(a.values<int8_t>()[i], a.values<int8_t>()[j]);
    case TypeId::kInt16:
      return three(a.values<int16_t>()[i], a.values<int16_t>()[j]);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return three(a.values<int32_t>()[i], a.values<int32_t>()[j]);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      return three(a.values<int64_t>()[i], a.values<int64_t>()[j]);
    case TypeId::kUInt8:
      return three(a.values<uint8_t>()[i], a.values<uint8_t>()[j]);
    case TypeId::kUInt16:
      return three(a.values<uint16_t>()[i], a.values<uint16_t>()[j]);
    case TypeId::kUInt32:
      return three(a.values<uint32_t>()[i], a.values<uint32_t>()[j]);
    case TypeId::kUInt64:
      return three(a.values<uint64_t>()[i], a.values<uint64_t>()[j]);
    case TypeId::kFloat32:
      return fp(a.values<float>()[i], a.values<float>()[j]);
    case TypeId::kFloat64:
      return fp(a.values<double>()[i], a.values<double>()[j]);
    case TypeId::kDecimal128:
      return three(a.values<Int128>()[i], a.values<Int128>()[j]);
    case TypeId::kDictionary:
      return NaiveValueCompare(a.dictionary(), a.DictionaryIndex(i), a.DictionaryIndex(j));
    default: {
      std::string_view x = a.GetView(i), y = a.GetView(j);
      int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
      return c != 0 ? (c > 0) - (c < 0) : three(x.size(), y.size());
    }
  }
}

std::vector<uint64_t> NaiveSort(const RecordBatch& b, const std::vector<SortKey>& keys) {
  std::vector<uint64_t> order(b.num_rows());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint64_t x, uint64_t y) {
    for (const SortKey& k : keys) {
      const Array& a = b.column(k.column);
      bool xn = a.IsNull(x), yn = a.IsNull(y);
      if (xn != yn) return xn == k.nulls_first;
      if (xn) continue;
      int c = NaiveValueCompare(a, x, y);
      if (c != 0) return k.ascending ? c < 0 : c > 0;
    }
    return false;
  });
  return order;
}

std::vector<TypePtr> SortableTypes() {
  std::vector<TypePtr> out;
  for (const auto& t : AllTypesForTesting()) {
    if (!t->is_nested() && t->id() != TypeId::kNull) out.push_back(t);
  }
  return out;
}

TEST(SortTest, SingleKeyOfEveryTypeMatchesTheReference) {
  testing::RandomOptions options;
  options.distinct_values = 20;  // plenty of ties, to check stability
  options.null_probability = 0.15;
  for (const auto& type : SortableTypes()) {
    for (int dir = 0; dir < 4; ++dir) {
      SortKey key{0, dir % 2 == 0, dir / 2 == 1};
      SCOPED_TRACE(type->ToString() + " key " + std::to_string(dir));
      Array column = testing::RandomArray(type, 700, 5, options).Slice(9, 600);
      RecordBatch b = Batch({{"x", column}});
      EXPECT_EQ(Sort(b, {key}), NaiveSort(b, {key}));
    }
  }
}

TEST(SortTest, SeveralKeysMatchTheReference) {
  testing::RandomOptions options;
  options.distinct_values = 4;
  std::vector<TypePtr> types = SortableTypes();
  std::mt19937_64 rng(3);
  for (int round = 0; round < 60; ++round) {
    std::vector<std::pair<std::string, Array>> columns;
    std::vector<SortKey> keys;
    for (int k = 0; k < 3; ++k) {
      const TypePtr& type = types[rng() % types.size()];
      columns.emplace_back("c" + std::to_string(k),
                           testing::RandomArray(type, 300, rng(), options).Slice(3, 250));
      keys.push_back(SortKey{k, rng() % 2 == 0, rng() % 2 == 0});
    }
    RecordBatch b = Batch(std::move(columns));
    SCOPED_TRACE(b.schema()->ToString());
    EXPECT_EQ(Sort(b, keys), NaiveSort(b, keys));
  }
}

// A key range narrow enough to share 64 bits with the row number takes the packed radix path,
// a wider one the (key, row) path; nulls in runs, first and last, are set aside either way.
TEST(SortTest, PackedAndUnpackedRadixPathsWithNullRunsMatchTheReference) {
  std::mt19937_64 rng(17);
  for (int range_bits : {3, 40, 50, 63}) {
    std::vector<std::optional<int64_t>> values;
    for (int64_t i = 0; i < 100000; ++i) {
      const bool null_run = (i / 7) % 13 == 0 || i == 99999;
      const int64_t v = static_cast<int64_t>(rng() >> (64 - range_bits)) - (int64_t{1} << 2);
      values.push_back(null_run ? std::nullopt : std::optional<int64_t>(v));
    }
    RecordBatch b = Batch({{"x", MakeNumeric<int64_t>(int64(), values)},
                           {"y", MakeNumeric<int64_t>(int64(), std::vector<std::optional<int64_t>>(
                                                                   100000, int64_t{1}))}});
    for (int dir = 0; dir < 4; ++dir) {
      SCOPED_TRACE("range bits " + std::to_string(range_bits) + " key " + std::to_string(dir));
      const std::vector<SortKey> keys = {{0, dir % 2 == 0, dir / 2 == 1}, {1, false}};
      EXPECT_EQ(Sort(b, keys), NaiveSort(b, keys));
    }
  }
}

TEST(SortTest, LargeInt64AndStringColumnsMatchTheReference) {
  RecordBatch b = Batch({{"i", testing::RandomArray(int64(), 20000, 1)},
                         {"s", testing::RandomArray(utf8(), 20000, 2)}});
  EXPECT_EQ(Sort(b, {{0}}), NaiveSort(b, {{0}}));
  EXPECT_EQ(Sort(b, {{1, false}}), NaiveSort(b, {{1, false}}));
  // The result applies with Take.
  RecordBatch sorted = Take(b, SortIndices(b, {{0}}).ValueOrDie()).ValueOrDie();
  for (int64_t i = 1; i < sorted.num_rows(); ++i) {
    const Array& c = sorted.column(0);
    if (c.IsValid(i) && c.IsValid(i - 1)) {
      ASSERT_LE(c.values<int64_t>()[i - 1], c.values<int64_t>()[i]);
    }
  }
}

TEST(RowComparatorTest, ComparesRowsOfTwoBatchesWithDifferentDictionaries) {
  auto type = dictionary(int32(), utf8());
  RecordBatch left = Batch({{"d", MakeStrings({"b", "d", std::nullopt}, type)}});
  RecordBatch right = Batch({{"d", MakeStrings({"c", "a", "b"}, type)}});
  RowComparator cmp = RowComparator::Make(left, right, {{0}}).ValueOrDie();
  EXPECT_LT(cmp.Compare(0, 0), 0);  // b < c
  EXPECT_GT(cmp.Compare(0, 1), 0);  // b > a
  EXPECT_EQ(cmp.Compare(0, 2), 0);  // b == b
  EXPECT_GT(cmp.Compare(1, 0), 0);  // d > c
  EXPECT_GT(cmp.Compare(2, 0), 0);  // null last
}

TEST(RowComparatorTest, ComparesDifferentRowsOverOneSharedDictionary) {
  // Slices of one array share its dictionary but not its rows.
  Array d = MakeStrings({"c", "a", "b", "a"}, dictionary(int32(), utf8()));
  RecordBatch left = Batch({{"d", d.Slice(0, 2)}});   // c, a
  RecordBatch right = Batch({{"d", d.Slice(2, 2)}});  // b, a
  ASSERT_EQ(left.column(0).data()->dictionary, right.column(0).data()->dictionary);
  RowComparator cmp = RowComparator::Make(left, right, {{0}}).ValueOrDie();
  EXPECT_GT(cmp.Compare(0, 0), 0);  // c > b
  EXPECT_GT(cmp.Compare(0, 1), 0);  // c > a
  EXPECT_LT(cmp.Compare(1, 0), 0);  // a < b
  EXPECT_EQ(cmp.Compare(1, 1), 0);  // a == a
}

}  // namespace
}  // namespace flotilla::compute
