#include "flotilla/expr/serialize.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/expression_proto.h"
#include "flotilla/io/ipc/ipc.h"
#include "tests/support/literal_arrays.h"
#include "tests/support/random_data.h"

namespace flotilla::expr {
namespace {

using namespace flotilla::testing;  // NOLINT

// Node for node: kind, name, flag, ops, cast type, literal value and type, children.
void ExpectSameTree(const ExprPtr& expected, const ExprPtr& actual) {
  ASSERT_NE(actual, nullptr);
  const std::string where = expected->ToString();
  ASSERT_EQ(expected->kind(), actual->kind()) << where;
  EXPECT_EQ(expected->name(), actual->name()) << where;
  EXPECT_EQ(expected->try_cast(), actual->try_cast()) << where;  // the one flag
  EXPECT_EQ(expected->unary_op(), actual->unary_op()) << where;
  EXPECT_EQ(expected->binary_op(), actual->binary_op()) << where;
  ASSERT_EQ(expected->cast_type() == nullptr, actual->cast_type() == nullptr) << where;
  if (expected->cast_type()) {
    EXPECT_TRUE(expected->cast_type()->Equals(*actual->cast_type()))
        << where << ": " << actual->cast_type()->ToString();
  }
  ASSERT_EQ(expected->literal().valid(), actual->literal().valid()) << where;
  if (expected->literal().valid()) {
    EXPECT_TRUE(expected->literal().type()->Equals(*actual->literal().type()))
        << where << ": " << actual->literal().type()->ToString();
    EXPECT_TRUE(expected->literal().Equals(actual->literal()))
        << where << ": " << actual->literal().ToString();
  }
  ASSERT_EQ(expected->children().size(), actual->children().size()) << where;
  for (size_t i = 0; i < expected->children().size(); ++i)
    ExpectSameTree(expected->children()[i], actual->children()[i]);
}

ExprPtr RoundTrip(const ExprPtr& e) {
  Result<std::string> bytes = SerializeExpression(e);
  EXPECT_TRUE(bytes.ok()) << e->ToString() << ": " << bytes.status().ToString();
  if (!bytes.ok()) return nullptr;
  Result<ExprPtr> back = DeserializeExpression(*bytes);
  EXPECT_TRUE(back.ok()) << e->ToString() << ": " << back.status().ToString();
  return back.ok() ? *back : nullptr;
}

void ExpectRoundTrip(const ExprPtr& e) {
  SCOPED_TRACE(e->ToString());
  ExprPtr back = RoundTrip(e);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(e->ToString(), back->ToString());
  ExpectSameTree(e, back);
}

template <typename T>
Array One(TypePtr type, T value) {
  NumericBuilder<T> b(std::move(type));
  b.Append(value).Check();
  return b.Finish().ValueOrDie();
}

// Every ExprKind, every flag value, every operator.
std::vector<ExprPtr> EveryKindOfExpression() {
  std::vector<ExprPtr> out = {
      Column("l_quantity"),
      Column("name with spaces and \xff bytes"),
      Literal(7),
      Literal("it's"),
      Alias(Add(Column("a"), Literal(1)), "a_plus_one"),
      Cast(Column("s"), decimal128(12, 3)),
      TryCast(Column("s"), timestamp(TimeUnit::kNano, "Asia/Tokyo")),
      Cast(Column("x"), list(Field{"element", struct_({Field{"k", utf8(), false}}), false})),
      Negate(Column("a")),
      Not(Column("p")),
      Call("lower", {Column("s")}),
      Call("pi", {}),
      Call("round", {Column("m"), Literal(1)}),
      Case({{Column("p"), Literal(1)}, {Column("q"), Literal(2)}}, Literal(3)),
      Case({{Column("p"), Literal(1)}}),
      Case({}, Literal(0)),
      IsIn(Column("a"), {Literal(1), Literal(2), NullLiteral(null())}),
      IsIn(Column("s"), {Literal("x")}, /*negated=*/true),
      IsIn(Column("s"), {}),
      Between(Column("a"), Literal(1), Literal(5)),
      Between(Column("a"), Literal(1), Literal(5), /*negated=*/true),
      IsNull(Column("a")),
      IsNotNull(Column("a")),
      Coalesce({Column("a"), Column("b"), Literal(int64_t{0})}),
      Coalesce({}),
      Aggregate("sum", {Column("a")}),
      Aggregate("count_star", {}),
      Window("row_number", {}),
      Window("lag", {Column("a"), Literal(1)}),
  };
  for (int op = 0; op <= static_cast<int>(BinaryOp::kOr); ++op)
    out.push_back(Binary(static_cast<BinaryOp>(op), Column("a"), Literal(int64_t{op})));
  // Deep and wide at once.
  out.push_back(Alias(Case({{And(Greater(Column("a"), Literal(0)), Not(IsNull(Column("s")))),
                             Call("upper", {Coalesce({Column("s"), Literal("none")})})}},
                           Cast(Negate(Column("a")), utf8())),
                      "label"));
  return out;
}

TEST(SerializeTest, EveryExpressionKindRoundTrips) {
  std::set<ExprKind> kinds;
  std::set<BinaryOp> binary_ops;
  std::set<UnaryOp> unary_ops;
  for (const ExprPtr& e : EveryKindOfExpression()) {
    ExpectRoundTrip(e);
    kinds.insert(e->kind());
    if (e->kind() == ExprKind::kBinary) binary_ops.insert(e->binary_op());
    if (e->kind() == ExprKind::kUnary) unary_ops.insert(e->unary_op());
  }
  EXPECT_EQ(kinds.size(), static_cast<size_t>(ExprKind::kWindow) + 1);
  EXPECT_EQ(binary_ops.size(), static_cast<size_t>(BinaryOp::kOr) + 1);
  EXPECT_EQ(unary_ops.size(), static_cast<size_t>(UnaryOp::kNot) + 1);
}

std::vector<TypePtr> EveryDataType() {
  std::vector<TypePtr> types = AllTypesForTesting();
  const std::vector<TypePtr> more = {
      decimal128(1, 0),
      decimal128(38, 38),
      decimal128(10, -3),
      timestamp(TimeUnit::kSecond, "+05:30"),
      timestamp(TimeUnit::kNano, "UTC"),
      duration(TimeUnit::kSecond),
      duration(TimeUnit::kMilli),
      fixed_size_binary(1),
      fixed_size_binary(16),
      list(Field{"element", int8(), false}),
      list(large_binary()),
      fixed_size_list(Field{"v", float64(), false}, 3),
      fixed_size_list(int8(), 0),
      struct_({}),
      struct_({Field{"a", struct_({Field{"b", list(date32()), false}}), true},
               Field{"", dictionary(int8(), utf8()), false}}),
      dictionary(int8(), large_utf8()),
      dictionary(uint16(), list(utf8())),
      dictionary(int64(), decimal128(9, 2)),
      list(dictionary(int32(), utf8())),
      time64(TimeUnit::kMicro),
      time64(TimeUnit::kNano),
  };
  types.insert(types.end(), more.begin(), more.end());
  return types;
}

TEST(SerializeTest, EveryDataTypeRoundTrips) {
  std::set<TypeId> ids;
  for (const TypePtr& type : EveryDataType()) {
    SCOPED_TRACE(type->ToString());
    ids.insert(type->id());
    Result<std::string> bytes = SerializeDataType(type);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    Result<TypePtr> back = DeserializeDataType(*bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(type->Equals(**back)) << (*back)->ToString();
    EXPECT_EQ(type->ToString(), (*back)->ToString());
    // And as the target of a cast.
    ExpectRoundTrip(Cast(Column("x"), type));
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(TypeId::kTime64) + 1);
}

TEST(SerializeTest, SchemaRoundTripsWithNullabilityAndMetadata) {
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{{"id", int64(), false},
                         {"name", utf8(), true},
                         {"tags", list(Field{"tag", utf8(), false}), true},
                         {"\xc3\x28 not utf-8", struct_({{"x", float32(), false}}), false}},
      Schema::Metadata{{"origin", "test"}, {"origin", "repeated key"}, {"", "\x01\x02"}});
  Result<std::string> bytes = SerializeSchema(schema);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<SchemaPtr> back = DeserializeSchema(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(schema->Equals(**back, /*check_metadata=*/true)) << (*back)->ToString();
  EXPECT_EQ(schema->metadata(), (*back)->metadata());

  auto empty = std::make_shared<Schema>(std::vector<Field>{});
  Result<SchemaPtr> empty_back = DeserializeSchema(SerializeSchema(empty).ValueOrDie());
  ASSERT_TRUE(empty_back.ok()) << empty_back.status().ToString();
  EXPECT_EQ((*empty_back)->num_fields(), 0);

  // Fields on their own, through the message API.
  proto::Field message;
  ASSERT_TRUE(ToProto(Field{"f", list(int8()), false}, &message).ok());
  Result<Field> field = FromProto(message);
  ASSERT_TRUE(field.ok()) << field.status().ToString();
  EXPECT_TRUE(field->Equals(Field{"f", list(int8()), false}));
}

TEST(SerializeTest, LiteralsOfManyTypes) {
  // The specific ones first.
  FixedSizeBinaryBuilder big_decimal(decimal128(38, 10));
  big_decimal
      .AppendDecimal(
          DecimalFromString("-1234567890123456789012345678.0123456789", 38, 10).ValueOrDie())
      .Check();
  const std::vector<ExprPtr> literals = {
      Literal(int32_t{-7}),
      Literal(int64_t{INT64_MIN}),
      Literal(-0.0),
      Literal(std::nan("")),
      Literal(true),
      Literal(""),
      Literal("h\xc3\xa9llo"),
      NullLiteral(null()),
      NullLiteral(int64()),
      NullLiteral(decimal128(20, 4)),
      NullLiteral(list(utf8())),
      NullLiteral(struct_({{"a", int8()}})),
      DecimalLiteral("-123.45").ValueOrDie(),
      DecimalLiteral(Int128(1), 38, 0),
      Literal(big_decimal.Finish().ValueOrDie()),
      DateLiteral(1995, 3, 15),
      TimestampLiteral(1700000000123456, TimeUnit::kMicro),
      Literal(One<int64_t>(timestamp(TimeUnit::kMilli, "America/New_York"), 1700000000123)),
      Literal(One<int64_t>(duration(TimeUnit::kNano), -5)),
      Literal(I64({1, 2, 3, 4}).Slice(2, 1)),  // a slice: offset 2
      Literal(Strs({"a", "bc", N}).Slice(1, 1)),
  };
  for (const ExprPtr& e : literals)
    ExpectRoundTrip(e);
  // A list and a struct value with content.
  for (const TypePtr& type : {list(Field{"e", int16(), true}),
                              struct_({{"a", int32(), false}, {"b", list(utf8()), true}}),
                              fixed_size_list(utf8(), 2), dictionary(int16(), utf8())}) {
    RandomOptions options;
    options.null_probability = 0;
    Array values = RandomArray(type, 3, /*seed=*/11, options);
    ExpectRoundTrip(Literal(values.Slice(1, 1)));
  }

  // Every value, null or not, of every type of the columnar core.
  for (const TypePtr& type : AllTypesForTesting()) {
    RandomOptions options;
    options.null_probability = 0.3;
    Array values = RandomArray(type, 8, /*seed=*/42, options);
    for (int64_t i = 0; i < values.length(); ++i)
      ExpectRoundTrip(Literal(values.Slice(i, 1)));
  }
}

RecordBatch TestBatch() {
  return RecordBatch::FromColumns({
                                      {"a", I64({1, 2, N, 4, -3})},
                                      {"b", I64({10, N, 30, 0, 5})},
                                      {"p", Bools({true, false, N, true, false})},
                                      {"d", Dates({9203, 9204, 9205, N, 9300})},
                                      {"s", Strs({"x", N, "Zed", "w", "yy"})},
                                      {"m", Decimals(5, 2, {"1.50", "-2.25", N, "0.01", "9.99"})},
                                      {"f", F64({1.5, std::nan(""), -0.0, N, 2.0})},
                                  })
      .ValueOrDie();
}

TEST(SerializeTest, RoundTrippedExpressionEvaluatesTheSame) {
  const RecordBatch batch = TestBatch();
  const std::vector<ExprPtr> expressions = {
      Add(Column("a"), Multiply(Column("b"), Literal(2))),
      Alias(Divide(Column("a"), Column("b")), "ratio"),
      IntDiv(Column("b"), Column("a")),
      Add(Column("m"), DecimalLiteral("0.125").ValueOrDie()),
      Less(Column("d"), Literal("1995-03-15")),
      GreaterEqual(Column("d"), DateLiteral(1995, 3, 16)),
      And(Column("p"), Not(IsNull(Column("s")))),
      Or(Column("p"), Equal(Column("s"), Literal("w"))),
      Case({{Greater(Column("a"), Literal(1)), Literal("big")}, {Column("p"), Literal("p")}},
           Call("lower", {Column("s")})),
      IsIn(Column("a"), {Literal(1), Literal(4), NullLiteral(null())}),
      IsIn(Column("s"), {Literal("x"), Literal("yy")}, /*negated=*/true),
      Between(Column("f"), Literal(0.0), Literal(2.0), /*negated=*/true),
      Coalesce({Column("b"), Column("a"), Literal(int64_t{-1})}),
      TryCast(Column("s"), int32()),
      Cast(Column("a"), decimal128(10, 2)),
      Negate(Column("m")),
      Call("upper", {Column("s")}),
      Less(Cast(Column("d"), timestamp(TimeUnit::kMicro)),
           TimestampLiteral(795312000000000, TimeUnit::kMicro)),
      Add(Literal(1), Literal(2)),  // folds to a scalar
  };
  for (const ExprPtr& e : expressions) {
    SCOPED_TRACE(e->ToString());
    ExprPtr back = RoundTrip(e);
    ASSERT_NE(back, nullptr);
    Result<BoundExpression> bound = Bind(e, *batch.schema());
    ASSERT_TRUE(bound.ok()) << bound.status().ToString();
    Result<BoundExpression> bound_back = Bind(back, *batch.schema());
    ASSERT_TRUE(bound_back.ok()) << bound_back.status().ToString();
    EXPECT_EQ(bound->name, bound_back->name);
    EXPECT_TRUE(bound->type()->Equals(*bound_back->type()));
    Result<Datum> expected = Evaluate(*bound, batch);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    Result<Datum> actual = Evaluate(*bound_back, batch);
    ASSERT_TRUE(actual.ok()) << actual.status().ToString();
    EXPECT_EQ(expected->is_scalar(), actual->is_scalar());
    EXPECT_ARRAYS_EQUAL(expected->array(), actual->array());
  }
}

// --- Errors ---------------------------------------------------------------------------------

proto::Expression ToMessage(const ExprPtr& e) {
  proto::Expression m;
  ToProto(e, &m).Check();
  return m;
}

void ExpectInvalid(const proto::Expression& m, const std::string& message) {
  Result<ExprPtr> e = FromProto(m);
  ASSERT_FALSE(e.ok()) << (*e)->ToString();
  EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(e.status().message(), message);
  // The same through bytes.
  Result<ExprPtr> from_bytes = DeserializeExpression(m.SerializeAsString());
  ASSERT_FALSE(from_bytes.ok());
  EXPECT_EQ(from_bytes.status().message(), message);
}

void ExpectInvalid(const proto::DataType& m, const std::string& message) {
  Result<TypePtr> t = FromProto(m);
  ASSERT_FALSE(t.ok()) << (*t)->ToString();
  EXPECT_EQ(t.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(t.status().message(), message);
}

TEST(SerializeTest, InvalidExpressionMessagesNameWhatIsWrong) {
  proto::Expression m = ToMessage(Add(Column("a"), Column("b")));
  m.set_binary_op(static_cast<proto::BinaryOp>(99));
  ExpectInvalid(m, "expression proto: binary op 99 is unknown");

  m = ToMessage(Add(Column("a"), Column("b")));
  m.clear_binary_op();
  ExpectInvalid(m, "expression proto: binary op is missing");

  m = ToMessage(Add(Column("a"), Column("b")));
  m.mutable_children()->RemoveLast();
  ExpectInvalid(m, "expression proto: binary expression has 1 children, expected 2");

  ExpectInvalid(proto::Expression(), "expression proto: kind is missing");
  m = ToMessage(Column("a"));
  m.set_kind(static_cast<proto::ExprKind>(1234));
  ExpectInvalid(m, "expression proto: expression kind 1234 is unknown");

  // Errors deep in the tree say where.
  m = ToMessage(Call("f", {Column("a"), Not(Column("b"))}));
  m.mutable_children(1)->set_unary_op(static_cast<proto::UnaryOp>(7));
  ExpectInvalid(m, "expression proto: unary op 7 is unknown (at children[1])");
  m = ToMessage(Alias(Cast(Column("a"), list(decimal128(10, 2))), "x"));
  m.mutable_children(0)->mutable_cast_type()->mutable_fields(0)->mutable_type()->set_precision(40);
  ExpectInvalid(m,
                "expression proto: decimal128(40, 2) is invalid: precision must be 1 to 38, "
                "scale -38 to 38 (at children[0].cast_type.fields[0])");

  m = ToMessage(Cast(Column("a"), int32()));
  m.clear_cast_type();
  ExpectInvalid(m, "expression proto: cast expression has no cast_type");
  m = ToMessage(Column("a"));
  m.clear_name();
  ExpectInvalid(m, "expression proto: column expression has no name");
  m = ToMessage(Call("f", {}));
  m.set_negated(true);
  ExpectInvalid(m, "expression proto: call expression does not take negated");
  m = ToMessage(Column("a"));
  m.set_binary_op(proto::BINARY_OP_ADD);
  ExpectInvalid(m, "expression proto: column expression does not take a binary_op");
  m = ToMessage(IsNull(Column("a")));
  m.mutable_children(0)->set_literal("x");
  ExpectInvalid(m, "expression proto: column expression does not take a literal (at children[0])");

  m = ToMessage(Case({{Column("p"), Literal(1)}}, Literal(2)));
  m.set_has_else(false);
  ExpectInvalid(m,
                "expression proto: case expression without an else has 3 children, expected an "
                "even number (when/then pairs)");

  // Literals: missing, not IPC, not one row.
  m = ToMessage(Literal(1));
  m.clear_literal();
  ExpectInvalid(m, "expression proto: literal expression has no literal");
  m.set_literal("not an arrow stream");
  Result<ExprPtr> garbage = FromProto(m);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalid);
  EXPECT_TRUE(garbage.status().message().starts_with(
      "expression proto: literal is not a valid Arrow IPC stream: "))
      << garbage.status().message();
  auto two_rows = std::make_shared<Schema>(std::vector<Field>{{"v", int64()}});
  m.set_literal(std::string(
      ipc::WriteStreamToBuffer(two_rows, {RecordBatch::Make(two_rows, {I64({1, 2})}).ValueOrDie()})
          .ValueOrDie()
          ->view()));
  ExpectInvalid(m, "expression proto: literal has 2 rows, expected 1");
}

TEST(SerializeTest, InvalidTypeMessagesNameWhatIsWrong) {
  proto::DataType m;
  ExpectInvalid(m, "data type proto: type id is missing");
  m.set_id(static_cast<proto::TypeId>(99));
  ExpectInvalid(m, "data type proto: type id 99 is unknown");
  m.set_id(proto::TYPE_ID_TIMESTAMP);
  ExpectInvalid(m, "data type proto: timestamp has no time unit");
  m.set_unit(static_cast<proto::TimeUnit>(9));
  ExpectInvalid(m, "data type proto: time unit 9 is unknown");
  m.set_id(proto::TYPE_ID_INT32);
  m.clear_unit();
  m.set_precision(3);
  ExpectInvalid(m, "data type proto: int32 does not take a precision or scale");
  m.Clear();
  m.set_id(proto::TYPE_ID_LIST);
  ExpectInvalid(m, "data type proto: list has 0 fields, expected 1 (the element)");
  m.add_fields()->set_name("item");
  ExpectInvalid(m, "data type proto: field 'item' has no type (at fields[0])");
  m.Clear();
  m.set_id(proto::TYPE_ID_FIXED_SIZE_BINARY);
  ExpectInvalid(m, "data type proto: fixed_size_binary width 0 is out of range");
  m.set_fixed_size(-1);
  m.set_id(proto::TYPE_ID_FIXED_SIZE_LIST);
  *m.add_fields() = proto::Field();
  ToProto(Field{"item", int8()}, m.mutable_fields(0)).Check();
  ExpectInvalid(m, "data type proto: fixed_size_list size -1 is negative");
  m.Clear();
  m.set_id(proto::TYPE_ID_DICTIONARY);
  ExpectInvalid(m, "data type proto: dictionary has no index_type");
  ToProto(float32(), m.mutable_index_type()).Check();
  ToProto(utf8(), m.mutable_value_type()).Check();
  ExpectInvalid(
      m, "data type proto: dictionary index type float32 is not an integer type (at index_type)");

  proto::Schema schema;
  schema.add_fields()->set_name("a");
  Result<SchemaPtr> s = FromProto(schema);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "schema proto: field 'a' has no type (at fields[0])");
}

ExprPtr Chain(int depth) {
  ExprPtr e = Column("a");
  for (int i = 1; i < depth; ++i)
    e = Add(e, Literal(int64_t{1}));
  return e;
}

TEST(SerializeTest, DepthIsBounded) {
  // The deepest expression accepted round-trips, binds and evaluates.
  const RecordBatch batch = TestBatch();
  ExprPtr deepest = Chain(kMaxExpressionDepth);
  ExprPtr back = RoundTrip(deepest);
  ASSERT_NE(back, nullptr);
  Result<BoundExpression> bound = Bind(back, *batch.schema());
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  Result<Datum> value = Evaluate(*bound, batch);
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_ARRAYS_EQUAL(I64({1000, 1001, N, 1003, 996}), value->array());

  // One more level is refused on both sides.
  Result<std::string> too_deep = SerializeExpression(Chain(kMaxExpressionDepth + 1));
  ASSERT_FALSE(too_deep.ok());
  EXPECT_TRUE(too_deep.status().message().starts_with(
      "expression proto: expression is nested deeper than 1000 levels (at children[0]."))
      << too_deep.status().message();
  proto::Expression m = ToMessage(Chain(kMaxExpressionDepth));
  proto::Expression top;
  top.set_kind(proto::EXPR_KIND_IS_NULL);
  *top.add_children() = std::move(m);
  Result<ExprPtr> read = FromProto(top);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().message().starts_with(
      "expression proto: expression is nested deeper than 1000 levels"));

  TypePtr type = int8();
  for (int i = 1; i < kMaxTypeDepth; ++i)
    type = list(type);
  EXPECT_TRUE(DeserializeDataType(SerializeDataType(type).ValueOrDie()).ok());
  Result<std::string> type_too_deep = SerializeDataType(list(type));
  ASSERT_FALSE(type_too_deep.ok());
  EXPECT_TRUE(type_too_deep.status().message().starts_with(
      "data type proto: type is nested deeper than 64 levels"));

  // Bytes nested far deeper than any limit: each level is the header of field 3 (children)
  // whose payload is the next level, so the message is the headers from the outside in.
  constexpr int kLevels = 100000;
  std::vector<uint64_t> payload(kLevels, 0);  // payload[i]: bytes inside level i (0 innermost)
  for (int i = 1; i < kLevels; ++i) {
    uint64_t varint_bytes = 1;
    for (uint64_t n = payload[i - 1]; n >= 0x80; n >>= 7)
      ++varint_bytes;
    payload[i] = 1 + varint_bytes + payload[i - 1];
  }
  std::string bytes;
  for (int i = kLevels - 1; i >= 0; --i) {
    bytes += '\x1a';
    uint64_t n = payload[i];
    for (; n >= 0x80; n >>= 7)
      bytes += static_cast<char>((n & 0x7f) | 0x80);
    bytes += static_cast<char>(n);
  }
  Result<ExprPtr> nested = DeserializeExpression(bytes);
  ASSERT_FALSE(nested.ok());
  EXPECT_TRUE(nested.status().message().starts_with("expression proto: "))
      << nested.status().message();
}

// Whatever the bytes, the answer is an error or an expression that can be printed, written,
// bound and evaluated (with an error or not). Returns whether it was an expression.
bool ExpectErrorOrUsable(std::string_view bytes, const RecordBatch& batch) {
  Result<ExprPtr> e = DeserializeExpression(bytes);
  if (!e.ok()) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid) << e.status().ToString();
    return false;
  }
  (void)(*e)->ToString();
  EXPECT_TRUE(SerializeExpression(*e).ok());
  Result<BoundExpression> bound = Bind(*e, *batch.schema());
  if (bound.ok()) (void)Evaluate(*bound, batch);
  return true;
}

TEST(SerializeTest, CorruptBytesGiveErrorsNotCrashes) {
  const RecordBatch batch = TestBatch();
  EXPECT_FALSE(DeserializeExpression("").ok());
  EXPECT_FALSE(DeserializeDataType("").ok());
  EXPECT_EQ(DeserializeExpression("\xff\xff\xff").status().message(),
            "expression proto: 3 bytes are not a valid flotilla.proto.Expression message "
            "(truncated or corrupt, or nested deeper than 1192 levels)");

  // Every prefix of a binary expression is refused: the operator is written last.
  ExprPtr e = Less(Add(Column("a"), DecimalLiteral("1.5").ValueOrDie()),
                   Case({{Column("p"), Literal(1)}}, NullLiteral(int64())));
  const std::string bytes = SerializeExpression(e).ValueOrDie();
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<ExprPtr> cut = DeserializeExpression(std::string_view(bytes).substr(0, n));
    EXPECT_FALSE(cut.ok()) << n << " of " << bytes.size() << " bytes: " << (*cut)->ToString();
  }
  // Truncated types and schemas too.
  const std::string type_bytes =
      SerializeDataType(struct_({{"a", list(int8())}, {"b", dictionary(int8(), utf8())}}))
          .ValueOrDie();
  for (size_t n = 0; n < type_bytes.size(); ++n)
    (void)DeserializeDataType(std::string_view(type_bytes).substr(0, n));

  std::mt19937_64 rng(1234);
  // Random bytes.
  for (int round = 0; round < 3000; ++round) {
    std::string random(rng() % 200, '\0');
    for (char& c : random)
      c = static_cast<char>(rng());
    ExpectErrorOrUsable(random, batch);
    (void)DeserializeDataType(random);
    (void)DeserializeSchema(random);
  }
  // Valid messages with a few bytes changed get much further into the reader.
  std::vector<std::string> seeds;
  for (const ExprPtr& x : EveryKindOfExpression())
    seeds.push_back(SerializeExpression(x).ValueOrDie());
  int usable = 0;
  const int kRounds = 5000;
  for (int round = 0; round < kRounds; ++round) {
    std::string mutated = seeds[rng() % seeds.size()];
    if (mutated.empty()) continue;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k)
      mutated[rng() % mutated.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) mutated.resize(rng() % mutated.size());
    usable += ExpectErrorOrUsable(mutated, batch);
  }
  // Both outcomes occur, so the mutations reach past the protobuf parser.
  EXPECT_GT(usable, kRounds / 20);
  EXPECT_LT(usable, kRounds - kRounds / 20);
}

TEST(SerializeTest, WritingRefusesWhatReadingWould) {
  Result<std::string> r = SerializeExpression(nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "expression proto: expression is null");
  r = SerializeExpression(Alias(Call("f", {nullptr}), "x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "expression proto: expression is null (at children[0].children[0])");
  r = SerializeExpression(Literal(I64({1, 2})));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "expression proto: literal has 2 rows, expected 1");
  r = SerializeExpression(Cast(Column("a"), nullptr));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "expression proto: cast expression has no type");
  r = SerializeExpression(Column(""));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "expression proto: column expression has no name");
  EXPECT_FALSE(SerializeDataType(nullptr).ok());
  EXPECT_FALSE(SerializeSchema(nullptr).ok());
}

}  // namespace
}  // namespace flotilla::expr
