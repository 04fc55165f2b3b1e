#include <gtest/gtest.h>

#include <cmath>

#include "flotilla/expr/functions/function_test_support.h"

namespace flotilla::expr::functions {

using namespace flotilla::testing;  // NOLINT
using flotilla::testing::Call;      // not expr::Call: these call a function on datums

namespace {

// [[3, 1, null, 2], [], null, [5]]
Array IntLists() {
  return Lists(Ints({3, 1, std::nullopt, 2, 5}), {{{0, 4}}, {{4, 0}}, std::nullopt, {{4, 1}}});
}

Array FixedLists() {
  auto builder = MakeBuilder(fixed_size_list(int32(), 2)).ValueOrDie();
  auto* lists = static_cast<FixedSizeListBuilder*>(builder.get());
  auto* values = static_cast<Int32Builder*>(lists->value_builder());
  lists->Append().Check();
  values->Append(4).Check();
  values->Append(-1).Check();
  lists->AppendNull().Check();
  lists->Append().Check();
  values->Append(7).Check();
  values->AppendNull().Check();
  return builder->Finish().ValueOrDie();
}

TEST(ListAccessTest, Length) {
  EXPECT_EQ(CallToString("list_length", {Col(IntLists())}), "[4, 0, null, 1]");
  EXPECT_EQ(CallToString("list_length", {Col(FixedLists())}), "[2, null, 2]");
  EXPECT_EQ(CallToString("list_length", {Col(IntLists().Slice(1, 2))}), "[0, null]");
  EXPECT_EQ(CallToString("list_length", {Col(FixedLists().Slice(2))}), "[2]");
  EXPECT_EQ(CallToString("list_length", {Col(IntLists().Slice(0, 0))}), "[]");
  EXPECT_EQ(Resolve("list_length", {utf8()}).status().message(),
            "list_length() expects a list, got string for argument 1");
}

TEST(ListAccessTest, Get) {
  auto l = Col(IntLists());
  EXPECT_EQ(CallToString("list_get", {l, LitI(0)}), "[3, null, null, 5]");
  EXPECT_EQ(CallToString("list_get", {l, LitI(-1)}), "[2, null, null, 5]");
  EXPECT_EQ(CallToString("list_get", {l, LitI(2)}), "[null, null, null, null]");
  EXPECT_EQ(CallToString("list_get", {l, LitI(9)}), "[null, null, null, null]");
  EXPECT_EQ(CallToString("list_get", {l, Col(Ints({1, 0, 0, std::nullopt}))}),
            "[1, null, null, null]");
  EXPECT_EQ(CallToString("list_get", {Col(FixedLists()), LitI(1)}), "[-1, null, null]");
  EXPECT_EQ(CallToString("list_get", {Col(FixedLists().Slice(2)), LitI(-2)}), "[7]");
  // A scalar list.
  EXPECT_EQ(CallToString("list_get", {Lit(IntLists().Slice(3, 1)), LitI(0)}), "[5]");
}

TEST(ListAccessTest, ExtractCountsFromOneAsDuckDb) {
  auto l = Col(IntLists());
  EXPECT_EQ(CallToString("list_extract", {l, LitI(1)}), "[3, null, null, 5]");
  EXPECT_EQ(CallToString("list_extract", {l, LitI(-1)}), "[2, null, null, 5]");
  EXPECT_EQ(CallToString("list_extract", {l, LitI(0)}), "[null, null, null, null]");
  EXPECT_EQ(CallToString("list_element", {l, LitI(2)}), "[1, null, null, null]");
  EXPECT_EQ(CallToString("list_extract", {l, LitI(4)}), "[2, null, null, null]");  // the last
  EXPECT_EQ(CallToString("list_extract", {l, LitI(5)}), "[null, null, null, null]");
}

TEST(ListAccessTest, Slice) {
  auto l = Col(IntLists());
  EXPECT_EQ(CallToString("list_slice", {l, LitI(1), LitI(3)}), "[[1, null], [], null, []]");
  EXPECT_EQ(CallToString("list_slice", {l, LitI(-2)}), "[[null, 2], [], null, [5]]");
  EXPECT_EQ(CallToString("list_slice", {l, LitI(3), LitI(1)}), "[[], [], null, []]");
  EXPECT_EQ(CallToString("list_slice", {l, LitI(-99), LitI(99)}),
            "[[3, 1, null, 2], [], null, [5]]");
  EXPECT_EQ(CallToString("list_slice", {Col(FixedLists()), LitI(1)}), "[[-1], null, [null]]");
}

// The DuckDB answers for [1, 2, 3, 4, 5] (recorded from DuckDB 1.x): 1-based, inclusive.
TEST(ListAccessTest, OneBasedSliceAsDuckDb) {
  auto l = Col(Lists(Ints({1, 2, 3, 4, 5}), {{{0, 5}}}));
  auto slice = [&](int64_t b, int64_t e) {
    return CallToString("array_slice", {l, LitI(b), LitI(e)});
  };
  EXPECT_EQ(slice(1, 2), "[[1, 2]]");
  EXPECT_EQ(slice(0, 2), "[[1, 2]]");
  EXPECT_EQ(slice(2, 4), "[[2, 3, 4]]");
  EXPECT_EQ(slice(-2, -1), "[[4, 5]]");
  EXPECT_EQ(slice(-1, -1), "[[5]]");
  EXPECT_EQ(slice(2, -2), "[[2, 3, 4]]");
  EXPECT_EQ(slice(3, 2), "[[]]");
  EXPECT_EQ(slice(0, 0), "[[]]");
  EXPECT_EQ(slice(1, 10), "[[1, 2, 3, 4, 5]]");
  EXPECT_EQ(slice(-10, 2), "[[1, 2]]");
  EXPECT_EQ(slice(5, 5), "[[5]]");
  EXPECT_EQ(slice(6, 7), "[[]]");
  EXPECT_EQ(slice(-3, 3), "[[3]]");
  EXPECT_EQ(CallToString("array_slice", {l, LitI(1), LitI(5), LitI(2)}), "[[1, 3, 5]]");
  // Null lists and bounds give null.
  EXPECT_EQ(CallToString("array_slice", {Col(IntLists()), LitI(1), LitI(2)}),
            "[[3, 1], [], null, [5]]");
  EXPECT_EQ(CallToString("array_slice", {l, Col(Ints({std::nullopt})), LitI(2)}), "[null]");
}

TEST(ListAccessTest, Join) {
  Array words = Strings({"a", std::nullopt, "b", "é"});
  auto l = Col(Lists(words, {{{0, 3}}, {{3, 1}}, {{0, 0}}, std::nullopt}));
  EXPECT_EQ(CallToString("list_join", {l, LitS(", ")}), "[a, b, é, , null]");
  EXPECT_EQ(CallToString("list_join", {l, NullLit()}), "[null, null, null, null]");
  EXPECT_EQ(Resolve("list_join", {list(int64()), utf8()}).status().code(), StatusCode::kTypeError);
}

TEST(ListAccessTest, Contains) {
  auto l = Col(IntLists());
  EXPECT_EQ(CallToString("list_contains", {l, LitI(2)}), "[true, false, null, false]");
  EXPECT_EQ(CallToString("list_contains", {l, Lit(Numbers<int32_t>({5}, int32()))}),
            "[false, false, null, true]");
  EXPECT_EQ(CallToString("list_contains", {l, Lit(Numbers<double>({1.0}, float64()))}),
            "[true, false, null, false]");
  EXPECT_EQ(CallToString("list_contains", {l, NullLit()}), "[null, null, null, null]");
  auto s = Col(Lists(Strings({"x", "y"}), {{{0, 2}}, {{1, 1}}}));
  EXPECT_EQ(CallToString("list_contains", {s, LitS("x")}), "[true, false]");
  EXPECT_EQ(CallToString("list_contains", {s, Lit(Strings({"y"}, large_utf8()))}), "[true, true]");
  EXPECT_EQ(Resolve("list_contains", {list(int64()), utf8()}).status().message(),
            "list_contains() expects a value of type int64, got string for argument 2");
}

TEST(ListAccessTest, StructGet) {
  auto ints = Ints({1, 2, 3});
  auto more = Ints({10, 20, 30});
  auto type = struct_({{"alpha", int64()}, {"beta", int64()}});
  auto builder = MakeBuilder(type).ValueOrDie();
  auto* sb = static_cast<StructBuilder*>(builder.get());
  for (int i = 0; i < 3; ++i) {
    if (i == 1) {
      sb->AppendNull().Check();
      continue;
    }
    sb->Append().Check();
    sb->field_builder(0)->AppendArraySlice(ints, i, 1).Check();
    sb->field_builder(1)->AppendArraySlice(more, i, 1).Check();
  }
  Array structs = builder->Finish().ValueOrDie();
  EXPECT_EQ(CallToString("struct_get", {Col(structs), LitS("beta")}), "[10, null, 30]");
  EXPECT_EQ(CallToString("struct_get", {Col(structs.Slice(2)), LitS("alpha")}), "[3]");
  auto r = Call("struct_get", {Col(structs), LitS("alpah")});
  ASSERT_EQ(r.status().code(), StatusCode::kKeyError);
  EXPECT_NE(r.status().message().find("did you mean 'alpha'"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(Resolve("struct_get", {int64(), utf8()}).status().code(), StatusCode::kTypeError);
}

TEST(ListAccessTest, StructGetTypeIsTheNamedFieldsType) {
  auto type = struct_({{"id", int64()}, {"label", utf8()}, {"id", boolean()}});
  auto builder = MakeBuilder(type).ValueOrDie();
  auto* sb = static_cast<StructBuilder*>(builder.get());
  sb->Append().Check();
  sb->field_builder(0)->AppendArraySlice(Ints({7}), 0, 1).Check();
  sb->field_builder(1)->AppendArraySlice(Strings({"seven"}), 0, 1).Check();
  sb->field_builder(2)->AppendArraySlice(Bools({true}), 0, 1).Check();
  sb->AppendNull().Check();
  Array structs = builder->Finish().ValueOrDie();
  EXPECT_EQ(CallToString("struct_get", {Col(structs), LitS("label")}), "[seven, null]");
  // A repeated name means the first field so called.
  EXPECT_EQ(CallToString("struct_get", {Col(structs), LitS("id")}), "[7, null]");
  const ScalarFunction* f = DefaultRegistry().Find("struct_get").ValueOrDie();
  EXPECT_TRUE(
      f->Resolve({type, utf8()}, {Array(), Strings({"label"})}).ValueOrDie()->Equals(*utf8()));
  EXPECT_TRUE(f->Resolve({type, large_utf8()}, {Array(), Strings({"id"}, large_utf8())})
                  .ValueOrDie()
                  ->Equals(*int64()));
  auto unknown = f->Resolve({type, utf8()}, {Array(), Strings({"lable"})});
  EXPECT_EQ(unknown.status().code(), StatusCode::kKeyError);
  EXPECT_EQ(unknown.status().message(), "struct field 'lable' not found; did you mean 'label'?");
  auto varying = f->Resolve({type, utf8()}, {Array(), Array()});
  EXPECT_EQ(varying.status().code(), StatusCode::kTypeError);
  EXPECT_EQ(varying.status().message(),
            "struct_get() needs the field name (argument 2) as a constant string; got an "
            "expression that varies per row");
  EXPECT_EQ(f->Resolve({type, null()}, {Array(), Array::MakeNull(null(), 1).ValueOrDie()})
                .status()
                .message(),
            "struct_get() needs a non-null field name (argument 2)");
}

TEST(ListAggregateTest, SumMean) {
  auto l = Col(IntLists());
  EXPECT_EQ(CallToString("list_sum", {l}), "[6, null, null, 5]");
  EXPECT_EQ(CallToString("list_mean", {l}), "[2, null, null, 5]");
  EXPECT_EQ(CallToString("list_sum", {Col(FixedLists())}), "[3, null, 7]");
  auto d = Col(Lists(Numbers<double>({1.5, 2.0, std::nullopt}, float64()), {{{0, 3}}, {{2, 1}}}));
  EXPECT_EQ(CallToString("list_sum", {d}), "[3.5, null]");
  EXPECT_EQ(CallToString("list_mean", {d}), "[1.75, null]");
  auto big = Col(Lists(Ints({INT64_MAX, 1}), {{{0, 2}}}));
  EXPECT_EQ(Call("list_sum", {big}).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(Resolve("list_sum", {list(utf8())}).status().code(), StatusCode::kTypeError);
  auto u = Resolve("list_sum", {list(uint8())});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)->id(), TypeId::kUInt64);
}

TEST(ListAggregateTest, MinMax) {
  auto l = Col(IntLists());
  EXPECT_EQ(CallToString("list_min", {l}), "[1, null, null, 5]");
  EXPECT_EQ(CallToString("list_max", {l}), "[3, null, null, 5]");
  auto d = Col(Lists(Numbers<double>({NAN, -1.0, 2.0}, float64()), {{{0, 3}}}));
  EXPECT_EQ(CallToString("list_min", {d}), "[-1]");
  auto r = Call("list_max", {d});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(std::isnan(r->array().values<double>()[0]));
  auto s = Col(Lists(Strings({"pear", "apple", "zoo"}), {{{0, 3}}}));
  EXPECT_EQ(CallToString("list_min", {s}), "[apple]");
  EXPECT_EQ(CallToString("list_max", {Col(FixedLists())}), "[4, null, 7]");
}

TEST(ListAggregateTest, Distinct) {
  auto l = Col(
      Lists(Ints({3, 1, 3, std::nullopt, 1, std::nullopt, 2}), {{{0, 7}}, {{0, 0}}, std::nullopt}));
  EXPECT_EQ(CallToString("list_distinct", {l}), "[[3, 1, 2], [], null]");
  auto s = Col(Lists(Strings({"b", "a", "b", ""}), {{{0, 4}}}));
  EXPECT_EQ(CallToString("list_distinct", {s}), "[[b, a, ]]");
  EXPECT_EQ(CallToString("list_distinct", {Col(FixedLists())}), "[[4, -1], null, [7]]");
}

TEST(ListAggregateTest, Sort) {
  auto l = Col(IntLists());
  EXPECT_EQ(CallToString("list_sort", {l}), "[[1, 2, 3, null], [], null, [5]]");
  EXPECT_EQ(CallToString("list_sort", {l, LitB(true)}), "[[3, 2, 1, null], [], null, [5]]");
  EXPECT_EQ(CallToString("list_sort", {l, NullLit()}), "[null, null, null, null]");
  auto s = Col(Lists(Strings({"b", "é", "a"}), {{{0, 3}}}));
  EXPECT_EQ(CallToString("list_sort", {s}), "[[a, b, é]]");
  EXPECT_EQ(CallToString("list_sort", {Col(FixedLists())}), "[[-1, 4], null, [7, null]]");
  EXPECT_EQ(Resolve("list_sort", {list(list(int64()))}).status().code(), StatusCode::kTypeError);
}

}  // namespace
}  // namespace flotilla::expr::functions
