#include "flotilla/compute/explode.h"

#include <gtest/gtest.h>

#include "tests/support/literal_arrays.h"

namespace flotilla::compute {
namespace {

using testing::I64;
using testing::N;
using testing::Strs;

// A list array over `values`: each row is (start, length) in `values`, or null.
Array Lists(const Array& values,
            const std::vector<std::optional<std::pair<int64_t, int64_t>>>& rows) {
  auto builder = MakeBuilder(list(values.type())).ValueOrDie();
  auto* lists = static_cast<ListBuilder*>(builder.get());
  for (const auto& r : rows) {
    if (!r) {
      lists->AppendNull().Check();
      continue;
    }
    lists->Append().Check();
    lists->value_builder()->AppendArraySlice(values, r->first, r->second).Check();
  }
  return builder->Finish().ValueOrDie();
}

RecordBatch Batch(std::vector<std::pair<std::string, Array>> columns) {
  return RecordBatch::FromColumns(std::move(columns)).ValueOrDie();
}

// [[10, 20], null, [], [30], [null, 40, 50]]
Array SampleLists() {
  return Lists(I64({10, 20, 30, N, 40, 50}),
               {{{0, 2}}, std::nullopt, {{2, 0}}, {{2, 1}}, {{3, 3}}});
}

TEST(ExplodeTest, OneListColumnWithNullAndEmptyLists) {
  RecordBatch b = Batch({{"id", I64({1, 2, 3, 4, 5})}, {"l", SampleLists()}});
  RecordBatch out = Explode(b, {1}).ValueOrDie();
  EXPECT_EQ(out.num_rows(), 8);
  EXPECT_EQ(out.column(0).ToString(), "[1, 1, 2, 3, 4, 5, 5, 5]");
  EXPECT_EQ(out.column(1).ToString(), "[10, 20, null, null, 30, null, 40, 50]");
  EXPECT_EQ(out.schema()->field(1).name, "l");
  EXPECT_TRUE(out.schema()->field(1).type->Equals(*int64()));
  EXPECT_TRUE(out.schema()->field(1).nullable);
  EXPECT_TRUE(out.schema()->field(0).Equals(b.schema()->field(0)));
  for (const Array& c : out.columns())
    EXPECT_TRUE(Array::Make(c.data()).ok());
}

TEST(ExplodeTest, SeveralColumnsInLockstep) {
  Array a = Lists(I64({1, 2, 3}), {{{0, 2}}, {{2, 1}}, std::nullopt, {{3, 0}}});
  Array s = Lists(Strs({"x", "y", "z"}), {{{0, 2}}, {{2, 1}}, {{3, 0}}, std::nullopt});
  RecordBatch b = Batch({{"a", a}, {"k", Strs({"p", "q", "r", "s"})}, {"s", s}});
  RecordBatch out = Explode(b, {2, 0}).ValueOrDie();
  EXPECT_EQ(out.column(0).ToString(), "[1, 2, 3, null, null]");
  EXPECT_EQ(out.column(1).ToString(), "[p, p, q, r, s]");
  EXPECT_EQ(out.column(2).ToString(), "[x, y, z, null, null]");
  EXPECT_TRUE(out.schema()->field(2).type->Equals(*utf8()));
}

TEST(ExplodeTest, LockstepLengthMismatchNamesRowAndColumns) {
  Array a = Lists(I64({1, 2, 3}), {{{0, 1}}, {{1, 2}}});
  Array b = Lists(I64({7, 8, 9}), {{{0, 1}}, {{1, 1}}});
  auto r = Explode(Batch({{"a", a}, {"b", b}}), {0, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("row 1 has 2 elements in column 'a' but 1 element in "
                                      "column 'b'"),
            std::string::npos)
      << r.status().message();
  // A null list counts as empty: it matches an empty list but not a non-empty one.
  Array null_list = Lists(I64({1}), {std::nullopt, std::nullopt});
  Array mixed = Lists(I64({1}), {{{0, 0}}, {{0, 1}}});
  auto m = Explode(Batch({{"n", null_list}, {"m", mixed}}), {0, 1});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("row 1 has a null list in column 'n' but 1 element in "
                                      "column 'm'"),
            std::string::npos)
      << m.status().message();
  RecordBatch ok =
      Explode(Batch({{"n", null_list.Slice(0, 1)}, {"m", mixed.Slice(0, 1)}}), {0, 1}).ValueOrDie();
  EXPECT_EQ(ok.num_rows(), 1);
  EXPECT_EQ(ok.column(0).null_count(), 1);
  EXPECT_EQ(ok.column(1).null_count(), 1);
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

TEST(ExplodeTest, FixedSizeList) {
  RecordBatch b = Batch({{"id", I64({0, 1, 2})}, {"f", FixedLists()}});
  RecordBatch out = Explode(b, {1}).ValueOrDie();
  EXPECT_EQ(out.column(0).ToString(), "[0, 0, 1, 2, 2]");
  EXPECT_EQ(out.column(1).ToString(), "[4, -1, null, 7, null]");
  EXPECT_TRUE(out.schema()->field(1).type->Equals(*int32()));
  // Sliced: the offset of a fixed_size_list is in lists, its child's in values.
  RecordBatch tail = Explode(b.Slice(2, 1), {1}).ValueOrDie();
  EXPECT_EQ(tail.column(1).ToString(), "[7, null]");
  RecordBatch head = Explode(b.Slice(0, 1), {1}).ValueOrDie();
  EXPECT_EQ(head.column(1).ToString(), "[4, -1]");
  // Size 0: every row is an empty list.
  auto zero = MakeBuilder(fixed_size_list(int32(), 0)).ValueOrDie();
  static_cast<FixedSizeListBuilder*>(zero.get())->Append().Check();
  static_cast<FixedSizeListBuilder*>(zero.get())->Append().Check();
  RecordBatch z = Explode(Batch({{"z", zero->Finish().ValueOrDie()}}), {0}).ValueOrDie();
  EXPECT_EQ(z.column(0).ToString(), "[null, null]");
}

TEST(ExplodeTest, SlicedInput) {
  RecordBatch b = Batch({{"id", I64({1, 2, 3, 4, 5})}, {"l", SampleLists()}});
  RecordBatch out = Explode(b.Slice(1, 3), {1}).ValueOrDie();
  EXPECT_EQ(out.column(0).ToString(), "[2, 3, 4]");
  EXPECT_EQ(out.column(1).ToString(), "[null, null, 30]");
  RecordBatch last = Explode(b.Slice(3, 2), {1}).ValueOrDie();
  EXPECT_EQ(last.column(0).ToString(), "[4, 5, 5, 5]");
  EXPECT_EQ(last.column(1).ToString(), "[30, null, 40, 50]");
}

TEST(ExplodeTest, NoNullOrEmptyListsIsAZeroCopySliceOfTheValues) {
  Array values = Strs({"a", "bb", "", "d", N});
  Array l = Lists(values, {{{0, 1}}, {{1, 3}}, {{4, 1}}});
  RecordBatch b = Batch({{"l", l}, {"n", I64({7, 8, 9})}}).Slice(1, 2);
  RecordBatch out = Explode(b, {0}).ValueOrDie();
  EXPECT_EQ(out.column(0).ToString(), "[bb, , d, null]");
  EXPECT_EQ(out.column(1).ToString(), "[8, 8, 8, 9]");
  EXPECT_EQ(out.column(0).data()->buffers[2], l.child(0).data()->buffers[2]);
  // One element per row: the other columns are passed through.
  RecordBatch singles =
      Batch({{"l", Lists(I64({5, 6}), {{{0, 1}}, {{1, 1}}})}, {"n", I64({1, 2})}});
  RecordBatch same = Explode(singles, {0}).ValueOrDie();
  EXPECT_EQ(same.column(1).data(), singles.column(1).data());
  EXPECT_EQ(same.column(0).ToString(), "[5, 6]");
}

TEST(ExplodeTest, NestedListsExplodeOneLevel) {
  Array inner = Lists(I64({1, 2, 3}), {{{0, 2}}, {{2, 0}}, {{2, 1}}});
  Array outer = Lists(inner, {{{0, 2}}, {{2, 1}}});
  RecordBatch out = Explode(Batch({{"ll", outer}}), {0}).ValueOrDie();
  EXPECT_TRUE(out.schema()->field(0).type->Equals(*list(int64())));
  EXPECT_EQ(out.column(0).ToString(), "[[1, 2], [], [3]]");
}

TEST(ExplodeTest, NullListWithANonEmptyRange) {
  // Arrow allows a null list slot to span values; they must not come out.
  Array values = I64({1, 2, 3, 4});
  auto d = std::make_shared<ArrayData>();
  d->type = list(int64());
  d->length = 2;
  const int32_t offsets[] = {0, 2, 4};
  const uint8_t validity[] = {0b01};
  d->buffers = {
      Buffer::CopyOf({reinterpret_cast<const char*>(validity), sizeof(validity)}).ValueOrDie(),
      Buffer::CopyOf({reinterpret_cast<const char*>(offsets), sizeof(offsets)}).ValueOrDie()};
  d->children = {values.data()};
  d->null_count = -1;
  Array l = Array::Make(d).ValueOrDie();
  RecordBatch out = Explode(Batch({{"l", l}}), {0}).ValueOrDie();
  EXPECT_EQ(out.column(0).ToString(), "[1, 2, null]");
}

TEST(ExplodeTest, EmptyBatchAndNoColumns) {
  RecordBatch b = Batch({{"id", I64({1, 2, 3, 4, 5})}, {"l", SampleLists()}});
  RecordBatch empty = Explode(b.Slice(0, 0), {1}).ValueOrDie();
  EXPECT_EQ(empty.num_rows(), 0);
  EXPECT_TRUE(empty.schema()->field(1).type->Equals(*int64()));
  EXPECT_TRUE(Explode(b, {}).ValueOrDie().Equals(b));
  RecordBatch one = Explode(b.Slice(4, 1), {1}).ValueOrDie();
  EXPECT_EQ(one.column(0).ToString(), "[5, 5, 5]");
  EXPECT_EQ(one.column(1).ToString(), "[null, 40, 50]");
}

TEST(ExplodeTest, Errors) {
  RecordBatch b = Batch({{"id", I64({1})}, {"l", Lists(I64({1}), {{{0, 1}}})}});
  auto not_list = Explode(b, {0});
  ASSERT_FALSE(not_list.ok());
  EXPECT_EQ(not_list.status().code(), StatusCode::kTypeError);
  EXPECT_NE(not_list.status().message().find("column 'id' is int64, not a list"), std::string::npos)
      << not_list.status().message();
  EXPECT_EQ(Explode(b, {2}).status().code(), StatusCode::kIndexError);
  EXPECT_EQ(Explode(b, {-1}).status().code(), StatusCode::kIndexError);
  EXPECT_EQ(Explode(b, {1, 1}).status().code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace flotilla::compute
