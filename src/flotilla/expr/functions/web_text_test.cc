// html_to_text, the HTTP message functions and the text quality signals, against hand-worked
// documents.
#include <gtest/gtest.h>

#include "flotilla/expr/functions/function_test_support.h"

namespace flotilla::expr::functions {

using namespace flotilla::testing;  // NOLINT
using flotilla::testing::Call;

namespace {

std::string TextOf(const std::string& html) {
  auto r = Call("html_to_text", {Col(Strings({html}))});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::string(r->array().GetView(0));
}

double DoubleOf(const char* function, const std::string& text) {
  auto r = Call(function, {Col(Strings({text}))});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r->array().values<double>()[0];
}

TEST(HtmlToTextTest, BlocksBreakLinesAndWhiteSpaceCollapses) {
  EXPECT_EQ(TextOf("<html><head><title>The  title</title><meta charset=utf-8>"
                   "<style>p { color: red }</style><script>var x = '<p>no</p>';</script></head>"
                   "<body><h1>Head</h1><p>Hello <b>bold</b>&nbsp;world &amp; more</p>"
                   "<ul><li>one<li>two<br>three</ul><!-- a comment --><pre>a  b\nc</pre>"
                   "<noscript>enable js</noscript><p>caf&eacute; &#233;&#x41;</p></body></html>"),
            "The title\nHead\nHello bold world & more\none\ntwo\nthree\na  b\nc\ncafé éA");
}

TEST(HtmlToTextTest, BrokenMarkupIsReadAsBrowsersRead) {
  // Unclosed elements, stray end tags, an attribute without quotes, text outside <html>.
  EXPECT_EQ(TextOf("before<div class=x>inside <i>italic</div></span> after"),
            "before\ninside italic\nafter");
  EXPECT_EQ(TextOf(""), "");
  EXPECT_EQ(TextOf("<p>   </p>"), "");
}

TEST(HtmlToTextTest, InvalidUtf8AndBinaryInput) {
  EXPECT_EQ(TextOf("<p>caf\xe9</p>"), "caf\xEF\xBF\xBD");
  auto r = Call("html_to_text", {Col(Strings({"<b>x</b>", std::nullopt}, binary()))});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->array().GetView(0), "x");
  EXPECT_TRUE(r->array().IsNull(1));
  EXPECT_FALSE(Call("html_to_text", {Col(Ints({1}))}).ok());
}

TEST(HtmlToTextTest, HostileNestingIsLinearAndReadsTheSame) {
  // Deeper than the tree builder is given: the tag stripper reads it with the same rules.
  std::string deep;
  for (int i = 0; i < 100000; ++i)
    deep += "<div><b>";
  deep += "deep &amp; <script>skip()</script>text<br>next";
  EXPECT_EQ(TextOf(deep), "deep & text\nnext");
  const std::string page = "<p>Hello <b>bold</b>&nbsp;world</p><ul><li>one<li>two</ul>";
  std::string padded;
  for (int i = 0; i < 3000; ++i)
    padded += "<span>";
  EXPECT_EQ(TextOf(padded + page), TextOf(page));
}

TEST(HttpMessageTest, BodyAndHeaders) {
  const std::string response =
      "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nX-Empty:\r\n\r\n<p>hi</p>";
  auto body = Call("http_body", {Col(Strings({response, "no header end", std::nullopt}))});
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ(body->array().type()->id(), TypeId::kBinary);
  EXPECT_EQ(body->array().GetView(0), "<p>hi</p>");
  EXPECT_TRUE(body->array().IsNull(1));
  EXPECT_TRUE(body->array().IsNull(2));
  auto type = Call("http_header", {Col(Strings({response, response})), LitS("content-type")});
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(type->array().GetView(0), "text/html; charset=utf-8");
  auto missing = Call("http_header", {Col(Strings({response})), LitS("Location")});
  EXPECT_TRUE(missing->array().IsNull(0));
  auto empty = Call("http_header", {Col(Strings({response})), LitS("X-Empty")});
  EXPECT_EQ(empty->array().GetView(0), "");
}

TEST(HttpMessageTest, ChunkedBodiesAreDecoded) {
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n7;ext=1\r\n, world"
      "\r\n0\r\n\r\n";
  auto body = Call("http_body", {Col(Strings({chunked, chunked.substr(0, chunked.find("rld"))}))});
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->array().GetView(0), "Hello, world");
  EXPECT_EQ(body->array().GetView(1), "Hello, wo");  // cut short: what arrived
}

TEST(BinaryTextTest, DecodeIsStrictUnlessAskedToReplace) {
  auto ok = Call("decode", {Col(Strings({"h\xC3\xA9", std::nullopt}, binary()))});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->array().GetView(0), "h\xC3\xA9");
  EXPECT_TRUE(ok->array().IsNull(1));
  auto bad = Call("decode", {Col(Strings({"ok", "caf\xE9"}, binary()))});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("row 1 is not valid UTF-8"), std::string::npos);
  auto replaced = Call("decode", {Col(Strings({"caf\xE9!"}, binary())), LitS("replace")});
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ(replaced->array().GetView(0), "caf\xEF\xBF\xBD!");
  auto bytes = Call("encode", {Col(Strings({"h\xC3\xA9"}))});
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->array().type()->id(), TypeId::kBinary);
  EXPECT_EQ(bytes->array().GetView(0), "h\xC3\xA9");
}

TEST(TextQualityTest, WordsSymbolsAndRepeatedLines) {
  auto words = Call("text_word_count", {Col(Strings({"a  bb\tccc\n", "", "  ", std::nullopt}))});
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(words->array().values<int64_t>()[0], 3);
  EXPECT_EQ(words->array().values<int64_t>()[1], 0);
  EXPECT_EQ(words->array().values<int64_t>()[2], 0);
  EXPECT_TRUE(words->array().IsNull(3));
  EXPECT_DOUBLE_EQ(DoubleOf("text_mean_word_length", "a bb ccc"), 2.0);
  EXPECT_DOUBLE_EQ(DoubleOf("text_mean_word_length", "été ok"), 2.5);  // characters, not bytes
  // Four words; '#', "..." and the ellipsis character are three symbols.
  EXPECT_DOUBLE_EQ(DoubleOf("text_symbol_ratio", "#tag one... two\xE2\x80\xA6 three"), 0.75);
  // "ab", "c3" and "日本" have letters, "12" and ".." do not.
  EXPECT_DOUBLE_EQ(DoubleOf("text_alpha_word_ratio", "ab 12 c3 .. 日本"), 0.6);
  // Five non-empty lines, two repeat an earlier one (trimmed).
  EXPECT_DOUBLE_EQ(DoubleOf("text_duplicate_line_fraction", "x\ny\nx\n\n x \nz"), 0.4);
  EXPECT_DOUBLE_EQ(DoubleOf("text_duplicate_line_fraction", ""), 0.0);
}

}  // namespace
}  // namespace flotilla::expr::functions
