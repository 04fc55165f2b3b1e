#include "flotilla/compute/partition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "flotilla/compute/concat.h"
#include "flotilla/compute/hash.h"
#include "flotilla/compute/sample.h"
#include "flotilla/compute/sort.h"
#include "flotilla/compute/take.h"
#include "tests/support/literal_arrays.h"
#include "tests/support/random_data.h"

namespace flotilla::compute {
namespace {

using testing::I32;
using testing::I64;
using testing::N;
using testing::Strs;

RecordBatch Batch(std::vector<std::pair<std::string, Array>> columns) {
  return RecordBatch::FromColumns(std::move(columns)).ValueOrDie();
}

Array RowIds(int64_t n) {
  std::vector<std::optional<int64_t>> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  return I64(ids);
}

// The values of an int64 column, in order.
std::vector<int64_t> Int64Values(const Array& a) {
  return {a.values<int64_t>(), a.values<int64_t>() + a.length()};
}

// Every row id (column `column`, int64) of all partitions, sorted.
std::vector<int64_t> AllRowIds(const std::vector<RecordBatch>& parts, int column) {
  std::vector<int64_t> ids;
  for (const RecordBatch& p : parts) {
    auto v = Int64Values(p.column(column));
    ids.insert(ids.end(), v.begin(), v.end());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// --- ScatterByPartition --------------------------------------------------------------------------

TEST(PartitionScatterTest, HandComputed) {
  RecordBatch b = Batch({{"x", I64({10, 11, 12, N, 14})}, {"s", Strs({"a", N, "c", "d", ""})}});
  auto parts = ScatterByPartition(b, {2, 0, 2, 1, 0}, 4).ValueOrDie();
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0].column(0).ToString(), "[11, 14]");
  EXPECT_EQ(parts[0].column(1).ToString(), "[null, ]");
  EXPECT_EQ(parts[1].column(0).ToString(), "[null]");
  EXPECT_EQ(parts[1].column(1).ToString(), "[d]");
  EXPECT_EQ(parts[2].column(0).ToString(), "[10, 12]");
  EXPECT_EQ(parts[2].column(1).ToString(), "[a, c]");
  EXPECT_EQ(parts[3].num_rows(), 0);
  for (const RecordBatch& p : parts) {
    EXPECT_TRUE(p.schema()->Equals(*b.schema()));
    for (const Array& c : p.columns())
      EXPECT_TRUE(Array::Make(c.data()).ok());
  }
}

TEST(PartitionScatterTest, SlicedInput) {
  RecordBatch b =
      Batch({{"x", I64({0, 1, 2, 3, 4, 5})}, {"s", Strs({"a", "b", "c", "d", "e", "f"})}})
          .Slice(2, 3);
  auto parts = ScatterByPartition(b, {1, 0, 1}, 2).ValueOrDie();
  EXPECT_EQ(parts[0].column(0).ToString(), "[3]");
  EXPECT_EQ(parts[1].column(1).ToString(), "[c, e]");
}

TEST(PartitionScatterTest, AllRowsToOnePartitionIsZeroCopy) {
  RecordBatch b = Batch({{"x", I64({1, 2, 3})}});
  auto parts = ScatterByPartition(b, {1, 1, 1}, 3).ValueOrDie();
  EXPECT_EQ(parts[1].column(0).data(), b.column(0).data());
  EXPECT_EQ(parts[0].num_rows(), 0);
  EXPECT_EQ(parts[2].num_rows(), 0);
  EXPECT_TRUE(parts[0].schema()->Equals(*b.schema()));
  // The empty partitions do not share (and keep alive) the input's buffers.
  EXPECT_NE(parts[0].column(0).data()->buffers[1], b.column(0).data()->buffers[1]);
}

TEST(PartitionScatterTest, EmptyBatchAndOnePartition) {
  RecordBatch empty = Batch({{"x", I64({})}});
  auto parts = ScatterByPartition(empty, {}, 3).ValueOrDie();
  ASSERT_EQ(parts.size(), 3u);
  for (const RecordBatch& p : parts)
    EXPECT_EQ(p.num_rows(), 0);
  RecordBatch one = Batch({{"x", I64({7})}});
  parts = ScatterByPartition(one, {0}, 1).ValueOrDie();
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_TRUE(parts[0].Equals(one));
}

TEST(PartitionScatterTest, Errors) {
  RecordBatch b = Batch({{"x", I64({1, 2, 3})}});
  auto bad_id = ScatterByPartition(b, {0, 3, 1}, 3);
  ASSERT_FALSE(bad_id.ok());
  EXPECT_EQ(bad_id.status().code(), StatusCode::kIndexError);
  EXPECT_NE(bad_id.status().message().find("row 1 has partition id 3"), std::string::npos)
      << bad_id.status().message();
  EXPECT_EQ(ScatterByPartition(b, {0, 0}, 3).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(ScatterByPartition(b, {0, 0, 0}, 0).status().code(), StatusCode::kInvalid);
}

// --- Hash ----------------------------------------------------------------------------------------

// Pinned: partition = HashRows % num_partitions is the shuffle's wire contract. The hashes are
// the golden values of hash_test.cc (int64 0, 1, -1, null; seed 0; and with a string column,
// seed 42); if this fails the routing of rows between processes changed.
TEST(PartitionHashTest, GoldenPartitionIds) {
  Array ints = I64({0, 1, -1, N});
  Array strings = Strs({"", "flotilla", N, "é"});
  std::vector<uint32_t> ids;
  ASSERT_TRUE(HashPartitionIds({ints}, 7, 0, &ids).ok());
  EXPECT_EQ(ids, (std::vector<uint32_t>{3, 0, 4, 5}));  // 0xc77b3abb6f87acd9 % 7 = 3, ...
  ASSERT_TRUE(HashPartitionIds({ints}, 16, 0, &ids).ok());
  EXPECT_EQ(ids, (std::vector<uint32_t>{9, 14, 3, 11}));
  ASSERT_TRUE(HashPartitionIds({ints, strings}, 5, 42, &ids).ok());
  EXPECT_EQ(ids, (std::vector<uint32_t>{3, 4, 0, 4}));

  RecordBatch b = Batch({{"k", ints}, {"s", strings}});
  auto parts = PartitionByHash(b, {0, 1}, 5, 42).ValueOrDie();
  EXPECT_EQ(parts[0].column(0).ToString(), "[-1]");
  EXPECT_EQ(parts[3].column(0).ToString(), "[0]");
  EXPECT_EQ(parts[4].column(0).ToString(), "[1, null]");
  EXPECT_EQ(parts[1].num_rows() + parts[2].num_rows(), 0);
}

TEST(PartitionHashTest, IdsAreHashRowsModuloN) {
  RecordBatch b = testing::RandomBatchOfAllTypes(300, 5);
  std::vector<Array> keys = {b.column(3), b.column(16)};
  Array hashes = HashRows(keys, 99).ValueOrDie();
  std::vector<uint32_t> ids;
  ASSERT_TRUE(HashPartitionIds(keys, 13, 99, &ids).ok());
  for (int64_t i = 0; i < b.num_rows(); ++i)
    EXPECT_EQ(ids[i], hashes.values<uint64_t>()[i] % 13) << i;
}

TEST(PartitionHashTest, EqualKeysLandTogetherAndEveryRowOnce) {
  testing::RandomOptions options;
  options.distinct_values = 20;
  options.null_probability = 0.1;
  const int64_t n = 5000;
  Array strings = testing::RandomArray(utf8(), n, 1, options);
  Array ints = testing::RandomArray(int32(), n, 2, options);
  RecordBatch b = Batch({{"s", strings}, {"i", ints}, {"rid", RowIds(n)}});
  auto parts = PartitionByHash(b, {0, 1}, 8).ValueOrDie();
  ASSERT_EQ(parts.size(), 8u);
  EXPECT_EQ(AllRowIds(parts, 2), Iota(n));
  std::map<std::string, size_t> home;  // key text -> partition
  for (size_t p = 0; p < parts.size(); ++p) {
    const RecordBatch& part = parts[p];
    for (int64_t r = 0; r < part.num_rows(); ++r) {
      std::string key = part.column(0).ValueToString(r) +
                        (part.column(0).IsNull(r) ? "|N|" : "|V|") +
                        part.column(1).ValueToString(r) + (part.column(1).IsNull(r) ? "|N" : "|V");
      auto [it, inserted] = home.emplace(key, p);
      EXPECT_EQ(it->second, p) << "key " << key << " is in two partitions";
    }
    // Rows keep their input order within a partition.
    auto ids = Int64Values(part.column(2));
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  }
  // A dictionary-encoded key routes like its decoded values; int32 like int64.
  Array dict = testing::MakeStrings({"x", "y", N, "x"}, dictionary(int32(), utf8()));
  std::vector<uint32_t> from_dict, from_dense, from_i32, from_i64;
  ASSERT_TRUE(HashPartitionIds({dict}, 11, 0, &from_dict).ok());
  ASSERT_TRUE(HashPartitionIds({Strs({"x", "y", N, "x"})}, 11, 0, &from_dense).ok());
  EXPECT_EQ(from_dict, from_dense);
  ASSERT_TRUE(HashPartitionIds({I32({5, -3})}, 11, 0, &from_i32).ok());
  ASSERT_TRUE(HashPartitionIds({I64({5, -3})}, 11, 0, &from_i64).ok());
  EXPECT_EQ(from_i32, from_i64);
}

TEST(PartitionHashTest, SlicedInputRoutesLikeTheUnslicedRows) {
  RecordBatch full = Batch({{"s", Strs({"a", "b", "c", "d", "e", "f", "g"})}, {"rid", RowIds(7)}});
  std::vector<uint32_t> all, sliced;
  ASSERT_TRUE(HashPartitionIds({full.column(0)}, 3, 0, &all).ok());
  ASSERT_TRUE(HashPartitionIds({full.column(0).Slice(2, 4)}, 3, 0, &sliced).ok());
  EXPECT_EQ(sliced, std::vector<uint32_t>(all.begin() + 2, all.begin() + 6));
  auto parts = PartitionByHash(full.Slice(2, 4), {0}, 3).ValueOrDie();
  EXPECT_EQ(AllRowIds(parts, 1), (std::vector<int64_t>{2, 3, 4, 5}));
}

TEST(PartitionHashTest, Errors) {
  RecordBatch b = Batch({{"x", I64({1, 2})}});
  EXPECT_EQ(PartitionByHash(b, {}, 4).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(PartitionByHash(b, {1}, 4).status().code(), StatusCode::kIndexError);
  EXPECT_EQ(PartitionByHash(b, {0}, 0).status().code(), StatusCode::kInvalid);
  std::vector<uint32_t> ids;
  EXPECT_EQ(HashPartitionIds({I64({1}), I64({1, 2})}, 2, 0, &ids).code(), StatusCode::kInvalid);
  auto empty = PartitionByHash(Batch({{"x", I64({})}}), {0}, 3).ValueOrDie();
  ASSERT_EQ(empty.size(), 3u);
  EXPECT_EQ(empty[2].num_rows(), 0);
}

// --- Random --------------------------------------------------------------------------------------

// The documented definition, written out independently of SplitMix64 in sample.h.
std::vector<uint32_t> ReferenceRandomIds(int64_t n, uint64_t partitions, uint64_t seed,
                                         uint64_t stream) {
  auto mix = [](uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  uint64_t state = mix(seed ^ mix(stream));
  std::vector<uint32_t> ids;
  for (int64_t i = 0; i < n; ++i) {
    // Rejection is too rare to matter for small bounds; the high 64 bits of x * bound.
    state += 0x9E3779B97F4A7C15ull;
    const unsigned __int128 m = static_cast<unsigned __int128>(mix(state)) * partitions;
    ids.push_back(static_cast<uint32_t>(m >> 64));
  }
  return ids;
}

TEST(PartitionRandomTest, SplitMix64ReferenceValues) {
  SplitMix64 g(0);
  EXPECT_EQ(g.Next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(g.Next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(g.Next(), 0x06C45D188009454Full);
  EXPECT_EQ(SplitMix64::ForStream(7, 0).state(), SplitMix64::Mix(7));
  EXPECT_NE(SplitMix64::ForStream(7, 1).state(), SplitMix64::ForStream(7, 2).state());
}

TEST(PartitionRandomTest, FollowsTheDocumentedDefinition) {
  std::vector<uint32_t> ids;
  ASSERT_TRUE(RandomPartitionIds(1000, 7, 12345, 3, &ids).ok());
  EXPECT_EQ(ids, ReferenceRandomIds(1000, 7, 12345, 3));
}

TEST(PartitionRandomTest, DeterministicPerSeedAndStream) {
  const int64_t n = 1000;
  RecordBatch b = Batch({{"rid", RowIds(n)}, {"s", testing::RandomArray(utf8(), n, 3)}});
  auto a1 = PartitionRandom(b, 5, 42).ValueOrDie();
  auto a2 = PartitionRandom(b, 5, 42).ValueOrDie();
  auto other_seed = PartitionRandom(b, 5, 43).ValueOrDie();
  auto other_stream = PartitionRandom(b, 5, 42, 1).ValueOrDie();
  bool seed_differs = false, stream_differs = false;
  for (int p = 0; p < 5; ++p) {
    EXPECT_TRUE(a1[p].Equals(a2[p]));
    seed_differs |= !a1[p].Equals(other_seed[p]);
    stream_differs |= !a1[p].Equals(other_stream[p]);
  }
  EXPECT_TRUE(seed_differs);
  EXPECT_TRUE(stream_differs);
  EXPECT_EQ(AllRowIds(a1, 0), Iota(n));
}

TEST(PartitionRandomTest, RoughlyUniform) {
  const int64_t n = 100000;
  std::vector<uint32_t> ids;
  ASSERT_TRUE(RandomPartitionIds(n, 4, 7, 0, &ids).ok());
  std::vector<int64_t> counts(4, 0);
  for (uint32_t id : ids)
    ++counts[id];
  // Binomial(100000, 1/4): sd ~ 137; allow 5 sd.
  for (int64_t c : counts)
    EXPECT_NEAR(static_cast<double>(c), 25000.0, 700.0);
}

// --- Range ---------------------------------------------------------------------------------------

TEST(PartitionRangeTest, AscendingNullsLast) {
  RecordBatch b = Batch({{"x", I64({5, N, 1, 7, 3, 8, 3})}, {"rid", RowIds(7)}});
  RecordBatch bounds = Batch({{"b", I64({3, 7})}});
  std::vector<uint32_t> ids;
  ASSERT_TRUE(RangePartitionIds(b, {{0}}, bounds, &ids).ok());
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 2, 0, 1, 0, 2, 0}));
  auto parts = PartitionByRange(b, {{0}}, bounds).ValueOrDie();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].column(0).ToString(), "[1, 3, 3]");
  EXPECT_EQ(parts[1].column(0).ToString(), "[5, 7]");
  EXPECT_EQ(parts[2].column(0).ToString(), "[null, 8]");
}

TEST(PartitionRangeTest, DescendingNullsFirst) {
  RecordBatch b = Batch({{"x", I64({5, N, 1, 7, 3, 8, 3})}});
  // Sorted under (descending, nulls first): null, 7, 3.
  RecordBatch bounds = Batch({{"x", I64({N, 7, 3})}});
  std::vector<uint32_t> ids;
  ASSERT_TRUE(RangePartitionIds(b, {{0, false, true}}, bounds, &ids).ok());
  EXPECT_EQ(ids, (std::vector<uint32_t>{2, 0, 3, 1, 2, 1, 2}));
}

TEST(PartitionRangeTest, SeveralKeysWithStrings) {
  RecordBatch b = Batch({{"rid", RowIds(6)},
                         {"s", Strs({"b", "a", "b", N, "c", "b"})},
                         {"i", I64({1, 9, 5, 0, 0, 3})}});
  // Keys: s ascending (nulls last), then i descending. Boundaries (s, i): (a, 0), (b, 3).
  RecordBatch bounds = Batch({{"s", Strs({"a", "b"})}, {"i", I64({0, 3})}});
  std::vector<uint32_t> ids;
  ASSERT_TRUE(RangePartitionIds(b, {{1}, {2, false}}, bounds, &ids).ok());
  // (b,1): after (b,3) under i descending -> 2; (a,9) <= (a,0) -> 0; (b,5) -> 1; (null,0) -> 2;
  // (c,0) -> 2; (b,3) equals boundary 1 -> 1.
  EXPECT_EQ(ids, (std::vector<uint32_t>{2, 0, 1, 2, 2, 1}));
}

TEST(PartitionRangeTest, DictionaryKeysCompareByValue) {
  auto type = dictionary(int32(), utf8());
  RecordBatch b = Batch({{"d", testing::MakeStrings({"pear", "apple", N, "fig"}, type)}});
  RecordBatch bounds = Batch({{"d", testing::MakeStrings({"banana", "orange"}, type)}});
  std::vector<uint32_t> ids;
  ASSERT_TRUE(RangePartitionIds(b, {{0}}, bounds, &ids).ok());
  EXPECT_EQ(ids, (std::vector<uint32_t>{2, 0, 2, 1}));
}

TEST(PartitionRangeTest, SlicedInputAndNoBoundaries) {
  RecordBatch b = Batch({{"x", I64({9, 1, 6, 2, 8})}}).Slice(1, 3);
  auto parts = PartitionByRange(b, {{0}}, Batch({{"x", I64({2})}})).ValueOrDie();
  EXPECT_EQ(parts[0].column(0).ToString(), "[1, 2]");
  EXPECT_EQ(parts[1].column(0).ToString(), "[6]");
  auto one = PartitionByRange(b, {{0}}, Batch({{"x", I64({})}})).ValueOrDie();
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].Equals(b));
}

TEST(PartitionRangeTest, Errors) {
  RecordBatch b = Batch({{"x", I64({1, 2})}, {"s", Strs({"a", "b"})}});
  auto unsorted = PartitionByRange(b, {{0}}, Batch({{"x", I64({5, 2})}}));
  ASSERT_FALSE(unsorted.ok());
  EXPECT_EQ(unsorted.status().code(), StatusCode::kInvalid);
  EXPECT_NE(unsorted.status().message().find("boundary 0 sorts after boundary 1"),
            std::string::npos);
  // Sorted for descending keys, so fine there.
  EXPECT_TRUE(PartitionByRange(b, {{0, false}}, Batch({{"x", I64({5, 2})}})).ok());
  auto wrong_type = PartitionByRange(b, {{0}}, Batch({{"x", I32({5})}}));
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.status().code(), StatusCode::kTypeError);
  EXPECT_NE(wrong_type.status().message().find("column 'x'"), std::string::npos);
  EXPECT_EQ(PartitionByRange(b, {{0}, {1}}, Batch({{"x", I64({5})}})).status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(PartitionByRange(b, {{4}}, Batch({{"x", I64({5})}})).status().code(),
            StatusCode::kIndexError);
}

TEST(PartitionRangeTest, RangeBoundariesAreQuantiles) {
  // 0..99 in a scrambled order.
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 100; ++i)
    values.push_back((i * 37) % 100);
  RecordBatch sample =
      Batch({{"pad", Strs(std::vector<std::optional<std::string>>(100, "p"))}, {"v", I64(values)}});
  RecordBatch bounds = RangeBoundaries(sample, {{1}}, 4).ValueOrDie();
  ASSERT_EQ(bounds.num_columns(), 1);
  EXPECT_EQ(bounds.schema()->field(0).name, "v");
  EXPECT_EQ(bounds.column(0).ToString(), "[24, 49, 74]");
  EXPECT_EQ(RangeBoundaries(sample, {{1, false}}, 4).ValueOrDie().column(0).ToString(),
            "[75, 50, 25]");
  EXPECT_EQ(RangeBoundaries(sample, {{1}}, 1).ValueOrDie().num_rows(), 0);
  // Fewer sample rows than partitions: boundaries repeat.
  RecordBatch two = Batch({{"v", I64({8, 3})}});
  EXPECT_EQ(RangeBoundaries(two, {{0}}, 4).ValueOrDie().column(0).ToString(), "[3, 3, 8]");
  // An empty sample: all-null boundaries, and everything lands in one partition.
  RecordBatch none = Batch({{"v", I64({})}});
  RecordBatch null_bounds = RangeBoundaries(none, {{0}}, 3).ValueOrDie();
  EXPECT_EQ(null_bounds.column(0).ToString(), "[null, null]");
  auto parts = PartitionByRange(Batch({{"v", I64({4, N, -2})}}), {{0}}, null_bounds).ValueOrDie();
  EXPECT_EQ(parts[0].num_rows(), 3);
  EXPECT_EQ(RangeBoundaries(two, {{0}}, 0).status().code(), StatusCode::kInvalid);
}

TEST(PartitionRangeTest, SortedPartitionsConcatenateToATotalOrder) {
  testing::RandomOptions options;
  options.distinct_values = 40;
  options.null_probability = 0.05;
  const int64_t n = 3000;
  RecordBatch b = Batch({{"i", testing::RandomArray(int64(), n, 11, options)},
                         {"s", testing::RandomArray(utf8(), n, 12, options)},
                         {"f", testing::RandomArray(float64(), n, 13, options)},
                         {"rid", RowIds(n)}});
  for (const std::vector<SortKey>& keys :
       {std::vector<SortKey>{{0, true, true}, {1, false}},
        std::vector<SortKey>{{1, false, false}, {2, true, true}, {0}},
        std::vector<SortKey>{{2, true}}}) {
    RecordBatch sample = SampleFraction(b, 0.1, false, 5).ValueOrDie();
    RecordBatch bounds = RangeBoundaries(sample, keys, 6).ValueOrDie();
    ASSERT_EQ(bounds.num_rows(), 5);
    auto parts = PartitionByRange(b, keys, bounds).ValueOrDie();
    ASSERT_EQ(parts.size(), 6u);
    EXPECT_EQ(AllRowIds(parts, 3), Iota(n));
    std::vector<RecordBatch> sorted_parts;
    for (const RecordBatch& p : parts) {
      EXPECT_GT(p.num_rows(), 0);
      sorted_parts.push_back(Take(p, SortIndices(p, keys).ValueOrDie()).ValueOrDie());
    }
    RecordBatch all = ConcatBatches(sorted_parts).ValueOrDie();
    RowComparator cmp = RowComparator::Make(all, keys).ValueOrDie();
    for (int64_t r = 1; r < all.num_rows(); ++r)
      ASSERT_LE(cmp.Compare(r - 1, r), 0) << "rows " << r - 1 << " and " << r;
    // Same key values as sorting the whole batch at once.
    RecordBatch whole = Take(b, SortIndices(b, keys).ValueOrDie()).ValueOrDie();
    for (const SortKey& k : keys)
      EXPECT_TRUE(whole.column(k.column).Equals(all.column(k.column)));
  }
}

}  // namespace
}  // namespace flotilla::compute
