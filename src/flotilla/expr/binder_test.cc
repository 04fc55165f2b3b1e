#include "flotilla/expr/binder.h"

#include <gtest/gtest.h>

#include "flotilla/expr/evaluator.h"
#include "tests/support/literal_arrays.h"

namespace flotilla::expr {
namespace {

using namespace flotilla::testing;  // NOLINT

Schema TestSchema() {
  return Schema({{"o_orderdate", date32()},
                 {"l_quantity", int64()},
                 {"l_price", decimal128(15, 2)},
                 {"name", utf8()},
                 {"f", float64()},
                 {"b", boolean()},
                 {"i32", int32()},
                 {"u8", uint8()},
                 {"ts", timestamp(TimeUnit::kMicro)}});
}

Result<BoundExpression> B(const ExprPtr& e) {
  return Bind(e, TestSchema());
}

std::string Error(const ExprPtr& e) {
  auto r = B(e);
  return r.ok() ? "OK" : r.status().message();
}

std::string TypeOf(const ExprPtr& e) {
  return B(e).ValueOrDie().type()->ToString();
}

TEST(BinderTest, ColumnsResolveToIndices) {
  auto bound = B(Column("l_price")).ValueOrDie();
  EXPECT_EQ(bound.root->kind, BoundKind::kColumn);
  EXPECT_EQ(bound.root->column_index, 2);
  EXPECT_EQ(bound.name, "l_price");
  EXPECT_EQ(B(Alias(Add(Column("i32"), Literal(1)), "next")).ValueOrDie().name, "next");
  EXPECT_EQ(B(Add(Column("i32"), Literal(1))).ValueOrDie().name, "i32 + 1");
}

TEST(BinderTest, ErrorsNameWhatIsWrongAndWhere) {
  EXPECT_EQ(Error(Column("l_qty")), "column 'l_qty' not found; did you mean 'l_quantity'?");
  EXPECT_EQ(B(Column("l_qty")).status().code(), StatusCode::kKeyError);
  EXPECT_EQ(Error(Less(Column("o_orderdate"), Literal("abc")))
                .rfind("cannot compare date32 with string in `o_orderdate < 'abc'`", 0),
            0u);
  EXPECT_EQ(Error(Equal(Column("o_orderdate"), Column("name"))),
            "cannot compare date32 with string in `o_orderdate = name`");
  EXPECT_EQ(Error(Greater(Column("b"), Column("f"))),
            "cannot compare bool with float64 in `b > f`");
  EXPECT_EQ(Error(Add(Column("name"), Literal(1))),
            "cannot apply + to string and int32 in `name + 1`");
  EXPECT_EQ(Error(Add(Column("o_orderdate"), Column("o_orderdate"))),
            "cannot apply + to date32 and date32 in `o_orderdate + o_orderdate`");
  EXPECT_EQ(Error(Call("negate", {Column("l_quantity"), Literal(1)})),
            "negate() takes 1 argument, got 2 in `negate(l_quantity, 1)`");
  EXPECT_EQ(Error(Call("not", {Column("l_quantity")})),
            "not(): expected a bool for argument 1, got int64 in `not(l_quantity)`");
  EXPECT_EQ(Error(Not(Column("l_quantity"))),
            "NOT expects bool operands, got int64 (`l_quantity`) in `NOT l_quantity`");
  EXPECT_EQ(Error(And(Column("b"), Column("name"))),
            "AND expects bool operands, got string (`name`) in `b AND name`");
  EXPECT_EQ(Error(Cast(Column("o_orderdate"), boolean())),
            "cannot cast date32 to bool in `CAST(o_orderdate AS bool)`");
  EXPECT_EQ(Error(Coalesce({Column("name"), Column("f")})),
            "coalesce mixes string and float64 in `coalesce(name, f)`");
  EXPECT_EQ(Error(IsIn(Column("i32"), {Column("l_quantity")})),
            "IN list values must be constants, got `l_quantity` in `i32 IN (l_quantity)`");
  EXPECT_EQ(Error(Case({{Column("i32"), Literal(1)}})),
            "CASE WHEN expects bool operands, got int32 (`i32`) in `CASE WHEN i32 THEN 1 END`");
  EXPECT_EQ(B(Call("no_such_function_xyz", {})).status().code(), StatusCode::kKeyError);
}

TEST(BinderTest, ImplicitCoercions) {
  EXPECT_EQ(TypeOf(Add(Column("i32"), Column("l_quantity"))), "int64");
  EXPECT_EQ(TypeOf(Add(Column("u8"), Column("i32"))), "int32");
  EXPECT_EQ(TypeOf(Multiply(Column("i32"), Column("f"))), "float64");
  EXPECT_EQ(TypeOf(Divide(Column("i32"), Column("i32"))), "float64");
  // int64 -> decimal(19, 0); + decimal(15, 2): scale 2, precision max(19, 13) + 2 + 1.
  EXPECT_EQ(TypeOf(Add(Column("l_quantity"), Column("l_price"))), "decimal128(22, 2)");
  EXPECT_EQ(TypeOf(Multiply(Column("l_price"), Column("l_price"))), "decimal128(31, 4)");
  EXPECT_EQ(TypeOf(Add(Column("l_price"), Column("f"))), "float64");
  EXPECT_EQ(TypeOf(Subtract(Column("o_orderdate"), Column("o_orderdate"))), "int64");
  EXPECT_EQ(TypeOf(Less(Column("o_orderdate"), Column("ts"))), "bool");
  EXPECT_EQ(TypeOf(Case({{Column("b"), Column("i32")}}, Column("l_price"))), "decimal128(15, 2)");
  EXPECT_EQ(TypeOf(Coalesce({Column("i32"), NullLiteral(null()), Literal(int64_t{0})})), "int64");
  EXPECT_EQ(TypeOf(Case({{Column("b"), Literal(1)}})), "int32");
  EXPECT_EQ(TypeOf(Between(Column("l_price"), Literal(1), Literal(2.5))), "bool");
  EXPECT_EQ(TypeOf(Aggregate("sum", {Column("l_quantity")})), "null");
}

TEST(BinderTest, StringLiteralBecomesDate) {
  auto bound = B(Less(Column("o_orderdate"), Literal("1995-03-15"))).ValueOrDie();
  ASSERT_EQ(bound.root->kind, BoundKind::kCall);
  const BoundNode& right = *bound.root->children[1];
  ASSERT_EQ(right.kind, BoundKind::kLiteral);
  EXPECT_EQ(right.type->ToString(), "date32");
  EXPECT_EQ(right.literal.values<int32_t>()[0], 9204);
  auto ts = B(GreaterEqual(Literal("2020-01-01 10:00"), Column("ts"))).ValueOrDie();
  EXPECT_EQ(ts.root->children[0]->type->ToString(), "timestamp[us]");
}

TEST(BinderTest, ConstantFolding) {
  auto sum = B(Add(Literal(1), Multiply(Literal(2), Literal(3)))).ValueOrDie();
  ASSERT_EQ(sum.root->kind, BoundKind::kLiteral);
  EXPECT_ARRAYS_EQUAL(I32({7}), sum.root->literal);
  auto cast = B(Cast(Literal("42"), int64())).ValueOrDie();
  ASSERT_EQ(cast.root->kind, BoundKind::kLiteral);
  EXPECT_ARRAYS_EQUAL(I64({42}), cast.root->literal);
  auto folded_case = B(Case({{Less(Literal(2), Literal(1)), Literal("a")}}, Literal("b")));
  ASSERT_EQ(folded_case.ValueOrDie().root->kind, BoundKind::kLiteral);
  EXPECT_ARRAYS_EQUAL(Strs({"b"}), folded_case.ValueOrDie().root->literal);
  // Only the constant part of a mixed expression folds.
  auto mixed =
      B(Add(Column("l_quantity"), Add(Literal(int64_t{1}), Literal(int64_t{2})))).ValueOrDie();
  ASSERT_EQ(mixed.root->kind, BoundKind::kCall);
  EXPECT_EQ(mixed.root->children[1]->kind, BoundKind::kLiteral);
  // A constant that cannot be computed stays unfolded: it fails, naming the expression, only
  // when a row evaluates it (never under CASE WHEN FALSE, or over no rows).
  auto one_row = flotilla::RecordBatch::Make(std::make_shared<Schema>(std::vector<Field>{}), {}, 1)
                     .ValueOrDie();
  auto evaluated = [&](const ExprPtr& e) {
    auto bound = B(e);
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    if (!bound.ok()) return std::string();
    EXPECT_NE(bound->root->kind, BoundKind::kLiteral);
    return Evaluate(*bound, one_row).status().message();
  };
  EXPECT_EQ(evaluated(Cast(Literal("abc"), int32())),
            "in `CAST('abc' AS int32)`: cannot cast string value 'abc' (row 0) to int32");
  auto try_cast = B(TryCast(Literal("abc"), int32())).ValueOrDie();
  ASSERT_EQ(try_cast.root->kind, BoundKind::kLiteral);
  EXPECT_TRUE(try_cast.root->literal.IsNull(0));
  EXPECT_EQ(evaluated(Add(Literal(int64_t{9223372036854775807}), Literal(int64_t{1}))),
            "in `9223372036854775807 + 1`: integer overflow in 9223372036854775807 + 1 (int64)");
  auto lazy = B(Case({{Literal(false), Cast(Literal("abc"), int32())}}, Literal(int32_t{7})));
  ASSERT_TRUE(lazy.ok()) << lazy.status().ToString();
  auto seven = Evaluate(*lazy, one_row);
  ASSERT_TRUE(seven.ok()) << seven.status().ToString();
}

TEST(BinderTest, OperatorsWithANullConstantFoldToNull) {
  for (const ExprPtr& e : {Divide(NullLiteral(int32()), Negate(Column("i32"))),
                           Add(Column("l_quantity"), NullLiteral(null())),
                           Less(NullLiteral(date32()), Column("o_orderdate"))}) {
    SCOPED_TRACE(e->ToString());
    auto bound = B(e).ValueOrDie();
    ASSERT_EQ(bound.root->kind, BoundKind::kLiteral);
    EXPECT_TRUE(bound.root->literal.IsNull(0));
  }
  EXPECT_EQ(TypeOf(Divide(NullLiteral(int32()), Column("i32"))), "float64");
  EXPECT_EQ(TypeOf(Equal(NullLiteral(null()), Column("name"))), "bool");
  // Kleene logic is not strict: NULL OR true is true.
  EXPECT_EQ(B(Or(NullLiteral(boolean()), Column("b"))).ValueOrDie().root->kind, BoundKind::kCall);
  // Types are still checked.
  EXPECT_NE(Error(Add(NullLiteral(int32()), Column("name"))), "OK");
}

TEST(BinderTest, ResolveSeesLiteralArguments) {
  const Schema schema(
      {{"text", utf8()}, {"n", int64()}, {"s", struct_({{"id", int64()}, {"label", utf8()}})}});
  auto bind = [&](const ExprPtr& e) { return Bind(e, schema); };
  // minhash's list size is its constant num_hashes, after folding (4 * 2).
  auto minhash =
      bind(Call("minhash", {Column("text"), Multiply(Literal(4), Literal(2)), Literal(3)}));
  ASSERT_TRUE(minhash.ok()) << minhash.status().ToString();
  EXPECT_TRUE(minhash->type()->Equals(*fixed_size_list(uint32(), 8)))
      << minhash->type()->ToString();
  auto varying = bind(Call("minhash", {Column("text"), Column("n"), Literal(3)}));
  EXPECT_EQ(varying.status().code(), StatusCode::kTypeError);
  EXPECT_EQ(varying.status().message(),
            "minhash() needs num_hashes (argument 2) as a constant; got an expression that varies "
            "per row in `minhash(text, n, 3)`");
  EXPECT_EQ(bind(Call("minhash", {Column("text"), Literal(0), Literal(3)})).status().message(),
            "minhash() needs num_hashes (argument 2) between 1 and 65536, got 0 in "
            "`minhash(text, 0, 3)`");
  // struct_get's type is the named field's; the fields' types differ.
  EXPECT_EQ(
      bind(Call("struct_get", {Column("s"), Literal("label")})).ValueOrDie().type()->ToString(),
      "string");
  EXPECT_EQ(bind(Call("struct_get", {Column("s"), Literal("id")})).ValueOrDie().type()->ToString(),
            "int64");
  auto unknown = bind(Call("struct_get", {Column("s"), Literal("lable")}));
  EXPECT_EQ(unknown.status().code(), StatusCode::kKeyError);
  EXPECT_EQ(unknown.status().message(),
            "struct_get(): struct field 'lable' not found; did you mean 'label'? in "
            "`struct_get(s, 'lable')`");
  auto by_column = bind(Call("struct_get", {Column("s"), Column("text")}));
  EXPECT_EQ(by_column.status().code(), StatusCode::kTypeError);
  EXPECT_EQ(by_column.status().message(),
            "struct_get() needs the field name (argument 2) as a constant string; got an "
            "expression that varies per row in `struct_get(s, text)`");
}

TEST(BinderTest, UntypedNullArgumentsTakeAnAcceptedType) {
  auto typed_null = [](const ExprPtr& e, const std::string& type) {
    SCOPED_TRACE(e->ToString());
    auto bound = B(e);
    ASSERT_TRUE(bound.ok()) << bound.status().ToString();
    // A call of constants folds to one null of the function's result type.
    ASSERT_EQ(bound->root->kind, BoundKind::kLiteral);
    EXPECT_EQ(bound->type()->ToString(), type);
    EXPECT_TRUE(bound->root->literal.IsNull(0));
  };
  const ExprPtr null_value = NullLiteral(null());
  typed_null(Call("year", {null_value}), "int64");
  typed_null(Call("lower", {null_value}), "string");
  typed_null(Call("sqrt", {null_value}), "float64");
  typed_null(Call("date_add", {null_value, Literal(1), Literal("day")}), "date32");
  typed_null(Call("concat", {Literal("a"), null_value}), "string");
  // Two untyped NULLs needing different types: date32 and an integer.
  typed_null(Call("date_add", {null_value, null_value, Literal("day")}), "date32");
  // The type of another argument comes first: date_diff of timestamps.
  auto diff = B(Call("date_diff", {Literal("day"), null_value, Column("ts")})).ValueOrDie();
  EXPECT_EQ(diff.root->children[1]->type->ToString(), "timestamp[us]");
  auto mixed = B(Call("date_add", {null_value, Column("l_quantity"), Literal("day")})).ValueOrDie();
  EXPECT_EQ(mixed.type()->ToString(), "date32");
  EXPECT_EQ(mixed.root->children[0]->type->ToString(), "date32");
  // Where no type fits, the original error stays.
  EXPECT_EQ(Error(Call("list_length", {null_value})),
            "list_length() expects a list, got null for argument 1 in `list_length(NULL)`");
}

TEST(BinderTest, DictionaryOperandsAreDecoded) {
  const Schema schema({{"tag", dictionary(int8(), utf8())}, {"n", int64()}});
  auto bind = [&](const ExprPtr& e) { return Bind(e, schema).ValueOrDie(); };
  auto is_decode = [](const BoundPtr& node) {
    return node->kind == BoundKind::kCast && node->type->Equals(*utf8()) &&
           node->children[0]->kind == BoundKind::kColumn;
  };
  EXPECT_TRUE(is_decode(bind(Equal(Column("tag"), Literal("x"))).root->children[0]));
  EXPECT_TRUE(is_decode(bind(Call("lower", {Column("tag")})).root->children[0]));
  EXPECT_TRUE(is_decode(bind(IsIn(Column("tag"), {Literal("a"), Literal("b")})).root->children[0]));
  EXPECT_TRUE(is_decode(bind(Coalesce({Column("tag"), Literal("z")})).root->children[0]));
  EXPECT_TRUE(is_decode(bind(Aggregate("min", {Column("tag")})).root->children[0]));
  // Kept where the encoding is harmless: the column itself, and IS NULL.
  EXPECT_EQ(bind(Column("tag")).type()->id(), TypeId::kDictionary);
  EXPECT_EQ(bind(IsNull(Column("tag"))).root->children[0]->kind, BoundKind::kColumn);
  EXPECT_EQ(bind(Cast(Column("tag"), large_utf8())).type()->ToString(), "large_string");
  EXPECT_EQ(Bind(Add(Column("tag"), Column("n")), schema).status().message(),
            "cannot apply + to string and int64 in `tag + n`");
}

}  // namespace
}  // namespace flotilla::expr
