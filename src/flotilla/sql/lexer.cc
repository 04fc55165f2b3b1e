#include "flotilla/sql/lexer.h"

#include "flotilla/common/ascii.h"
#include "flotilla/common/utf8.h"
#include "flotilla/sql/source_error.h"

namespace flotilla::sql {

namespace {

bool IsIdentifierStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdentifierPart(unsigned char c) {
  return IsIdentifierStart(c) || (c >= '0' && c <= '9') || c == '$';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Longest first, so "<=" is not read as "<" then "=".
constexpr std::string_view kLongOperators[] = {"!~~", "::", ":=", "//", "<=", ">=",
                                               "<>",  "!=", "==", "||", "!~", "~~",
                                               "<<",  ">>", "->", "=>", "**"};
constexpr std::string_view kSingleOperators = "()[],;.:+-*/%^=<>~&|!{}";

class Lexer {
 public:
  explicit Lexer(std::string_view sql) : sql_(sql) {}

  Result<std::vector<Token>> Run() {
    if (!IsValidUtf8(sql_.data(), sql_.size())) return InvalidUtf8();
    std::vector<Token> tokens;
    while (true) {
      FLOTILLA_RETURN_NOT_OK(SkipSpaceAndComments());
      if (pos_ >= sql_.size()) break;
      FLOTILLA_ASSIGN_OR_RETURN(Token t, Next());
      tokens.push_back(std::move(t));
    }
    Token end;
    end.offset = static_cast<int64_t>(sql_.size());
    tokens.push_back(std::move(end));
    return tokens;
  }

 private:
  Status Error(size_t at, const std::string& message) const {
    return ErrorAt(sql_, static_cast<int64_t>(at), message);
  }

  // Points at the first character that is not valid UTF-8 (each sequence checked on its own).
  Status InvalidUtf8() const {
    size_t at = 0;
    while (at < sql_.size()) {
      const auto lead = static_cast<unsigned char>(sql_[at]);
      const size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
      if (at + length > sql_.size() || !IsValidUtf8(sql_.data() + at, length)) break;
      at += length;
    }
    return Error(at, "invalid UTF-8 in the SQL text");
  }

  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < sql_.size() ? sql_[pos_ + ahead] : '\0';
  }

  Status SkipSpaceAndComments() {
    while (pos_ < sql_.size()) {
      const char c = sql_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '-' && Peek(1) == '-') {
        while (pos_ < sql_.size() && sql_[pos_] != '\n')
          ++pos_;
      } else if (c == '/' && Peek(1) == '*') {
        const size_t start = pos_;
        pos_ += 2;
        int depth = 1;
        while (depth > 0) {
          if (pos_ + 1 >= sql_.size()) return Error(start, "unterminated /* comment");
          if (sql_[pos_] == '/' && sql_[pos_ + 1] == '*') {
            ++depth;
            pos_ += 2;
          } else if (sql_[pos_] == '*' && sql_[pos_ + 1] == '/') {
            --depth;
            pos_ += 2;
          } else {
            ++pos_;
          }
        }
      } else {
        return Status::OK();
      }
    }
    return Status::OK();
  }

  Token Make(TokenKind kind, std::string text, size_t start) const {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.offset = static_cast<int64_t>(start);
    t.length = static_cast<int64_t>(pos_ - start);
    return t;
  }

  Result<Token> Next() {
    const size_t start = pos_;
    const auto c = static_cast<unsigned char>(sql_[pos_]);
    if ((c == 'e' || c == 'E') && Peek(1) == '\'') {
      ++pos_;
      return Quoted('\'', TokenKind::kString, start, /*escapes=*/true);
    }
    if (c == '\'') return Quoted('\'', TokenKind::kString, start, false);
    if (c == '"') return Quoted('"', TokenKind::kQuotedIdentifier, start, false);
    if (IsIdentifierStart(c)) {
      while (pos_ < sql_.size() && IsIdentifierPart(static_cast<unsigned char>(sql_[pos_])))
        ++pos_;
      return Make(TokenKind::kIdentifier, std::string(sql_.substr(start, pos_ - start)), start);
    }
    if (IsDigit(static_cast<char>(c)) || (c == '.' && IsDigit(Peek(1)))) return Number(start);
    if (c == '?') {
      ++pos_;
      return Make(TokenKind::kParameter, "?", start);
    }
    if (c == '$' && IsDigit(Peek(1))) {
      ++pos_;
      while (IsDigit(Peek()))
        ++pos_;
      return Make(TokenKind::kParameter, std::string(sql_.substr(start, pos_ - start)), start);
    }
    for (std::string_view op : kLongOperators) {
      if (sql_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        return Make(TokenKind::kOperator, std::string(op), start);
      }
    }
    if (kSingleOperators.find(static_cast<char>(c)) != std::string_view::npos) {
      ++pos_;
      return Make(TokenKind::kOperator, std::string(1, static_cast<char>(c)), start);
    }
    return Error(start,
                 std::string("unexpected character '") + std::string(sql_.substr(start, 1)) + "'");
  }

  Result<Token> Number(size_t start) {
    bool is_float = false;
    while (IsDigit(Peek()))
      ++pos_;
    if (Peek() == '.' && Peek(1) != '.') {  // "1..2" would be a range, not "1." then ".2"
      is_float = true;
      ++pos_;
      while (IsDigit(Peek()))
        ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      const size_t mark = pos_;
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (IsDigit(Peek())) {
        is_float = true;
        while (IsDigit(Peek()))
          ++pos_;
      } else {
        pos_ = mark;  // "1e" without digits: the check below rejects it
      }
    }
    // As PostgreSQL: "12abc" or "1e" is an error, not a number followed by a name.
    if (IsIdentifierStart(static_cast<unsigned char>(Peek())))
      return Error(pos_, "a number runs into '" + std::string(1, Peek()) +
                             "'; put a space or an operator between them");
    return Make(is_float ? TokenKind::kFloat : TokenKind::kInteger,
                std::string(sql_.substr(start, pos_ - start)), start);
  }

  // A quoted string or identifier starting at the quote at pos_; a doubled quote is one quote.
  Result<Token> Quoted(char quote, TokenKind kind, size_t start, bool escapes) {
    ++pos_;
    std::string value;
    while (true) {
      if (pos_ >= sql_.size())
        return Error(start, kind == TokenKind::kString ? "unterminated string literal"
                                                       : "unterminated quoted identifier");
      const char c = sql_[pos_++];
      if (c == quote) {
        if (Peek() == quote) {
          value.push_back(quote);
          ++pos_;
          continue;
        }
        break;
      }
      if (escapes && c == '\\' && pos_ < sql_.size()) {
        const char e = sql_[pos_++];
        switch (e) {
          case 'n':
            value.push_back('\n');
            break;
          case 't':
            value.push_back('\t');
            break;
          case 'r':
            value.push_back('\r');
            break;
          case 'b':
            value.push_back('\b');
            break;
          case 'f':
            value.push_back('\f');
            break;
          case '0':
            value.push_back('\0');
            break;
          default:
            value.push_back(e);  // \\ \' and any other character stand for themselves
        }
        continue;
      }
      value.push_back(c);
    }
    if (kind == TokenKind::kQuotedIdentifier && value.empty())
      return Error(start, "empty quoted identifier");
    return Make(kind, std::move(value), start);
  }

  std::string_view sql_;
  size_t pos_ = 0;
};

}  // namespace

const char* TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kIdentifier:
      return "identifier";
    case TokenKind::kQuotedIdentifier:
      return "quoted identifier";
    case TokenKind::kString:
      return "string";
    case TokenKind::kInteger:
      return "integer";
    case TokenKind::kFloat:
      return "number";
    case TokenKind::kParameter:
      return "parameter";
    case TokenKind::kOperator:
      return "operator";
    case TokenKind::kEnd:
      return "end of input";
  }
  return "token";
}

bool Token::IsKeyword(std::string_view keyword) const {
  return kind == TokenKind::kIdentifier && AsciiEqualsIgnoreCase(text, keyword);
}

Result<std::vector<Token>> Tokenize(std::string_view sql) {
  return Lexer(sql).Run();
}

}  // namespace flotilla::sql
