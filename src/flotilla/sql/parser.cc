#include "flotilla/sql/parser.h"

#include <algorithm>
#include <array>
#include <string>

#include "flotilla/common/ascii.h"
#include "flotilla/sql/parser_internal.h"
#include "flotilla/sql/source_error.h"

namespace flotilla::sql {
namespace internal {

constexpr std::array kReserved = {
    "all",    "and",   "anti",     "as",         "asc",     "between", "by",          "case",
    "cross",  "desc",  "distinct", "else",       "end",     "except",  "exists",      "from",
    "full",   "group", "having",   "ilike",      "in",      "inner",   "intersect",   "is",
    "join",   "left",  "like",     "limit",      "natural", "not",     "null",        "nulls",
    "offset", "on",    "or",       "order",      "outer",   "qualify", "right",       "select",
    "semi",   "then",  "union",    "using",      "values",  "when",    "where",       "window",
    "with",   "asof",  "lateral",  "positional", "into",    "fetch",   "tablesample",
};

bool IsReserved(const Token& t) {
  if (t.kind != TokenKind::kIdentifier) return false;
  const std::string lower = AsciiLower(t.text);
  return std::find(kReserved.begin(), kReserved.end(), lower) != kReserved.end();
}

Result<std::vector<Statement>> Parser::Statements() {
  std::vector<Statement> out;
  while (true) {
    while (Operator(";")) {
    }
    if (Peek().kind == TokenKind::kEnd) break;
    FLOTILLA_ASSIGN_OR_RETURN(Statement s, ParseStatement());
    out.push_back(std::move(s));
    if (Peek().kind != TokenKind::kEnd && !Peek().IsOperator(";")) {
      return Error(Peek(), "expected ';' or the end of the input");
    }
  }
  if (out.empty()) return ErrorAt(sql_, 0, "empty SQL: no statement to run");
  return out;
}

Result<NodePtr> Parser::SingleExpression() {
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
  if (Peek().kind != TokenKind::kEnd) return Error(Peek(), "unexpected text after the expression");
  return e;
}

Result<TypePtr> Parser::SingleType() {
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr t, TypeName());
  if (Peek().kind != TokenKind::kEnd) return Error(Peek(), "unexpected text after the type");
  return t;
}

const Token& Parser::Peek(int ahead) const {
  const size_t i = std::min(pos_ + static_cast<size_t>(ahead), tokens_.size() - 1);
  return tokens_[i];
}

const Token& Parser::Next() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Parser::Keyword(std::string_view k) {
  if (!Peek().IsKeyword(k)) return false;
  Next();
  return true;
}

bool Parser::Keywords(std::string_view a, std::string_view b) {
  if (!Peek().IsKeyword(a) || !Peek(1).IsKeyword(b)) return false;
  Next();
  Next();
  return true;
}

bool Parser::Operator(std::string_view op) {
  if (!Peek().IsOperator(op)) return false;
  Next();
  return true;
}

Status Parser::Error(const Token& at, const std::string& message) const {
  std::string near;
  if (at.kind == TokenKind::kEnd) {
    near = " (at the end of the input)";
  } else {
    near = " near '" + std::string(sql_.substr(at.offset, at.length)) + "'";
  }
  return ErrorAt(sql_, at.offset, message + near);
}

Status Parser::ExpectKeyword(std::string_view k) {
  if (Keyword(k)) return Status::OK();
  return Error(Peek(), "expected " + AsciiUpper(k));
}

Status Parser::ExpectOperator(std::string_view op) {
  if (Operator(op)) return Status::OK();
  return Error(Peek(), "expected '" + std::string(op) + "'");
}

Result<std::string> Parser::Identifier(const char* what) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kQuotedIdentifier) return Next().text;
  if (t.kind == TokenKind::kIdentifier && !IsReserved(t)) return AsciiLower(Next().text);
  return Error(t, std::string("expected ") + what);
}

bool Parser::AtIdentifier() const {
  const Token& t = Peek();
  return t.kind == TokenKind::kQuotedIdentifier ||
         (t.kind == TokenKind::kIdentifier && !IsReserved(t));
}

std::shared_ptr<Node> Parser::Make(NodeKind kind, int64_t offset) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->offset = offset;
  return n;
}

NodePtr Parser::FieldName(const Token& name) {
  auto n = Make(NodeKind::kLiteral, name.offset);
  n->literal = LiteralKind::kString;
  n->text = name.text;
  return n;
}

Result<Statement> Parser::ParseStatement() {
  Statement s;
  s.offset = Peek().offset;
  if (Keyword("explain")) {
    s.kind = Statement::kExplain;
    s.analyze = Keyword("analyze") || Keyword("analyse");
    FLOTILLA_ASSIGN_OR_RETURN(Statement inner, ParseStatement());
    if (inner.kind != Statement::kQuery) {
      return ErrorAt(sql_, inner.offset, "EXPLAIN takes a query");
    }
    s.inner = std::make_shared<Statement>(std::move(inner));
    return s;
  }
  if (Keyword("create")) return Create(std::move(s));
  if (Keywords("insert", "into")) {
    // INSERT INTO t [(a, b)] VALUES ... | SELECT ...
    s.kind = Statement::kInsert;
    FLOTILLA_ASSIGN_OR_RETURN(s.name, Identifier("a table name"));
    if (Peek().IsOperator("(") && !Peek(1).IsKeyword("select") && !Peek(1).IsKeyword("with") &&
        !Peek(1).IsKeyword("values") && !Peek(1).IsKeyword("from")) {
      Next();
      FLOTILLA_ASSIGN_OR_RETURN(s.column_aliases, IdentifierList());
    }
    FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
    return s;
  }
  if (Keyword("copy")) return Copy(std::move(s));
  if (Keyword("set")) {
    s.kind = Statement::kSet;
    FLOTILLA_ASSIGN_OR_RETURN(s.name, Identifier("a setting name"));
    while (Operator(".")) {
      FLOTILLA_ASSIGN_OR_RETURN(std::string part, Identifier("a setting name"));
      s.name += "." + part;
    }
    if (!Operator("=") && !Keyword("to")) return Error(Peek(), "expected '=' or TO");
    FLOTILLA_ASSIGN_OR_RETURN(s.value, Expr());
    return s;
  }
  if (Keyword("drop")) {
    s.kind = Statement::kDrop;
    if (!Keyword("view") && !Keyword("table")) return Error(Peek(), "expected VIEW or TABLE");
    s.if_exists = Keywords("if", "exists");
    FLOTILLA_ASSIGN_OR_RETURN(s.name, Identifier("a name"));
    return s;
  }
  if (Keywords("show", "tables")) {
    s.kind = Statement::kShowTables;
    return s;
  }
  if (Keyword("describe")) {
    s.kind = Statement::kDescribe;
    if (AtIdentifier() && !Peek().IsKeyword("select") && !Peek().IsKeyword("with") &&
        !Peek().IsKeyword("values") && !Peek().IsKeyword("from")) {
      // DESCRIBE t: the table's columns, as DESCRIBE SELECT * FROM t.
      auto ref = std::make_shared<TableRef>();
      ref->offset = Peek().offset;
      FLOTILLA_ASSIGN_OR_RETURN(ref->name, Identifier("a table name"));
      s.query = SelectStarFrom(ref);
      return s;
    }
    FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
    return s;
  }
  if (!Peek().IsKeyword("select") && !Peek().IsKeyword("with") && !Peek().IsKeyword("values") &&
      !Peek().IsOperator("(") && !Peek().IsKeyword("from") && !Peek().IsKeyword("summarize") &&
      !Peek().IsKeyword("pivot") && !Peek().IsKeyword("unpivot")) {
    return Error(Peek(),
                 "expected a statement (SELECT, WITH, VALUES, EXPLAIN, CREATE, INSERT, COPY, SET, "
                 "DROP, DESCRIBE, SUMMARIZE, PIVOT, UNPIVOT)");
  }
  s.kind = Statement::kQuery;
  FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
  return s;
}

Result<Statement> Parser::Create(Statement s) {
  if (Keywords("or", "replace")) s.or_replace = true;
  s.temporary = Keyword("temp") || Keyword("temporary");
  if (Keyword("view")) {
    s.kind = Statement::kCreateView;
  } else if (Keyword("table")) {
    s.kind = Statement::kCreateTable;
  } else {
    return Error(Peek(), "expected VIEW or TABLE");
  }
  if (Keywords("if", "not")) {
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("exists"));
    s.if_exists = true;  // IF NOT EXISTS
  }
  FLOTILLA_ASSIGN_OR_RETURN(s.name, Identifier("a name"));
  if (s.kind == Statement::kCreateView && Operator("(")) {
    FLOTILLA_ASSIGN_OR_RETURN(s.column_aliases, IdentifierList());
  }
  if (s.kind == Statement::kCreateTable && Operator("(")) {
    // CREATE TABLE t (a INTEGER [NOT NULL | NULL], ...): an empty table.
    do {
      Field f;
      FLOTILLA_ASSIGN_OR_RETURN(f.name, Identifier("a column name"));
      FLOTILLA_ASSIGN_OR_RETURN(f.type, TypeName());
      while (true) {
        if (Keywords("not", "null")) {
          f.nullable = false;
        } else if (Keyword("null")) {
          f.nullable = true;
        } else if (Keywords("primary", "key") || Keyword("unique")) {
          return Error(tokens_[pos_ - 1], "constraints other than NOT NULL are not supported");
        } else {
          break;
        }
      }
      s.columns.push_back(std::move(f));
    } while (Operator(","));
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    return s;
  }
  FLOTILLA_RETURN_NOT_OK(ExpectKeyword("as"));
  FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
  return s;
}

QueryPtr Parser::SelectStarFrom(std::shared_ptr<const TableRef> ref) {
  auto core = std::make_shared<SelectCore>();
  core->items.push_back({Make(NodeKind::kStar, ref->offset), ""});
  core->from.push_back(ref);
  auto q = std::make_shared<Query>();
  q->offset = ref->offset;
  q->select = std::move(core);
  return q;
}

Result<Statement> Parser::Copy(Statement s) {
  s.kind = Statement::kCopy;
  if (Operator("(")) {
    FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  } else {
    // COPY table TO ...: the same as COPY (SELECT * FROM table).
    auto ref = std::make_shared<TableRef>();
    ref->offset = Peek().offset;
    FLOTILLA_ASSIGN_OR_RETURN(ref->name, Identifier("a table name or '(' query ')'"));
    if (Keyword("from")) return CopyFrom(std::move(s), ref->name);
    s.query = SelectStarFrom(ref);
  }
  FLOTILLA_RETURN_NOT_OK(ExpectKeyword("to"));
  if (Peek().kind != TokenKind::kString) return Error(Peek(), "expected a quoted file path");
  s.path = Next().text;
  FLOTILLA_RETURN_NOT_OK(CopyOptions(&s));
  return s;
}

// COPY t FROM 'path' [(options)]: INSERT INTO t SELECT * FROM read_<format>('path', options),
// the format from FORMAT or the path's extension; HEADER, DELIMITER/SEP, QUOTE, ESCAPE, NULL
// and SKIP become the CSV reader's options.
Result<Statement> Parser::CopyFrom(Statement s, std::string table) {
  s.kind = Statement::kInsert;
  s.name = std::move(table);
  if (Peek().kind != TokenKind::kString) return Error(Peek(), "expected a quoted file path");
  auto ref = std::make_shared<TableRef>();
  ref->kind = TableRef::kFunction;
  ref->offset = Peek().offset;
  auto path = Make(NodeKind::kLiteral, Peek().offset);
  path->literal = LiteralKind::kString;
  path->text = Next().text;
  ref->args.push_back({"", path});
  FLOTILLA_RETURN_NOT_OK(CopyOptions(&s));
  std::string format;
  auto ends_with = [&](std::string_view suffix) {
    return path->text.size() >= suffix.size() &&
           AsciiLower(path->text.substr(path->text.size() - suffix.size())) == suffix;
  };
  if (ends_with(".parquet")) format = "parquet";
  if (ends_with(".json") || ends_with(".jsonl") || ends_with(".ndjson")) format = "json";
  if (ends_with(".csv") || ends_with(".tsv") || ends_with(".txt")) format = "csv";
  for (const NamedArg& o : s.options) {
    std::string name = o.name;
    if (name == "format") {
      if (!o.value || o.value->kind != NodeKind::kLiteral) {
        return ErrorAt(sql_, s.offset, "COPY FROM: FORMAT takes parquet, csv or json");
      }
      format = AsciiLower(o.value->text);
      continue;
    }
    if (name == "delimiter" || name == "sep") name = "delim";
    if (name == "null") name = "nullstr";
    NodePtr value = o.value;
    // HEADER, HEADER true, HEADER false: booleans (a bare word was read as a string).
    if (!value || (value->kind == NodeKind::kLiteral && value->literal == LiteralKind::kString &&
                   (value->text == "true" || value->text == "false"))) {
      auto b = Make(NodeKind::kLiteral, value ? value->offset : s.offset);
      b->literal = LiteralKind::kBool;
      b->text = value ? value->text : "true";
      value = b;
    }
    ref->args.push_back({name, value});
  }
  if (format != "parquet" && format != "csv" && format != "json") {
    return ErrorAt(sql_, ref->offset,
                   "COPY FROM: cannot tell the format of '" + path->text +
                       "' from its name; give (FORMAT parquet | csv | json)");
  }
  ref->name = "read_" + format;
  s.query = SelectStarFrom(ref);
  return s;
}

Status Parser::CopyOptions(Statement* statement) {
  Statement& s = *statement;
  if (Operator("(")) {
    do {
      NamedArg option;
      FLOTILLA_ASSIGN_OR_RETURN(option.name, Identifier("an option name"));
      if (!Peek().IsOperator(",") && !Peek().IsOperator(")")) {
        Operator("=");
        if (AtIdentifier() && !Peek(1).IsOperator("(")) {
          // FORMAT parquet: a bare word is a string value.
          auto n = Make(NodeKind::kLiteral, Peek().offset);
          n->literal = LiteralKind::kString;
          n->text = AsciiLower(Next().text);
          option.value = n;
        } else {
          FLOTILLA_ASSIGN_OR_RETURN(option.value, Expr());
        }
      }
      s.options.push_back(std::move(option));
    } while (Operator(","));
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  }
  return Status::OK();
}

}  // namespace internal

Result<std::vector<Statement>> Parse(std::string_view sql) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(sql));
  return internal::Parser(sql, std::move(tokens)).Statements();
}

Result<NodePtr> ParseExpression(std::string_view sql) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(sql));
  return internal::Parser(sql, std::move(tokens)).SingleExpression();
}

Result<TypePtr> ParseTypeName(std::string_view sql) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(sql));
  return internal::Parser(sql, std::move(tokens)).SingleType();
}

}  // namespace flotilla::sql
