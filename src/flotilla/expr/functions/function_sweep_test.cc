// The same contract checks for every string, hash and list function: zero-row columns give zero
// rows, all-scalar calls give a scalar equal to the column result, and a null first argument
// gives null (except where a function documents otherwise).

#include <gtest/gtest.h>

#include <functional>

#include "flotilla/expr/functions/function_test_support.h"

namespace flotilla::expr::functions {

using namespace flotilla::testing;  // NOLINT
using flotilla::testing::Call;      // not expr::Call: these call a function on datums

namespace {

struct Case {
  std::string name;
  std::vector<Datum> args;  // every argument a scalar; the first is also tried as a column
  bool null_first_gives_null = true;
};

Datum IntList() {
  return Lit(Lists(Ints({3, 1, 2}), {{{0, 3}}}));
}
Datum StringList() {
  return Lit(Lists(Strings({"b", "a"}), {{{0, 2}}}));
}

std::vector<Case> StringCases() {
  Datum s = LitS("  Héllo, Wörld e\xCC\x81 ");
  return {
      {"length", {s}},
      {"octet_length", {s}},
      {"lower", {s}},
      {"upper", {s}},
      {"trim", {s}},
      {"ltrim", {s, LitS(" H")}},
      {"rtrim", {s}},
      {"lstrip", {s}},
      {"rstrip", {s}},
      {"substr", {s, LitI(3), LitI(4)}},
      {"left", {s, LitI(3)}},
      {"right", {s, LitI(3)}},
      {"concat", {s, LitS("x"), LitS("y")}},
      {"concat_ws", {LitS("-"), s, LitS("y")}},
      {"contains", {s, LitS("llo")}},
      {"starts_with", {s, LitS(" ")}},
      {"ends_with", {s, LitS(" ")}},
      {"like", {s, LitS("%llo%")}},
      {"ilike", {s, LitS("%LLO%"), LitS("!")}},
      {"regexp_matches", {s, LitS("l+")}},
      {"regexp_extract", {s, LitS("(l+)o"), LitI(1)}},
      {"regexp_extract_all", {s, LitS("l")}},
      {"regexp_replace", {s, LitS("l"), LitS("L"), LitS("g")}},
      {"regexp_split", {s, LitS(",")}},
      {"split", {s, LitS(" ")}},
      {"replace", {s, LitS("l"), LitS("L")}},
      {"reverse", {s}},
      {"repeat", {s, LitI(2)}},
      {"lpad", {s, LitI(30), LitS("é")}},
      {"rpad", {s, LitI(5)}},
      {"normalize", {s, LitS("NFD")}},
      {"normalize_text", {s, LitB(true), LitB(true), LitB(true), LitB(true)}},
      {"strpos", {s, LitS("llo")}},
      {"split_part", {s, LitS(","), LitI(2)}},
      {"ascii", {s}},
      {"chr", {LitI(233)}},
      {"md5", {s}},
      {"sha256", {s}},
      {"translate", {s, LitS("lé"), LitS("L")}},
      {"levenshtein", {s, LitS("Hello")}},
      {"hamming", {LitS("abc"), LitS("abd")}},
      {"typeof", {s}, /*null_first_gives_null=*/false},
      {"glob", {s, LitS("*W[!x]rld*")}},
      {"regexp_full_match", {s, LitS(".*l+.*")}},
      {"format", {s, LitS("x"), LitI(3)}},
      {"printf", {LitS("%s-%d"), s, LitI(3)}},
  };
}

std::vector<Case> HashCases() {
  return {{"hash", {LitS("x"), LitI(3)}, /*null_first_gives_null=*/false},
          {"minhash", {LitS("a b c d"), LitI(8), LitI(2), LitI(1)}}};
}

std::vector<Case> ListCases() {
  return {{"list_length", {IntList()}},
          {"list_get", {IntList(), LitI(-1)}},
          {"list_extract", {IntList(), LitI(1)}},
          {"list_element", {IntList(), LitI(-1)}},
          {"list_slice", {IntList(), LitI(1)}},
          {"list_join", {StringList(), LitS(",")}},
          {"list_contains", {IntList(), LitI(2)}},
          {"list_sum", {IntList()}},
          {"list_mean", {IntList()}},
          {"list_min", {IntList()}},
          {"list_max", {IntList()}},
          {"list_distinct", {IntList()}},
          {"list_sort", {IntList(), LitB(true)}},
          {"list_quantile_cont", {IntList(), LitI(1)}},
          {"list_quantile_disc", {IntList()}},
          {"list_value", {LitI(1), LitI(2)}, /*null_first_gives_null=*/false}};
}

void Sweep(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto f = DefaultRegistry().Find(c.name);
    ASSERT_TRUE(f.ok());
    EXPECT_FALSE((*f)->doc.empty());
    // All scalars -> a scalar, equal to the column form repeated.
    auto scalar = Call(c.name, c.args, 3);
    ASSERT_TRUE(scalar.ok()) << scalar.status().ToString();
    Array first = c.args[0].array();
    Array three = Datum::Scalar(first).ToColumn(3).ValueOrDie();
    std::vector<Datum> column_args = c.args;
    column_args[0] = Col(three);
    auto column = Call(c.name, column_args);
    ASSERT_TRUE(column.ok()) << column.status().ToString();
    EXPECT_EQ(column->array().ToString(),
              Datum::Scalar(scalar->array()).ToColumn(3).ValueOrDie().ToString());
    // Zero rows.
    column_args[0] = Col(three.Slice(0, 0));
    auto empty = Call(c.name, column_args);
    ASSERT_TRUE(empty.ok()) << empty.status().ToString();
    EXPECT_EQ(empty->array().length(), 0);
    // A null first argument of the same type.
    column_args[0] = Col(Array::MakeNull(first.type(), 2).ValueOrDie());
    auto nulls = Call(c.name, column_args);
    ASSERT_TRUE(nulls.ok()) << nulls.status().ToString();
    EXPECT_EQ(nulls->array().null_count(), c.null_first_gives_null ? 2 : 0);
  }
}

TEST(StringFamilySweepTest, Contract) {
  Sweep(StringCases());
}
TEST(HashFamilySweepTest, Contract) {
  Sweep(HashCases());
}
TEST(ListFamilySweepTest, Contract) {
  Sweep(ListCases());
}

}  // namespace
}  // namespace flotilla::expr::functions
