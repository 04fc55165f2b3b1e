#include "flotilla/sql/lexer.h"

#include <gtest/gtest.h>

#include "flotilla/sql/source_error.h"

namespace flotilla::sql {
namespace {

// "kind:text" per token, without the end token.
std::vector<std::string> Lex(std::string_view sql) {
  auto tokens = Tokenize(sql);
  EXPECT_TRUE(tokens.ok()) << tokens.status().ToString();
  std::vector<std::string> out;
  if (!tokens.ok()) return out;
  EXPECT_EQ(tokens->back().kind, TokenKind::kEnd);
  for (size_t i = 0; i + 1 < tokens->size(); ++i)
    out.push_back(std::string(TokenKindName((*tokens)[i].kind)) + ":" + (*tokens)[i].text);
  return out;
}

std::string LexError(std::string_view sql) {
  auto tokens = Tokenize(sql);
  EXPECT_FALSE(tokens.ok()) << sql;
  return tokens.ok() ? "" : tokens.status().message();
}

TEST(Lexer, IdentifiersKeywordsAndOperators) {
  EXPECT_EQ(
      Lex("SELECT a, b_2 FROM t WHERE x>=1 AND y<>2"),
      (std::vector<std::string>{"identifier:SELECT", "identifier:a", "operator:,", "identifier:b_2",
                                "identifier:FROM", "identifier:t", "identifier:WHERE",
                                "identifier:x", "operator:>=", "integer:1", "identifier:AND",
                                "identifier:y", "operator:<>", "integer:2"}));
  EXPECT_EQ(Lex("x::int||'a'!=b<=c"),
            (std::vector<std::string>{"identifier:x", "operator:::", "identifier:int",
                                      "operator:||", "string:a", "operator:!=", "identifier:b",
                                      "operator:<=", "identifier:c"}));
  auto tokens = Tokenize("select Select");
  ASSERT_TRUE(tokens.ok());
  EXPECT_TRUE((*tokens)[0].IsKeyword("SELECT"));
  EXPECT_TRUE((*tokens)[1].IsKeyword("select"));
  EXPECT_FALSE((*tokens)[1].IsKeyword("selec"));
  EXPECT_EQ((*tokens)[1].offset, 7);
  EXPECT_EQ((*tokens)[1].length, 6);
  EXPECT_EQ(Lex("café_été"), (std::vector<std::string>{"identifier:café_été"}));
}

TEST(Lexer, QuotedIdentifiersAndStrings) {
  EXPECT_EQ(Lex(R"("My Col" "a""b" 'it''s' '' E'a\nb\'c')"),
            (std::vector<std::string>{"quoted identifier:My Col", "quoted identifier:a\"b",
                                      "string:it's", "string:", "string:a\nb'c"}));
  auto tokens = Tokenize("\"select\"");
  ASSERT_TRUE(tokens.ok());
  EXPECT_FALSE((*tokens)[0].IsKeyword("select"));  // quoted: a name, never a keyword
  EXPECT_EQ(Lex("FROM 'data/*.parquet'"),
            (std::vector<std::string>{"identifier:FROM", "string:data/*.parquet"}));
}

TEST(Lexer, NumbersParametersAndComments) {
  EXPECT_EQ(Lex("1 1.5 .5 1e10 2.5E-3 7."),
            (std::vector<std::string>{"integer:1", "number:1.5", "number:.5", "number:1e10",
                                      "number:2.5E-3", "number:7."}));
  EXPECT_EQ(Lex("a.b t.*"), (std::vector<std::string>{"identifier:a", "operator:.", "identifier:b",
                                                      "identifier:t", "operator:.", "operator:*"}));
  EXPECT_EQ(
      Lex("$1 + ? -- the rest\n/* a /* nested */ comment */ x"),
      (std::vector<std::string>{"parameter:$1", "operator:+", "parameter:?", "identifier:x"}));
  EXPECT_EQ(Lex("  \n\t-- only a comment"), std::vector<std::string>{});
}

TEST(Lexer, ErrorsPointAtTheTextWithLineColumnAndCaret) {
  EXPECT_EQ(LexError("SELECT 'abc"),
            "unterminated string literal at line 1, column 8:\n  SELECT 'abc\n         ^");
  EXPECT_EQ(LexError("SELECT a\nFROM t WHERE x = #"),
            "unexpected character '#' at line 2, column 18:\n  FROM t WHERE x = #\n"
            "                   ^");
  EXPECT_NE(LexError("SELECT \"abc").find("unterminated quoted identifier at line 1, column 8"),
            std::string::npos);
  EXPECT_NE(LexError("x /* open").find("unterminated /* comment at line 1, column 3"),
            std::string::npos);
  EXPECT_NE(LexError("SELECT 12abc").find("a number runs into 'a'"), std::string::npos);
  EXPECT_NE(LexError("SELECT 1e").find("a number runs into 'e'"), std::string::npos);
  EXPECT_NE(LexError("SELECT \"\"").find("empty quoted identifier"), std::string::npos);
  EXPECT_NE(LexError("SELECT 'a\xff'").find("invalid UTF-8 in the SQL text at line 1, column 10"),
            std::string::npos);
}

TEST(SourceError, ColumnsCountCharactersAndLongLinesAreCut) {
  // The caret sits under the character after "é" (2 bytes, one column).
  Status st = ErrorAt("SELECT 'é' + x", 13, "unknown column 'x'", StatusCode::kKeyError);
  EXPECT_EQ(st.code(), StatusCode::kKeyError);
  EXPECT_EQ(st.message(),
            "unknown column 'x' at line 1, column 13:\n  SELECT 'é' + x\n"
            "              ^");
  const std::string long_line = "SELECT " + std::string(200, 'a') + " + b" + std::string(100, ' ');
  st = ErrorAt(long_line, 210, "here");
  const std::string& m = st.message();
  EXPECT_NE(m.find("at line 1, column 211"), std::string::npos) << m;
  const size_t shown = m.find("\n  ") + 3;
  const size_t caret_line = m.find('\n', shown) + 1;
  const std::string line = m.substr(shown, caret_line - 1 - shown);
  EXPECT_EQ(line.substr(0, 3), "...");
  EXPECT_EQ(line.substr(line.size() - 3), "...");
  EXPECT_LT(line.size(), 110u);
  const size_t caret = m.find('^', caret_line) - caret_line - 2;
  EXPECT_EQ(line[caret], 'b');
  EXPECT_EQ(PositionOf("a\r\nbc", 4).line, 2);
  EXPECT_EQ(PositionOf("a\r\nbc", 4).column, 2);
}

}  // namespace
}  // namespace flotilla::sql
