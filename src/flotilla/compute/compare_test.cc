#include "flotilla/compute/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "flotilla/compute/boolean.h"
#include "tests/support/literal_arrays.h"

namespace flotilla::compute {
namespace {

using namespace flotilla::testing;  // NOLINT

Array Cmp(CompareOp op, const Array& a, const Array& b) {
  return Compare(op, a, b, std::max(a.length(), b.length())).ValueOrDie();
}

TEST(CompareTest, AllOperatorsOnIntegers) {
  auto a = I64({1, 2, 3, N});
  auto b = I64({2, 2, 2, 2});
  EXPECT_ARRAYS_EQUAL(Bools({false, true, false, N}), Cmp(CompareOp::kEqual, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, true, N}), Cmp(CompareOp::kNotEqual, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false, N}), Cmp(CompareOp::kLess, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({true, true, false, N}), Cmp(CompareOp::kLessEqual, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, true, N}), Cmp(CompareOp::kGreater, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, true, N}), Cmp(CompareOp::kGreaterEqual, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false, N}), Cmp(CompareOp::kLess, a, I64({2})));
  EXPECT_ARRAYS_EQUAL(Bools({}), Cmp(CompareOp::kLess, I64({}), I64({})));
}

TEST(CompareTest, NaNAndSignedZero) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  auto a = F64({nan, nan, inf, -0.0, 1.0});
  auto b = F64({nan, inf, nan, 0.0, nan});
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false, true, false}), Cmp(CompareOp::kEqual, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, false, false, false}), Cmp(CompareOp::kGreater, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, true, false, true}), Cmp(CompareOp::kLess, a, b));
  EXPECT_ARRAYS_EQUAL(Bools({true}), Cmp(CompareOp::kGreater, F32({std::nanf("")}), F32({1e30f})));
}

TEST(CompareTest, StringsBoolsDatesDecimals) {
  auto s = Strs({"apple", "b", "", "\xc3\xa9", N});
  auto t = Strs({"apples", "a", "", "z", "x"});
  // Bytewise: "é" (0xC3 0xA9) sorts after "z" (0x7A).
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false, false, N}), Cmp(CompareOp::kLess, s, t));
  EXPECT_ARRAYS_EQUAL(Bools({false, false, true, false, N}), Cmp(CompareOp::kEqual, s, t));
  EXPECT_ARRAYS_EQUAL(Bools({true, false}),
                      Cmp(CompareOp::kLess, Bools({false, true}), Bools({true, true})));
  EXPECT_ARRAYS_EQUAL(Bools({true, false}), Cmp(CompareOp::kLess, Dates({-1, 5}), Dates({0})));
  auto d1 = Decimals(5, 2, {"1.50", "-2.00", "3.10"});
  auto d2 = Decimals(10, 4, {"1.5000", "-1.9999", "3.0999"});
  EXPECT_ARRAYS_EQUAL(Bools({true, false, false}), Cmp(CompareOp::kEqual, d1, d2));
  EXPECT_ARRAYS_EQUAL(Bools({false, true, false}), Cmp(CompareOp::kLess, d1, d2));
  auto big = Decimals(38, 0, {"99999999999999999999999999999999999999"});
  EXPECT_ARRAYS_EQUAL(Bools({true}), Cmp(CompareOp::kGreater, big, Decimals(5, 4, {"9.9999"})));
}

TEST(CompareTest, ColumnsAgainstConstantsAndSlices) {
  // Each shape (column with column, column with constant, constant with column) and a slice
  // that starts mid-buffer, on 19 rows so the tail after the groups of eight is covered.
  std::vector<std::optional<std::string>> words, decimals;
  for (int i = 0; i < 19; ++i) {
    words.push_back(std::string(static_cast<size_t>(i % 4), static_cast<char>('a' + i % 3)));
    decimals.push_back(std::to_string(i % 7 - 3) + ".5" + std::to_string(i % 10));
  }
  words[5] = std::nullopt;
  const Array s = Strs(words).Slice(2);
  const Array d = Decimals(15, 2, decimals).Slice(2);
  auto expect = [](const Array& got, const std::function<std::optional<bool>(int64_t)>& want) {
    ASSERT_EQ(got.length(), 17);
    for (int64_t i = 0; i < got.length(); ++i) {
      const std::optional<bool> w = want(i);
      ASSERT_EQ(got.IsValid(i), w.has_value()) << "row " << i;
      if (w) {
        EXPECT_EQ(got.BoolValue(i), *w) << "row " << i;
      }
    }
  };
  auto word = [&](int64_t i) { return words[static_cast<size_t>(i + 2)]; };
  expect(Cmp(CompareOp::kEqual, s, Strs({"bb"})), [&](int64_t i) -> std::optional<bool> {
    if (!word(i)) return std::nullopt;
    return *word(i) == "bb";
  });
  expect(Cmp(CompareOp::kLess, Strs({"bb"}), s), [&](int64_t i) -> std::optional<bool> {
    if (!word(i)) return std::nullopt;
    return std::string("bb") < *word(i);
  });
  expect(Cmp(CompareOp::kNotEqual, s, s.Slice(0)), [&](int64_t i) -> std::optional<bool> {
    if (!word(i)) return std::nullopt;
    return false;
  });
  // 1.5 at scale 1 and -1 at scale 0 are rescaled to the column's scale 2.
  auto value = [&](int64_t i) { return std::stod(*decimals[static_cast<size_t>(i + 2)]); };
  expect(Cmp(CompareOp::kGreaterEqual, d, Decimals(2, 1, {"1.5"})),
         [&](int64_t i) -> std::optional<bool> { return value(i) >= 1.5; });
  expect(Cmp(CompareOp::kLess, d, Decimals(1, 0, {"-1"})),
         [&](int64_t i) -> std::optional<bool> { return value(i) < -1.0; });
  expect(Cmp(CompareOp::kEqual, d, Decimals(3, 2, {"-2.58"})),
         [&](int64_t i) -> std::optional<bool> { return value(i) == -2.58; });
}

TEST(CompareTest, TypeMismatchIsAnError) {
  auto r = Compare(CompareOp::kEqual, I64({1}), Strs({"1"}), 1);
  EXPECT_EQ(r.status().message(), "cannot compare int64 with string");
}

TEST(BooleanTest, KleeneTruthTables) {
  // Every pair of {true, false, null}.
  auto a = Bools({true, true, true, false, false, false, N, N, N});
  auto b = Bools({true, false, N, true, false, N, true, false, N});
  EXPECT_ARRAYS_EQUAL(Bools({true, false, N, false, false, false, N, false, N}),
                      KleeneAnd(a, b, 9).ValueOrDie());
  EXPECT_ARRAYS_EQUAL(Bools({true, true, true, true, false, N, true, N, N}),
                      KleeneOr(a, b, 9).ValueOrDie());
  EXPECT_ARRAYS_EQUAL(Bools({false, true, N}), Not(Bools({true, false, N})).ValueOrDie());
  EXPECT_ARRAYS_EQUAL(Bools({false, true}),
                      KleeneAnd(Bools({false, true}), Bools({true}), 2).ValueOrDie());
  EXPECT_FALSE(KleeneAnd(I64({1}), Bools({true}), 1).ok());
}

}  // namespace
}  // namespace flotilla::compute
