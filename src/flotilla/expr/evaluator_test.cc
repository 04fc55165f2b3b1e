#include "flotilla/expr/evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/expr/aggregate/aggregate_function.h"
#include "tests/support/literal_arrays.h"

namespace flotilla::expr {
namespace {

using namespace flotilla::testing;  // NOLINT

RecordBatch TestBatch() {
  return RecordBatch::FromColumns({
                                      {"a", I64({1, 2, N, 4})},
                                      {"b", I64({10, N, 30, 0})},
                                      {"p", Bools({true, false, N, true})},
                                      {"q", Bools({N, N, N, false})},
                                      {"d", Dates({9203, 9204, 9205, N})},
                                      {"s", Strs({"x", N, "z", "w"})},
                                      {"m", Decimals(5, 2, {"1.50", "-2.25", N, "0.01"})},
                                      {"f", F64({1.5, std::nan(""), -0.0, N})},
                                  })
      .ValueOrDie();
}

Result<Datum> Eval(const ExprPtr& e, const RecordBatch& batch = TestBatch()) {
  FLOTILLA_ASSIGN_OR_RETURN(BoundExpression bound, Bind(e, *batch.schema()));
  return Evaluate(bound, batch);
}

Array Col(const ExprPtr& e) {
  Datum d = Eval(e).ValueOrDie();
  EXPECT_FALSE(d.is_scalar()) << e->ToString();
  return d.array();
}

TEST(EvaluatorTest, ArithmeticWithNullsAndCoercion) {
  EXPECT_ARRAYS_EQUAL(I64({11, N, N, 4}), Col(Add(Column("a"), Column("b"))));
  EXPECT_ARRAYS_EQUAL(I64({2, 3, N, 5}), Col(Add(Column("a"), Literal(1))));
  EXPECT_ARRAYS_EQUAL(I64({0, N, N, N}), Col(IntDiv(Column("a"), Column("b"))));
  EXPECT_ARRAYS_EQUAL(F64({0.1, N, N, INFINITY}), Col(Divide(Column("a"), Column("b"))));
  EXPECT_ARRAYS_EQUAL(I64({-1, -2, N, -4}), Col(Negate(Column("a"))));
  EXPECT_ARRAYS_EQUAL(Decimals(22, 2, {"2.50", "-0.25", N, "4.01"}),
                      Col(Add(Column("m"), Column("a"))));
  EXPECT_ARRAYS_EQUAL(I64({0, 1, 2, N}), Col(Subtract(Column("d"), DateLiteral(1995, 3, 14))));
  auto overflow = Eval(Multiply(Column("a"), Literal(int64_t{4611686018427387904})));
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().message(),
            "in `a * 4611686018427387904`: integer overflow in 2 * 4611686018427387904 (int64)");
}

TEST(EvaluatorTest, ComparisonsAndDates) {
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false, N}),
                      Col(Less(Column("d"), Literal("1995-03-15"))));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, N, false}), Col(Less(Column("a"), Column("b"))));
  // NaN is greater than every number.
  EXPECT_ARRAYS_EQUAL(Bools({true, true, false, N}), Col(Greater(Column("f"), Literal(1))));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, true, N}), Col(Equal(Column("f"), Literal(0.0))));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, false, false}), Col(Equal(Column("s"), Literal("x"))));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, N, false}),
                      Col(Equal(Column("m"), DecimalLiteral(150000, 8, 5))));
}

TEST(EvaluatorTest, KleeneLogicOverColumns) {
  EXPECT_ARRAYS_EQUAL(Bools({N, false, N, false}), Col(And(Column("p"), Column("q"))));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, N, true}), Col(Or(Column("p"), Column("q"))));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N, false}), Col(Not(Column("p"))));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, false, false}), Col(And(Column("p"), Literal(false))));
  EXPECT_ARRAYS_EQUAL(Bools({N, false, N, N}), Col(And(Column("p"), NullLiteral(null()))));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, N, true}), Col(Or(Column("p"), NullLiteral(boolean()))));
}

TEST(EvaluatorTest, CaseTakesFirstTrueWhen) {
  // Row 2 has p = null: not true, so it falls through to the next WHEN / ELSE.
  auto e =
      Case({{Column("p"), Literal("first")}, {Greater(Column("a"), Literal(0)), Literal("second")}},
           Literal("else"));
  EXPECT_ARRAYS_EQUAL(Strs({"first", "second", "else", "first"}), Col(e));
  EXPECT_ARRAYS_EQUAL(I64({1, N, N, 4}), Col(Case({{Column("p"), Column("a")}})));
  EXPECT_ARRAYS_EQUAL(I64({1, N, 30, 4}), Col(IfElse(Column("p"), Column("a"), Column("b"))));
}

TEST(EvaluatorTest, CoalesceIsNullBetween) {
  EXPECT_ARRAYS_EQUAL(I64({1, 2, 30, 4}), Col(Coalesce({Column("a"), Column("b")})));
  EXPECT_ARRAYS_EQUAL(I64({10, 2, 30, 0}), Col(Coalesce({Column("b"), Column("a"), Literal(0)})));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, true, false}), Col(IsNull(Column("a"))));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, true, true}), Col(IsNotNull(Column("b"))));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N, false}),
                      Col(Between(Column("a"), Literal(2), Literal(3))));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, N, true}),
                      Col(Between(Column("a"), Literal(2), Literal(3), true)));
}

TEST(EvaluatorTest, IsInFollowsSqlNullRules) {
  EXPECT_ARRAYS_EQUAL(Bools({true, false, N, true}),
                      Col(IsIn(Column("a"), {Literal(1), Literal(4)})));
  // No match and a null in the list: null; a match still wins.
  EXPECT_ARRAYS_EQUAL(Bools({true, N, N, N}),
                      Col(IsIn(Column("a"), {Literal(1), NullLiteral(null())})));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N, false}),
                      Col(IsIn(Column("a"), {Literal(1), Literal(4)}, true)));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false, N}),
                      Col(IsIn(Column("d"), {Literal("1995-03-14")})));
  EXPECT_ARRAYS_EQUAL(Bools({true, N, false, true}),
                      Col(IsIn(Column("s"), {Literal("w"), Literal("x")})));
}

TEST(EvaluatorTest, ScalarsEmptyBatchesAndPlaceholders) {
  Datum d = Eval(Add(Literal(1), Literal(2))).ValueOrDie();
  EXPECT_TRUE(d.is_scalar());
  EXPECT_ARRAYS_EQUAL(I32({3}), d.array());
  auto empty = TestBatch().Slice(0, 0);
  auto r = Eval(Add(Column("a"), Column("b")), empty).ValueOrDie();
  EXPECT_EQ(r.array().length(), 0);
  EXPECT_EQ(Eval(Case({{Column("p"), Column("a")}}, Literal(int64_t{0})), empty)
                .ValueOrDie()
                .array()
                .length(),
            0);
  auto agg = Eval(Aggregate("sum", {Column("a")}));
  EXPECT_EQ(agg.status().code(), StatusCode::kNotImplemented);
  EXPECT_EQ(agg.status().message(), "aggregate sum must be evaluated by an aggregation operator");
  EXPECT_EQ(Eval(Window("rank", {})).status().code(), StatusCode::kNotImplemented);
  // Casts inside expressions: TRY_CAST gives null where CAST fails.
  EXPECT_ARRAYS_EQUAL(I32({N, N, N, N}), Col(TryCast(Column("s"), int32())));
  auto bad = Eval(Cast(Column("s"), int32()));
  EXPECT_EQ(bad.status().message(),
            "in `CAST(s AS int32)`: cannot cast string value 'x' (row 0) to int32");
}

// "tag" is dictionary-encoded (entries "a", "B", "x", null; row 2 is a null index, row 4 points
// at the null entry); "dense" holds the same values decoded, "other" a second dictionary.
RecordBatch DictionaryBatch() {
  Array entries = Strs({"a", "B", "x", N});
  Array tag = MakeDictionaryArray(I8({2, 1, N, 0, 3, 2}), entries).ValueOrDie();
  Array other = MakeDictionaryArray(I32({0, 0, 1, 1, 0, 2}), Strs({"x", "a", "B"})).ValueOrDie();
  return RecordBatch::FromColumns({{"tag", tag},
                                   {"dense", Strs({"x", "B", N, "a", N, "x"})},
                                   {"other", other},
                                   {"n", I64({1, 2, 3, 4, 5, 6})}})
      .ValueOrDie();
}

Array DictCol(const ExprPtr& e) {
  Datum d = Eval(e, DictionaryBatch()).ValueOrDie();
  EXPECT_FALSE(d.is_scalar()) << e->ToString();
  return d.array();
}

TEST(EvaluatorTest, DictionaryColumnsBehaveLikeTheirValues) {
  const std::vector<std::pair<ExprPtr, Array>> cases = {
      {Equal(Column("tag"), Literal("x")), Bools({true, false, N, false, N, true})},
      {Call("lower", {Column("tag")}), Strs({"x", "b", N, "a", N, "x"})},
      {IsIn(Column("tag"), {Literal("a"), Literal("B")}), Bools({false, true, N, true, N, false})},
      {Less(Column("tag"), Column("other")), Bools({false, true, N, false, N, false})},
      {Cast(Column("tag"), utf8()), Strs({"x", "B", N, "a", N, "x"})},
      {IsNull(Column("tag")), Bools({false, false, true, false, true, false})},
      {Coalesce({Column("tag"), Column("other")}), Strs({"x", "B", "a", "a", "x", "x"})},
      {IfElse(Greater(Column("n"), Literal(3)), Column("tag"), Literal("-")),
       Strs({"-", "-", "-", "a", N, "x"})},
  };
  for (const auto& [e, expected] : cases) {
    SCOPED_TRACE(e->ToString());
    EXPECT_ARRAYS_EQUAL(expected, DictCol(e));
  }
  // The same as on the decoded column, for every expression above.
  for (const auto& [e, expected] : cases) {
    const std::string text = e->ToString();
    if (text.find("tag") == std::string::npos) continue;
    SCOPED_TRACE(text);
    ExprPtr dense = e;
    if (e->kind() == ExprKind::kBinary) {
      dense = Binary(e->binary_op(), Column("dense"), e->children()[1]);
    } else if (e->kind() == ExprKind::kCall) {
      dense = Call(e->name(), {Column("dense")});
    } else if (e->kind() == ExprKind::kIsIn) {
      dense = IsIn(Column("dense"), {e->children()[1], e->children()[2]});
    } else if (e->kind() == ExprKind::kIsNull) {
      dense = IsNull(Column("dense"));
    } else {
      continue;
    }
    EXPECT_ARRAYS_EQUAL(DictCol(dense), DictCol(e));
  }
  // An aggregate's argument is decoded too, so accumulators see plain strings.
  RecordBatch batch = DictionaryBatch();
  auto bound = Bind(Aggregate("min", {Column("tag")}), *batch.schema()).ValueOrDie();
  Array argument = Evaluate(*bound.root->children[0], batch).ValueOrDie().array();
  EXPECT_ARRAYS_EQUAL(batch.column(1), argument);
  auto min = DefaultAggregateRegistry().Find("min").ValueOrDie()->MakeAccumulator({utf8()});
  ASSERT_TRUE(min.ok()) << min.status().ToString();
  std::vector<uint32_t> groups(6, 0);
  (*min)->Resize(1).Check();
  (*min)->Update({argument}, groups.data(), 6).Check();
  EXPECT_ARRAYS_EQUAL(Strs({"B"}), (*min)->Finalize().ValueOrDie());
}

// The even numbers 0, 2, ..., 1998 (and optionally a null) as IN-list literals.
std::vector<ExprPtr> Evens(bool with_null) {
  std::vector<ExprPtr> values;
  for (int64_t v = 0; v < 2000; v += 2)
    values.push_back(Literal(v));
  if (with_null) values.insert(values.begin() + 500, NullLiteral(null()));
  return values;
}

TEST(EvaluatorTest, LongInListsProbeAHashSet) {
  const RecordBatch batch =
      RecordBatch::FromColumns({{"v", I64({0, 1, 1998, 1999, 2000, -2, N, 1000})},
                                {"s", Strs({"v0", "v999", "v1000", "", N, "v5", "V5", "v"})},
                                {"f", F64({0.0, -0.0, std::nan(""), 1.5, 2.5, N, 3.0, -1})},
                                {"d", Dates({1, 2, 3, 4, N, 6, 7, 8})}})
          .ValueOrDie();
  auto col = [&](const ExprPtr& e) { return Eval(e, batch).ValueOrDie().array(); };
  EXPECT_ARRAYS_EQUAL(Bools({true, false, true, false, false, false, N, true}),
                      col(IsIn(Column("v"), Evens(false))));
  // No match and a null in the list: null; a match still wins.
  EXPECT_ARRAYS_EQUAL(Bools({true, N, true, N, N, N, N, true}),
                      col(IsIn(Column("v"), Evens(true))));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, false, true, true, true, N, false}),
                      col(IsIn(Column("v"), Evens(false), /*negated=*/true)));
  EXPECT_ARRAYS_EQUAL(Bools({false, N, false, N, N, N, N, false}),
                      col(IsIn(Column("v"), Evens(true), /*negated=*/true)));
  // int32 literals widened to the column's int64, and a constant input.
  std::vector<ExprPtr> small;
  for (int32_t v = 10; v < 20; ++v)
    small.push_back(Literal(v));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, false, false, false, false, N, false}),
                      col(IsIn(Column("v"), small)));
  Datum constant = Eval(IsIn(Literal(int64_t{13}), small), batch).ValueOrDie();
  EXPECT_TRUE(constant.is_scalar());
  EXPECT_ARRAYS_EQUAL(Bools({true}), constant.array());

  std::vector<ExprPtr> names;
  for (int i = 0; i < 1000; ++i)
    names.push_back(Literal("v" + std::to_string(i)));
  EXPECT_ARRAYS_EQUAL(Bools({true, true, false, false, N, true, false, false}),
                      col(IsIn(Column("s"), names)));

  // Floats as compare.h orders them: -0.0 equals 0.0, NaN equals NaN.
  std::vector<ExprPtr> floats = {Literal(-0.0), Literal(std::nan(""))};
  for (int i = 0; i < 20; ++i)
    floats.push_back(Literal(10.5 + i));
  floats.push_back(Literal(int32_t{3}));
  EXPECT_ARRAYS_EQUAL(Bools({true, true, true, false, false, N, true, false}),
                      col(IsIn(Column("f"), floats)));

  std::vector<ExprPtr> dates;
  for (int day = 1; day <= 9; day += 2)
    dates.push_back(DateLiteral(1970, 1, static_cast<unsigned>(day + 1)));
  for (int day = 100; day < 110; ++day)
    dates.push_back(Literal("1970-04-" + std::to_string(day - 89)));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, true, false, N, false, true, false}),
                      col(IsIn(Column("d"), dates)));
}

TEST(EvaluatorTest, InListAnswersDoNotDependOnItsLength) {
  // Seven values take the comparison chain, eight the hash set: the answers agree.
  const RecordBatch batch = TestBatch();
  auto col = [&](const ExprPtr& e) { return Eval(e, batch).ValueOrDie().array(); };
  for (bool negated : {false, true}) {
    std::vector<ExprPtr> seven = {Literal(4),   Literal(100), Literal(101),       Literal(102),
                                  Literal(103), Literal(104), NullLiteral(null())};
    std::vector<ExprPtr> eight = seven;
    eight.push_back(Literal(1));
    const Array with_seven = col(IsIn(Column("a"), seven, negated));
    const Array with_eight = col(IsIn(Column("a"), eight, negated));
    EXPECT_ARRAYS_EQUAL(negated ? Bools({N, N, N, false}) : Bools({N, N, N, true}), with_seven);
    EXPECT_ARRAYS_EQUAL(negated ? Bools({false, N, N, false}) : Bools({true, N, N, true}),
                        with_eight);
  }
  // Decimals of another scale than the column's compare by value (through the chain).
  std::vector<ExprPtr> decimals;
  for (int i = 0; i < 9; ++i)
    decimals.push_back(DecimalLiteral(150 + i, 5, 3));
  decimals.push_back(DecimalLiteral(-225, 5, 2));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N, false}), col(IsIn(Column("m"), decimals)));
  decimals.push_back(DecimalLiteral(1, 3, 2));
  decimals.erase(decimals.begin(), decimals.begin() + 9);
  for (int i = 0; i < 9; ++i)
    decimals.push_back(DecimalLiteral(500 + i, 5, 2));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N, true}), col(IsIn(Column("m"), decimals)));
}

TEST(EvaluatorTest, CaseAndCoalescePickRowsOfEveryBranch) {
  // Offsets, scalar and column branches, nulls inside branches, strings and lists.
  const RecordBatch batch = TestBatch().Slice(1, 3);  // a {2, N, 4}, b {N, 30, 0}, s {N, z, w}
  auto col = [&](const ExprPtr& e) { return Eval(e, batch).ValueOrDie().array(); };
  EXPECT_ARRAYS_EQUAL(Strs({"two", "z", N}),
                      col(Case({{Equal(Column("a"), Literal(2)), Literal("two")},
                                {IsNull(Column("a")), Column("s")}},
                               NullLiteral(utf8()))));
  EXPECT_ARRAYS_EQUAL(I64({2, N, 0}), col(Case({{Column("p"), Column("b")}}, Column("a"))));
  EXPECT_ARRAYS_EQUAL(I64({2, 30, 4}), col(Coalesce({Column("a"), Column("b")})));
  EXPECT_ARRAYS_EQUAL(Strs({"-", "z", "w"}), col(Coalesce({Column("s"), Literal("-")})));
  EXPECT_ARRAYS_EQUAL(Strs({"-", "z", "w"}),
                      col(Coalesce({NullLiteral(utf8()), Column("s"), Literal("-")})));
  auto lists = col(Case({{Column("p"), Call("split", {Literal("a b"), Literal(" ")})}},
                        Call("split", {Column("s"), Literal("z")})));
  EXPECT_EQ(lists.ToString(), "[null, [, ], [a, b]]");

  // Many rows: the first true WHEN wins, else ELSE; checked against the rule row by row.
  const int64_t n = 1000;
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(i % 7 == 0 ? std::nullopt : std::optional<int64_t>(i));
  const RecordBatch many = RecordBatch::FromColumns({{"x", I64(values)}}).ValueOrDie();
  auto fizz = Case({{Equal(Mod(Column("x"), Literal(3)), Literal(0)), Literal("fizz")},
                    {Equal(Mod(Column("x"), Literal(5)), Literal(0)), Literal("buzz")}},
                   Cast(Column("x"), utf8()));
  std::vector<std::optional<std::string>> expected;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 7 == 0) {
      expected.push_back(std::nullopt);  // null x: neither WHEN is true, ELSE is null
    } else if (i % 3 == 0) {
      expected.push_back("fizz");
    } else if (i % 5 == 0) {
      expected.push_back("buzz");
    } else {
      expected.push_back(std::to_string(i));
    }
  }
  const Array fizzed = Eval(fizz, many).ValueOrDie().array();
  EXPECT_ARRAYS_EQUAL(Strs(expected), fizzed);
}

}  // namespace
}  // namespace flotilla::expr

namespace flotilla::expr {
namespace {

using namespace flotilla::testing;  // NOLINT

// x: 4, -1, null, 9, -4; t: text that only some rows can cast.
RecordBatch GuardBatch() {
  return RecordBatch::FromColumns({{"x", F64({4, -1, N, 9, -4})},
                                   {"t", Strs({"7", "seven", N, "-2", "x"})},
                                   {"y", F64({N, 16, 1, N, N})}})
      .ValueOrDie();
}

Array GuardCol(const ExprPtr& e) {
  Result<BoundExpression> bound = Bind(e, *GuardBatch().schema());
  EXPECT_TRUE(bound.ok()) << bound.status().ToString();
  Result<Datum> d = Evaluate(*bound, GuardBatch());
  EXPECT_TRUE(d.ok()) << e->ToString() << ": " << d.status().ToString();
  return d.ok() ? *d->ToColumn(5) : Array();
}

TEST(EvaluatorTest, CaseEvaluatesEachBranchOnlyOnTheRowsThatReachIt) {
  // sqrt of a negative number is an error; the guard keeps those rows away.
  const ExprPtr x = Column("x");
  EXPECT_ARRAYS_EQUAL(
      F64({2, 0, 0, 3, 0}),
      GuardCol(Case({{Greater(x, Literal(0.0)), Call("sqrt", {x})}}, Literal(0.0))));
  // Later WHENs see only the rows earlier ones did not take.
  EXPECT_ARRAYS_EQUAL(I32({1, 0, 1, 2, 0}),
                      GuardCol(Case({{LessEqual(x, Literal(0.0)), Literal(0)},
                                     {Greater(Call("sqrt", {x}), Literal(2.5)), Literal(2)}},
                                    Literal(1))));
  // ELSE runs on the remaining rows only: the casts that would fail are on THEN's rows.
  const ExprPtr t = Column("t");
  EXPECT_ARRAYS_EQUAL(
      I32({7, -1, -1, -2, -1}),
      GuardCol(Case({{Or(IsNull(t), Call("regexp_matches", {t, Literal("[a-z]")})), Literal(-1)}},
                    Cast(t, int32()))));
  // A row that reaches a failing branch still fails.
  auto bound = Bind(Case({{Less(x, Literal(0.0)), Call("sqrt", {x})}}), *GuardBatch().schema());
  ASSERT_TRUE(bound.ok());
  EXPECT_FALSE(Evaluate(*bound, GuardBatch()).ok());
}

TEST(EvaluatorTest, CoalesceEvaluatesLaterArgumentsOnlyWhereEarlierOnesAreNull) {
  // sqrt(x) runs only where y is null: rows 0, 3, 4 (x = 4, 9, -4 would fail).
  const ExprPtr y = Column("y");
  Result<BoundExpression> bound =
      Bind(Coalesce({y, Call("sqrt", {Column("x")})}), *GuardBatch().schema());
  ASSERT_TRUE(bound.ok());
  EXPECT_FALSE(Evaluate(*bound, GuardBatch()).ok());  // row 4 reaches sqrt(-4)
  EXPECT_ARRAYS_EQUAL(
      F64({2, 16, 1, 3, N}),
      GuardCol(Coalesce(
          {y, Case({{GreaterEqual(Column("x"), Literal(0.0)), Call("sqrt", {Column("x")})}})})));
  // Three arguments, each over fewer rows; the last one's nulls stay null.
  EXPECT_ARRAYS_EQUAL(
      F64({7, 16, 1, -2, N}),
      GuardCol(Coalesce({y, TryCast(Column("t"), float64()), NullLiteral(float64())})));
}

}  // namespace
}  // namespace flotilla::expr
