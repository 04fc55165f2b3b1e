#include "flotilla/exec/window/window_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/support/literal_arrays.h"

namespace flotilla::exec {
namespace {

using compute::SortKey;

using testing::Bools;
using testing::Dates;
using testing::Decimals;
using testing::F64;
using testing::I64;
using testing::N;
using testing::Strs;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

FrameBound UnboundedPreceding() {
  return {FrameBound::kUnboundedPreceding};
}
FrameBound Preceding(int64_t k) {
  return {FrameBound::kPreceding, k};
}
FrameBound CurrentRow() {
  return {FrameBound::kCurrentRow};
}
FrameBound Following(int64_t k) {
  return {FrameBound::kFollowing, k};
}
FrameBound UnboundedFollowing() {
  return {FrameBound::kUnboundedFollowing};
}

WindowFrame Rows(FrameBound start, FrameBound end) {
  return {WindowFrame::kRows, start, end};
}
WindowFrame Range(FrameBound start, FrameBound end) {
  return {WindowFrame::kRange, start, end};
}

WindowFunctionSpec Fn(std::string name, std::vector<int> arguments = {},
                      std::vector<Array> constants = {},
                      std::optional<WindowFrame> frame = std::nullopt) {
  return {std::move(name), std::move(arguments), std::move(constants), frame};
}

Array C64(std::optional<int64_t> v) {
  return I64({v});
}

RecordBatch Batch(std::vector<std::pair<std::string, Array>> columns) {
  return RecordBatch::FromColumns(std::move(columns)).ValueOrDie();
}

// Runs the function, failing the test (and returning an empty null array) on error.
Array RunWindow(const RecordBatch& batch, const std::vector<int64_t>& starts,
                const std::vector<compute::SortKey>& keys, const WindowFunctionSpec& spec) {
  auto result = ComputeWindowFunction(batch, starts, keys, spec);
  EXPECT_TRUE(result.ok()) << spec.name << ": " << result.status().ToString();
  if (!result.ok()) return Array::MakeNull(null(), 0).ValueOrDie();
  auto type = WindowFunctionType(*batch.schema(), spec);
  EXPECT_TRUE(type.ok() && (*type)->Equals(*result->type())) << spec.name;
  return *result;
}

Status RunStatus(const RecordBatch& batch, const std::vector<int64_t>& starts,
                 const std::vector<compute::SortKey>& keys, const WindowFunctionSpec& spec) {
  return ComputeWindowFunction(batch, starts, keys, spec).status();
}

void ExpectNear(const std::vector<std::optional<double>>& expected, const Array& actual) {
  ASSERT_EQ(actual.type_id(), TypeId::kFloat64);
  ASSERT_EQ(actual.length(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(actual.IsValid(i), expected[i].has_value());
    if (expected[i]) {
      EXPECT_NEAR(actual.values<double>()[i], *expected[i], 1e-9);
    }
  }
}

// The shared example: three partitions sorted by o ascending, nulls last.
//   row  p  o     x
//   0    1  1     10
//   1    1  2     null
//   2    1  2     30
//   3    1  4     40
//   4    1  7     50
//   5    1  null  60
//   6    2  5     70
//   7    3  3     null
//   8    3  3     90
//   9    3  null  100
class WindowExample : public ::testing::Test {
 protected:
  RecordBatch batch_ = Batch({{"p", I64({1, 1, 1, 1, 1, 1, 2, 3, 3, 3})},
                              {"o", I64({1, 2, 2, 4, 7, N, 5, 3, 3, N})},
                              {"x", I64({10, N, 30, 40, 50, 60, 70, N, 90, 100})}});
  std::vector<int64_t> starts_ = {0, 6, 7};
  std::vector<compute::SortKey> keys_ = {compute::SortKey{1, true, false}};

  Array Call(const WindowFunctionSpec& spec) { return RunWindow(batch_, starts_, keys_, spec); }
};

TEST_F(WindowExample, PartitionStarts) {
  auto starts = PartitionStarts(batch_, {0});
  ASSERT_TRUE(starts.ok());
  EXPECT_EQ(*starts, starts_);
  // Nulls equal nulls; a second key splits further.
  RecordBatch b = Batch({{"a", I64({N, N, 1, 1, 1})}, {"b", I64({1, 1, N, N, 2})}});
  EXPECT_EQ(PartitionStarts(b, {0}).ValueOrDie(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(PartitionStarts(b, {0, 1}).ValueOrDie(), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(PartitionStarts(b, {}).ValueOrDie(), (std::vector<int64_t>{0}));
  EXPECT_EQ(PartitionStarts(b.Slice(0, 0), {0}).ValueOrDie(), (std::vector<int64_t>{}));
  EXPECT_EQ(PartitionStarts(b, {2}).status().code(), StatusCode::kIndexError);
}

TEST_F(WindowExample, RowNumberRankDenseRank) {
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 3, 4, 5, 6, 1, 1, 2, 3}), Call(Fn("row_number")));
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 2, 4, 5, 6, 1, 1, 1, 3}), Call(Fn("rank")));
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 2, 3, 4, 5, 1, 1, 1, 2}), Call(Fn("DENSE_RANK")));
}

TEST_F(WindowExample, PercentRankCumeDist) {
  ExpectNear({0, 0.2, 0.2, 0.6, 0.8, 1, 0, 0, 0, 1}, Call(Fn("percent_rank")));
  ExpectNear({1 / 6.0, 0.5, 0.5, 4 / 6.0, 5 / 6.0, 1, 1, 2 / 3.0, 2 / 3.0, 1},
             Call(Fn("cume_dist")));
}

TEST_F(WindowExample, RankingWithoutOrderKeys) {
  // Every row of a partition is a peer of every other.
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 3, 4, 5, 6, 1, 1, 2, 3}),
                      RunWindow(batch_, starts_, {}, Fn("row_number")));
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}),
                      RunWindow(batch_, starts_, {}, Fn("rank")));
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}),
                      RunWindow(batch_, starts_, {}, Fn("dense_rank")));
  ExpectNear({0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, RunWindow(batch_, starts_, {}, Fn("percent_rank")));
  ExpectNear({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, RunWindow(batch_, starts_, {}, Fn("cume_dist")));
}

TEST_F(WindowExample, RankWithTwoKeysAndDescending) {
  // Order by x descending nulls first, then o: no ties except none.
  RecordBatch b = Batch({{"k1", I64({N, N, 5, 5, 5, 1})}, {"k2", I64({1, 1, 2, 2, 3, 1})}});
  std::vector<compute::SortKey> keys = {compute::SortKey{0, false, true},
                                        compute::SortKey{1, true, false}};
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 3, 3, 5, 6}), RunWindow(b, {0}, keys, Fn("rank")));
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 2, 2, 3, 4}), RunWindow(b, {0}, keys, Fn("dense_rank")));
  ExpectNear({2 / 6.0, 2 / 6.0, 4 / 6.0, 4 / 6.0, 5 / 6.0, 1},
             RunWindow(b, {0}, keys, Fn("cume_dist")));
}

TEST_F(WindowExample, Ntile) {
  // 6 rows in 4 buckets: 2, 2, 1, 1. 3 rows in 4 buckets: one each.
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 2, 2, 3, 4, 1, 1, 2, 3}), Call(Fn("ntile", {}, {C64(4)})));
  // 3 rows in 2 buckets: 2, 1.
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 1, 2, 2, 2, 1, 1, 1, 2}), Call(Fn("ntile", {}, {C64(2)})));
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), Call(Fn("ntile", {}, {C64(1)})));
  EXPECT_ARRAYS_EQUAL(I64({N, N, N, N, N, N, N, N, N, N}), Call(Fn("ntile", {}, {C64(N)})));
  // 7 rows in 3 buckets: 3, 2, 2 (PostgreSQL).
  RecordBatch seven = Batch({{"a", I64({1, 2, 3, 4, 5, 6, 7})}});
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 1, 2, 2, 3, 3}),
                      RunWindow(seven, {0}, {}, Fn("ntile", {}, {C64(3)})));
  EXPECT_EQ(RunStatus(batch_, starts_, keys_, Fn("ntile", {}, {C64(0)})).code(),
            StatusCode::kInvalid);
  EXPECT_EQ(RunStatus(batch_, starts_, keys_, Fn("ntile", {}, {F64({2.0})})).code(),
            StatusCode::kTypeError);
  EXPECT_EQ(RunStatus(batch_, starts_, keys_, Fn("ntile")).code(), StatusCode::kTypeError);
}

TEST_F(WindowExample, LagLead) {
  EXPECT_ARRAYS_EQUAL(I64({N, 10, N, 30, 40, 50, N, N, N, 90}), Call(Fn("lag", {2})));
  EXPECT_ARRAYS_EQUAL(I64({N, 30, 40, 50, 60, N, N, 90, 100, N}), Call(Fn("lead", {2})));
  // Offset 2 with a default: the default only where the row is outside the partition.
  EXPECT_ARRAYS_EQUAL(I64({-1, -1, 10, N, 30, 40, -1, -1, -1, N}),
                      Call(Fn("lag", {2}, {C64(2), C64(-1)})));
  // An offset beyond every partition.
  EXPECT_ARRAYS_EQUAL(I64({60, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
                      Call(Fn("lead", {2}, {C64(5), C64(0)})));
  EXPECT_ARRAYS_EQUAL(I64({7, 7, 7, 7, 7, 7, 7, 7, 7, 7}),
                      Call(Fn("lead", {2}, {C64(kInt64Max), C64(7)})));
  EXPECT_ARRAYS_EQUAL(I64({7, 7, 7, 7, 7, 7, 7, 7, 7, 7}),
                      Call(Fn("lag", {2}, {C64(std::numeric_limits<int64_t>::min()), C64(7)})));
  // Negative offsets look the other way; offset 0 is the row itself.
  EXPECT_ARRAYS_EQUAL(Call(Fn("lead", {2})), Call(Fn("lag", {2}, {C64(-1)})));
  EXPECT_ARRAYS_EQUAL(batch_.column(2), Call(Fn("lag", {2}, {C64(0)})));
  // A null offset gives null; a null default is no default.
  EXPECT_ARRAYS_EQUAL(I64({N, N, N, N, N, N, N, N, N, N}), Call(Fn("lag", {2}, {C64(N)})));
  EXPECT_ARRAYS_EQUAL(Call(Fn("lag", {2})), Call(Fn("lag", {2}, {C64(1), C64(N)})));
  // A default column is read at the current row.
  EXPECT_ARRAYS_EQUAL(I64({N, 30, 40, 50, 60, N, 5, 90, 100, N}), Call(Fn("lead", {2, 1})));
  // A default of another type is converted to x's type.
  EXPECT_ARRAYS_EQUAL(I64({3, 10, N, 30, 40, 50, 3, 3, N, 90}),
                      Call(Fn("lag", {2}, {C64(1), testing::I32({3})})));
  EXPECT_EQ(RunStatus(batch_, starts_, keys_, Fn("lag", {2}, {C64(1), Strs({"a"})})).code(),
            StatusCode::kInvalid);  // 'a' is not an integer
  EXPECT_EQ(RunStatus(batch_, starts_, keys_, Fn("lag")).code(), StatusCode::kTypeError);
  EXPECT_EQ(RunStatus(batch_, starts_, keys_, Fn("lag", {2}, {F64({1.0})})).code(),
            StatusCode::kTypeError);
}

TEST_F(WindowExample, LagLeadStrings) {
  RecordBatch b = Batch({{"s", Strs({"a", "b", N, "d"})}});
  EXPECT_ARRAYS_EQUAL(Strs({"-", "a", "b", N}),
                      RunWindow(b, {0}, {}, Fn("lag", {0}, {C64(1), Strs({"-"})})));
  EXPECT_ARRAYS_EQUAL(Strs({"b", N, "d", "-"}),
                      RunWindow(b, {0}, {}, Fn("lead", {0}, {C64(1), Strs({"-"})})));
  EXPECT_ARRAYS_EQUAL(Strs({"b", "-", "d", "-"}),
                      RunWindow(b, {0, 2}, {}, Fn("lead", {0}, {C64(1), Strs({"-"})})));
}

TEST_F(WindowExample, FirstLastNthValueDefaultFrame) {
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 10, 10, 10, 10, 70, N, N, N}), Call(Fn("first_value", {2})));
  // With the default frame the last value is the current row's last peer.
  EXPECT_ARRAYS_EQUAL(I64({10, 30, 30, 40, 50, 60, 70, 90, 90, 100}), Call(Fn("last_value", {2})));
  EXPECT_ARRAYS_EQUAL(I64({N, 30, 30, 30, 30, 30, N, N, N, 100}),
                      Call(Fn("nth_value", {2}, {C64(3)})));
  EXPECT_ARRAYS_EQUAL(I64({N, N, N, N, N, N, N, N, N, N}), Call(Fn("nth_value", {2}, {C64(N)})));
  EXPECT_EQ(RunStatus(batch_, starts_, keys_, Fn("nth_value", {2}, {C64(0)})).code(),
            StatusCode::kInvalid);
  // Without order keys the default frame is the whole partition.
  EXPECT_ARRAYS_EQUAL(I64({60, 60, 60, 60, 60, 60, 70, 100, 100, 100}),
                      RunWindow(batch_, starts_, {}, Fn("last_value", {2})));
}

TEST_F(WindowExample, FirstLastNthValueRowsFrames) {
  const WindowFrame whole = Rows(UnboundedPreceding(), UnboundedFollowing());
  EXPECT_ARRAYS_EQUAL(I64({60, 60, 60, 60, 60, 60, 70, 100, 100, 100}),
                      Call(Fn("last_value", {2}, {}, whole)));
  const WindowFrame ahead = Rows(Following(1), Following(2));
  EXPECT_ARRAYS_EQUAL(I64({N, 30, 40, 50, 60, N, N, 90, 100, N}),
                      Call(Fn("first_value", {2}, {}, ahead)));
  EXPECT_ARRAYS_EQUAL(I64({30, 40, 50, 60, 60, N, N, 100, 100, N}),
                      Call(Fn("last_value", {2}, {}, ahead)));
  EXPECT_ARRAYS_EQUAL(I64({30, 40, 50, 60, N, N, N, 100, N, N}),
                      Call(Fn("nth_value", {2}, {C64(2)}, ahead)));
}

TEST_F(WindowExample, AggregatesDefaultFrame) {
  // RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: peers share a value.
  EXPECT_ARRAYS_EQUAL(I64({10, 40, 40, 80, 130, 190, 70, 90, 90, 190}), Call(Fn("sum", {2})));
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 2, 3, 4, 5, 1, 1, 1, 2}), Call(Fn("count", {2})));
  EXPECT_ARRAYS_EQUAL(I64({1, 3, 3, 4, 5, 6, 1, 2, 2, 3}), Call(Fn("count_star")));
  ExpectNear({10, 20, 20, 80 / 3.0, 32.5, 38, 70, 90, 90, 95}, Call(Fn("avg", {2})));
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 10, 10, 10, 10, 70, 90, 90, 90}), Call(Fn("min", {2})));
  EXPECT_ARRAYS_EQUAL(I64({10, 30, 30, 40, 50, 60, 70, 90, 90, 100}), Call(Fn("max", {2})));
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 10, 10, 10, 10, 70, N, N, N}), Call(Fn("first", {2})));
  EXPECT_ARRAYS_EQUAL(I64({10, 30, 30, 40, 50, 60, 70, 90, 90, 100}), Call(Fn("last", {2})));
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 10, 10, 10, 10, 70, 90, 90, 90}), Call(Fn("any_value", {2})));
  // Through the generic accumulator path.
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 2, 3, 4, 5, 1, 1, 1, 2}), Call(Fn("count_distinct", {2})));
  EXPECT_EQ(Call(Fn("list", {2})).ToString(),
            "[[10], [10, null, 30], [10, null, 30], [10, null, 30, 40], "
            "[10, null, 30, 40, 50], [10, null, 30, 40, 50, 60], [70], [null, 90], [null, 90], "
            "[null, 90, 100]]");
}

TEST_F(WindowExample, AggregatesWholePartition) {
  // No order keys: every row sees its whole partition.
  EXPECT_ARRAYS_EQUAL(I64({190, 190, 190, 190, 190, 190, 70, 190, 190, 190}),
                      RunWindow(batch_, starts_, {}, Fn("sum", {2})));
  const WindowFrame whole = Range(UnboundedPreceding(), UnboundedFollowing());
  EXPECT_ARRAYS_EQUAL(I64({5, 5, 5, 5, 5, 5, 1, 2, 2, 2}), Call(Fn("count", {2}, {}, whole)));
  ExpectNear({38, 38, 38, 38, 38, 38, 70, 95, 95, 95}, Call(Fn("mean", {2}, {}, whole)));
  ExpectNear({296, 296, 296, 296, 296, 296, 0, 25, 25, 25},
             Call(Fn("var_pop", {2}, {}, Rows(UnboundedPreceding(), UnboundedFollowing()))));
}

TEST_F(WindowExample, AggregatesRowsFrames) {
  const WindowFrame around = Rows(Preceding(1), Following(1));
  EXPECT_ARRAYS_EQUAL(I64({10, 40, 70, 120, 150, 110, 70, 90, 190, 190}),
                      Call(Fn("sum", {2}, {}, around)));
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 30, 30, 40, 50, 70, 90, 90, 90}),
                      Call(Fn("min", {2}, {}, around)));
  EXPECT_ARRAYS_EQUAL(I64({10, 30, 40, 50, 60, 60, 70, 90, 100, 100}),
                      Call(Fn("max", {2}, {}, around)));
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 2, 3, 3, 2, 1, 1, 2, 2}), Call(Fn("count", {2}, {}, around)));
  EXPECT_ARRAYS_EQUAL(I64({2, 3, 3, 3, 3, 2, 1, 2, 3, 2}), Call(Fn("count_star", {}, {}, around)));
  ExpectNear({10, 20, 35, 40, 50, 55, 70, 90, 95, 95}, Call(Fn("mean", {2}, {}, around)));
  EXPECT_EQ(Call(Fn("list", {2}, {}, around)).ToString(),
            "[[10, null], [10, null, 30], [null, 30, 40], [30, 40, 50], [40, 50, 60], [50, 60], "
            "[70], [null, 90], [null, 90, 100], [90, 100]]");

  // Both ends ahead of the current row; frames running past the partition end are empty.
  const WindowFrame ahead = Rows(Following(2), Following(3));
  EXPECT_ARRAYS_EQUAL(I64({70, 90, 110, 60, N, N, N, 100, N, N}), Call(Fn("sum", {2}, {}, ahead)));
  EXPECT_ARRAYS_EQUAL(I64({2, 2, 2, 1, 0, 0, 0, 1, 0, 0}), Call(Fn("count", {2}, {}, ahead)));
  EXPECT_ARRAYS_EQUAL(I64({30, 40, 50, 60, N, N, N, 100, N, N}), Call(Fn("min", {2}, {}, ahead)));
  // Both ends behind it.
  const WindowFrame behind = Rows(Preceding(3), Preceding(1));
  EXPECT_ARRAYS_EQUAL(I64({N, 10, 10, 40, 70, 120, N, N, N, 90}), Call(Fn("sum", {2}, {}, behind)));
  EXPECT_ARRAYS_EQUAL(I64({N, 10, 10, 30, 40, 50, N, N, N, 90}), Call(Fn("max", {2}, {}, behind)));
  EXPECT_EQ(Call(Fn("list", {2}, {}, behind)).ToString(),
            "[null, [10], [10, null], [10, null, 30], [null, 30, 40], [30, 40, 50], null, null, "
            "[null], [null, 90]]");
  // An end before the start: empty frames.
  const WindowFrame inverted = Rows(Following(2), Following(1));
  EXPECT_ARRAYS_EQUAL(I64({0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
                      Call(Fn("count_star", {}, {}, inverted)));
  // Running and reverse-running ROWS frames.
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 40, 80, 130, 190, 70, N, 90, 190}),
                      Call(Fn("sum", {2}, {}, Rows(UnboundedPreceding(), CurrentRow()))));
  EXPECT_ARRAYS_EQUAL(I64({190, 180, 180, 150, 110, 60, 70, 190, 190, 100}),
                      Call(Fn("sum", {2}, {}, Rows(CurrentRow(), UnboundedFollowing()))));
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 30, 40, 50, 60, 70, N, 90, 100}),
                      Call(Fn("max", {2}, {}, Rows(UnboundedPreceding(), CurrentRow()))));
}

TEST_F(WindowExample, AggregatesRangeFrames) {
  const WindowFrame around = Range(Preceding(1), Following(1));
  EXPECT_ARRAYS_EQUAL(I64({40, 40, 40, 40, 50, 60, 70, 90, 90, 100}),
                      Call(Fn("sum", {2}, {}, around)));
  EXPECT_ARRAYS_EQUAL(I64({3, 3, 3, 1, 1, 1, 1, 2, 2, 1}), Call(Fn("count_star", {}, {}, around)));
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 10, 40, 50, 60, 70, 90, 90, 100}),
                      Call(Fn("min", {2}, {}, around)));
  EXPECT_ARRAYS_EQUAL(I64({10, 10, 10, 40, 50, 60, 70, N, N, 100}),
                      Call(Fn("first_value", {2}, {}, around)));

  // CURRENT ROW takes in the peers.
  const WindowFrame behind = Range(Preceding(2), CurrentRow());
  EXPECT_ARRAYS_EQUAL(I64({10, 40, 40, 70, 50, 60, 70, 90, 90, 100}),
                      Call(Fn("sum", {2}, {}, behind)));
  EXPECT_ARRAYS_EQUAL(I64({190, 180, 180, 150, 110, 60, 70, 190, 190, 100}),
                      Call(Fn("sum", {2}, {}, Range(CurrentRow(), UnboundedFollowing()))));
  EXPECT_ARRAYS_EQUAL(I64({10, 30, 30, 40, 50, 60, 70, 90, 90, 100}),
                      Call(Fn("last_value", {2}, {}, Range(CurrentRow(), CurrentRow()))));

  // Both ends ahead; the null-key row sees only its null peers.
  const WindowFrame ahead = Range(Following(3), Following(5));
  EXPECT_ARRAYS_EQUAL(I64({40, 50, 50, 50, N, 60, N, N, N, 100}), Call(Fn("sum", {2}, {}, ahead)));
  EXPECT_EQ(Call(Fn("list", {2}, {}, ahead)).ToString(),
            "[[40], [50], [50], [50], null, [60], null, null, null, [100]]");
  // UNBOUNDED FOLLOWING from an offset start reaches the trailing nulls.
  EXPECT_ARRAYS_EQUAL(I64({6, 5, 5, 3, 2, 1, 1, 3, 3, 1}),
                      Call(Fn("count_star", {}, {}, Range(Following(0), UnboundedFollowing()))));
  EXPECT_ARRAYS_EQUAL(I64({5, 3, 3, 2, 1, 1, 0, 1, 1, 1}),
                      Call(Fn("count_star", {}, {}, Range(Following(1), UnboundedFollowing()))));
}

TEST(WindowRange, DescendingNullsFirst) {
  // Sorted by o descending, nulls first.
  RecordBatch b = Batch({{"o", I64({N, 9, 7, 7, 4, 1})}, {"x", I64({1, 2, 3, 4, 5, 6})}});
  const std::vector<compute::SortKey> keys = {compute::SortKey{0, false, true}};
  // PRECEDING reaches larger keys, FOLLOWING smaller ones.
  EXPECT_ARRAYS_EQUAL(
      I64({1, 2, 9, 9, 5, 6}),
      RunWindow(b, {0}, keys, Fn("sum", {1}, {}, Range(Preceding(2), Following(1)))));
  EXPECT_ARRAYS_EQUAL(I64({1, 3, 10, 10, 15, 21}), RunWindow(b, {0}, keys, Fn("sum", {1})));
  EXPECT_ARRAYS_EQUAL(
      I64({1, N, N, N, 7, 5}),
      RunWindow(b, {0}, keys, Fn("sum", {1}, {}, Range(Preceding(3), Preceding(3)))));
  EXPECT_ARRAYS_EQUAL(
      I64({1, 2, 4, 4, 5, 6}),
      RunWindow(b, {0}, keys, Fn("max", {1}, {}, Range(Preceding(3), Preceding(0)))));
  EXPECT_ARRAYS_EQUAL(
      I64({1, 2, 3, 3, 5, 6}),
      RunWindow(b, {0}, keys, Fn("min", {1}, {}, Range(CurrentRow(), Following(2)))));
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 3, 3, 5, 6}), RunWindow(b, {0}, keys, Fn("rank")));
}

TEST(WindowRange, FloatKeysWithNaN) {
  const double nan = std::nan("");
  RecordBatch b = Batch({{"o", F64({1.0, 2.5, nan, nan, N})}, {"x", I64({1, 2, 3, 4, 5})}});
  const std::vector<compute::SortKey> keys = {compute::SortKey{0}};
  EXPECT_ARRAYS_EQUAL(
      I64({1, 3, 7, 7, 5}),
      RunWindow(b, {0}, keys, Fn("sum", {1}, {}, Range(Preceding(2), CurrentRow()))));
  EXPECT_ARRAYS_EQUAL(
      I64({3, 2, 7, 7, 5}),
      RunWindow(b, {0}, keys, Fn("sum", {1}, {}, Range(Preceding(1), Following(10)))));
  // Descending: NaN first.
  RecordBatch d = Batch({{"o", F64({nan, 2.5, 1.0, -1.0})}, {"x", I64({1, 2, 3, 4})}});
  EXPECT_ARRAYS_EQUAL(I64({1, 5, 7, 4}),
                      RunWindow(d, {0}, {compute::SortKey{0, false}},
                                Fn("sum", {1}, {}, Range(Preceding(0), Following(2)))));
}

TEST(WindowRange, DateDecimalAndUnsignedKeys) {
  RecordBatch dates = Batch({{"d", Dates({0, 1, 3, 10})}, {"x", I64({1, 2, 3, 4})}});
  EXPECT_ARRAYS_EQUAL(I64({1, 3, 5, 4}),
                      RunWindow(dates, {0}, {compute::SortKey{0}},
                                Fn("sum", {1}, {}, Range(Preceding(2), CurrentRow()))));
  // Offsets on decimals are whole units: 1 is 1.00.
  RecordBatch decimals =
      Batch({{"d", Decimals(5, 2, {"1.00", "1.50", "3.00", "4.00"})}, {"x", I64({1, 2, 3, 4})}});
  EXPECT_ARRAYS_EQUAL(I64({1, 3, 3, 7}),
                      RunWindow(decimals, {0}, {SortKey{0}},
                                Fn("sum", {1}, {}, Range(Preceding(1), CurrentRow()))));
  RecordBatch unsigned_keys =
      Batch({{"u", testing::MakeNumeric<uint64_t>(uint64(),
                                                  {std::numeric_limits<uint64_t>::max(), 5, 3, 0})},
             {"x", I64({1, 2, 3, 4})}});
  EXPECT_ARRAYS_EQUAL(I64({1, 5, 5, 9}),
                      RunWindow(unsigned_keys, {0}, {SortKey{0, false}},
                                Fn("sum", {1}, {}, Range(Preceding(kInt64Max), Following(2)))));
  RecordBatch timestamps =
      Batch({{"t", testing::MakeNumeric<int64_t>(timestamp(TimeUnit::kSecond), {0, 60, 61, 200})},
             {"x", I64({1, 2, 3, 4})}});
  EXPECT_ARRAYS_EQUAL(I64({1, 3, 5, 4}),
                      RunWindow(timestamps, {0}, {SortKey{0}},
                                Fn("sum", {1}, {}, Range(Preceding(60), CurrentRow()))));
}

TEST(WindowAggregates, FloatSumsKeepPrecisionInSlidingFrames) {
  RecordBatch b = Batch({{"x", F64({1e20, 1, -1e20, 1, 2, N})}});
  Array sums = RunWindow(b, {0}, {}, Fn("sum", {0}, {}, Rows(Preceding(2), CurrentRow())));
  ExpectNear({1e20, 1e20, 1, -1e20, -1e20 + 3, 3}, sums);
  EXPECT_EQ(sums.values<double>()[2], 1.0);
  EXPECT_EQ(sums.values<double>()[5], 3.0);
  ExpectNear({1e20, 5e19, 1 / 3.0, -1e20 / 3, -1e20 / 3, 1.5},
             RunWindow(b, {0}, {}, Fn("mean", {0}, {}, Rows(Preceding(2), CurrentRow()))));
  // Running frames add in order, like the accumulator.
  ExpectNear({1e20, 1e20, 1, 2, 4, 4},
             RunWindow(b, {0}, {}, Fn("sum", {0}, {}, Rows(UnboundedPreceding(), CurrentRow()))));
  // Infinities and NaN.
  const double inf = std::numeric_limits<double>::infinity();
  RecordBatch special = Batch({{"x", F64({1, inf, 2, -inf, 3})}});
  Array s = RunWindow(special, {0}, {}, Fn("sum", {0}, {}, Rows(Preceding(1), CurrentRow())));
  EXPECT_EQ(s.values<double>()[0], 1);
  EXPECT_EQ(s.values<double>()[1], inf);
  EXPECT_EQ(s.values<double>()[2], inf);
  EXPECT_EQ(s.values<double>()[3], -inf);
  EXPECT_EQ(s.values<double>()[4], -inf);
  Array m = RunWindow(special, {0}, {}, Fn("max", {0}, {}, Rows(Preceding(1), Following(1))));
  EXPECT_ARRAYS_EQUAL(F64({inf, inf, inf, 3, 3}), m);
}

TEST(WindowAggregates, TypedSums) {
  RecordBatch b = Batch({{"u8", testing::U8({200, 100, N, 255})},
                         {"d", Decimals(10, 2, {"1.25", N, "-3.50", "10.00"})},
                         {"f32", testing::F32({0.5f, 1.5f, N, 2.0f})}});
  const WindowFrame pair = Rows(Preceding(1), CurrentRow());
  EXPECT_ARRAYS_EQUAL(testing::MakeNumeric<uint64_t>(uint64(), {200, 300, 100, 255}),
                      RunWindow(b, {0}, {}, Fn("sum", {0}, {}, pair)));
  EXPECT_ARRAYS_EQUAL(Decimals(38, 2, {"1.25", "1.25", "-3.50", "6.50"}),
                      RunWindow(b, {0}, {}, Fn("sum", {1}, {}, pair)));
  ExpectNear({1.25, 1.25, -3.5, 3.25}, RunWindow(b, {0}, {}, Fn("avg", {1}, {}, pair)));
  EXPECT_ARRAYS_EQUAL(Decimals(10, 2, {"1.25", "1.25", "-3.50", "-3.50"}),
                      RunWindow(b, {0}, {}, Fn("min", {1}, {}, pair)));
  ExpectNear({0.5, 2.0, 1.5, 2.0}, RunWindow(b, {0}, {}, Fn("sum", {2}, {}, pair)));
  ExpectNear({0.5, 1.0, 1.5, 2.0}, RunWindow(b, {0}, {}, Fn("mean", {2}, {}, pair)));
  // Large decimals take the accumulator path and give the same answer.
  RecordBatch big = Batch({{"d", Decimals(38, 0,
                                          {"99999999999999999999999999999999999999",
                                           "-99999999999999999999999999999999999999", "1"})}});
  EXPECT_ARRAYS_EQUAL(Decimals(38, 0,
                               {"99999999999999999999999999999999999999", "0",
                                "-99999999999999999999999999999999999998"}),
                      RunWindow(big, {0}, {}, Fn("sum", {0}, {}, pair)));
}

TEST(WindowAggregates, SumOverflowIsAnError) {
  RecordBatch b = Batch({{"x", I64({kInt64Max, 1, -5})}});
  RecordBatch fits = Batch({{"x", I64({kInt64Max, -1, 1})}});
  Status st = RunStatus(b, {0}, {}, Fn("sum", {0}, {}, Rows(UnboundedPreceding(), CurrentRow())));
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("row 1"), std::string::npos) << st.ToString();
  // Only the frame's sum has to fit.
  EXPECT_ARRAYS_EQUAL(
      I64({kInt64Max, kInt64Max - 1, 0}),
      RunWindow(fits, {0}, {}, Fn("sum", {0}, {}, Rows(Preceding(1), CurrentRow()))));
}

TEST(WindowAggregates, MinMaxOfStringsAndBools) {
  RecordBatch b = Batch({{"s", Strs({"pear", N, "apple", "zebra", "fig"})},
                         {"b", Bools({true, false, N, true, true})}});
  const WindowFrame around = Rows(Preceding(1), Following(1));
  EXPECT_ARRAYS_EQUAL(Strs({"pear", "apple", "apple", "apple", "fig"}),
                      RunWindow(b, {0}, {}, Fn("min", {0}, {}, around)));
  EXPECT_ARRAYS_EQUAL(Strs({"pear", "pear", "zebra", "zebra", "zebra"}),
                      RunWindow(b, {0}, {}, Fn("max", {0}, {}, around)));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, false, true, true}),
                      RunWindow(b, {0}, {}, Fn("min", {1}, {}, around)));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, false, true, true}),
                      RunWindow(b, {0}, {}, Fn("bool_and", {1}, {}, around)));
  EXPECT_ARRAYS_EQUAL(
      Strs({"pear", "pear", "pear,apple", "apple,zebra", "apple,zebra,fig"}),
      RunWindow(b, {0}, {},
                Fn("string_agg", {0}, {Strs({","})}, Rows(Preceding(2), CurrentRow()))));
  EXPECT_ARRAYS_EQUAL(
      Strs({"pear", "pear", "pear-apple", "pear-apple-zebra", "pear-apple-zebra-fig"}),
      RunWindow(b, {0}, {},
                Fn("string_agg", {0}, {Strs({"-"})}, Rows(UnboundedPreceding(), CurrentRow()))));
}

TEST(WindowEdges, EmptyBatchesAndPartitions) {
  RecordBatch b = Batch({{"o", I64({3, 1, 2, 2, 5})}, {"x", I64({1, 2, 3, 4, 5})}});
  RecordBatch empty = b.Slice(0, 0);
  for (const char* name : {"row_number", "rank", "cume_dist"}) {
    Array out = RunWindow(empty, {}, {SortKey{0}}, Fn(name));
    EXPECT_EQ(out.length(), 0);
  }
  EXPECT_EQ(RunWindow(empty, {0}, {}, Fn("sum", {1})).length(), 0);
  EXPECT_EQ(RunWindow(empty, {}, {}, Fn("lag", {1})).length(), 0);
  EXPECT_EQ(
      RunWindow(empty, {}, {}, Fn("list", {1}, {}, Rows(Preceding(1), CurrentRow()))).length(), 0);
  // Empty partitions (repeated starts and a start at num_rows) produce nothing.
  const std::vector<int64_t> starts = {0, 0, 1, 1, 3, 5};
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 2, 1, 2}), RunWindow(b, starts, {}, Fn("row_number")));
  EXPECT_ARRAYS_EQUAL(I64({1, 5, 5, 9, 9}), RunWindow(b, starts, {}, Fn("sum", {1})));
  EXPECT_ARRAYS_EQUAL(I64({N, N, 2, N, 4}), RunWindow(b, starts, {}, Fn("lag", {1})));
  EXPECT_ARRAYS_EQUAL(I64({1, 1, 2, 1, 2}), RunWindow(b, starts, {}, Fn("ntile", {}, {C64(5)})));
  // One-row partitions.
  const std::vector<int64_t> singles = {0, 1, 2, 3, 4};
  ExpectNear({0, 0, 0, 0, 0}, RunWindow(b, singles, {compute::SortKey{0}}, Fn("percent_rank")));
  ExpectNear({1, 1, 1, 1, 1}, RunWindow(b, singles, {SortKey{0}}, Fn("cume_dist")));
  EXPECT_ARRAYS_EQUAL(I64({N, N, N, N, N}), RunWindow(b, singles, {}, Fn("lead", {1})));
  EXPECT_ARRAYS_EQUAL(
      I64({1, 2, 3, 4, 5}),
      RunWindow(b, singles, {SortKey{0}}, Fn("sum", {1}, {}, Range(Preceding(9), Following(9)))));
}

TEST(WindowEdges, SlicedInputMatchesFreshInput) {
  // Arrays with a non-zero offset (a slice of a larger batch) give the same results.
  RecordBatch fresh = Batch({{"o", I64({N, 1, 1, 3, 4, 9})},
                             {"x", I64({5, N, 2, 7, N, 1})},
                             {"d", Decimals(9, 1, {"1.5", "2.5", N, "0.5", "4.0", "1.0"})},
                             {"s", Strs({"b", "a", N, "c", "e", "d"})},
                             {"f", F64({0.5, N, 1.5, 2.5, 3.5, 4.5})}});
  RecordBatch padded =
      Batch({{"o", I64({7, 7, 7, N, 1, 1, 3, 4, 9})},
             {"x", I64({0, N, 0, 5, N, 2, 7, N, 1})},
             {"d", Decimals(9, 1, {"9", N, "9", "1.5", "2.5", N, "0.5", "4.0", "1.0"})},
             {"s", Strs({"z", "z", N, "b", "a", N, "c", "e", "d"})},
             {"f", F64({9, 9, N, 0.5, N, 1.5, 2.5, 3.5, 4.5})}});
  RecordBatch sliced = padded.Slice(3, 6);
  const std::vector<compute::SortKey> keys = {compute::SortKey{0, true, true}};
  const std::vector<WindowFrame> frames = {Range(Preceding(1), Following(2)),
                                           Rows(Preceding(1), CurrentRow()),
                                           Range(CurrentRow(), UnboundedFollowing())};
  for (const WindowFrame& frame : frames) {
    SCOPED_TRACE(WindowFrameToString(frame));
    for (const auto& [name, column] : std::vector<std::pair<std::string, int>>{{"sum", 1},
                                                                               {"count", 1},
                                                                               {"min", 2},
                                                                               {"max", 3},
                                                                               {"sum", 2},
                                                                               {"mean", 4},
                                                                               {"any_value", 3},
                                                                               {"list", 3},
                                                                               {"last_value", 2}}) {
      SCOPED_TRACE(name);
      EXPECT_ARRAYS_EQUAL(RunWindow(fresh, {0, 2}, keys, Fn(name, {column}, {}, frame)),
                          RunWindow(sliced, {0, 2}, keys, Fn(name, {column}, {}, frame)));
    }
  }
  EXPECT_ARRAYS_EQUAL(RunWindow(fresh, {0}, keys, Fn("rank")),
                      RunWindow(sliced, {0}, keys, Fn("rank")));
  EXPECT_ARRAYS_EQUAL(RunWindow(fresh, {0}, keys, Fn("lead", {3}, {C64(2), Strs({"-"})})),
                      RunWindow(sliced, {0}, keys, Fn("lead", {3}, {C64(2), Strs({"-"})})));
}

TEST(WindowEdges, DictionaryValuesKeepTheirType) {
  const TypePtr type = dictionary(int32(), utf8());
  RecordBatch b = Batch({{"s", testing::MakeStrings({"x", N, "y", "x"}, type)}});
  Array first = RunWindow(b, {0}, {}, Fn("first_value", {0}, {}, Rows(CurrentRow(), Following(1))));
  EXPECT_TRUE(first.type()->Equals(*type));
  EXPECT_EQ(first.ToString(), "[x, null, y, x]");
  EXPECT_EQ(RunWindow(b, {0}, {}, Fn("lag", {0})).ToString(), "[null, x, null, y]");
}

TEST(WindowEdges, Errors) {
  RecordBatch b = Batch({{"o", I64({1, 2})}, {"s", Strs({"a", "b"})}, {"x", I64({1, 2})}});
  const std::vector<compute::SortKey> keys = {compute::SortKey{0}};
  Status unknown = RunStatus(b, {0}, keys, Fn("row_numbr"));
  EXPECT_EQ(unknown.code(), StatusCode::kKeyError);
  EXPECT_NE(unknown.message().find("row_number"), std::string::npos) << unknown.ToString();
  EXPECT_EQ(RunStatus(b, {0}, keys, Fn("sum", {7})).code(), StatusCode::kIndexError);
  EXPECT_EQ(RunStatus(b, {0}, keys, Fn("sum", {1})).code(), StatusCode::kTypeError);
  EXPECT_EQ(RunStatus(b, {0}, keys, Fn("sum", {2, 2})).code(), StatusCode::kTypeError);
  EXPECT_EQ(RunStatus(b, {0}, keys, Fn("rank", {2})).code(), StatusCode::kTypeError);
  EXPECT_EQ(RunStatus(b, {0}, keys, Fn("first_value")).code(), StatusCode::kTypeError);
  EXPECT_EQ(RunStatus(b, {0}, keys, Fn("ntile", {}, {I64({1, 2})})).code(), StatusCode::kInvalid);
  EXPECT_EQ(RunStatus(b, {0}, {SortKey{5}}, Fn("rank")).code(), StatusCode::kIndexError);
  // Partition starts.
  EXPECT_EQ(RunStatus(b, {}, keys, Fn("rank")).code(), StatusCode::kInvalid);
  EXPECT_EQ(RunStatus(b, {1}, keys, Fn("rank")).code(), StatusCode::kInvalid);
  EXPECT_EQ(RunStatus(b, {0, 2, 1}, keys, Fn("rank")).code(), StatusCode::kInvalid);
  EXPECT_EQ(RunStatus(b, {0, 3}, keys, Fn("rank")).code(), StatusCode::kInvalid);
  // Invalid frames.
  for (const WindowFrame& frame :
       {Rows(UnboundedFollowing(), UnboundedFollowing()), Rows(CurrentRow(), UnboundedPreceding()),
        Rows(CurrentRow(), Preceding(1)), Range(Following(1), CurrentRow()),
        Rows(Following(1), Preceding(1)), Rows(Preceding(-1), CurrentRow())}) {
    Status st = RunStatus(b, {0}, keys, Fn("sum", {2}, {}, frame));
    EXPECT_EQ(st.code(), StatusCode::kInvalid) << WindowFrameToString(frame);
  }
  // RANGE offsets need one numeric key; the message names the function and the frame.
  Status strings =
      RunStatus(b, {0}, {SortKey{1}}, Fn("sum", {2}, {}, Range(Preceding(1), CurrentRow())));
  EXPECT_EQ(strings.code(), StatusCode::kNotImplemented);
  EXPECT_NE(strings.message().find("sum() OVER (RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)"),
            std::string::npos)
      << strings.ToString();
  EXPECT_EQ(RunStatus(b, {0}, {SortKey{0}, SortKey{2}},
                      Fn("sum", {2}, {}, Range(CurrentRow(), Following(1))))
                .code(),
            StatusCode::kNotImplemented);
  EXPECT_EQ(
      RunStatus(b, {0}, {}, Fn("first_value", {2}, {}, Range(Preceding(1), CurrentRow()))).code(),
      StatusCode::kNotImplemented);
  // Ranking functions ignore frames, even invalid ones, as SQL does.
  EXPECT_TRUE(RunStatus(b, {0}, keys, Fn("rank", {}, {}, Rows(CurrentRow(), Preceding(1)))).ok());
}

TEST(WindowEdges, Types) {
  Schema schema({{"i", int32()}, {"d", decimal128(12, 3)}, {"s", utf8()}});
  auto type = [&](const WindowFunctionSpec& spec) {
    return WindowFunctionType(schema, spec).ValueOrDie()->ToString();
  };
  EXPECT_EQ(type(Fn("row_number")), "int64");
  EXPECT_EQ(type(Fn("ntile", {}, {C64(3)})), "int64");
  EXPECT_EQ(type(Fn("percent_rank")), "float64");
  EXPECT_EQ(type(Fn("lag", {2})), "string");
  EXPECT_EQ(type(Fn("nth_value", {1}, {C64(2)})), "decimal128(12, 3)");
  EXPECT_EQ(type(Fn("sum", {0})), "int64");
  EXPECT_EQ(type(Fn("sum", {1})), "decimal128(38, 3)");
  EXPECT_EQ(type(Fn("avg", {1})), "float64");
  EXPECT_EQ(type(Fn("list", {2})), "list<string>");
  EXPECT_EQ(type(Fn("count_star")), "int64");
  EXPECT_EQ(WindowFunctionType(schema, Fn("sum", {2})).status().code(), StatusCode::kTypeError);
}

// ---------------------------------------------------------------------------------------------
// Randomized comparison with a direct, quadratic definition of every frame.

struct NaiveRow {
  std::optional<int64_t> key;
  std::optional<int64_t> x;
};

struct NaiveCase {
  std::vector<NaiveRow> rows;
  std::vector<int64_t> starts;
  bool has_key = true;
  bool ascending = true;
  bool nulls_first = false;
};

// The frame of row i as [begin, end): the first row at or after the start bound through the
// last row at or before the end bound (PostgreSQL's definition).
std::pair<int64_t, int64_t> NaiveFrame(const NaiveCase& c, int64_t ps, int64_t pe, int64_t i,
                                       const WindowFrame& f) {
  const auto& rows = c.rows;
  auto peers = [&](int64_t a, int64_t b) { return !c.has_key || rows[a].key == rows[b].key; };
  int64_t first_peer = i, last_peer = i;
  while (first_peer > ps && peers(first_peer - 1, i))
    --first_peer;
  while (last_peer + 1 < pe && peers(last_peer + 1, i))
    ++last_peer;
  // Whether row j lies at or after (start) / at or before (end) the bound.
  auto satisfies = [&](const FrameBound& b, int64_t j, bool is_start) -> bool {
    if (b.kind == FrameBound::kUnboundedPreceding || b.kind == FrameBound::kUnboundedFollowing) {
      return true;
    }
    if (f.type == WindowFrame::kRows) {
      int64_t target = i;
      if (b.kind == FrameBound::kPreceding) target = i - b.offset;
      if (b.kind == FrameBound::kFollowing) target = i + b.offset;
      return is_start ? j >= target : j <= target;
    }
    if (b.kind == FrameBound::kCurrentRow) return is_start ? j >= first_peer : j <= last_peer;
    const auto& ki = rows[i].key;
    const auto& kj = rows[j].key;
    if (!ki) {
      // The null rows are the frame; null rows sit first or last.
      if (is_start) return c.nulls_first ? true : !kj.has_value();
      return c.nulls_first ? !kj.has_value() : true;
    }
    if (!kj) return is_start ? !c.nulls_first : c.nulls_first;
    // Direction: PRECEDING goes toward earlier rows, which hold smaller keys when ascending.
    const int64_t sign = c.ascending ? 1 : -1;
    const int64_t delta = b.kind == FrameBound::kPreceding ? -b.offset : b.offset;
    const int64_t target = sign * *ki + delta;
    return is_start ? sign * *kj >= target : sign * *kj <= target;
  };
  int64_t begin = pe;
  for (int64_t j = ps; j < pe; ++j) {
    if (satisfies(f.start, j, true)) {
      begin = j;
      break;
    }
  }
  int64_t last = ps - 1;
  for (int64_t j = pe - 1; j >= ps; --j) {
    if (satisfies(f.end, j, false)) {
      last = j;
      break;
    }
  }
  return {begin, std::max(begin, last + 1)};
}

NaiveCase RandomCase(std::mt19937_64* rng, int64_t n) {
  NaiveCase c;
  std::uniform_int_distribution<int> coin(0, 1);
  c.has_key = std::uniform_int_distribution<int>(0, 5)(*rng) != 0;
  c.ascending = coin(*rng);
  c.nulls_first = coin(*rng);
  // Partition sizes 0..12.
  int64_t at = 0;
  while (at < n) {
    c.starts.push_back(at);
    at = std::min<int64_t>(n, at + std::uniform_int_distribution<int64_t>(0, 12)(*rng));
  }
  if (c.starts.empty()) c.starts.push_back(0);
  std::uniform_int_distribution<int64_t> key(0, 8), x(-50, 50), pct(0, 99);
  for (int64_t i = 0; i < n; ++i) {
    NaiveRow row;
    if (pct(*rng) >= 15) row.key = key(*rng);
    if (pct(*rng) >= 20) row.x = x(*rng);
    c.rows.push_back(row);
  }
  if (c.has_key) {
    // Sort each partition by the key, with the null placement and direction.
    auto before = [&](const NaiveRow& a, const NaiveRow& b) {
      if (!a.key || !b.key)
        return a.key.has_value() != b.key.has_value() && !a.key == c.nulls_first;
      return c.ascending ? *a.key < *b.key : *a.key > *b.key;
    };
    for (size_t p = 0; p < c.starts.size(); ++p) {
      const int64_t ps = c.starts[p];
      const int64_t pe = p + 1 < c.starts.size() ? c.starts[p + 1] : n;
      std::stable_sort(c.rows.begin() + ps, c.rows.begin() + pe, before);
    }
  }
  return c;
}

FrameBound RandomBound(std::mt19937_64* rng, bool is_start) {
  const int kind = std::uniform_int_distribution<int>(0, 3)(*rng);
  const int64_t k = std::uniform_int_distribution<int64_t>(0, 3)(*rng);
  if (is_start) {
    switch (kind) {
      case 0:
        return UnboundedPreceding();
      case 1:
        return Preceding(k);
      case 2:
        return CurrentRow();
      default:
        return Following(k);
    }
  }
  switch (kind) {
    case 0:
      return Preceding(k);
    case 1:
      return CurrentRow();
    case 2:
      return Following(k);
    default:
      return UnboundedFollowing();
  }
}

bool ValidFrame(const WindowFrame& f, bool has_key) {
  const auto s = f.start.kind, e = f.end.kind;
  if (s == FrameBound::kCurrentRow && e == FrameBound::kPreceding) return false;
  if (s == FrameBound::kFollowing &&
      (e == FrameBound::kPreceding || e == FrameBound::kCurrentRow)) {
    return false;
  }
  const bool offsets = s == FrameBound::kPreceding || s == FrameBound::kFollowing ||
                       e == FrameBound::kPreceding || e == FrameBound::kFollowing;
  return !(f.type == WindowFrame::kRange && offsets && !has_key);
}

TEST(WindowRandom, FramesMatchTheDefinition) {
  std::mt19937_64 rng(42);
  for (int iteration = 0; iteration < 300; ++iteration) {
    const int64_t n = std::uniform_int_distribution<int64_t>(0, 40)(rng);
    NaiveCase c = RandomCase(&rng, n);
    WindowFrame frame;
    do {
      frame.type =
          std::uniform_int_distribution<int>(0, 1)(rng) ? WindowFrame::kRows : WindowFrame::kRange;
      frame.start = RandomBound(&rng, true);
      frame.end = RandomBound(&rng, false);
    } while (!ValidFrame(frame, c.has_key));
    SCOPED_TRACE(WindowFrameToString(frame) + (c.has_key ? " key" : " no key") +
                 (c.ascending ? " asc" : " desc") + (c.nulls_first ? " nulls first" : ""));

    std::vector<std::optional<int64_t>> keys, xs;
    for (const auto& row : c.rows) {
      keys.push_back(row.key);
      xs.push_back(row.x);
    }
    RecordBatch batch = Batch({{"k", I64(keys)}, {"x", I64(xs)}});
    std::vector<compute::SortKey> order;
    if (c.has_key) order.push_back(compute::SortKey{0, c.ascending, c.nulls_first});

    std::vector<std::optional<int64_t>> sum, count, count_star, min, max, first, last, nth, any,
        distinct;
    std::vector<std::optional<double>> mean;
    std::string lists = "[";
    for (size_t p = 0; p < c.starts.size(); ++p) {
      const int64_t ps = c.starts[p];
      const int64_t pe = p + 1 < c.starts.size() ? c.starts[p + 1] : n;
      for (int64_t i = ps; i < pe; ++i) {
        auto [begin, end] = NaiveFrame(c, ps, pe, i, frame);
        std::optional<int64_t> s, mn, mx, an;
        int64_t cnt = 0;
        std::set<int64_t> values;
        std::string list = "[";
        for (int64_t j = begin; j < end; ++j) {
          const auto& v = c.rows[j].x;
          list += (j > begin ? ", " : "") + (v ? std::to_string(*v) : "null");
          if (!v) continue;
          s = s.value_or(0) + *v;
          mn = std::min(mn.value_or(*v), *v);
          mx = std::max(mx.value_or(*v), *v);
          if (!an) an = v;
          values.insert(*v);
          ++cnt;
        }
        if (i > 0) lists += ", ";
        lists += begin < end ? list + "]" : "null";
        sum.push_back(s);
        count.push_back(cnt);
        count_star.push_back(end - begin);
        mean.push_back(cnt ? std::optional<double>(static_cast<double>(*s) / cnt) : std::nullopt);
        min.push_back(mn);
        max.push_back(mx);
        any.push_back(an);
        distinct.push_back(static_cast<int64_t>(values.size()));
        first.push_back(begin < end ? c.rows[begin].x : std::nullopt);
        last.push_back(begin < end ? c.rows[end - 1].x : std::nullopt);
        nth.push_back(end - begin >= 2 ? c.rows[begin + 1].x : std::nullopt);
      }
    }
    lists += "]";
    auto run = [&](const char* name, std::vector<int> args = {1}, std::vector<Array> k = {}) {
      return RunWindow(batch, c.starts, order, Fn(name, args, k, frame));
    };
    EXPECT_ARRAYS_EQUAL(I64(sum), run("sum"));
    EXPECT_ARRAYS_EQUAL(I64(count), run("count"));
    EXPECT_ARRAYS_EQUAL(I64(count_star), run("count_star", {}));
    EXPECT_ARRAYS_EQUAL(I64(min), run("min"));
    EXPECT_ARRAYS_EQUAL(I64(max), run("max"));
    EXPECT_ARRAYS_EQUAL(I64(first), run("first_value"));
    EXPECT_ARRAYS_EQUAL(I64(last), run("last_value"));
    EXPECT_ARRAYS_EQUAL(I64(nth), run("nth_value", {1}, {C64(2)}));
    EXPECT_ARRAYS_EQUAL(I64(any), run("any_value"));
    EXPECT_ARRAYS_EQUAL(I64(distinct), run("count_distinct"));
    ExpectNear(mean, run("mean"));
    EXPECT_EQ(lists, run("list").ToString());
  }
}

TEST(WindowRandom, ManyRowsPerFrameAcrossAccumulatorChunks) {
  // More than one chunk of accumulator groups, with running and sliding frames.
  const int64_t n = 5000;
  std::vector<std::optional<int64_t>> xs;
  for (int64_t i = 0; i < n; ++i)
    xs.push_back(i % 7 == 0 ? std::nullopt : std::optional<int64_t>(i % 11));
  RecordBatch batch = Batch({{"x", I64(xs)}});
  const std::vector<int64_t> starts = {0, 1000, 3500};
  for (const WindowFrame& frame :
       {Rows(UnboundedPreceding(), CurrentRow()), Rows(Preceding(5), Following(2))}) {
    Array distinct = RunWindow(batch, starts, {}, Fn("count_distinct", {0}, {}, frame));
    Array var = RunWindow(batch, starts, {}, Fn("var_pop", {0}, {}, frame));
    ASSERT_EQ(distinct.length(), n);
    for (int64_t i = 0; i < n; i += 37) {
      const int64_t ps = i < 1000 ? 0 : (i < 3500 ? 1000 : 3500);
      const int64_t pe = i < 1000 ? 1000 : (i < 3500 ? 3500 : n);
      const int64_t begin =
          frame.start.kind == FrameBound::kUnboundedPreceding ? ps : std::max(ps, i - 5);
      const int64_t end =
          frame.start.kind == FrameBound::kUnboundedPreceding ? i + 1 : std::min(pe, i + 3);
      std::set<int64_t> values;
      double sum = 0;
      for (int64_t j = begin; j < end; ++j) {
        if (!xs[j]) continue;
        values.insert(*xs[j]);
        sum += static_cast<double>(*xs[j]);
      }
      EXPECT_EQ(distinct.values<int64_t>()[i], static_cast<int64_t>(values.size())) << i;
      const auto count = static_cast<double>(std::count_if(xs.begin() + begin, xs.begin() + end,
                                                           [](auto v) { return v.has_value(); }));
      if (count == 0) {
        EXPECT_TRUE(var.IsNull(i)) << i;
        continue;
      }
      double squares = 0;
      for (int64_t j = begin; j < end; ++j) {
        if (xs[j]) squares += (*xs[j] - sum / count) * (*xs[j] - sum / count);
      }
      EXPECT_NEAR(var.values<double>()[i], squares / count, 1e-9) << i;
    }
  }
}

}  // namespace
}  // namespace flotilla::exec
