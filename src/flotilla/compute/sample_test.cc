#include "flotilla/compute/sample.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "flotilla/compute/take.h"
#include "tests/support/literal_arrays.h"

namespace flotilla::compute {
namespace {

using testing::I64;
using testing::N;
using testing::Strs;

// Rows rid = first .. first + count - 1, with s = "r<rid>" so that a sampled row can be checked
// against its source.
RecordBatch Rows(int64_t first, int64_t count) {
  std::vector<std::optional<int64_t>> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = first; i < first + count; ++i) {
    ids.push_back(i);
    names.push_back("r" + std::to_string(i));
  }
  return RecordBatch::FromColumns({{"rid", I64(ids)}, {"s", Strs(names)}}).ValueOrDie();
}

std::vector<int64_t> Rids(const RecordBatch& b) {
  const Array& c = b.column(0);
  return {c.values<int64_t>(), c.values<int64_t>() + c.length()};
}

// Every row's s matches its rid.
void ExpectConsistent(const RecordBatch& b) {
  const std::vector<int64_t> rids = Rids(b);
  for (int64_t r = 0; r < b.num_rows(); ++r) {
    ASSERT_EQ(std::string(b.column(1).GetView(r)), "r" + std::to_string(rids[r]));
  }
}

// The documented definitions, written out independently of sample.cc.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<int64_t> ReferenceBernoulli(int64_t n, double fraction, uint64_t seed,
                                        uint64_t stream) {
  uint64_t state = Mix(seed ^ Mix(stream));
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < n; ++i) {
    state += 0x9E3779B97F4A7C15ull;
    const double u = static_cast<double>(Mix(state) >> 11) / 9007199254740992.0;  // 2^53
    if (u < fraction) rows.push_back(i);
  }
  return rows;
}

std::vector<int64_t> ReferencePoisson(int64_t n, double mean, uint64_t seed, uint64_t stream) {
  uint64_t state = Mix(seed ^ Mix(stream));
  auto uniform = [&] {
    state += 0x9E3779B97F4A7C15ull;
    return static_cast<double>(Mix(state) >> 11) / 9007199254740992.0;
  };
  auto knuth = [&](double m) {
    const double limit = std::exp(-m);
    int64_t k = 0;
    for (double p = uniform(); p > limit; p *= uniform())
      ++k;
    return k;
  };
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < n; ++i) {
    int64_t copies = 0;
    double rest = mean;
    for (; rest >= 16; rest -= 16)
      copies += knuth(16);
    if (rest > 0) copies += knuth(rest);
    rows.insert(rows.end(), copies, i);
  }
  return rows;
}

// --- SampleFraction ------------------------------------------------------------------------------

TEST(SampleFractionTest, BernoulliFollowsTheDocumentedDefinition) {
  RecordBatch b = Rows(0, 2000);
  RecordBatch s = SampleFraction(b, 0.3, false, 99, 4).ValueOrDie();
  EXPECT_EQ(Rids(s), ReferenceBernoulli(2000, 0.3, 99, 4));
  ExpectConsistent(s);
  EXPECT_TRUE(s.schema()->Equals(*b.schema()));
}

TEST(SampleFractionTest, PoissonFollowsTheDocumentedDefinition) {
  RecordBatch b = Rows(0, 500);
  for (double mean : {0.2, 1.0, 20.5}) {
    RecordBatch s = SampleFraction(b, mean, true, 7, 2).ValueOrDie();
    EXPECT_EQ(Rids(s), ReferencePoisson(500, mean, 7, 2)) << mean;
    ExpectConsistent(s);
  }
}

TEST(SampleFractionTest, BernoulliTenPercentOf100k) {
  const int64_t n = 100000;
  RecordBatch s = SampleFraction(Rows(0, n), 0.1, false, 1).ValueOrDie();
  // Binomial(100000, 0.1): sd ~ 95; allow 5 sd.
  EXPECT_NEAR(static_cast<double>(s.num_rows()), 10000.0, 475.0);
  auto rids = Rids(s);
  EXPECT_TRUE(std::adjacent_find(rids.begin(), rids.end(), std::greater_equal<int64_t>()) ==
              rids.end())
      << "rows must keep their order and appear once";
}

TEST(SampleFractionTest, PoissonCopiesPerRow) {
  const int64_t n = 100000;
  RecordBatch s = SampleFraction(Rows(0, n), 0.5, true, 3).ValueOrDie();
  std::vector<int64_t> copies(n, 0);
  auto rids = Rids(s);
  ASSERT_TRUE(std::is_sorted(rids.begin(), rids.end()));  // copies of a row are adjacent
  for (int64_t r : rids)
    ++copies[r];
  std::vector<int64_t> histogram(4, 0);
  for (int64_t c : copies)
    ++histogram[std::min<int64_t>(c, 3)];
  // Poisson(0.5): P(0) = 0.6065, P(1) = 0.3033, P(2) = 0.0758; 5 sd of the counts.
  EXPECT_NEAR(static_cast<double>(histogram[0]), 60653.0, 775.0);
  EXPECT_NEAR(static_cast<double>(histogram[1]), 30327.0, 730.0);
  EXPECT_NEAR(static_cast<double>(histogram[2]), 7582.0, 420.0);
  EXPECT_NEAR(static_cast<double>(s.num_rows()), 50000.0, 1120.0);
}

TEST(SampleFractionTest, PoissonLargeMeans) {
  for (double mean : {2.5, 40.0}) {
    const int64_t n = 5000;
    RecordBatch s = SampleFraction(Rows(0, n), mean, true, 17).ValueOrDie();
    std::vector<double> copies(n, 0);
    for (int64_t r : Rids(s))
      ++copies[r];
    const double avg = std::accumulate(copies.begin(), copies.end(), 0.0) / n;
    double var = 0;
    for (double c : copies)
      var += (c - avg) * (c - avg);
    var /= n - 1;
    // The mean has sd sqrt(mean / n); the sample variance about sqrt((2 mean^2 + mean) / n).
    EXPECT_NEAR(avg, mean, 5 * std::sqrt(mean / n)) << mean;
    EXPECT_NEAR(var, mean, 5 * std::sqrt((2 * mean * mean + mean) / n)) << mean;
  }
}

TEST(SampleFractionTest, DeterministicAndStreamsAreIndependent) {
  const int64_t n = 10000;
  RecordBatch b = Rows(0, n);
  RecordBatch a = SampleFraction(b, 0.5, false, 42, 0).ValueOrDie();
  EXPECT_TRUE(a.Equals(SampleFraction(b, 0.5, false, 42, 0).ValueOrDie()));
  RecordBatch other = SampleFraction(b, 0.5, false, 42, 1).ValueOrDie();
  EXPECT_FALSE(a.Equals(other));
  EXPECT_FALSE(a.Equals(SampleFraction(b, 0.5, false, 43, 0).ValueOrDie()));
  // Independent streams overlap like independent coin flips: n / 4 rows in both (sd ~ 43).
  auto x = Rids(a), y = Rids(other);
  std::vector<int64_t> both;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
  EXPECT_NEAR(static_cast<double>(both.size()), 2500.0, 220.0);
}

TEST(SampleFractionTest, EdgeCases) {
  RecordBatch b = Rows(0, 10);
  RecordBatch none = SampleFraction(b, 0.0, false, 1).ValueOrDie();
  EXPECT_EQ(none.num_rows(), 0);
  EXPECT_TRUE(none.schema()->Equals(*b.schema()));
  EXPECT_EQ(SampleFraction(b, 0.0, true, 1).ValueOrDie().num_rows(), 0);
  RecordBatch all = SampleFraction(b, 1.0, false, 1).ValueOrDie();
  EXPECT_EQ(all.column(1).data(), b.column(1).data());  // every row once: zero-copy
  RecordBatch empty = Rows(0, 0);
  EXPECT_EQ(SampleFraction(empty, 0.5, false, 1).ValueOrDie().num_rows(), 0);
  EXPECT_EQ(SampleFraction(empty, 3.0, true, 1).ValueOrDie().num_rows(), 0);
  // One row, one stream: kept or not as the first draw says.
  RecordBatch one = Rows(5, 1);
  EXPECT_EQ(Rids(SampleFraction(one, 0.5, false, 8).ValueOrDie()).size(),
            ReferenceBernoulli(1, 0.5, 8, 0).size());
}

TEST(SampleFractionTest, SlicedStringsAndNulls) {
  RecordBatch b =
      RecordBatch::FromColumns({{"x", I64({0, 1, N, 3, 4, 5, N, 7, 8, 9})},
                                {"s", Strs({"a", N, "ccc", "", "e", "ff", "g", N, "i", "j"})}})
          .ValueOrDie();
  RecordBatch slice = b.Slice(2, 7);
  RecordBatch s = SampleFraction(slice, 0.5, false, 11, 6).ValueOrDie();
  std::vector<std::optional<int64_t>> expected_rows;
  for (int64_t r : ReferenceBernoulli(7, 0.5, 11, 6))
    expected_rows.push_back(r);
  RecordBatch expected = Take(slice, testing::MakeIndices(int64(), expected_rows)).ValueOrDie();
  EXPECT_TRUE(s.Equals(expected)) << s.column(1).ToString() << " vs "
                                  << expected.column(1).ToString();
  EXPECT_GT(s.num_rows(), 0);
  EXPECT_LT(s.num_rows(), 7);
}

TEST(SampleFractionTest, InvalidFractions) {
  RecordBatch b = Rows(0, 3);
  for (double f : {-0.1, 1.5, std::nan(""), double{INFINITY}}) {
    auto r = SampleFraction(b, f, false, 1);
    ASSERT_FALSE(r.ok()) << f;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  }
  EXPECT_EQ(SampleFraction(b, -1, true, 1).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(SampleFraction(b, INFINITY, true, 1).status().code(), StatusCode::kInvalid);
  EXPECT_TRUE(SampleFraction(b, 1.5, true, 1).ok());
}

// --- ReservoirSampler ----------------------------------------------------------------------------

ReservoirSampler MakeSampler(int64_t k, bool with_replacement, uint64_t seed, int64_t stream = 0) {
  static const SchemaPtr schema = Rows(0, 0).schema();
  return ReservoirSampler::Make(schema, k, with_replacement, seed, stream).ValueOrDie();
}

TEST(ReservoirSamplerTest, FewerRowsThanTheSampleSizeKeepsAllInOrder) {
  ReservoirSampler sampler = MakeSampler(10, false, 1);
  ASSERT_TRUE(sampler.Add(Rows(0, 3)).ok());
  ASSERT_TRUE(sampler.Add(Rows(0, 0)).ok());
  ASSERT_TRUE(sampler.Add(Rows(0, 8).Slice(3, 4)).ok());
  RecordBatch s = sampler.Finish().ValueOrDie();
  EXPECT_EQ(Rids(s), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  ExpectConsistent(s);
  EXPECT_EQ(sampler.rows_seen(), 7);
}

TEST(ReservoirSamplerTest, WithoutReplacementKeepsKDistinctRowsInArrivalOrder) {
  ReservoirSampler sampler = MakeSampler(50, false, 3);
  for (int64_t start = 0; start < 10000; start += 997)
    ASSERT_TRUE(sampler.Add(Rows(start, std::min<int64_t>(997, 10000 - start))).ok());
  RecordBatch s = sampler.Finish().ValueOrDie();
  ASSERT_EQ(s.num_rows(), 50);
  auto rids = Rids(s);
  EXPECT_TRUE(std::adjacent_find(rids.begin(), rids.end(), std::greater_equal<int64_t>()) ==
              rids.end());
  ExpectConsistent(s);
  // Finish does not consume the sample.
  EXPECT_TRUE(s.Equals(sampler.Finish().ValueOrDie()));
}

TEST(ReservoirSamplerTest, WithoutReplacementIsUniform) {
  // 20 rows in batches of 3, 7 and 10, sample 5: each row is in the sample with probability 1/4.
  const int trials = 4000;
  std::vector<int64_t> hits(20, 0);
  const RecordBatch b1 = Rows(0, 3), b2 = Rows(3, 7), b3 = Rows(10, 10);
  for (int t = 0; t < trials; ++t) {
    ReservoirSampler sampler = MakeSampler(5, false, t);
    ASSERT_TRUE(sampler.Add(b1).ok());
    ASSERT_TRUE(sampler.Add(b2).ok());
    ASSERT_TRUE(sampler.Add(b3).ok());
    RecordBatch s = sampler.Finish().ValueOrDie();
    ASSERT_EQ(s.num_rows(), 5);
    for (int64_t r : Rids(s))
      ++hits[r];
  }
  // Binomial(4000, 1/4): sd ~ 27; allow 5 sd.
  for (int64_t r = 0; r < 20; ++r)
    EXPECT_NEAR(static_cast<double>(hits[r]), 1000.0, 140.0) << "row " << r;
}

TEST(ReservoirSamplerTest, MergeWeighsBySizeWithoutReplacement) {
  // A sees rows 0..9, B rows 10..39: merged, each of the 40 rows has probability 5/40.
  const int trials = 4000;
  std::vector<int64_t> hits(40, 0);
  const RecordBatch b1 = Rows(0, 10), b2 = Rows(10, 10), b3 = Rows(20, 10), b4 = Rows(30, 10);
  for (int t = 0; t < trials; ++t) {
    ReservoirSampler a = MakeSampler(5, false, t, 0);
    ReservoirSampler b = MakeSampler(5, false, t, 1);
    ASSERT_TRUE(a.Add(b1).ok());
    for (const RecordBatch* batch : {&b2, &b3, &b4})
      ASSERT_TRUE(b.Add(*batch).ok());
    ASSERT_TRUE(a.Merge(std::move(b)).ok());
    EXPECT_EQ(a.rows_seen(), 40);
    RecordBatch s = a.Finish().ValueOrDie();
    ASSERT_EQ(s.num_rows(), 5);
    auto rids = Rids(s);
    ASSERT_TRUE(std::is_sorted(rids.begin(), rids.end()));  // A's rows, then B's
    ExpectConsistent(s);
    for (int64_t r : rids)
      ++hits[r];
  }
  int64_t from_a = 0;
  for (int64_t r = 0; r < 40; ++r) {
    // Binomial(4000, 1/8): sd ~ 21; allow 5 sd.
    EXPECT_NEAR(static_cast<double>(hits[r]), 500.0, 105.0) << "row " << r;
    if (r < 10) from_a += hits[r];
  }
  EXPECT_NEAR(static_cast<double>(from_a), 5000.0, 5 * std::sqrt(20000 * 0.25 * 0.75));
}

TEST(ReservoirSamplerTest, WithReplacementSlotsAreUniform) {
  const int trials = 4000;
  std::vector<int64_t> hits(20, 0);
  const RecordBatch b1 = Rows(0, 3), b2 = Rows(3, 17);
  for (int t = 0; t < trials; ++t) {
    ReservoirSampler sampler = MakeSampler(8, true, t);
    ASSERT_TRUE(sampler.Add(b1).ok());
    ASSERT_TRUE(sampler.Add(b2).ok());
    RecordBatch s = sampler.Finish().ValueOrDie();
    ASSERT_EQ(s.num_rows(), 8);
    ExpectConsistent(s);
    for (int64_t r : Rids(s))
      ++hits[r];
  }
  // 32000 picks of 20 rows: 1600 each, sd ~ 39.
  for (int64_t r = 0; r < 20; ++r)
    EXPECT_NEAR(static_cast<double>(hits[r]), 1600.0, 195.0) << "row " << r;
}

TEST(ReservoirSamplerTest, MergeWeighsBySizeWithReplacement) {
  const int trials = 4000;
  std::vector<int64_t> hits(40, 0);
  const RecordBatch b1 = Rows(0, 10), b2 = Rows(10, 15), b3 = Rows(25, 15);
  for (int t = 0; t < trials; ++t) {
    ReservoirSampler a = MakeSampler(8, true, t, 0);
    ReservoirSampler b = MakeSampler(8, true, t, 1);
    ASSERT_TRUE(a.Add(b1).ok());
    ASSERT_TRUE(b.Add(b2).ok());
    ASSERT_TRUE(b.Add(b3).ok());
    ASSERT_TRUE(a.Merge(std::move(b)).ok());
    RecordBatch s = a.Finish().ValueOrDie();
    ASSERT_EQ(s.num_rows(), 8);
    ExpectConsistent(s);
    for (int64_t r : Rids(s))
      ++hits[r];
  }
  int64_t from_a = 0;
  for (int64_t r = 0; r < 40; ++r) {
    // 32000 picks of 40 rows: 800 each, sd ~ 28.
    EXPECT_NEAR(static_cast<double>(hits[r]), 800.0, 140.0) << "row " << r;
    if (r < 10) from_a += hits[r];
  }
  // A holds a quarter of the rows: 8000 of 32000 picks, sd ~ 77.
  EXPECT_NEAR(static_cast<double>(from_a), 8000.0, 390.0);
}

TEST(ReservoirSamplerTest, ManySmallBatchesStayBounded) {
  // Exercises the compaction of held rows in both modes.
  for (bool with_replacement : {false, true}) {
    ReservoirSampler sampler = MakeSampler(3, with_replacement, 5);
    for (int64_t i = 0; i < 3000; ++i)
      ASSERT_TRUE(sampler.Add(Rows(i, 1)).ok());
    RecordBatch s = sampler.Finish().ValueOrDie();
    ASSERT_EQ(s.num_rows(), 3);
    ExpectConsistent(s);
  }
}

TEST(ReservoirSamplerTest, DeterministicForASeed) {
  for (bool with_replacement : {false, true}) {
    auto run = [&](uint64_t seed) {
      ReservoirSampler sampler = MakeSampler(7, with_replacement, seed);
      for (int64_t start = 0; start < 1000; start += 100)
        sampler.Add(Rows(start, 100)).Check();
      return sampler.Finish().ValueOrDie();
    };
    EXPECT_TRUE(run(1).Equals(run(1)));
    EXPECT_FALSE(run(1).Equals(run(2)));
  }
}

TEST(ReservoirSamplerTest, EdgeCases) {
  // Nothing added: an empty batch of the schema, in both modes.
  for (bool with_replacement : {false, true}) {
    ReservoirSampler sampler = MakeSampler(4, with_replacement, 1);
    RecordBatch s = sampler.Finish().ValueOrDie();
    EXPECT_EQ(s.num_rows(), 0);
    EXPECT_TRUE(s.schema()->Equals(*Rows(0, 0).schema()));
    // Sample size 0.
    ReservoirSampler zero = MakeSampler(0, with_replacement, 1);
    ASSERT_TRUE(zero.Add(Rows(0, 5)).ok());
    EXPECT_EQ(zero.Finish().ValueOrDie().num_rows(), 0);
  }
  // With replacement, fewer rows than slots: still k rows, drawn from the few.
  ReservoirSampler few = MakeSampler(6, true, 2);
  ASSERT_TRUE(few.Add(Rows(0, 2)).ok());
  RecordBatch s = few.Finish().ValueOrDie();
  ASSERT_EQ(s.num_rows(), 6);
  for (int64_t r : Rids(s))
    EXPECT_TRUE(r == 0 || r == 1);
  // A single row.
  ReservoirSampler one = MakeSampler(3, false, 2);
  ASSERT_TRUE(one.Add(Rows(9, 1)).ok());
  EXPECT_EQ(Rids(one.Finish().ValueOrDie()), (std::vector<int64_t>{9}));
  // Merging with an empty sampler, and into one.
  ReservoirSampler target = MakeSampler(3, false, 2, 0);
  ReservoirSampler source = MakeSampler(3, false, 2, 1);
  ASSERT_TRUE(source.Add(Rows(0, 2)).ok());
  ASSERT_TRUE(target.Merge(MakeSampler(3, false, 2, 5)).ok());
  ASSERT_TRUE(target.Merge(std::move(source)).ok());
  EXPECT_EQ(Rids(target.Finish().ValueOrDie()), (std::vector<int64_t>{0, 1}));
  // Adding after Finish continues.
  ASSERT_TRUE(target.Add(Rows(2, 1)).ok());
  EXPECT_EQ(Rids(target.Finish().ValueOrDie()), (std::vector<int64_t>{0, 1, 2}));
}

TEST(ReservoirSamplerTest, Errors) {
  EXPECT_EQ(ReservoirSampler::Make(Rows(0, 0).schema(), -1, false, 0).status().code(),
            StatusCode::kInvalid);
  ReservoirSampler sampler = MakeSampler(3, false, 0);
  RecordBatch other = RecordBatch::FromColumns({{"rid", I64({1})}}).ValueOrDie();
  EXPECT_EQ(sampler.Add(other).code(), StatusCode::kTypeError);
  EXPECT_EQ(sampler.Merge(MakeSampler(4, false, 0, 1)).code(), StatusCode::kInvalid);
  EXPECT_EQ(sampler.Merge(MakeSampler(3, true, 0, 1)).code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace flotilla::compute
