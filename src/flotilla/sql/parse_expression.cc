#include <algorithm>
#include <array>
#include <string>

#include "flotilla/common/ascii.h"
#include "flotilla/common/stack_depth.h"
#include "flotilla/expr/expression.h"
#include "flotilla/sql/parser_internal.h"
#include "flotilla/sql/source_error.h"

namespace flotilla::sql::internal {

Result<NodePtr> Parser::BinaryNode(std::string op, int64_t at, NodePtr l, NodePtr r) {
  auto n = Make(NodeKind::kBinary, at);
  n->text = std::move(op);
  n->depth = std::max(l->depth, r->depth) + 1;
  n->args = {std::move(l), std::move(r)};
  FLOTILLA_RETURN_NOT_OK(CheckChainDepth(*n));
  return NodePtr(n);
}

Status Parser::CheckChainDepth(const Node& n) const {
  if (n.depth <= expr::kMaxExpressionDepth) return Status::OK();
  return ErrorAt(sql_, n.offset,
                 "a chain of more than " + std::to_string(expr::kMaxExpressionDepth) +
                     " operators; split the expression up");
}

// DuckDB's `* EXCLUDE (a, b)` (or `EXCLUDE a`) and `* REPLACE (expr AS a, ...)`.
Status Parser::StarModifiers(Node* star) {
  if (Keyword("exclude")) {
    if (Operator("(")) {
      do {
        FLOTILLA_ASSIGN_OR_RETURN(std::string name, Identifier("a column to exclude"));
        star->exclude.push_back(std::move(name));
      } while (Operator(","));
      FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(std::string name, Identifier("a column to exclude"));
      star->exclude.push_back(std::move(name));
    }
  }
  if (Keyword("replace")) {
    const bool parenthesized = Operator("(");
    do {
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr e, Expr());
      FLOTILLA_RETURN_NOT_OK(ExpectKeyword("as"));
      FLOTILLA_ASSIGN_OR_RETURN(std::string name, Identifier("the column replaced"));
      star->replace.push_back({std::move(e), std::move(name)});
    } while (parenthesized && Operator(","));
    if (parenthesized) FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  }
  return Status::OK();
}

Status Parser::NestingAllowed(int64_t offset) const {
  const Status st = CheckStackDepth("the query");
  return st.ok() ? st : ErrorAt(sql_, offset, st.message());
}

// AND and OR are associative: a chain of them becomes a balanced tree, so thousands of
// conditions stay a few levels deep.
Result<NodePtr> Parser::Balanced(const std::string& op, const std::vector<NodePtr>& terms,
                                 const std::vector<int64_t>& offsets, size_t lo, size_t hi) {
  if (hi - lo == 1) return terms[lo];
  const size_t mid = lo + (hi - lo + 1) / 2;  // the larger half first: three terms read as before
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Balanced(op, terms, offsets, lo, mid));
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Balanced(op, terms, offsets, mid, hi));
  return BinaryNode(op, offsets[mid], std::move(left), std::move(right));
}

Result<NodePtr> Parser::OrExpr() {
  std::vector<NodePtr> terms;
  std::vector<int64_t> offsets = {Peek().offset};
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr first, AndExpr());
  terms.push_back(std::move(first));
  while (Peek().IsKeyword("or")) {
    offsets.push_back(Next().offset);
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, AndExpr());
    terms.push_back(std::move(right));
  }
  return Balanced("OR", terms, offsets, 0, terms.size());
}

Result<NodePtr> Parser::AndExpr() {
  std::vector<NodePtr> terms;
  std::vector<int64_t> offsets = {Peek().offset};
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr first, NotExpr());
  terms.push_back(std::move(first));
  while (Peek().IsKeyword("and")) {
    offsets.push_back(Next().offset);
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, NotExpr());
    terms.push_back(std::move(right));
  }
  return Balanced("AND", terms, offsets, 0, terms.size());
}

Result<NodePtr> Parser::NotExpr() {
  if (Peek().IsKeyword("not") && !Peek(1).IsKeyword("exists")) {
    const int64_t at = Next().offset;
    FLOTILLA_RETURN_NOT_OK(NestingAllowed(at));
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr inner, NotExpr());
    auto n = Make(NodeKind::kUnary, at);
    n->text = "NOT";
    n->depth = inner->depth + 1;
    n->args = {inner};
    return NodePtr(n);
  }
  return Comparison();
}

Result<NodePtr> Parser::Comparison() {
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
            left,
            BinaryNode(negated ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM", at, left, right));
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

Result<NodePtr> Parser::Predicate() {
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Concat());
  while (true) {
    const int64_t at = Peek().offset;
    bool negated = false;
    if (Peek().IsKeyword("not") &&
        (Peek(1).IsKeyword("between") || Peek(1).IsKeyword("in") || Peek(1).IsKeyword("like") ||
         Peek(1).IsKeyword("ilike") || Peek(1).IsKeyword("similar") || Peek(1).IsKeyword("glob"))) {
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
               Peek().IsKeyword("similar") || Peek().IsKeyword("glob")) {
      std::string op = AsciiUpper(Next().text);
      if (op == "SIMILAR") {
        FLOTILLA_RETURN_NOT_OK(ExpectKeyword("to"));
        op = "SIMILAR TO";
      }
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr pattern, Concat());
      NodePtr like;
      if (Keyword("escape")) {
        if (op != "LIKE" && op != "ILIKE")
          return Error(tokens_[pos_ - 1], "ESCAPE belongs to LIKE");
        auto call = Make(NodeKind::kFunction, at);
        call->names = {AsciiLower(op)};
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

Result<NodePtr> Parser::Concat() {
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Additive());
  while (Peek().IsOperator("||") || Peek().IsOperator("~") || Peek().IsOperator("!~")) {
    const int64_t at = Peek().offset;
    std::string op = Next().text;
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Additive());
    FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode(op, at, left, right));
  }
  return left;
}

Result<NodePtr> Parser::Additive() {
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Multiplicative());
  while (Peek().IsOperator("+") || Peek().IsOperator("-")) {
    const int64_t at = Peek().offset;
    std::string op = Next().text;
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Multiplicative());
    FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode(op, at, left, right));
  }
  return left;
}

Result<NodePtr> Parser::Multiplicative() {
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

Result<NodePtr> Parser::Exponent() {
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr left, Unary());
  while (Peek().IsOperator("^") || Peek().IsOperator("**")) {  // ** as DuckDB spells it too
    const int64_t at = Next().offset;
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr right, Unary());
    FLOTILLA_ASSIGN_OR_RETURN(left, BinaryNode("^", at, left, right));
  }
  return left;
}

Result<NodePtr> Parser::Unary() {
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
    FLOTILLA_RETURN_NOT_OK(NestingAllowed(at));
    FLOTILLA_ASSIGN_OR_RETURN(NodePtr inner, Unary());
    if (op == "+") return inner;
    auto n = Make(NodeKind::kUnary, at);
    n->text = "-";
    n->depth = inner->depth + 1;
    n->args = {inner};
    return NodePtr(n);
  }
  FLOTILLA_RETURN_NOT_OK(NestingAllowed(Peek().offset));
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr primary, Primary());
  return Postfix(primary);
}

Result<NodePtr> Parser::Postfix(NodePtr e) {
  while (true) {
    if (Peek().IsOperator("::")) {
      const int64_t at = Next().offset;
      auto n = Make(NodeKind::kCast, at);
      FLOTILLA_ASSIGN_OR_RETURN(n->type, TypeName());
      n->depth = e->depth + 1;
      n->args = {e};
      FLOTILLA_RETURN_NOT_OK(CheckChainDepth(*n));
      e = n;
    } else if (Peek().IsOperator("[")) {
      const int64_t at = Next().offset;
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr index, Expr());
      FLOTILLA_RETURN_NOT_OK(ExpectOperator("]"));
      auto n = Make(NodeKind::kFunction, at);
      n->names = {"list_extract"};
      n->depth = std::max(e->depth, index->depth) + 1;
      n->args = {e, index};
      FLOTILLA_RETURN_NOT_OK(CheckChainDepth(*n));
      e = n;
    } else {
      return e;
    }
  }
}

Result<NodePtr> Parser::Primary() {
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
        if (Peek().IsKeyword("select") || Peek().IsKeyword("with") || Peek().IsKeyword("values") ||
            Peek().IsKeyword("from")) {
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
        auto n = Make(NodeKind::kStar, at);
        FLOTILLA_RETURN_NOT_OK(StarModifiers(n.get()));
        return NodePtr(n);
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
      if (t.text == "{") {  // a struct: {'name': value, ...}
        Next();
        auto n = Make(NodeKind::kFunction, at);
        n->names = {"struct_pack"};
        do {
          const Token& key = Peek();
          if (key.kind != TokenKind::kString && key.kind != TokenKind::kIdentifier &&
              key.kind != TokenKind::kQuotedIdentifier) {
            return Error(key, "expected a field name in a struct literal");
          }
          n->args.push_back(FieldName(Next()));
          FLOTILLA_RETURN_NOT_OK(ExpectOperator(":"));
          FLOTILLA_ASSIGN_OR_RETURN(NodePtr v, Expr());
          n->args.push_back(std::move(v));
        } while (Operator(","));
        FLOTILLA_RETURN_NOT_OK(ExpectOperator("}"));
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
      n->text = AsciiLower(Next().text);
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
      n->text = AsciiLower(Next().text);
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
      const std::string word = AsciiLower(Next().text);
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
  names.push_back(t.kind == TokenKind::kQuotedIdentifier ? Next().text : AsciiLower(Next().text));
  while (Peek().IsOperator(".")) {
    Next();
    if (Peek().IsOperator("*")) {
      Next();
      auto n = Make(NodeKind::kStar, at);
      n->names = std::move(names);
      FLOTILLA_RETURN_NOT_OK(StarModifiers(n.get()));
      return NodePtr(n);
    }
    const Token& part = Peek();
    if (part.kind == TokenKind::kQuotedIdentifier) {
      names.push_back(Next().text);
    } else if (part.kind == TokenKind::kIdentifier) {
      names.push_back(AsciiLower(Next().text));
    } else {
      return Error(part, "expected a column name after '.'");
    }
  }
  if (Peek().IsOperator("(") && names.size() == 1) return FunctionCall(names[0], at);
  auto n = Make(NodeKind::kColumnRef, at);
  n->names = std::move(names);
  return NodePtr(n);
}

// A function argument: `x -> body`, `(x, y, ...) -> body`, or an expression.
Result<NodePtr> Parser::LambdaOrExpr() {
  const int64_t at = Peek().offset;
  std::vector<std::string> params;
  if (AtIdentifier() && Peek(1).IsOperator("->")) {
    params.push_back(AsciiLower(Next().text));
  } else if (Peek().IsOperator("(")) {
    // (a, b, c) -> ...: identifiers separated by commas, then ") ->".
    int k = 1;
    while (Peek(k).kind == TokenKind::kIdentifier && Peek(k + 1).IsOperator(","))
      k += 2;
    if (Peek(k).kind != TokenKind::kIdentifier || !Peek(k + 1).IsOperator(")") ||
        !Peek(k + 2).IsOperator("->")) {
      return Expr();
    }
    Next();
    for (int i = 1; i <= k; i += 2) {
      params.push_back(AsciiLower(Next().text));
      Next();  // , or )
    }
  } else {
    return Expr();
  }
  Next();  // ->
  auto lambda = Make(NodeKind::kLambda, at);
  lambda->names = std::move(params);
  FLOTILLA_ASSIGN_OR_RETURN(NodePtr body, Expr());
  lambda->args.push_back(std::move(body));
  return NodePtr(lambda);
}

Result<NodePtr> Parser::FunctionCall(std::string name, int64_t at) {
  Next();  // (
  auto n = Make(NodeKind::kFunction, at);
  n->names = {std::move(name)};
  if (Operator("*")) {
    n->star = true;
    // COLUMNS(* EXCLUDE (a)): the columns of * but these.
    if (n->names[0] == "columns") FLOTILLA_RETURN_NOT_OK(StarModifiers(n.get()));
  } else if (!Peek().IsOperator(")")) {
    if (Keyword("distinct")) {
      n->distinct = true;
    } else {
      Keyword("all");
    }
    do {
      // struct_pack(name := value): the name becomes a string argument before its value.
      if ((Peek().kind == TokenKind::kIdentifier || Peek().kind == TokenKind::kQuotedIdentifier) &&
          Peek(1).IsOperator(":=")) {
        n->args.push_back(FieldName(Next()));
        Next();
      }
      FLOTILLA_ASSIGN_OR_RETURN(NodePtr arg, LambdaOrExpr());
      n->args.push_back(std::move(arg));
    } while (Operator(","));
    if (Keywords("order", "by")) {
      FLOTILLA_ASSIGN_OR_RETURN(n->order_by, OrderList());
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
    if (AtIdentifier()) {  // OVER w: a named window as it is
      auto w = std::make_shared<WindowAst>();
      w->offset = Peek().offset;
      FLOTILLA_ASSIGN_OR_RETURN(w->base, Identifier("a window name"));
      n->over = w;
      return NodePtr(n);
    }
    FLOTILLA_ASSIGN_OR_RETURN(n->over, WindowSpecification());
  }
  return NodePtr(n);
}

Result<std::shared_ptr<const WindowAst>> Parser::WindowSpecification() {
  auto w = std::make_shared<WindowAst>();
  w->offset = Peek().offset;
  FLOTILLA_RETURN_NOT_OK(ExpectOperator("("));
  {
    // (w ORDER BY ...): a named window refined.
    if (AtIdentifier() && !Peek().IsKeyword("partition") && !Peek().IsKeyword("order") &&
        !Peek().IsKeyword("rows") && !Peek().IsKeyword("range")) {
      FLOTILLA_ASSIGN_OR_RETURN(w->base, Identifier("a window name"));
    }
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
  }
  FLOTILLA_RETURN_NOT_OK(ExpectOperator(")"));
  return std::shared_ptr<const WindowAst>(w);
}

Result<NodePtr> Parser::SpecialCall() {
  const Token& name = Next();
  const int64_t at = name.offset;
  const std::string word = AsciiLower(name.text);
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

Result<FrameBoundAst> Parser::FrameBound() {
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

Result<NodePtr> Parser::CaseExpr() {
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

Result<NodePtr> Parser::IntervalLiteral() {
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
    n->unit = AsciiLower(Peek().text);
    static constexpr std::array kUnits = {
        "year",        "years",        "month",       "months",       "day",     "days",    "hour",
        "hours",       "minute",       "minutes",     "second",       "seconds", "week",    "weeks",
        "millisecond", "milliseconds", "microsecond", "microseconds", "quarter", "quarters"};
    if (std::find(kUnits.begin(), kUnits.end(), n->unit) != kUnits.end()) {
      Next();
    } else {
      n->unit.clear();
    }
  }
  return NodePtr(n);
}

}  // namespace flotilla::sql::internal
