#include <gtest/gtest.h>

#include "flotilla/expr/functions/function_test_support.h"

namespace flotilla::expr::functions {

using namespace flotilla::testing;  // NOLINT
using flotilla::testing::Call;      // not expr::Call: these call a function on datums

namespace {

// "é" as e + COMBINING ACUTE ACCENT, and a few multi-byte characters.
const std::string kCombining = "e\xCC\x81";
const std::string kInvalid =
    "a\xFF"
    "b\xC3";  // a stray byte and a truncated sequence

TEST(StringBasicTest, LengthCountsCodePoints) {
  EXPECT_EQ(CallToString("length", {Col(Strings({"abc", "", std::nullopt, "héllo", "日本語"}))}),
            "[3, 0, null, 5, 3]");
  EXPECT_EQ(CallToString("length", {Col(Strings({kCombining}))}), "[2]");
  EXPECT_EQ(CallToString("octet_length", {Col(Strings({"abc", "héllo", std::nullopt}))}),
            "[3, 6, null]");
}

TEST(StringBasicTest, InvalidUtf8CountsEachBadByteAsOneCharacter) {
  EXPECT_EQ(CallToString("length", {Col(Strings({kInvalid}))}), "[4]");
  auto r = Call("substr", {Col(Strings({kInvalid})), LitI(2), LitI(2)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->array().GetView(0),
            "\xFF"
            "b");
  r = Call("reverse", {Col(Strings({kInvalid}))});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->array().GetView(0),
            "\xC3"
            "b\xFF"
            "a");
  r = Call("upper", {Col(Strings({kInvalid}))});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->array().GetView(0),
            "A\xFF"
            "B\xC3");
}

TEST(StringBasicTest, ScalarArgumentsGiveAScalar) {
  auto r = Call("length", {LitS("hello")});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->is_scalar());
  EXPECT_EQ(r->array().ToString(), "[5]");
  EXPECT_EQ(CallToString("length", {NullLit()}), "[null]");
}

TEST(StringBasicTest, EmptyInput) {
  for (const char* name : {"length", "lower", "upper", "trim", "reverse"}) {
    EXPECT_EQ(CallToString(name, {Col(Strings({}))}), "[]") << name;
  }
  EXPECT_EQ(CallToString("substr", {Col(Strings({})), LitI(1)}), "[]");
  EXPECT_EQ(CallToString("concat", {Col(Strings({})), LitS("x")}), "[]");
}

TEST(StringBasicTest, LargeStringKeepsLargeOffsets) {
  auto r = Call("upper", {Col(Strings({"ab", std::nullopt}, large_utf8()))});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->type()->id(), TypeId::kLargeString);
  EXPECT_EQ(r->array().ToString(), "[AB, null]");
  r = Call("concat", {LitS("x"), Col(Strings({"y"}, large_utf8()))});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->type()->id(), TypeId::kLargeString);
}

TEST(StringBasicTest, LowerUpperUnicode) {
  EXPECT_EQ(CallToString("lower", {Col(Strings({"HeLLo", "ÀÉÎ", "ΣΑΣ", "", std::nullopt}))}),
            "[hello, àéî, σασ, , null]");
  EXPECT_EQ(CallToString("upper", {Col(Strings({"straße", "çà"}))}), "[STRA\u1E9EE, ÇÀ]");
}

TEST(StringBasicTest, Trim) {
  auto s = Col(Strings({"  a b  ", "\t\n x\u3000", "", std::nullopt, "xxaxx"}));
  EXPECT_EQ(CallToString("trim", {s}), "[a b, x, , null, xxaxx]");
  EXPECT_EQ(CallToString("ltrim", {s}), "[a b  , x\u3000, , null, xxaxx]");
  EXPECT_EQ(CallToString("rstrip", {s}), "[  a b, \t\n x, , null, xxaxx]");
  EXPECT_EQ(CallToString("trim", {Col(Strings({"xxaxx", "éaé"})), LitS("xé")}), "[a, a]");
  EXPECT_EQ(CallToString("lstrip", {Col(Strings({"xxaxx"})), LitS("x")}), "[axx]");
  EXPECT_EQ(CallToString("rtrim", {Col(Strings({"xxaxx"})), LitS("x")}), "[xxa]");
  EXPECT_EQ(CallToString("trim", {Col(Strings({"xax"})), NullLit()}), "[null]");
}

TEST(StringBasicTest, SubstrSqlSemantics) {
  auto s = Col(Strings({"hello"}));
  EXPECT_EQ(CallToString("substr", {s, LitI(2), LitI(3)}), "[ell]");
  EXPECT_EQ(CallToString("substr", {s, LitI(2)}), "[ello]");
  EXPECT_EQ(CallToString("substr", {s, LitI(0), LitI(3)}), "[he]");
  EXPECT_EQ(CallToString("substr", {s, LitI(-3)}), "[llo]");
  EXPECT_EQ(CallToString("substr", {s, LitI(-3), LitI(2)}), "[ll]");
  EXPECT_EQ(CallToString("substr", {s, LitI(-7), LitI(3)}), "[h]");
  EXPECT_EQ(CallToString("substr", {s, LitI(10)}), "[]");
  EXPECT_EQ(CallToString("substr", {s, LitI(1), LitI(0)}), "[]");
  EXPECT_EQ(CallToString("substr", {s, LitI(INT64_MAX), LitI(INT64_MAX)}), "[]");
  EXPECT_EQ(CallToString("substr", {s, LitI(INT64_MIN), LitI(INT64_MAX)}), "[hell]");
  EXPECT_EQ(CallToString("substr", {Col(Strings({"日本語テキスト"})), LitI(2), LitI(3)}),
            "[本語テ]");
  auto r = Call("substr", {s, LitI(1), LitI(-1)});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("row 0"), std::string::npos);
  // Column arguments.
  EXPECT_EQ(CallToString("substr", {Col(Strings({"abc", "abc", std::nullopt})),
                                    Col(Ints({1, std::nullopt, 1})), LitI(2)}),
            "[ab, null, null]");
}

TEST(StringBasicTest, LeftRight) {
  auto s = Col(Strings({"héllo", "", std::nullopt}));
  EXPECT_EQ(CallToString("left", {s, LitI(2)}), "[hé, , null]");
  EXPECT_EQ(CallToString("left", {s, LitI(-2)}), "[hél, , null]");
  EXPECT_EQ(CallToString("right", {s, LitI(2)}), "[lo, , null]");
  EXPECT_EQ(CallToString("right", {s, LitI(-1)}), "[éllo, , null]");
  EXPECT_EQ(CallToString("right", {s, LitI(99)}), "[héllo, , null]");
  EXPECT_EQ(CallToString("left", {s, LitI(-99)}), "[, , null]");
}

TEST(StringBasicTest, ConcatAndConcatWs) {
  auto a = Col(Strings({"a", std::nullopt, "", "x"}));
  auto b = Col(Strings({"b", "b", "", std::nullopt}));
  EXPECT_EQ(CallToString("concat", {a, LitS("-"), b}), "[a-b, null, -, null]");
  EXPECT_EQ(CallToString("concat_ws", {LitS(", "), a, b}), "[a, b, b, , , x]");
  EXPECT_EQ(CallToString("concat_ws", {NullLit(), a, b}), "[null, null, null, null]");
  EXPECT_EQ(CallToString("concat", {LitS("a"), LitS("é")}), "[aé]");
}

TEST(StringBasicTest, ContainsStartsEnds) {
  auto s = Col(Strings({"hello", "", std::nullopt, "日本語"}));
  EXPECT_EQ(CallToString("contains", {s, LitS("ll")}), "[true, false, null, false]");
  EXPECT_EQ(CallToString("contains", {s, LitS("")}), "[true, true, null, true]");
  EXPECT_EQ(CallToString("starts_with", {s, LitS("he")}), "[true, false, null, false]");
  EXPECT_EQ(CallToString("ends_with", {s, LitS("語")}), "[false, false, null, true]");
  EXPECT_EQ(CallToString("contains", {s, Col(Strings({"x", "", "a", std::nullopt}))}),
            "[false, true, null, null]");
}

TEST(StringBasicTest, ReplaceReverseRepeat) {
  EXPECT_EQ(
      CallToString("replace", {Col(Strings({"aXbXc", "", std::nullopt})), LitS("X"), LitS("--")}),
      "[a--b--c, , null]");
  EXPECT_EQ(CallToString("replace", {Col(Strings({"abc"})), LitS(""), LitS("z")}), "[abc]");
  EXPECT_EQ(CallToString("reverse", {Col(Strings({"abc", "", std::nullopt, "日本語"}))}),
            "[cba, , null, 語本日]");
  // The combining accent stays on its letter.
  EXPECT_EQ(CallToString("reverse", {Col(Strings({"a" + kCombining + "b"}))}),
            "[b" + kCombining + "a]");
  EXPECT_EQ(CallToString("repeat", {Col(Strings({"ab", "é", std::nullopt})), LitI(3)}),
            "[ababab, ééé, null]");
  EXPECT_EQ(CallToString("repeat", {Col(Strings({"ab"})), LitI(-1)}), "[]");
  auto r = Call("repeat", {Col(Strings({"abcdefgh"})), LitI(int64_t{1} << 30)});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
}

// Sizes past the 1 GiB value limit are refused at once, without overflowing the size (4 x 2^62
// wraps to 0 in 64 bits) and without building anything.
TEST(StringBasicTest, HugeResultsAreRefusedBeforeBuilding) {
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::vector<Datum>>>{
           {"repeat", {Col(Strings({"abcd"})), LitI(int64_t{1} << 62)}},
           {"repeat", {Col(Strings({"a"})), LitI(2147483647)}},
           {"lpad", {Col(Strings({"a"})), LitI(int64_t{1} << 62), LitS("bcde")}},
           {"rpad", {Col(Strings({"a"})), LitI(int64_t{1} << 62)}},
       }) {
    auto r = Call(name, args);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_NE(r.status().message().find("at most 1 GiB"), std::string::npos)
        << r.status().ToString();
  }
  // Just under the limit is fine.
  auto big = Call("repeat", {Col(Strings({"ab"})), LitI(int64_t{1} << 20)});
  ASSERT_TRUE(big.ok()) << big.status().ToString();
}

// A count or position past INT64_MAX (a uint64 argument) is an error naming the function; it
// used to wrap to a negative number (repeat gave '', substr counted from the end).
TEST(StringBasicTest, Uint64ParametersPastInt64AreErrors) {
  UInt64Builder b(uint64());
  b.Append(uint64_t{1} << 63).Check();
  const Datum huge = Lit(b.Finish().ValueOrDie());
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::vector<Datum>>>{
           {"repeat", {Col(Strings({"ab"})), huge}},
           {"substr", {Col(Strings({"abc"})), huge}},
           {"substr", {Col(Strings({"abc"})), LitI(1), huge}},
           {"left", {Col(Strings({"abc"})), huge}},
           {"lpad", {Col(Strings({"abc"})), huge}},
           {"split_part", {Col(Strings({"a,b"})), LitS(","), huge}},
       }) {
    auto r = Call(name, args);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << name;
    EXPECT_NE(r.status().message().find(name + "(): integer argument 9223372036854775808 is out "
                                               "of the int64 range"),
              std::string::npos)
        << r.status().ToString();
  }
  // Within the int64 range a uint64 reads as its value.
  UInt64Builder two(uint64());
  two.Append(2).Check();
  EXPECT_EQ(CallToString("repeat", {Col(Strings({"ab"})), Lit(two.Finish().ValueOrDie())}),
            "[abab]");
}

TEST(StringBasicTest, PadByCharacters) {
  auto s = Col(Strings({"ab", "héllo", "", std::nullopt}));
  EXPECT_EQ(CallToString("lpad", {s, LitI(4)}), "[  ab, héll,     , null]");
  EXPECT_EQ(CallToString("rpad", {s, LitI(4), LitS("é")}), "[abéé, héll, éééé, null]");
  EXPECT_EQ(CallToString("lpad", {s, LitI(5), LitS("xy")}), "[xyxab, héllo, xyxyx, null]");
  EXPECT_EQ(CallToString("lpad", {s, LitI(0)}), "[, , , null]");
  EXPECT_EQ(CallToString("rpad", {s, LitI(3), LitS("")}), "[ab, hél, , null]");
}

TEST(StringBasicTest, TypeErrorsNameFunctionAndArgument) {
  auto r = Resolve("lower", {int64()});
  ASSERT_EQ(r.status().code(), StatusCode::kTypeError);
  EXPECT_EQ(r.status().message(), "lower() expects a string, got int64 for argument 1");
  r = Resolve("substr", {utf8(), utf8()});
  ASSERT_EQ(r.status().code(), StatusCode::kTypeError);
  EXPECT_EQ(r.status().message(), "substr() expects an integer, got string for argument 2");
  EXPECT_EQ(Resolve("ltrim", {utf8(), float64()}).status().message(),
            "ltrim() expects a string, got float64 for argument 2");
}

TEST(StringBasicTest, PositionsPartsAndCodePoints) {
  // Positions count characters, not bytes; 0 when absent.
  EXPECT_EQ(CallToString("strpos",
                         {Col(Strings({"hello", "h\xC3\xA9llo", "x", std::nullopt})), LitS("llo")}),
            "[3, 3, 0, null]");
  EXPECT_EQ(CallToString("split_part", {Col(Strings({"a,b,c", "a,b,c", "a", ""})), LitS(","),
                                        Col(Ints({2, -1, 3, 1}))}),
            "[b, c, , ]");
  EXPECT_EQ(CallToString("ascii", {Col(Strings({"A", "\xC3\xA9t\xC3\xA9", ""}))}), "[65, 233, 0]");
  EXPECT_EQ(CallToString("chr", {Col(Ints({65, 233, std::nullopt}))}), "[A, \xC3\xA9, null]");
  EXPECT_FALSE(Call("chr", {LitI(0xD800)}).ok());
}

}  // namespace
}  // namespace flotilla::expr::functions
