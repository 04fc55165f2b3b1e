// Hand-computed results for every aggregate over a few groups, nulls, empty groups and errors.

#include <cmath>
#include <limits>

#include "tests/support/aggregate_runs.h"

namespace flotilla::expr {

using namespace flotilla::testing;  // NOLINT

namespace {

using I64 = std::vector<std::optional<int64_t>>;
using F64 = std::vector<std::optional<double>>;
using Str = std::vector<std::optional<std::string>>;
using Bools = std::vector<std::optional<bool>>;

// Groups: 0 <- {1, 3, 6}, 1 <- {2, 5}, 2 <- {null}, 3 <- no rows.
const std::vector<uint32_t> kGroups = {0, 1, 0, 2, 1, 0};
Array Values() {
  return MakeArray<int64_t>(int64(), I64{1, 2, 3, std::nullopt, 5, 6});
}

std::string RunText(const std::string& name, const std::vector<Array>& args,
                    const std::vector<uint32_t>& groups, int64_t num_groups) {
  return RunSingle(name, args, groups, num_groups).ValueOrDie().ToString();
}

void ExpectDoubles(const Array& a, const std::vector<std::optional<double>>& expected) {
  ASSERT_EQ(a.type_id(), TypeId::kFloat64);
  ASSERT_EQ(a.length(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(a.IsValid(i), expected[i].has_value()) << "row " << i;
    if (expected[i]) {
      EXPECT_NEAR(a.values<double>()[i], *expected[i], 1e-12) << "row " << i;
    }
  }
}

TEST(AggregateBasic, CountAndCountStar) {
  EXPECT_EQ(RunText("count", {Values()}, kGroups, 4), "[3, 2, 0, 0]");
  EXPECT_EQ(RunText("count_star", {}, kGroups, 4), "[3, 2, 1, 0]");
}

TEST(AggregateBasic, SumMinMax) {
  EXPECT_EQ(RunText("sum", {Values()}, kGroups, 4), "[10, 7, null, null]");
  EXPECT_EQ(RunText("min", {Values()}, kGroups, 4), "[1, 2, null, null]");
  EXPECT_EQ(RunText("max", {Values()}, kGroups, 4), "[6, 5, null, null]");
  Array u = MakeArray<uint8_t>(uint8(), {{200}, {100}});
  Array s = RunSingle("sum", {u}, {0, 0}, 1).ValueOrDie();
  EXPECT_EQ(s.type_id(), TypeId::kUInt64);
  EXPECT_EQ(s.ToString(), "[300]");
}

TEST(AggregateBasic, Mean) {
  ExpectDoubles(RunSingle("mean", {Values()}, kGroups, 4).ValueOrDie(),
                {10.0 / 3, 3.5, std::nullopt, std::nullopt});
  ExpectDoubles(RunSingle("avg", {Values()}, kGroups, 4).ValueOrDie(),
                {10.0 / 3, 3.5, std::nullopt, std::nullopt});
}

TEST(AggregateBasic, VarianceFamily) {
  // Group 0: {1, 3, 6}, M2 = 114/9; group 1: {2, 5}, M2 = 4.5.
  const double m2 = 114.0 / 9;
  ExpectDoubles(RunSingle("var_samp", {Values()}, kGroups, 4).ValueOrDie(),
                {m2 / 2, 4.5, std::nullopt, std::nullopt});
  ExpectDoubles(RunSingle("variance", {Values()}, kGroups, 4).ValueOrDie(),
                {m2 / 2, 4.5, std::nullopt, std::nullopt});
  ExpectDoubles(RunSingle("var_pop", {Values()}, kGroups, 4).ValueOrDie(),
                {m2 / 3, 2.25, std::nullopt, std::nullopt});
  ExpectDoubles(RunSingle("stddev", {Values()}, kGroups, 4).ValueOrDie(),
                {std::sqrt(m2 / 2), std::sqrt(4.5), std::nullopt, std::nullopt});
  ExpectDoubles(RunSingle("stddev_samp", {Values()}, kGroups, 4).ValueOrDie(),
                {std::sqrt(m2 / 2), std::sqrt(4.5), std::nullopt, std::nullopt});
  ExpectDoubles(RunSingle("stddev_pop", {Values()}, kGroups, 4).ValueOrDie(),
                {std::sqrt(m2 / 3), 1.5, std::nullopt, std::nullopt});
  // One value: the sample statistics are null, the population ones 0.
  Array one = MakeArray<int64_t>(int64(), I64{7});
  ExpectDoubles(RunSingle("var_samp", {one}, {0}, 1).ValueOrDie(), {std::nullopt});
  ExpectDoubles(RunSingle("stddev_samp", {one}, {0}, 1).ValueOrDie(), {std::nullopt});
  ExpectDoubles(RunSingle("var_pop", {one}, {0}, 1).ValueOrDie(), {0.0});
}

TEST(AggregateBasic, AnyFirstLast) {
  EXPECT_EQ(RunText("any_value", {Values()}, kGroups, 4), "[1, 2, null, null]");
  EXPECT_EQ(RunText("first", {Values()}, kGroups, 4), "[1, 2, null, null]");
  EXPECT_EQ(RunText("last", {Values()}, kGroups, 4), "[6, 5, null, null]");
  // first/last keep a null first/last row; any_value skips nulls.
  Array x = MakeArray<int64_t>(int64(), I64{std::nullopt, 2, 3, std::nullopt});
  EXPECT_EQ(RunText("first", {x}, {0, 0, 0, 0}, 1), "[null]");
  EXPECT_EQ(RunText("last", {x}, {0, 0, 0, 0}, 1), "[null]");
  EXPECT_EQ(RunText("any_value", {x}, {0, 0, 0, 0}, 1), "[2]");
  EXPECT_EQ(RunText("last", {x}, {0, 0, 0, 1}, 2), "[3, null]");
}

TEST(AggregateBasic, ArgMinArgMax) {
  // Keys: group 0 <- {1, 3, 6}, group 1 <- {2, 5}, group 2 <- {null}, group 3 <- no rows.
  Array v = MakeArray<std::string>(utf8(), Str{"a", "b", std::nullopt, "d", "e", "f"});
  EXPECT_EQ(RunText("arg_min", {v, Values()}, kGroups, 4), "[a, b, null, null]");
  EXPECT_EQ(RunText("arg_max", {v, Values()}, kGroups, 4), "[f, e, null, null]");
  // The value may be null (row 2 has the smallest key of its group) and ties keep the first.
  Array k = MakeArray<int64_t>(int64(), I64{5, 1, 0, 1});
  EXPECT_EQ(RunText("arg_min", {v.Slice(0, 4), k}, {0, 0, 0, 1}, 2), "[null, d]");
  EXPECT_EQ(RunText("arg_max", {v.Slice(0, 4), k}, {0, 1, 0, 1}, 2), "[a, b]");
  // A nested key is refused, naming the argument.
  Array nested = RunSingle("list", {Values()}, kGroups, 4).ValueOrDie();
  auto status = Fn("arg_min").MakeAccumulator({int64(), nested.type()}).status();
  EXPECT_NE(status.message().find("argument 2"), std::string::npos) << status.ToString();
}

TEST(AggregateBasic, MinMaxOtherTypes) {
  Array s = MakeArray<std::string>(utf8(), Str{"pear", "apple", std::nullopt, "zoo"});
  EXPECT_EQ(RunText("min", {s}, {0, 0, 0, 1}, 2), "[apple, zoo]");
  EXPECT_EQ(RunText("max", {s}, {0, 0, 0, 1}, 2), "[pear, zoo]");
  Array ls = MakeArray<std::string>(large_utf8(), Str{"b", "a"});
  EXPECT_EQ(RunText("min", {ls}, {0, 0}, 1), "[a]");

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Array f = MakeArray<double>(float64(), F64{1.0, nan, -inf, std::nullopt});
  Array max = RunSingle("max", {f}, {0, 0, 0, 0}, 1).ValueOrDie();
  EXPECT_TRUE(std::isnan(max.values<double>()[0]));
  Array min = RunSingle("min", {f}, {0, 0, 0, 0}, 1).ValueOrDie();
  EXPECT_EQ(min.values<double>()[0], -inf);

  Array b = MakeArray<bool>(boolean(), Bools{true, false, std::nullopt});
  EXPECT_EQ(RunText("min", {b}, {0, 0, 0}, 1), "[false]");
  EXPECT_EQ(RunText("max", {b}, {0, 0, 0}, 1), "[true]");

  Array d = MakeArray<int32_t>(date32(), {{10}, {-5}, {3}});
  Array dmin = RunSingle("min", {d}, {0, 0, 0}, 1).ValueOrDie();
  EXPECT_EQ(dmin.type_id(), TypeId::kDate32);
  EXPECT_EQ(dmin.values<int32_t>()[0], -5);
  Array ts = MakeArray<int64_t>(timestamp(TimeUnit::kMicro, "UTC"), {{5}, {7}, {-1}});
  Array tmax = RunSingle("max", {ts}, {0, 0, 0}, 1).ValueOrDie();
  EXPECT_TRUE(tmax.type()->Equals(*ts.type()));
  EXPECT_EQ(tmax.values<int64_t>()[0], 7);

  Array dec = MakeArray<Int128>(decimal128(10, 2), {{125}, {-75}, {250}});
  EXPECT_EQ(RunText("min", {dec}, {0, 0, 0}, 1), "[-0.75]");
  EXPECT_EQ(RunText("max", {dec}, {0, 0, 0}, 1), "[2.50]");
}

TEST(AggregateBasic, BoolAndOr) {
  Array b = MakeArray<bool>(boolean(), Bools{true, false, std::nullopt, true, std::nullopt});
  EXPECT_EQ(RunText("bool_and", {b}, {0, 0, 0, 1, 2}, 4), "[false, true, null, null]");
  EXPECT_EQ(RunText("bool_or", {b}, {0, 0, 0, 1, 2}, 4), "[true, true, null, null]");
}

TEST(AggregateBasic, ListIncludesNulls) {
  Array lists = RunSingle("list", {Values()}, kGroups, 4).ValueOrDie();
  EXPECT_TRUE(lists.type()->Equals(*list(int64())));
  EXPECT_EQ(lists.ToString(), "[[1, 3, 6], [2, 5], [null], null]");
  EXPECT_EQ(RunText("agg_list", {Values()}, kGroups, 4), lists.ToString());
}

TEST(AggregateBasic, StringAgg) {
  Array s = MakeArray<std::string>(utf8(), Str{"a", "b", std::nullopt, "c", std::nullopt});
  Array sep = MakeArray<std::string>(utf8(), Str{"-", "-", "-", "-", "-"});
  EXPECT_EQ(RunText("string_agg", {s, sep}, {0, 0, 0, 1, 2}, 4), "[a-b, c, null, null]");
  // A separator that is not a constant is an error.
  auto acc = Fn("string_agg").MakeAccumulator({utf8(), utf8()}, {});
  EXPECT_EQ(acc.status().code(), StatusCode::kInvalid);
}

TEST(AggregateBasic, CountDistinct) {
  Array x = MakeArray<int64_t>(int64(), I64{1, 1, 2, std::nullopt, 2, 3});
  EXPECT_EQ(RunText("count_distinct", {x}, {0, 0, 0, 0, 1, 1}, 3), "[2, 2, 0]");
  Array s = MakeArray<std::string>(utf8(), Str{"x", "y", "x", "a long string value, over SSO"});
  EXPECT_EQ(RunText("count_distinct", {s}, {0, 0, 0, 0}, 1), "[3]");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Array f = MakeArray<double>(float64(), F64{0.0, -0.0, nan, -nan});
  EXPECT_EQ(RunText("count_distinct", {f}, {0, 0, 0, 0}, 1), "[2]");
}

TEST(AggregateBasic, ApproxSmallIsExact) {
  Array x = MakeArray<int64_t>(int64(), I64{1, 1, 2, std::nullopt, 2, 3});
  EXPECT_EQ(RunText("approx_count_distinct", {x}, {0, 0, 0, 0, 1, 1}, 3), "[2, 2, 0]");
  Array q = MakeArray<double>(float64(), F64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5});
  ExpectDoubles(RunSingle("approx_percentile", {Values(), q}, kGroups, 4).ValueOrDie(),
                {3.0, 2.0, std::nullopt, std::nullopt});
  Array q1 = MakeArray<double>(float64(), F64{1, 1, 1, 1, 1, 1});
  ExpectDoubles(RunSingle("approx_percentile", {Values(), q1}, kGroups, 4).ValueOrDie(),
                {6.0, 5.0, std::nullopt, std::nullopt});
  auto bad =
      Fn("approx_percentile").MakeAccumulator({int64(), float64()}, {Array(), q1.Slice(0, 1)});
  EXPECT_TRUE(bad.ok());
  Array q2 = MakeArray<double>(float64(), F64{1.5});
  bad = Fn("approx_percentile").MakeAccumulator({int64(), float64()}, {Array(), q2});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
}

TEST(AggregateBasic, EmptyInputAndEmptyGroups) {
  Array x = MakeArray<int64_t>(int64(), I64{});
  Array q = MakeArray<double>(float64(), F64{0.5});
  Array s = MakeArray<std::string>(utf8(), Str{});
  Array sep = MakeArray<std::string>(utf8(), Str{","});
  Array b = MakeArray<bool>(boolean(), Bools{});
  for (const std::string& name : DefaultAggregateRegistry().Names()) {
    SCOPED_TRACE(name);
    std::vector<Array> args = {x};
    if (name == "count_star") args = {};
    if (name == "approx_percentile") args = {x, q};
    if (name == "string_agg") args = {s, sep};
    if (name == "arg_min" || name == "arg_max" || name == "min_by" || name == "max_by") {
      args = {s, x};
    }
    if (name == "bool_and" || name == "bool_or") args = {b};
    auto acc = Fn(name).MakeAccumulator(TypesOf(args), ConstantsOf(args)).ValueOrDie();
    // No groups at all.
    ASSERT_TRUE(acc->Update(args, nullptr, 0).ok());
    Array none = acc->Finalize().ValueOrDie();
    EXPECT_EQ(none.length(), 0);
    // Two groups that saw no rows.
    ASSERT_TRUE(acc->Resize(2).ok());
    Array empty = acc->Finalize().ValueOrDie();
    ASSERT_EQ(empty.length(), 2);
    const bool counts = name.find("count") != std::string::npos;
    for (int64_t g = 0; g < 2; ++g) {
      if (counts) {
        EXPECT_EQ(empty.ToString(), "[0, 0]");
      } else {
        EXPECT_TRUE(empty.IsNull(g));
      }
    }
    ASSERT_TRUE(Fn(name).state_types(TypesOf(args)).ok());
  }
}

TEST(AggregateBasic, IntegerOverflowNamesGroup) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  Array x = MakeArray<int64_t>(int64(), I64{1, max, 1});
  auto r = RunSingle("sum", {x}, {0, 1, 1}, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("group 1"), std::string::npos) << r.status().ToString();
  Array u = MakeArray<uint64_t>(uint64(), {{std::numeric_limits<uint64_t>::max()}, {1}});
  EXPECT_FALSE(RunSingle("sum", {u}, {0, 0}, 1).ok());
  // Overflow found while merging partial sums is reported too.
  Array big = MakeArray<int64_t>(int64(), I64{max, max, max});
  EXPECT_FALSE(RunSplit("sum", {big}, {0, 0, 0}, 1, 3, true).ok());
  EXPECT_FALSE(RunSplit("sum", {big}, {0, 0, 0}, 1, 3, false).ok());
  // mean sums integers in 128 bits, so it does not overflow.
  ExpectDoubles(RunSingle("mean", {big}, {0, 0, 0}, 1).ValueOrDie(), {static_cast<double>(max)});
}

TEST(AggregateBasic, DecimalSumIsExact) {
  Array d = MakeArray<Int128>(decimal128(10, 2), {{125}, {250}, {-75}, std::nullopt});
  Array s = RunSingle("sum", {d}, {0, 0, 0, 1}, 2).ValueOrDie();
  EXPECT_TRUE(s.type()->Equals(*decimal128(38, 2)));
  EXPECT_EQ(s.ToString(), "[3.00, null]");
  // 0.10 ten thousand times is exactly 1000.00 (float64 would not be).
  std::vector<std::optional<Int128>> tenth(10000, Int128{10});
  Array t = MakeArray<Int128>(decimal128(5, 2), tenth);
  EXPECT_EQ(RunSingle("sum", {t}, std::vector<uint32_t>(10000, 0), 1).ValueOrDie().ToString(),
            "[1000.00]");
  ExpectDoubles(RunSingle("avg", {d}, {0, 0, 0, 1}, 2).ValueOrDie(), {1.0, std::nullopt});
  // 38 nines plus one overflows decimal128(38, 0).
  Int128 nines = 0;
  for (int i = 0; i < 38; ++i)
    nines = nines * 10 + 9;
  Array o = MakeArray<Int128>(decimal128(38, 0), {{nines}, {1}});
  auto r = RunSingle("sum", {o}, {0, 0}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("group 0"), std::string::npos);
}

TEST(AggregateBasic, FloatSumIsCompensated) {
  Array x = MakeArray<double>(float64(), F64{1e16, 1.0, -1e16, 1.0});
  ExpectDoubles(RunSingle("sum", {x}, {0, 0, 0, 0}, 1).ValueOrDie(), {2.0});
  std::vector<std::optional<double>> tenths(1000000, 0.1);
  Array t = MakeArray<double>(float64(), tenths);
  std::vector<uint32_t> g(1000000, 0);
  Array s = RunSingle("sum", {t}, g, 1).ValueOrDie();
  EXPECT_EQ(s.values<double>()[0], 100000.0);
  Array f = MakeArray<float>(float32(), {{0.5f}, {0.25f}});
  ExpectDoubles(RunSingle("sum", {f}, {0, 0}, 1).ValueOrDie(), {0.75});
}

TEST(AggregateBasic, FloatSumsWithInfinitiesAndNaN) {
  // Groups: {-inf, 1, 2}, {inf, -inf}, {NaN, 1}, {inf, inf}.
  Array x = MakeArray<double>(
      float64(), F64{-INFINITY, 1.0, 2.0, INFINITY, -INFINITY, NAN, 1.0, INFINITY, INFINITY});
  const std::vector<uint32_t> g = {0, 0, 0, 1, 1, 2, 2, 3, 3};
  for (const char* name : {"sum", "mean"}) {
    SCOPED_TRACE(name);
    const Array r = RunSingle(name, {x}, g, 4).ValueOrDie();
    EXPECT_EQ(r.values<double>()[0], -INFINITY);
    EXPECT_TRUE(std::isnan(r.values<double>()[1]));
    EXPECT_TRUE(std::isnan(r.values<double>()[2]));
    EXPECT_EQ(r.values<double>()[3], INFINITY);
  }
}

TEST(AggregateBasic, VarianceOfAGroupWithNaNIsNaN) {
  Array x = MakeArray<double>(float64(), F64{NAN, 1.0, 2.0, 1.0, 3.0});
  for (const char* name : {"variance", "var_pop", "stddev", "stddev_pop"}) {
    SCOPED_TRACE(name);
    const Array r = RunSplit(name, {x}, {0, 0, 0, 1, 1}, 2, 2, /*two_phase=*/true).ValueOrDie();
    EXPECT_TRUE(std::isnan(r.values<double>()[0]));
    EXPECT_FALSE(std::isnan(r.values<double>()[1]));
  }
}

TEST(AggregateBasic, RegistryLookupAndTypeErrors) {
  const AggregateRegistry& registry = DefaultAggregateRegistry();
  EXPECT_TRUE(registry.Find("SUM").ok());
  auto missing = registry.Find("sume");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kKeyError);
  EXPECT_NE(missing.status().message().find("did you mean 'sum'"), std::string::npos)
      << missing.status().message();
  auto bad = Fn("sum").MakeAccumulator({utf8()});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kTypeError);
  EXPECT_NE(bad.status().message().find("sum()"), std::string::npos);
  EXPECT_NE(bad.status().message().find("argument 1"), std::string::npos);
  EXPECT_EQ(Fn("count").MakeAccumulator({}).status().code(), StatusCode::kTypeError);
  EXPECT_EQ(Fn("min").MakeAccumulator({list(int64())}).status().code(), StatusCode::kTypeError);
  for (const std::string& name : registry.Names())
    EXPECT_FALSE(Fn(name).doc.empty()) << name;
  AggregateRegistry twice;
  ASSERT_TRUE(RegisterAggregateFunctions(&twice).ok());
  EXPECT_FALSE(RegisterAggregateFunctions(&twice).ok());
}

}  // namespace
}  // namespace flotilla::expr
