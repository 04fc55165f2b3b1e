#pragma once
// The SQL lexer: text to tokens, for a PostgreSQL/DuckDB-like dialect.
//
//   identifiers   letters, digits, _ and $ (not first), any non-ASCII letter; case-folded to
//                 lower case by the parser, so the token keeps the text as written
//   "quoted"      identifiers with "" for a quote, kept exactly
//   'strings'     with '' for a quote; E'...' also takes backslash escapes (\n \t \\ \' ...)
//   numbers       123, 1.5, .5, 1e10, 1.5E-3 (integer when there is no point or exponent)
//   $1, ?         parameters
//   operators     ( ) [ ] , ; . : :: := + - * / // % ^ = == <> != < <= > >= || ~ !~ ~~ !~~ & |
//                 << >>
//   comments      -- to the end of the line, and /* */ (nested, as PostgreSQL)
//
// Keywords are identifiers here: whether SELECT is a keyword depends on where it stands, which
// the parser knows. Every token records its byte offset, so errors can point at it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/common/result.h"

namespace flotilla::sql {

enum class TokenKind {
  kIdentifier,
  kQuotedIdentifier,
  kString,
  kInteger,
  kFloat,
  kParameter,
  kOperator,
  kEnd,  // after the last token
};

const char* TokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEnd;
  /// Identifiers and operators: the text as written; quoted identifiers and strings: the value
  /// with quotes removed and escapes applied; numbers and parameters: their text.
  std::string text;
  int64_t offset = 0;  // byte offset of the token's first character in the SQL text
  int64_t length = 0;  // bytes of the token in the SQL text

  /// An identifier (not quoted) equal to `keyword` ignoring ASCII case.
  bool IsKeyword(std::string_view keyword) const;
  bool IsOperator(std::string_view op) const { return kind == TokenKind::kOperator && text == op; }
};

/// The tokens of `sql`, ending with one kEnd token. Errors (an unterminated string, quoted
/// identifier or comment; a character that starts no token; invalid UTF-8) point at the place
/// with line, column and caret (source_error.h).
Result<std::vector<Token>> Tokenize(std::string_view sql);

}  // namespace flotilla::sql
