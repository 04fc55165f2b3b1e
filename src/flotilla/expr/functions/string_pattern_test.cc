#include <gtest/gtest.h>

#include "flotilla/expr/functions/function_test_support.h"

namespace flotilla::expr::functions {

using namespace flotilla::testing;  // NOLINT
using flotilla::testing::Call;      // not expr::Call: these call a function on datums

namespace {

TEST(StringLikeTest, Wildcards) {
  auto s = Col(Strings({"hello", "help", "", std::nullopt, "héllo", "h_llo"}));
  EXPECT_EQ(CallToString("like", {s, LitS("hel%")}), "[true, true, false, null, false, false]");
  EXPECT_EQ(CallToString("like", {s, LitS("h_llo")}), "[true, false, false, null, true, true]");
  EXPECT_EQ(CallToString("like", {s, LitS("%")}), "[true, true, true, null, true, true]");
  EXPECT_EQ(CallToString("like", {s, LitS("")}), "[false, false, true, null, false, false]");
  EXPECT_EQ(CallToString("like", {s, LitS("%l%o")}), "[true, false, false, null, true, true]");
  EXPECT_EQ(CallToString("like", {s, LitS("%%p")}), "[false, true, false, null, false, false]");
  EXPECT_EQ(CallToString("like", {Col(Strings({"a\nb"})), LitS("a_b")}), "[true]");
}

TEST(StringLikeTest, Escape) {
  auto s = Col(Strings({"50%", "50x", "a_b", "axb", "a\\b"}));
  EXPECT_EQ(CallToString("like", {s, LitS("50!%"), LitS("!")}),
            "[true, false, false, false, false]");
  EXPECT_EQ(CallToString("like", {s, LitS("a\\_b"), LitS("\\")}),
            "[false, false, true, false, false]");
  EXPECT_EQ(CallToString("like", {s, LitS("a\\\\b"), LitS("\\")}),
            "[false, false, false, false, true]");
  // Without an escape argument, backslash is an ordinary character.
  EXPECT_EQ(CallToString("like", {s, LitS("a\\b")}), "[false, false, false, false, true]");
  EXPECT_EQ(Call("like", {s, LitS("abc!"), LitS("!")}).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(Call("like", {s, LitS("a"), LitS("!!")}).status().code(), StatusCode::kInvalid);
}

TEST(StringLikeTest, IlikeFoldsUnicodeCase) {
  auto s = Col(Strings({"HELLO", "Ärger", "straße"}));
  EXPECT_EQ(CallToString("ilike", {s, LitS("hel%")}), "[true, false, false]");
  EXPECT_EQ(CallToString("ilike", {s, LitS("är%")}), "[false, true, false]");
  EXPECT_EQ(CallToString("like", {s, LitS("är%")}), "[false, false, false]");
}

TEST(StringLikeTest, PatternColumnAndInvalidUtf8) {
  auto s = Col(Strings({"abc", "abc",
                        "a\xFF"
                        "c"}));
  EXPECT_EQ(CallToString("like", {s, Col(Strings({"a%", "b%", "a_c"}))}), "[true, false, true]");
  EXPECT_EQ(CallToString("like", {Col(Strings({})), LitS("a")}), "[]");
}

TEST(StringLikeTest, PathologicalPatternIsFast) {
  std::string text(20000, 'a');
  std::string pattern = "%a%a%a%a%a%a%a%a%b";
  EXPECT_EQ(CallToString("like", {Col(Strings({text})), LitS(pattern)}), "[false]");
}

TEST(StringSplitTest, Split) {
  EXPECT_EQ(CallToString("split", {Col(Strings({"a,b,,c", "", std::nullopt, "abc"})), LitS(",")}),
            "[[a, b, , c], [], null, [abc]]");
  auto r = Call("split", {Col(Strings({""})), LitS(",")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->array().ListValues(0).length(), 1);  // [""]
  EXPECT_EQ(CallToString("split", {Col(Strings({"日本語"})), LitS("")}), "[[日, 本, 語]]");
  auto chars = Call("split", {Col(Strings({""})), LitS("")});
  ASSERT_TRUE(chars.ok());
  EXPECT_EQ(chars->array().ListValues(0).length(), 1);  // [""], as with any separator
  EXPECT_EQ(CallToString("split", {LitS("a--b"), LitS("--")}), "[[a, b]]");
  EXPECT_EQ(CallToString("split", {Col(Strings({"a b"})), NullLit()}), "[null]");
}

TEST(StringRegexTest, Matches) {
  auto s = Col(Strings({"abc123", "xyz", "", std::nullopt, "日本123"}));
  EXPECT_EQ(CallToString("regexp_matches", {s, LitS("[0-9]+")}),
            "[true, false, false, null, true]");
  EXPECT_EQ(CallToString("regexp_matches", {s, LitS("^x")}), "[false, true, false, null, false]");
  EXPECT_EQ(CallToString("regexp_matches", {s, LitS("^.{2}1")}),
            "[false, false, false, null, true]");
  EXPECT_EQ(CallToString("regexp_matches", {Col(Strings({"a\xFF"
                                                         "b"})),
                                            LitS("a.b")}),
            "[false]");
  EXPECT_EQ(CallToString("regexp_matches", {s, Col(Strings({"c1", "c1", "", "x", "本"}))}),
            "[true, false, true, null, true]");
}

TEST(StringRegexTest, InvalidPatternQuotesPatternAndReason) {
  auto r = Call("regexp_matches", {Col(Strings({})), LitS("a(b")});
  ASSERT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("'a(b'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("missing )"), std::string::npos) << r.status().message();
  r = Call("regexp_replace", {Col(Strings({"x"})), Col(Strings({"[x"})), LitS("")});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
}

TEST(StringRegexTest, Extract) {
  auto s = Col(Strings({"key=value", "nothing", std::nullopt, "k=", "a=1 b=2"}));
  EXPECT_EQ(CallToString("regexp_extract", {s, LitS("(\\w+)=(\\w*)"), LitI(2)}),
            "[value, null, null, , 1]");
  EXPECT_EQ(CallToString("regexp_extract", {s, LitS("(\\w+)=")}), "[key=, null, null, k=, a=]");
  EXPECT_EQ(CallToString("regexp_extract", {Col(Strings({"ab"})), LitS("a(x)?"), LitI(1)}),
            "[null]");
  auto r = Call("regexp_extract", {s, LitS("(a)"), LitI(2)});
  ASSERT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("1 capturing group"), std::string::npos);
}

TEST(StringRegexTest, ExtractAll) {
  auto s = Col(Strings({"a=1 b=22 c=", "", std::nullopt}));
  EXPECT_EQ(CallToString("regexp_extract_all", {s, LitS("[0-9]+")}), "[[1, 22], [], null]");
  EXPECT_EQ(CallToString("regexp_extract_all", {s, LitS("(\\w)=(\\d*)"), LitI(1)}),
            "[[a, b, c], [], null]");
  // Empty matches advance by one character, multi-byte included.
  EXPECT_EQ(CallToString("regexp_extract_all", {Col(Strings({"日本"})), LitS("x*")}), "[[, , ]]");
}

TEST(StringRegexTest, Replace) {
  auto s = Col(Strings({"aaa", "banana", "", std::nullopt}));
  EXPECT_EQ(CallToString("regexp_replace", {s, LitS("a"), LitS("o")}), "[oaa, bonana, , null]");
  EXPECT_EQ(CallToString("regexp_replace", {s, LitS("a"), LitS("o"), LitS("g")}),
            "[ooo, bonono, , null]");
  EXPECT_EQ(CallToString("regexp_replace",
                         {Col(Strings({"John Smith"})), LitS("(\\w+) (\\w+)"), LitS("\\2, \\1")}),
            "[Smith, John]");
  EXPECT_EQ(
      CallToString("regexp_replace", {Col(Strings({"AbA"})), LitS("a"), LitS("-"), LitS("gi")}),
      "[-b-]");
  EXPECT_EQ(Call("regexp_replace", {s, LitS("a"), LitS("\\3")}).status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(Call("regexp_replace", {s, LitS("a"), LitS("o"), LitS("q")}).status().code(),
            StatusCode::kInvalid);
}

TEST(StringRegexTest, Split) {
  EXPECT_EQ(CallToString("regexp_split",
                         {Col(Strings({"a1b22c", "", std::nullopt, "abc"})), LitS("[0-9]+")}),
            "[[a, b, c], [], null, [abc]]");
  EXPECT_EQ(CallToString("regexp_split", {Col(Strings({"abc"})), LitS("x*")}), "[[abc]]");
  EXPECT_EQ(CallToString("regexp_split", {Col(Strings({" a  b "})), LitS("\\s+")}), "[[, a, b, ]]");
}

TEST(StringNormalizeTest, Forms) {
  const std::string composed = "\xC3\xA9";      // é
  const std::string decomposed = "e\xCC\x81";   // e + combining acute
  const std::string ligature = "\xEF\xAC\x81";  // ﬁ
  auto s = Col(Strings({composed, decomposed, ligature, "", std::nullopt}));
  auto r = Call("normalize", {s, LitS("NFC")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->array().GetView(0), composed);
  EXPECT_EQ(r->array().GetView(1), composed);
  EXPECT_EQ(r->array().GetView(2), ligature);
  EXPECT_TRUE(r->array().IsNull(4));
  r = Call("normalize", {s, LitS("nfd")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->array().GetView(0), decomposed);
  r = Call("normalize", {s, LitS("NFKC")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->array().GetView(2), "fi");
  r = Call("normalize", {s});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->array().GetView(1), composed);
  EXPECT_EQ(Call("normalize", {s, LitS("NFX")}).status().code(), StatusCode::kInvalid);
}

TEST(StringNormalizeTest, InvalidUtf8IsAnErrorNamingTheRow) {
  auto r = Call("normalize", {Col(Strings({"ok", "bad\xFF"}))});
  ASSERT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("row 1"), std::string::npos);
}

TEST(StringNormalizeTest, NormalizeText) {
  auto s = Col(Strings({"  Hello,   World! ", "ＨＥＬＬＯ\u3000world", "Straße", "don't\tstop", "",
                        std::nullopt,
                        "bad\xFF"
                        "byte"}));
  EXPECT_EQ(CallToString("normalize_text", {s}),
            "[hello world, hello world, strasse, dont stop, , null, badbyte]");
  EXPECT_EQ(CallToString("normalize_text", {s, LitB(false)}),
            "[Hello World, HELLO world, Straße, dont stop, , null, badbyte]");
  EXPECT_EQ(CallToString("normalize_text", {s, LitB(true), LitB(false), LitB(true), LitB(false)}),
            "[  hello,   world! , hello world, strasse, don't\tstop, , null, badbyte]");
  EXPECT_EQ(CallToString("normalize_text", {s, NullLit()}),
            "[null, null, null, null, null, null, null]");
}

}  // namespace
}  // namespace flotilla::expr::functions
