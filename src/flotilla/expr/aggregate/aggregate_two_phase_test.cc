// For every aggregate: thread-style Merge and two-phase (SerializePartial -> MergePartial) over
// random data split into 3 parts give the single-phase result.

#include <random>
#include <set>

#include "tests/support/aggregate_runs.h"
#include "tests/support/random_data.h"

namespace flotilla::expr {

using namespace flotilla::testing;  // NOLINT

namespace {

struct Case {
  std::string function;
  TypePtr type;
  TypePtr extra_type = nullptr;  // second argument, when there is one
  bool extra_is_column = false;  // random like the first (arg_min's key), else a constant
};

constexpr int64_t kRows = 3000;
constexpr int64_t kGroups = 53;  // only 50 are used: three stay empty

std::vector<uint32_t> RandomGroups(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> groups(kRows);
  for (auto& g : groups)
    g = static_cast<uint32_t>(rng() % 50);
  return groups;
}

std::vector<Array> RandomArgs(const Case& c, uint64_t seed) {
  flotilla::testing::RandomOptions options;
  options.null_probability = 0.15;
  // Small integers: sums stay in range; duplicates exercise count_distinct.
  if (c.type->is_integer()) options.distinct_values = 1000;
  std::vector<Array> args = {flotilla::testing::RandomArray(c.type, kRows, seed, options)};
  if (c.extra_type && c.extra_is_column) {
    args.push_back(flotilla::testing::RandomArray(c.extra_type, kRows, seed + 1, options));
  } else if (c.extra_type) {
    auto builder = MakeBuilder(c.extra_type).ValueOrDie();
    for (int64_t i = 0; i < kRows; ++i) {
      if (c.extra_type->id() == TypeId::kFloat64) {
        static_cast<DoubleBuilder*>(builder.get())->Append(0.3).Check();
      } else {
        static_cast<StringBuilder*>(builder.get())->Append(", ").Check();
      }
    }
    args.push_back(builder->Finish().ValueOrDie());
  }
  return args;
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  const std::vector<TypePtr> orderable = {int32(),
                                          int64(),
                                          uint16(),
                                          float32(),
                                          float64(),
                                          decimal128(12, 3),
                                          date32(),
                                          timestamp(TimeUnit::kMilli),
                                          boolean(),
                                          utf8(),
                                          large_utf8(),
                                          binary(),
                                          fixed_size_binary(3)};
  for (const char* f : {"min", "max", "any_value", "first", "last", "count", "count_distinct",
                        "approx_count_distinct", "list"}) {
    for (const TypePtr& t : orderable)
      cases.push_back({f, t});
  }
  for (const TypePtr& t : {list(int32()), struct_({{"a", int8()}, {"b", utf8()}})}) {
    cases.push_back({"list", t});
    cases.push_back({"count", t});
    cases.push_back({"approx_count_distinct", t});
  }
  // arg_min/arg_max: values of every kind, nested too, by keys of a few kinds.
  for (const char* f : {"arg_min", "arg_max", "min_by", "max_by"}) {
    for (const TypePtr& t : {int64(), utf8(), list(int32()), struct_({{"a", int8()}})})
      cases.push_back({f, t, float64(), true});
    for (const TypePtr& k : {utf8(), decimal128(12, 3), date32()})
      cases.push_back({f, int32(), k, true});
  }
  cases.push_back({"agg_list", int64()});
  cases.push_back({"array_agg", utf8()});
  cases.push_back({"count_star", int32()});
  const std::vector<TypePtr> numeric = {int8(),   int32(),   int64(),   uint8(),
                                        uint64(), float32(), float64(), decimal128(20, 4)};
  for (const char* f : {"sum", "mean", "avg", "variance", "var_samp", "var_pop", "stddev",
                        "stddev_samp", "stddev_pop"}) {
    for (const TypePtr& t : numeric)
      cases.push_back({f, t});
  }
  for (const TypePtr& t : numeric)
    cases.push_back({"approx_percentile", t, float64()});
  for (const TypePtr& t : numeric)
    cases.push_back({"product", t});
  cases.push_back({"bool_and", boolean()});
  cases.push_back({"bool_or", boolean()});
  cases.push_back({"string_agg", utf8(), utf8()});
  cases.push_back({"string_agg", large_utf8(), utf8()});
  return cases;
}

TEST(AggregateTwoPhase, EveryFunctionMatchesSinglePhase) {
  std::set<std::string> covered;
  uint64_t seed = 1;
  for (const Case& c : AllCases()) {
    SCOPED_TRACE(c.function + "(" + c.type->ToString() + ")");
    covered.insert(c.function);
    std::vector<Array> args = RandomArgs(c, ++seed);
    if (c.function == "count_star") args.clear();
    const std::vector<uint32_t> groups = RandomGroups(seed);
    Array single = RunSingle(c.function, args, groups, kGroups).ValueOrDie();
    ASSERT_EQ(single.length(), kGroups);
    EXPECT_TRUE(single.type()->Equals(*Fn(c.function).resolve(TypesOf(args)).ValueOrDie()));
    Array merged = RunSplit(c.function, args, groups, kGroups, 3, false).ValueOrDie();
    ExpectSameResult(single, merged);
    Array two_phase = RunSplit(c.function, args, groups, kGroups, 3, true).ValueOrDie();
    ExpectSameResult(single, two_phase);
    // The partial state has the declared types.
    auto acc = Make(c.function, args);
    ASSERT_TRUE(acc->Resize(kGroups).ok());
    ASSERT_TRUE(acc->Update(args, groups.data(), kRows).ok());
    auto partial = acc->SerializePartial().ValueOrDie();
    auto declared = Fn(c.function).state_types(TypesOf(args)).ValueOrDie();
    ASSERT_EQ(partial.size(), declared.size());
    for (size_t i = 0; i < partial.size(); ++i) {
      EXPECT_TRUE(partial[i].type()->Equals(*declared[i])) << partial[i].type()->ToString();
      EXPECT_EQ(partial[i].length(), kGroups);
    }
  }
  EXPECT_EQ(covered.size(), DefaultAggregateRegistry().Names().size());
}

}  // namespace
}  // namespace flotilla::expr
