#include "flotilla/compute/unpivot.h"

#include <gtest/gtest.h>

#include "tests/support/literal_arrays.h"

namespace flotilla::compute {
namespace {

using testing::F64;
using testing::I32;
using testing::I64;
using testing::N;
using testing::Strs;

RecordBatch Batch(std::vector<std::pair<std::string, Array>> columns) {
  return RecordBatch::FromColumns(std::move(columns)).ValueOrDie();
}

TEST(UnpivotTest, RowMajorWithNulls) {
  RecordBatch b = Batch(
      {{"id", I64({1, 2})}, {"name", Strs({"x", N})}, {"a", I64({10, N})}, {"b", I64({20, 30})}});
  RecordBatch out = Unpivot(b, {0, 1}, {2, 3}, "variable", "value").ValueOrDie();
  ASSERT_EQ(out.num_rows(), 4);
  EXPECT_EQ(out.schema()->field_names(),
            (std::vector<std::string>{"id", "name", "variable", "value"}));
  EXPECT_EQ(out.column(0).ToString(), "[1, 1, 2, 2]");
  EXPECT_EQ(out.column(1).ToString(), "[x, x, null, null]");
  EXPECT_EQ(out.column(2).ToString(), "[a, b, a, b]");
  EXPECT_EQ(out.column(3).ToString(), "[10, 20, null, 30]");
  EXPECT_TRUE(out.schema()->field(2).type->Equals(*utf8()));
  EXPECT_FALSE(out.schema()->field(2).nullable);
  EXPECT_TRUE(out.schema()->field(3).type->Equals(*int64()));
  EXPECT_TRUE(out.schema()->field(3).nullable);
  for (const Array& c : out.columns())
    EXPECT_TRUE(Array::Make(c.data()).ok());
}

TEST(UnpivotTest, ValueColumnOrderAndNoIdColumns) {
  RecordBatch b = Batch({{"p", Strs({"u", "v"})}, {"q", Strs({"w", ""})}, {"r", Strs({N, "z"})}});
  RecordBatch out = Unpivot(b, {}, {2, 0}, "col", "val").ValueOrDie();
  EXPECT_EQ(out.num_columns(), 2);
  EXPECT_EQ(out.column(0).ToString(), "[r, p, r, p]");
  EXPECT_EQ(out.column(1).ToString(), "[null, u, z, v]");
}

TEST(UnpivotTest, OneValueColumnPassesColumnsThrough) {
  RecordBatch b = Batch({{"id", I64({1, 2, 3})}, {"a", F64({0.5, N, 2})}});
  RecordBatch out = Unpivot(b, {0}, {1}, "k", "v").ValueOrDie();
  EXPECT_EQ(out.column(0).data(), b.column(0).data());
  EXPECT_EQ(out.column(1).ToString(), "[a, a, a]");
  EXPECT_EQ(out.column(2).data(), b.column(1).data());
}

TEST(UnpivotTest, MixedTypesAreCastToTheCommonType) {
  RecordBatch b = Batch({{"i", I32({1, N})}, {"f", F64({2.5, 3})}, {"l", I64({4, 5})}});
  RecordBatch out = Unpivot(b, {}, {0, 1, 2}, "k", "v").ValueOrDie();
  EXPECT_TRUE(out.schema()->field(1).type->Equals(*float64()));
  EXPECT_EQ(out.column(1).ToString(), "[1, 2.5, 4, null, 3, 5]");
  // Integers widen; strings of both widths meet in large_utf8; dictionaries by their values.
  RecordBatch ints = Batch({{"a", I32({1})}, {"b", I64({2})}});
  EXPECT_TRUE(
      Unpivot(ints, {}, {0, 1}, "k", "v").ValueOrDie().schema()->field(1).type->Equals(*int64()));
  RecordBatch strs = Batch({{"a", Strs({"x"})},
                            {"b", testing::MakeStrings({"y"}, large_utf8())},
                            {"c", testing::MakeStrings({"z"}, dictionary(int32(), utf8()))}});
  RecordBatch s = Unpivot(strs, {}, {0, 1, 2}, "k", "v").ValueOrDie();
  EXPECT_TRUE(s.schema()->field(1).type->Equals(*large_utf8()));
  EXPECT_EQ(s.column(1).ToString(), "[x, y, z]");
}

TEST(UnpivotTest, NoCommonTypeIsATypeErrorNamingTheColumns) {
  RecordBatch b = Batch({{"a", I64({1})}, {"c", I32({2})}, {"b", Strs({"x"})}});
  auto r = Unpivot(b, {}, {0, 1, 2}, "k", "v");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTypeError);
  EXPECT_NE(r.status().message().find("value column 'b' is string, which has no common type "
                                      "with int64 (the type of 'a', 'c')"),
            std::string::npos)
      << r.status().message();
}

TEST(UnpivotTest, SlicedInputAndEmptyBatch) {
  RecordBatch b = Batch({{"id", Strs({"r0", "r1", "r2", "r3"})},
                         {"a", I64({0, 1, 2, 3})},
                         {"b", I64({10, 11, 12, 13})}});
  RecordBatch out = Unpivot(b.Slice(1, 2), {0}, {1, 2}, "k", "v").ValueOrDie();
  EXPECT_EQ(out.column(0).ToString(), "[r1, r1, r2, r2]");
  EXPECT_EQ(out.column(1).ToString(), "[a, b, a, b]");
  EXPECT_EQ(out.column(2).ToString(), "[1, 11, 2, 12]");
  RecordBatch empty = Unpivot(b.Slice(0, 0), {0}, {1, 2}, "k", "v").ValueOrDie();
  EXPECT_EQ(empty.num_rows(), 0);
  EXPECT_EQ(empty.num_columns(), 3);
  RecordBatch one = Unpivot(b.Slice(3, 1), {0}, {2, 1}, "k", "v").ValueOrDie();
  EXPECT_EQ(one.column(1).ToString(), "[b, a]");
  EXPECT_EQ(one.column(2).ToString(), "[13, 3]");
}

TEST(UnpivotTest, Errors) {
  RecordBatch b = Batch({{"id", I64({1})}, {"a", I64({2})}, {"b", I64({3})}});
  EXPECT_EQ(Unpivot(b, {0}, {}, "k", "v").status().code(), StatusCode::kInvalid);
  EXPECT_EQ(Unpivot(b, {0}, {1, 3}, "k", "v").status().code(), StatusCode::kIndexError);
  auto twice = Unpivot(b, {1}, {1, 2}, "k", "v");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("column 'a' is listed twice"), std::string::npos);
  EXPECT_EQ(Unpivot(b, {0}, {1, 1}, "k", "v").status().code(), StatusCode::kInvalid);
  auto clash = Unpivot(b, {0}, {1, 2}, "id", "v");
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().message().find("'id' is used twice"), std::string::npos);
  EXPECT_EQ(Unpivot(b, {0}, {1, 2}, "k", "k").status().code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace flotilla::compute
