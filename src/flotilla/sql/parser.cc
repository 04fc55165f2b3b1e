#include "flotilla/sql/parser.h"

#include <algorithm>
#include <array>
#include <string>

#include "flotilla/sql/lexer.h"
#include "flotilla/sql/source_error.h"

namespace flotilla::sql {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

// Words that end an expression or a table reference, so they never become an alias written
// without AS.
constexpr std::array kReserved = {
    "all",    "and",       "anti",   "as",      "asc",    "between", "by",     "case",
    "cross",  "desc",      "distinct", "else",  "end",    "except",  "exists", "from",
    "full",   "group",     "having", "ilike",   "in",     "inner",   "intersect", "is",
    "join",   "left",      "like",   "limit",   "natural", "not",    "null",   "nulls",
    "offset", "on",        "or",     "order",   "outer",  "qualify", "right",  "select",
    "semi",   "then",      "union",  "using",   "values", "when",    "where",  "window",
    "with",   "asof",      "lateral", "positional", "into", "fetch",
};

bool IsReserved(const Token& t) {
  if (t.kind != TokenKind::kIdentifier) return false;
  const std::string lower = Lower(t.text);
  return std::find(kReserved.begin(), kReserved.end(), lower) != kReserved.end();
}

class Parser {
 public:
  Parser(std::string_view sql, std::vector<Token> tokens)
      : sql_(sql), tokens_(std::move(tokens)) {}

  Result<std::vector<Statement>> Statements() {
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

  Result<NodePtr> SingleExpression() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
    if (Peek().kind != TokenKind::kEnd) return Error(Peek(), "unexpected text after the expression");
    return e;
  }

  Result<TypePtr> SingleType() {
    FLOTILLA_ASSIGN_OR_RETURN(TypePtr t, TypeName());
    if (Peek().kind != TokenKind::kEnd) return Error(Peek(), "unexpected text after the type");
    return t;
  }

 private:
  // --- Token helpers ------------------------------------------------------------------------

  const Token& Peek(int ahead = 0) const {
    const size_t i = std::min(pos_ + static_cast<size_t>(ahead), tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool Keyword(std::string_view k) {
    if (!Peek().IsKeyword(k)) return false;
    Next();
    return true;
  }
  bool Keywords(std::string_view a, std::string_view b) {
    if (!Peek().IsKeyword(a) || !Peek(1).IsKeyword(b)) return false;
    Next();
    Next();
    return true;
  }
  bool Operator(std::string_view op) {
    if (!Peek().IsOperator(op)) return false;
    Next();
    return true;
  }
  Status Error(const Token& at, const std::string& message) const {
    std::string near;
    if (at.kind == TokenKind::kEnd) {
      near = " (at the end of the input)";
    } else {
      near = " near '" + std::string(sql_.substr(at.offset, at.length)) + "'";
    }
    return ErrorAt(sql_, at.offset, message + near);
  }
  Status ExpectKeyword(std::string_view k) {
    if (Keyword(k)) return Status::OK();
    return Error(Peek(), "expected " + Upper(k));
  }
  Status ExpectOperator(std::string_view op) {
    if (Operator(op)) return Status::OK();
    return Error(Peek(), "expected '" + std::string(op) + "'");
  }
  /// An identifier (folded to lower case) or a quoted identifier (kept).
  Result<std::string> Identifier(const char* what) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kQuotedIdentifier) return Next().text;
    if (t.kind == TokenKind::kIdentifier && !IsReserved(t)) return Lower(Next().text);
    return Error(t, std::string("expected ") + what);
  }
  bool AtIdentifier() const {
    const Token& t = Peek();
    return t.kind == TokenKind::kQuotedIdentifier ||
           (t.kind == TokenKind::kIdentifier && !IsReserved(t));
  }
  std::shared_ptr<Node> Make(NodeKind kind, int64_t offset) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->offset = offset;
    return n;
  }

  // --- Statements ---------------------------------------------------------------------------

  Result<Statement> ParseStatement() {
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
      FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
      return s;
    }
    if (!Peek().IsKeyword("select") && !Peek().IsKeyword("with") && !Peek().IsKeyword("values") &&
        !Peek().IsOperator("(") && !Peek().IsKeyword("from")) {
      return Error(Peek(), "expected a statement (SELECT, WITH, VALUES, EXPLAIN, CREATE, COPY, SET)");
    }
    s.kind = Statement::kQuery;
    FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
    return s;
  }

  Result<Statement> Create(Statement s) {
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
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("as"));
    FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
    return s;
  }

  Result<Statement> Copy(Statement s) {
    s.kind = Statement::kCopy;
    if (Operator("(")) {
      FLOTILLA_ASSIGN_OR_RETURN(s.query, ParseQuery());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    } else {
      // COPY table TO ...: the same as COPY (SELECT * FROM table).
      const int64_t at = Peek().offset;
      FLOTILLA_ASSIGN_OR_RETURN(std::string table, Identifier("a table name or '(' query ')'"));
      auto core = std::make_shared<SelectCore>();
      core->items.push_back({Make(NodeKind::kStar, at), ""});
      auto ref = std::make_shared<TableRef>();
      ref->kind = TableRef::kNamed;
      ref->name = table;
      ref->offset = at;
      core->from.push_back(ref);
      auto q = std::make_shared<Query>();
      q->select = core;
      q->offset = at;
      s.query = q;
    }
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("to"));
    if (Peek().kind != TokenKind::kString) return Error(Peek(), "expected a quoted file path");
    s.path = Next().text;
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
            n->text = Lower(Next().text);
            option.value = n;
          } else {
            FLOTILLA_ASSIGN_OR_RETURN(option.value, Expr());
          }
        }
        s.options.push_back(std::move(option));
      } while (Operator(","));
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    }
    return s;
  }

  // --- Queries ------------------------------------------------------------------------------

  Result<QueryPtr> ParseQuery() {
    const int64_t start = Peek().offset;
    std::vector<CommonTable> with;
    if (Keyword("with")) {
      Keyword("recursive");
      do {
        CommonTable cte;
        cte.offset = Peek().offset;
        FLOTILLA_ASSIGN_OR_RETURN(cte.name, Identifier("a name for the WITH query"));
        if (Operator("(")) {
          FLOTILLA_ASSIGN_OR_RETURN(cte.column_aliases, IdentifierList());
        }
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("as"));
        Keyword("materialized");
        FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
        FLOTILLA_ASSIGN_OR_RETURN(cte.query, ParseQuery());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
        with.push_back(std::move(cte));
      } while (Operator(","));
    }
    FLOTILLA_ASSIGN_OR_RETURN(QueryPtr body, SetOperation(0));
    auto q = std::make_shared<Query>(*body);
    q->offset = start;
    if (!with.empty()) {
      // WITH a AS (...) (WITH b AS (...) SELECT ...): b may use a.
      for (CommonTable& inner : q->with)
        with.push_back(std::move(inner));
      q->with = std::move(with);
    }
    if (Keywords("order", "by")) {
      FLOTILLA_ASSIGN_OR_RETURN(q->order_by, OrderList());
    }
    // LIMIT and OFFSET in either order.
    for (int i = 0; i < 2; ++i) {
      if (!q->limit && Keyword("limit")) {
        if (Keyword("all")) continue;
        FLOTILLA_ASSIGN_OR_RETURN(q->limit, Expr());
      } else if (!q->offset_rows && Keyword("offset")) {
        FLOTILLA_ASSIGN_OR_RETURN(q->offset_rows, Expr());
        if (!Keyword("rows")) Keyword("row");
      }
    }
    return QueryPtr(q);
  }

  // precedence: INTERSECT binds tighter than UNION / EXCEPT.
  Result<QueryPtr> SetOperation(int level) {
    FLOTILLA_ASSIGN_OR_RETURN(QueryPtr left, level == 0 ? SetOperation(1) : QueryTerm());
    while (true) {
      SetOpKind op;
      const int64_t at = Peek().offset;
      if (level == 0 && Keyword("union")) {
        op = SetOpKind::kUnion;
      } else if (level == 0 && Keyword("except")) {
        op = SetOpKind::kExcept;
      } else if (level == 1 && Keyword("intersect")) {
        op = SetOpKind::kIntersect;
      } else {
        return left;
      }
      const bool all = Keyword("all");
      if (!all) Keyword("distinct");
      FLOTILLA_ASSIGN_OR_RETURN(QueryPtr right, level == 0 ? SetOperation(1) : QueryTerm());
      auto q = std::make_shared<Query>();
      q->kind = Query::kSetOp;
      q->offset = at;
      q->set_op = op;
      q->all = all;
      q->left = std::move(left);
      q->right = std::move(right);
      left = std::move(q);
    }
  }

  Result<QueryPtr> QueryTerm() {
    const int64_t at = Peek().offset;
    if (Operator("(")) {
      FLOTILLA_ASSIGN_OR_RETURN(QueryPtr inner, ParseQuery());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      return inner;
    }
    if (Keyword("values")) {
      auto q = std::make_shared<Query>();
      q->kind = Query::kValues;
      q->offset = at;
      do {
        FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
        std::vector<NodePtr> row;
        do {
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
          row.push_back(std::move(e));
        } while (Operator(","));
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
        q->values.push_back(std::move(row));
      } while (Operator(","));
      return QueryPtr(q);
    }
    auto core = std::make_shared<SelectCore>();
    if (Peek().IsKeyword("from")) {
      // DuckDB's FROM-first form: FROM t [SELECT ...]; without SELECT it is SELECT *.
      Next();
      FLOTILLA_RETURN_NOT_OK(FromList(core.get()));
      if (Keyword("select")) {
        FLOTILLA_RETURN_NOT_OK(SelectList(core.get()));
      } else {
        core->items.push_back({Make(NodeKind::kStar, at), ""});
      }
    } else {
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("select"));
      FLOTILLA_RETURN_NOT_OK(SelectList(core.get()));
      if (Keyword("from")) FLOTILLA_RETURN_NOT_OK(FromList(core.get()));
    }
    if (Keyword("where")) {
      FLOTILLA_ASSIGN_OR_RETURN(core->where, Expr());
    }
    if (Keywords("group", "by")) {
      if (Keyword("all")) {
        core->group_by_all = true;
      } else {
        do {
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
          core->group_by.push_back(std::move(e));
        } while (Operator(","));
      }
    }
    if (Keyword("having")) {
      FLOTILLA_ASSIGN_OR_RETURN(core->having, Expr());
    }
    if (Keyword("qualify")) {
      FLOTILLA_ASSIGN_OR_RETURN(core->qualify, Expr());
    }
    auto q = std::make_shared<Query>();
    q->kind = Query::kSelect;
    q->offset = at;
    q->select = core;
    return QueryPtr(q);
  }

  Status SelectList(SelectCore* core) {
    if (Keyword("distinct")) {
      core->distinct = true;
    } else {
      Keyword("all");
    }
    do {
      SelectItem item;
      const int64_t start = Peek().offset;
      FLOTILLA_ASSIGN_OR_RETURN(item.expr, Expr());
      const Token& last = tokens_[pos_ - 1];
      item.text = std::string(sql_.substr(start, last.offset + last.length - start));
      if (Keyword("as")) {
        FLOTILLA_ASSIGN_OR_RETURN(item.alias, AliasName());
      } else if (AtIdentifier()) {
        FLOTILLA_ASSIGN_OR_RETURN(item.alias, Identifier("an alias"));
      }
      core->items.push_back(std::move(item));
    } while (Operator(",") && !Peek().IsKeyword("from"));
    return Status::OK();
  }

  Result<std::string> AliasName() {
    // After AS even a reserved word or a string may name a column.
    const Token& t = Peek();
    if (t.kind == TokenKind::kIdentifier) return Lower(Next().text);
    if (t.kind == TokenKind::kQuotedIdentifier || t.kind == TokenKind::kString) return Next().text;
    return Error(t, "expected an alias");
  }

  Result<std::vector<std::string>> IdentifierList() {  // after '('
    std::vector<std::string> names;
    do {
      FLOTILLA_ASSIGN_OR_RETURN(std::string n, Identifier("a column name"));
      names.push_back(std::move(n));
    } while (Operator(","));
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    return names;
  }

  Result<std::vector<OrderItem>> OrderList() {
    std::vector<OrderItem> items;
    do {
      OrderItem item;
      FLOTILLA_ASSIGN_OR_RETURN(item.expr, Expr());
      if (Keyword("desc")) {
        item.ascending = false;
      } else {
        Keyword("asc");
      }
      if (Keyword("nulls")) {
        if (Keyword("first")) {
          item.nulls_first = true;
        } else if (Keyword("last")) {
          item.nulls_first = false;
        } else {
          return Error(Peek(), "expected FIRST or LAST");
        }
      }
      items.push_back(std::move(item));
    } while (Operator(","));
    return items;
  }

  // --- FROM ---------------------------------------------------------------------------------

  Status FromList(SelectCore* core) {
    do {
      FLOTILLA_ASSIGN_OR_RETURN(TableRefPtr t, JoinedTable());
      core->from.push_back(std::move(t));
    } while (Operator(","));
    return Status::OK();
  }

  Result<TableRefPtr> JoinedTable() {
    FLOTILLA_ASSIGN_OR_RETURN(TableRefPtr left, TablePrimary());
    while (true) {
      const int64_t at = Peek().offset;
      auto join = std::make_shared<TableRef>();
      join->kind = TableRef::kJoin;
      join->offset = at;
      join->natural = Keyword("natural");
      if (Keyword("cross")) {
        join->join = JoinKind::kCross;
      } else if (Keyword("inner")) {
        join->join = JoinKind::kInner;
      } else if (Keyword("left")) {
        join->join = JoinKind::kLeft;
        if (Keyword("semi")) {
          join->join = JoinKind::kSemi;
        } else if (Keyword("anti")) {
          join->join = JoinKind::kAnti;
        } else {
          Keyword("outer");
        }
      } else if (Keyword("right")) {
        join->join = JoinKind::kRight;
        Keyword("outer");
      } else if (Keyword("full")) {
        join->join = JoinKind::kFull;
        Keyword("outer");
      } else if (Keyword("semi")) {
        join->join = JoinKind::kSemi;
      } else if (Keyword("anti")) {
        join->join = JoinKind::kAnti;
      } else if (!Peek().IsKeyword("join")) {
        if (join->natural) return Error(Peek(), "expected JOIN after NATURAL");
        return left;
      }
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("join"));
      FLOTILLA_ASSIGN_OR_RETURN(join->right, TablePrimary());
      join->left = std::move(left);
      if (join->join != JoinKind::kCross && !join->natural) {
        if (Keyword("on")) {
          FLOTILLA_ASSIGN_OR_RETURN(join->on, Expr());
        } else if (Keyword("using")) {
          FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
          FLOTILLA_ASSIGN_OR_RETURN(join->using_columns, IdentifierList());
        } else {
          return Error(Peek(), "expected ON or USING after the joined table");
        }
      }
      left = std::move(join);
    }
  }

  Result<TableRefPtr> TablePrimary() {
    auto t = std::make_shared<TableRef>();
    t->offset = Peek().offset;
    if (Operator("(")) {
      if (Peek().IsKeyword("select") || Peek().IsKeyword("with") || Peek().IsKeyword("values") ||
          Peek().IsKeyword("from") || Peek().IsOperator("(")) {
        t->kind = TableRef::kSubquery;
        FLOTILLA_ASSIGN_OR_RETURN(t->subquery, ParseQuery());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(TableRefPtr inner, JoinedTable());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
        if (!AtIdentifier() && !Peek().IsKeyword("as")) return inner;
        auto copy = std::make_shared<TableRef>(*inner);
        t = copy;
      }
    } else if (Peek().kind == TokenKind::kString) {
      t->kind = TableRef::kPath;
      t->name = Next().text;
    } else if (Peek().IsKeyword("values")) {
      t->kind = TableRef::kSubquery;
      FLOTILLA_ASSIGN_OR_RETURN(t->subquery, QueryTerm());
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(t->name, Identifier("a table name, a quoted path or '(' query ')'"));
      while (Operator(".")) {  // schema.table: the last part names the table
        FLOTILLA_ASSIGN_OR_RETURN(t->name, Identifier("a table name"));
      }
      if (Operator("(")) {
        t->kind = TableRef::kFunction;
        if (!Operator(")")) {
          do {
            NamedArg arg;
            if ((Peek().kind == TokenKind::kIdentifier ||
                 Peek().kind == TokenKind::kQuotedIdentifier) &&
                (Peek(1).IsOperator("=") || Peek(1).IsOperator(":="))) {
              arg.name = Lower(Next().text);
              Next();
            }
            FLOTILLA_ASSIGN_OR_RETURN(arg.value, Expr());
            t->args.push_back(std::move(arg));
          } while (Operator(","));
          FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
        }
      } else {
        t->kind = TableRef::kNamed;
      }
    }
    if (Keyword("as")) {
      FLOTILLA_ASSIGN_OR_RETURN(t->alias, Identifier("an alias"));
    } else if (AtIdentifier()) {
      t->alias = Identifier("an alias").ValueOrDie();
    }
    if (!t->alias.empty() && Operator("(")) {
      FLOTILLA_ASSIGN_OR_RETURN(t->column_aliases, IdentifierList());
    }
    return TableRefPtr(t);
  }

  // --- Expressions --------------------------------------------------------------------------

  Result<NodePtr> Expr() { return OrExpr(); }

  Result<NodePtr> BinaryNode(std::string op, int64_t at, NodePtr l, NodePtr r) {
    auto n = Make(NodeKind::kBinary, at);
    n->text = std::move(op);
    n->args = {std::move(l), std::move(r)};
    return NodePtr(n);
  }

  Result<NodePtr> OrExpr() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, AndExpr());
    while (Peek().IsKeyword("or")) {
      const int64_t at = Next().offset;
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, AndExpr());
      FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode("OR", at, left, right));
    }
    return left;
  }

  Result<NodePtr> AndExpr() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, NotExpr());
    while (Peek().IsKeyword("and")) {
      const int64_t at = Next().offset;
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, NotExpr());
      FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode("AND", at, left, right));
    }
    return left;
  }

  Result<NodePtr> NotExpr() {
    if (Peek().IsKeyword("not") && !Peek(1).IsKeyword("exists")) {
      const int64_t at = Next().offset;
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr inner, NotExpr());
      auto n = Make(NodeKind::kUnary, at);
      n->text = "NOT";
      n->args = {inner};
      return NodePtr(n);
    }
    return Comparison();
  }

  Result<NodePtr> Comparison() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Predicate());
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kOperator &&
          (t.text == "=" || t.text == "==" || t.text == "<>" || t.text == "!=" || t.text == "<" ||
           t.text == "<=" || t.text == ">" || t.text == ">=")) {
        const int64_t at = t.offset;
        std::string op = Next().text;
        if (op == "==") op = "=";
        if (op == "!=") op = "<>";
        if ((Peek().IsKeyword("any") || Peek().IsKeyword("some") || Peek().IsKeyword("all")) &&
            Peek(1).IsOperator("(")) {
          auto n = Make(NodeKind::kQuantified, at);
          n->flag = Next().IsKeyword("all");
          Next();
          n->text = op;
          n->args = {left};
          FLOTILLA_ASSIGN_OR_RETURN(n->subquery, ParseQuery());
          FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
          left = n;
          continue;
        }
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Predicate());
        FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode(op, at, left, right));
        continue;
      }
      if (t.IsKeyword("is")) {
        const int64_t at = Next().offset;
        const bool negated = Keyword("not");
        if (Keyword("null")) {
          auto n = Make(NodeKind::kIsNull, at);
          n->flag = negated;
          n->args = {left};
          left = n;
        } else if (Peek().IsKeyword("true") || Peek().IsKeyword("false")) {
          // x IS TRUE: coalesce(x = true, false); IS NOT TRUE its negation.
          const bool value = Next().IsKeyword("true");
          auto lit = Make(NodeKind::kLiteral, at);
          lit->literal = LiteralKind::kBool;
          lit->text = value ? "true" : "false";
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr eq, BinaryNode("IS NOT DISTINCT FROM", at, left, lit));
          left = eq;
          if (negated) {
            auto n = Make(NodeKind::kUnary, at);
            n->text = "NOT";
            n->args = {left};
            left = n;
          }
        } else if (Keywords("distinct", "from")) {
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Predicate());
          FLOTILLA_ASSIGN_OR_RETURN(
              left, BinaryNode(negated ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM", at, left,
                               right));
        } else {
          return Error(Peek(), "expected NULL, TRUE, FALSE or DISTINCT FROM after IS");
        }
        continue;
      }
      if (t.IsKeyword("isnull") || t.IsKeyword("notnull")) {
        const bool negated = t.IsKeyword("notnull");
        auto n = Make(NodeKind::kIsNull, Next().offset);
        n->flag = negated;
        n->args = {left};
        left = n;
        continue;
      }
      return left;
    }
  }

  // BETWEEN, IN, LIKE (with an optional NOT before them).
  Result<NodePtr> Predicate() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Concat());
    while (true) {
      const int64_t at = Peek().offset;
      bool negated = false;
      if (Peek().IsKeyword("not") &&
          (Peek(1).IsKeyword("between") || Peek(1).IsKeyword("in") || Peek(1).IsKeyword("like") ||
           Peek(1).IsKeyword("ilike") || Peek(1).IsKeyword("similar"))) {
        Next();
        negated = true;
      }
      if (Keyword("between")) {
        Keyword("symmetric");
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr low, Concat());
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("and"));
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr high, Concat());
        auto n = Make(NodeKind::kBetween, at);
        n->flag = negated;
        n->args = {left, low, high};
        left = n;
      } else if (Keyword("in")) {
        FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
        if (Peek().IsKeyword("select") || Peek().IsKeyword("with") || Peek().IsKeyword("values") ||
            Peek().IsKeyword("from")) {
          auto n = Make(NodeKind::kInSubquery, at);
          n->flag = negated;
          n->args = {left};
          FLOTILLA_ASSIGN_OR_RETURN(n->subquery, ParseQuery());
          left = n;
        } else {
          auto n = Make(NodeKind::kInList, at);
          n->flag = negated;
          n->args = {left};
          do {
            FLOTILLA_ASSIGN_OR_RETURN(NodePtr v, Expr());
            n->args.push_back(std::move(v));
          } while (Operator(","));
          left = n;
        }
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      } else if (Peek().IsKeyword("like") || Peek().IsKeyword("ilike") ||
                 Peek().IsKeyword("similar")) {
        std::string op = Upper(Next().text);
        if (op == "SIMILAR") {
          FLOTILLA_RETURN_NOT_OK(ExpectKeyword("to"));
          op = "SIMILAR TO";
        }
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr pattern, Concat());
        NodePtr like;
        if (Keyword("escape")) {
          if (op != "LIKE" && op != "ILIKE") return Error(tokens_[pos_ - 1], "ESCAPE belongs to LIKE");
          auto call = Make(NodeKind::kFunction, at);
          call->names = {Lower(op)};
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr escape, Concat());
          call->args = {left, pattern, escape};
          like = call;
        } else {
          FLOTILLA_ASSIGN_OR_RETURN(like, BinaryNode(op, at, left, pattern));
        }
        if (negated) {
          auto n = Make(NodeKind::kUnary, at);
          n->text = "NOT";
          n->args = {like};
          like = n;
        }
        left = like;
      } else if (Peek().IsOperator("~~") || Peek().IsOperator("!~~")) {
        const bool neg = Next().text == "!~~";
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr pattern, Concat());
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr like, BinaryNode("LIKE", at, left, pattern));
        if (neg) {
          auto n = Make(NodeKind::kUnary, at);
          n->text = "NOT";
          n->args = {like};
          like = n;
        }
        left = like;
      } else {
        return left;
      }
    }
  }

  Result<NodePtr> Concat() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Additive());
    while (Peek().IsOperator("||") || Peek().IsOperator("~") || Peek().IsOperator("!~")) {
      const int64_t at = Peek().offset;
      std::string op = Next().text;
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Additive());
      FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode(op, at, left, right));
    }
    return left;
  }

  Result<NodePtr> Additive() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Multiplicative());
    while (Peek().IsOperator("+") || Peek().IsOperator("-")) {
      const int64_t at = Peek().offset;
      std::string op = Next().text;
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Multiplicative());
      FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode(op, at, left, right));
    }
    return left;
  }

  Result<NodePtr> Multiplicative() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Exponent());
    while (Peek().IsOperator("*") || Peek().IsOperator("/") || Peek().IsOperator("%") ||
           Peek().IsOperator("//")) {
      const int64_t at = Peek().offset;
      std::string op = Next().text;
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Exponent());
      FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode(op, at, left, right));
    }
    return left;
  }

  Result<NodePtr> Exponent() {
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Unary());
    while (Peek().IsOperator("^")) {
      const int64_t at = Next().offset;
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Unary());
      FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode("^", at, left, right));
    }
    return left;
  }

  Result<NodePtr> Unary() {
    if (Peek().IsOperator("-") || Peek().IsOperator("+")) {
      const Token& t = Next();
      const int64_t at = t.offset;
      const std::string op = t.text;
      // -5 is one literal, so -9223372036854775808 fits in int64.
      if (op == "-" && (Peek().kind == TokenKind::kInteger || Peek().kind == TokenKind::kFloat) &&
          !Peek(1).IsOperator("::") && !Peek(1).IsOperator("^")) {
        const Token& num = Next();
        auto n = Make(NodeKind::kLiteral, at);
        n->literal = num.kind == TokenKind::kInteger ? LiteralKind::kInteger : LiteralKind::kFloat;
        n->text = "-" + num.text;
        return Postfix(n);
      }
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr inner, Unary());
      if (op == "+") return inner;
      auto n = Make(NodeKind::kUnary, at);
      n->text = "-";
      n->args = {inner};
      return NodePtr(n);
    }
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr primary, Primary());
    return Postfix(primary);
  }

  Result<NodePtr> Postfix(NodePtr e) {
    while (true) {
      if (Peek().IsOperator("::")) {
        const int64_t at = Next().offset;
        auto n = Make(NodeKind::kCast, at);
        FLOTILLA_ASSIGN_OR_RETURN(n->type, TypeName());
        n->args = {e};
        e = n;
      } else if (Peek().IsOperator("[")) {
        const int64_t at = Next().offset;
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr index, Expr());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator("]"));
        auto n = Make(NodeKind::kFunction, at);
        n->names = {"list_extract"};
        n->args = {e, index};
        e = n;
      } else {
        return e;
      }
    }
  }

  Result<NodePtr> Primary() {
    const Token& t = Peek();
    const int64_t at = t.offset;
    switch (t.kind) {
      case TokenKind::kInteger:
      case TokenKind::kFloat: {
        auto n = Make(NodeKind::kLiteral, at);
        n->literal = t.kind == TokenKind::kInteger ? LiteralKind::kInteger : LiteralKind::kFloat;
        n->text = Next().text;
        return NodePtr(n);
      }
      case TokenKind::kString: {
        auto n = Make(NodeKind::kLiteral, at);
        n->literal = LiteralKind::kString;
        n->text = Next().text;
        return NodePtr(n);
      }
      case TokenKind::kParameter: {
        auto n = Make(NodeKind::kParameter, at);
        n->text = Next().text;
        return NodePtr(n);
      }
      case TokenKind::kOperator:
        if (t.text == "(") {
          Next();
          if (Peek().IsKeyword("select") || Peek().IsKeyword("with") ||
              Peek().IsKeyword("values") || Peek().IsKeyword("from")) {
            auto n = Make(NodeKind::kSubquery, at);
            FLOTILLA_ASSIGN_OR_RETURN(n->subquery, ParseQuery());
            FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
            return NodePtr(n);
          }
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr inner, Expr());
          if (Peek().IsOperator(",")) {
            auto row = Make(NodeKind::kRow, at);
            row->args.push_back(inner);
            while (Operator(",")) {
              FLOTILLA_ASSIGN_OR_RETURN(NodePtr next, Expr());
              row->args.push_back(std::move(next));
            }
            FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
            return NodePtr(row);
          }
          FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
          return inner;
        }
        if (t.text == "*") {
          Next();
          return NodePtr(Make(NodeKind::kStar, at));
        }
        if (t.text == "[") {  // a list: [1, 2, 3]
          Next();
          auto n = Make(NodeKind::kFunction, at);
          n->names = {"list_value"};
          if (!Peek().IsOperator("]")) {
            do {
              FLOTILLA_ASSIGN_OR_RETURN(NodePtr v, Expr());
              n->args.push_back(std::move(v));
            } while (Operator(","));
          }
          FLOTILLA_RETURN_NOT_OK(ExpectOperator("]"));
          return NodePtr(n);
        }
        return Error(t, "expected an expression");
      case TokenKind::kEnd:
        return Error(t, "expected an expression");
      case TokenKind::kQuotedIdentifier:
      case TokenKind::kIdentifier:
        break;
    }
    if (t.kind == TokenKind::kIdentifier) {
      if (t.IsKeyword("null")) {
        Next();
        auto n = Make(NodeKind::kLiteral, at);
        n->literal = LiteralKind::kNull;
        n->text = "NULL";
        return NodePtr(n);
      }
      if (t.IsKeyword("true") || t.IsKeyword("false")) {
        auto n = Make(NodeKind::kLiteral, at);
        n->literal = LiteralKind::kBool;
        n->text = Lower(Next().text);
        return NodePtr(n);
      }
      if (t.IsKeyword("case")) return CaseExpr();
      if ((t.IsKeyword("cast") || t.IsKeyword("try_cast")) && Peek(1).IsOperator("(")) {
        const bool try_cast = Next().IsKeyword("try_cast");
        Next();
        auto n = Make(NodeKind::kCast, at);
        n->flag = try_cast;
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr input, Expr());
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("as"));
        FLOTILLA_ASSIGN_OR_RETURN(n->type, TypeName());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
        n->args = {input};
        return NodePtr(n);
      }
      if (t.IsKeyword("exists") || (t.IsKeyword("not") && Peek(1).IsKeyword("exists"))) {
        const bool negated = Next().IsKeyword("not");
        if (negated) Next();
        FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
        auto n = Make(NodeKind::kExists, at);
        n->flag = negated;
        FLOTILLA_ASSIGN_OR_RETURN(n->subquery, ParseQuery());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
        return NodePtr(n);
      }
      if (t.IsKeyword("extract") && Peek(1).IsOperator("(")) {
        Next();
        Next();
        auto n = Make(NodeKind::kExtract, at);
        const Token& unit = Peek();
        if (unit.kind != TokenKind::kIdentifier && unit.kind != TokenKind::kString) {
          return Error(unit, "expected a date part (YEAR, MONTH, DAY, ...)");
        }
        n->text = Lower(Next().text);
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("from"));
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr input, Expr());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
        n->args = {input};
        return NodePtr(n);
      }
      if (t.IsKeyword("interval")) return IntervalLiteral();
      if (Peek(1).IsOperator("(") &&
          (t.IsKeyword("substring") || t.IsKeyword("trim") || t.IsKeyword("position"))) {
        return SpecialCall();
      }
      if ((t.IsKeyword("date") || t.IsKeyword("timestamp") || t.IsKeyword("time")) &&
          Peek(1).kind == TokenKind::kString) {
        auto n = Make(NodeKind::kTypedLiteral, at);
        const std::string word = Lower(Next().text);
        n->type = word == "date"        ? date32()
                  : word == "timestamp" ? timestamp(TimeUnit::kMicro)
                                        : time64(TimeUnit::kMicro);
        n->text = Next().text;
        return NodePtr(n);
      }
      if (IsReserved(t) && !Peek(1).IsOperator("(")) {
        return Error(t, "expected an expression");
      }
    }
    // A name: column, table.column, table.*, or a function call.
    std::vector<std::string> names;
    names.push_back(t.kind == TokenKind::kQuotedIdentifier ? Next().text : Lower(Next().text));
    while (Peek().IsOperator(".")) {
      Next();
      if (Peek().IsOperator("*")) {
        Next();
        auto n = Make(NodeKind::kStar, at);
        n->names = std::move(names);
        return NodePtr(n);
      }
      const Token& part = Peek();
      if (part.kind == TokenKind::kQuotedIdentifier) {
        names.push_back(Next().text);
      } else if (part.kind == TokenKind::kIdentifier) {
        names.push_back(Lower(Next().text));
      } else {
        return Error(part, "expected a column name after '.'");
      }
    }
    if (Peek().IsOperator("(") && names.size() == 1) return FunctionCall(names[0], at);
    auto n = Make(NodeKind::kColumnRef, at);
    n->names = std::move(names);
    return NodePtr(n);
  }

  Result<NodePtr> FunctionCall(std::string name, int64_t at) {
    Next();  // (
    auto n = Make(NodeKind::kFunction, at);
    n->names = {std::move(name)};
    if (Operator("*")) {
      n->star = true;
    } else if (!Peek().IsOperator(")")) {
      if (Keyword("distinct")) {
        n->distinct = true;
      } else {
        Keyword("all");
      }
      do {
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr arg, Expr());
        n->args.push_back(std::move(arg));
      } while (Operator(","));
      if (Keywords("order", "by")) {
        return Error(tokens_[pos_ - 1], "ORDER BY inside an aggregate call is not supported");
      }
    }
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    if (Peek().IsKeyword("filter") && Peek(1).IsOperator("(")) {
      Next();
      Next();
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("where"));
      FLOTILLA_ASSIGN_OR_RETURN(n->filter, Expr());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    }
    if (Keyword("over")) {
      FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
      auto w = std::make_shared<WindowAst>();
      if (Keywords("partition", "by")) {
        do {
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
          w->partition_by.push_back(std::move(e));
        } while (Operator(","));
      }
      if (Keywords("order", "by")) {
        FLOTILLA_ASSIGN_OR_RETURN(w->order_by, OrderList());
      }
      if (Peek().IsKeyword("rows") || Peek().IsKeyword("range")) {
        w->has_frame = true;
        w->rows = Next().IsKeyword("rows");
        if (Keyword("between")) {
          FLOTILLA_ASSIGN_OR_RETURN(w->start, FrameBound());
          FLOTILLA_RETURN_NOT_OK(ExpectKeyword("and"));
          FLOTILLA_ASSIGN_OR_RETURN(w->end, FrameBound());
        } else {
          FLOTILLA_ASSIGN_OR_RETURN(w->start, FrameBound());
          w->end.kind = FrameBoundAst::kCurrentRow;
        }
      }
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      n->over = w;
    }
    return NodePtr(n);
  }

  // SQL's keyword-argument forms: substring(s FROM a FOR b), trim([BOTH|LEADING|TRAILING]
  // [chars] FROM s), position(sub IN s). The plain call forms are parsed as usual.
  Result<NodePtr> SpecialCall() {
    const Token& name = Next();
    const int64_t at = name.offset;
    const std::string word = Lower(name.text);
    Next();  // (
    auto n = Make(NodeKind::kFunction, at);
    if (word == "position") {
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr sub, Concat());
      if (!Keyword("in")) {
        n->names = {"position"};
        n->args = {sub};
        while (Operator(",")) {
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
          n->args.push_back(std::move(e));
        }
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr s, Expr());
        n->names = {"strpos"};
        n->args = {s, sub};
      }
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      return NodePtr(n);
    }
    if (word == "trim") {
      n->names = {"trim"};
      if (Keyword("leading")) {
        n->names = {"ltrim"};
      } else if (Keyword("trailing")) {
        n->names = {"rtrim"};
      } else {
        Keyword("both");
      }
      NodePtr chars, s;
      if (Keyword("from")) {
        FLOTILLA_ASSIGN_OR_RETURN(s, Expr());
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr first, Expr());
        if (Keyword("from")) {
          chars = first;
          FLOTILLA_ASSIGN_OR_RETURN(s, Expr());
        } else {
          s = first;
          if (Operator(",")) {
            FLOTILLA_ASSIGN_OR_RETURN(chars, Expr());
          }
        }
      }
      n->args = {s};
      if (chars) n->args.push_back(chars);
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      return NodePtr(n);
    }
    n->names = {"substr"};  // substring
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr s, Expr());
    n->args = {s};
    if (Keyword("from")) {
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr start, Expr());
      n->args.push_back(start);
      if (Keyword("for")) {
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr length, Expr());
        n->args.push_back(length);
      }
    } else if (Keyword("for")) {
      auto one = Make(NodeKind::kLiteral, at);
      one->literal = LiteralKind::kInteger;
      one->text = "1";
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr length, Expr());
      n->args.push_back(one);
      n->args.push_back(length);
    } else {
      while (Operator(",")) {
        FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
        n->args.push_back(std::move(e));
      }
    }
    FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    return NodePtr(n);
  }

  Result<FrameBoundAst> FrameBound() {
    FrameBoundAst b;
    if (Keyword("unbounded")) {
      if (Keyword("preceding")) {
        b.kind = FrameBoundAst::kUnboundedPreceding;
      } else {
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("following"));
        b.kind = FrameBoundAst::kUnboundedFollowing;
      }
      return b;
    }
    if (Keywords("current", "row")) {
      b.kind = FrameBoundAst::kCurrentRow;
      return b;
    }
    FLOTILLA_ASSIGN_OR_RETURN(b.offset, Additive());
    if (Keyword("preceding")) {
      b.kind = FrameBoundAst::kPreceding;
    } else {
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("following"));
      b.kind = FrameBoundAst::kFollowing;
    }
    return b;
  }

  Result<NodePtr> CaseExpr() {
    auto n = Make(NodeKind::kCase, Next().offset);
    if (!Peek().IsKeyword("when")) {
      FLOTILLA_ASSIGN_OR_RETURN(n->operand, Expr());
    }
    while (Keyword("when")) {
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr when, Expr());
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("then"));
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr then, Expr());
      n->args.push_back(std::move(when));
      n->args.push_back(std::move(then));
    }
    if (n->args.empty()) return Error(Peek(), "expected WHEN");
    if (Keyword("else")) {
      FLOTILLA_ASSIGN_OR_RETURN(n->otherwise, Expr());
    }
    FLOTILLA_RETURN_NOT_OK(ExpectKeyword("end"));
    return NodePtr(n);
  }

  // INTERVAL '3' DAY, INTERVAL '3 days', INTERVAL 3 DAY, INTERVAL (expr) DAY is not taken.
  Result<NodePtr> IntervalLiteral() {
    auto n = Make(NodeKind::kInterval, Next().offset);
    const Token& q = Peek();
    if (q.kind == TokenKind::kString || q.kind == TokenKind::kInteger) {
      n->text = Next().text;
    } else if (q.IsOperator("-") && Peek(1).kind == TokenKind::kInteger) {
      Next();
      n->text = "-" + Next().text;
    } else {
      return Error(q, "expected the interval's quantity: INTERVAL '3' DAY or INTERVAL '3 days'");
    }
    if (Peek().kind == TokenKind::kIdentifier && !IsReserved(Peek())) {
      n->unit = Lower(Peek().text);
      static constexpr std::array kUnits = {
          "year",    "years",   "month",  "months",  "day",     "days",
          "hour",    "hours",   "minute", "minutes", "second",  "seconds",
          "week",    "weeks",   "millisecond", "milliseconds", "microsecond",
          "microseconds", "quarter", "quarters"};
      if (std::find(kUnits.begin(), kUnits.end(), n->unit) != kUnits.end()) {
        Next();
      } else {
        n->unit.clear();
      }
    }
    return NodePtr(n);
  }

  // --- Types --------------------------------------------------------------------------------

  Result<int64_t> IntegerToken() {
    const Token& t = Peek();
    if (t.kind != TokenKind::kInteger) return Error(t, "expected an integer");
    return std::stoll(Next().text);
  }

  Result<TypePtr> TypeName() {
    const Token& t = Peek();
    if (t.kind != TokenKind::kIdentifier && t.kind != TokenKind::kQuotedIdentifier) {
      return Error(t, "expected a type name");
    }
    const std::string name = Lower(Next().text);
    TypePtr type;
    if (name == "boolean" || name == "bool") {
      type = boolean();
    } else if (name == "tinyint" || name == "int1") {
      type = int8();
    } else if (name == "smallint" || name == "int2" || name == "short") {
      type = int16();
    } else if (name == "integer" || name == "int" || name == "int4" || name == "signed") {
      type = int32();
    } else if (name == "bigint" || name == "int8" || name == "long") {
      type = int64();
    } else if (name == "utinyint" || name == "uint8") {
      type = uint8();
    } else if (name == "usmallint" || name == "uint16") {
      type = uint16();
    } else if (name == "uinteger" || name == "uint32") {
      type = uint32();
    } else if (name == "ubigint" || name == "uint64") {
      type = uint64();
    } else if (name == "real" || name == "float4" || name == "float") {
      type = name == "float" ? float64() : float32();
      if (name == "float" && Operator("(")) {  // FLOAT(p): p <= 24 is single precision
        FLOTILLA_ASSIGN_OR_RETURN(int64_t p, IntegerToken());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
        type = p <= 24 ? float32() : float64();
      }
    } else if (name == "double" || name == "float8") {
      Keyword("precision");
      type = float64();
    } else if (name == "decimal" || name == "numeric" || name == "dec") {
      int64_t precision = 18, scale = 3;  // DuckDB's default
      if (Operator("(")) {
        FLOTILLA_ASSIGN_OR_RETURN(precision, IntegerToken());
        scale = 0;
        if (Operator(",")) {
          FLOTILLA_ASSIGN_OR_RETURN(scale, IntegerToken());
        }
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      }
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        return ErrorAt(sql_, t.offset,
                       "a decimal's precision must be 1..38 and its scale 0..precision, got (" +
                           std::to_string(precision) + ", " + std::to_string(scale) + ")");
      }
      type = decimal128(static_cast<int32_t>(precision), static_cast<int32_t>(scale));
    } else if (name == "varchar" || name == "text" || name == "string" || name == "char" ||
               name == "bpchar" || name == "character") {
      Keyword("varying");
      if (Operator("(")) {  // the length is accepted and not enforced, as DuckDB
        FLOTILLA_RETURN_NOT_OK(IntegerToken().status());
        FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
      }
      type = utf8();
    } else if (name == "blob" || name == "bytea" || name == "binary" || name == "varbinary") {
      type = binary();
    } else if (name == "date") {
      type = date32();
    } else if (name == "timestamp" || name == "datetime" || name == "timestamptz") {
      std::string tz;
      if (name == "timestamptz") tz = "UTC";
      if (Keyword("with")) {
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("time"));
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("zone"));
        tz = "UTC";
      } else if (Keyword("without")) {
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("time"));
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("zone"));
      }
      type = timestamp(TimeUnit::kMicro, tz);
    } else if (name == "timestamp_s") {
      type = timestamp(TimeUnit::kSecond);
    } else if (name == "timestamp_ms") {
      type = timestamp(TimeUnit::kMilli);
    } else if (name == "timestamp_ns") {
      type = timestamp(TimeUnit::kNano);
    } else if (name == "time") {
      type = time64(TimeUnit::kMicro);
    } else if (name == "interval") {
      type = duration(TimeUnit::kMicro);
    } else {
      return ErrorAt(sql_, t.offset, "unknown type '" + name + "'", StatusCode::kTypeError);
    }
    while (Peek().IsOperator("[") && Peek(1).IsOperator("]")) {
      Next();
      Next();
      type = list(type);
    }
    return type;
  }

  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::vector<Statement>> Parse(std::string_view sql) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(sql));
  return Parser(sql, std::move(tokens)).Statements();
}

Result<NodePtr> ParseExpression(std::string_view sql) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(sql));
  return Parser(sql, std::move(tokens)).SingleExpression();
}

Result<TypePtr> ParseTypeName(std::string_view sql) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(sql));
  return Parser(sql, std::move(tokens)).SingleType();
}

}  // namespace flotilla::sql
