#pragma once
// The SQL parser's internals, shared by its files (parser.h is the interface):
//   parser.cc            entry points, token helpers, statements
//   parse_query.cc       queries: WITH, set operations, SELECT clauses, FROM and joins
//   parse_expression.cc  expressions by precedence, calls, CASE, intervals, windows
//   parse_type.cc        type names
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/sql/ast.h"
#include "flotilla/sql/lexer.h"

namespace flotilla::sql::internal {

/// Words that end an expression or a table reference, so they never become an alias written
/// without AS.
bool IsReserved(const Token& t);

class Parser {
 public:
  Parser(std::string_view sql, std::vector<Token> tokens) : sql_(sql), tokens_(std::move(tokens)) {}

  Result<std::vector<Statement>> Statements();

  Result<NodePtr> SingleExpression();

  Result<TypePtr> SingleType();

 private:
  // --- Token helpers ------------------------------------------------------------------------

  const Token& Peek(int ahead = 0) const;
  const Token& Next();
  bool Keyword(std::string_view k);
  bool Keywords(std::string_view a, std::string_view b);
  bool Operator(std::string_view op);
  Status Error(const Token& at, const std::string& message) const;
  Status ExpectKeyword(std::string_view k);
  Status ExpectOperator(std::string_view op);
  /// An identifier (folded to lower case) or a quoted identifier (kept).
  Result<std::string> Identifier(const char* what);
  bool AtIdentifier() const;
  std::shared_ptr<Node> Make(NodeKind kind, int64_t offset);
  /// A struct field's name (an identifier or string, as written) as a string literal.
  NodePtr FieldName(const Token& name);

  // --- Statements ---------------------------------------------------------------------------

  Result<Statement> ParseStatement();

  Result<Statement> Create(Statement s);

  Result<Statement> Copy(Statement s);
  Result<Statement> CopyFrom(Statement s, std::string table);
  Status CopyOptions(Statement* s);
  QueryPtr SelectStarFrom(std::shared_ptr<const TableRef> ref);

  // --- Queries ------------------------------------------------------------------------------

  Result<QueryPtr> ParseQuery();

  // precedence: INTERSECT binds tighter than UNION / EXCEPT.
  Result<QueryPtr> SetOperation(int level);

  Result<QueryPtr> QueryTerm();

  Status SelectList(SelectCore* core);

  Status GroupByList(SelectCore* core);

  Result<SampleAst> SampleClause();
  Result<QueryPtr> Summarize(int64_t start);
  Result<QueryPtr> Pivot();
  Status PivotAggregates(PivotAst* p);
  Status PivotKeys(PivotAst* p);
  Result<SelectItem> WrittenExpression();
  Status TableSuffixes(TableRef* t);
  bool AtPivotClause() const;
  Result<QueryPtr> PivotClause(TableRefPtr source);

  Result<std::string> AliasName();

  Result<std::vector<std::string>> IdentifierList();

  Result<std::vector<OrderItem>> OrderList();

  // --- FROM ---------------------------------------------------------------------------------

  Status FromList(SelectCore* core);

  Result<TableRefPtr> JoinedTable();

  Result<TableRefPtr> TablePrimary();

  // --- Expressions --------------------------------------------------------------------------

  Result<NodePtr> Expr() { return OrExpr(); }

  Result<NodePtr> BinaryNode(std::string op, int64_t at, NodePtr l, NodePtr r);
  /// terms[lo, hi) joined by `op` as a balanced tree (`offsets[i]`: where operator i was).
  Result<NodePtr> Balanced(const std::string& op, const std::vector<NodePtr>& terms,
                           const std::vector<int64_t>& offsets, size_t lo, size_t hi);
  /// Invalid when `n` heads a chain deeper than expr::kMaxExpressionDepth.
  Status CheckChainDepth(const Node& n) const;
  /// Invalid, pointing at `offset`, when recursing deeper would run the stack out.
  Status NestingAllowed(int64_t offset) const;
  /// EXCLUDE / REPLACE after a `*`.
  Status StarModifiers(Node* star);

  Result<NodePtr> OrExpr();

  Result<NodePtr> AndExpr();

  Result<NodePtr> NotExpr();

  Result<NodePtr> Comparison();

  // BETWEEN, IN, LIKE (with an optional NOT before them).
  Result<NodePtr> Predicate();

  Result<NodePtr> Concat();

  Result<NodePtr> Additive();

  Result<NodePtr> Multiplicative();

  Result<NodePtr> Exponent();

  Result<NodePtr> Unary();

  Result<NodePtr> Postfix(NodePtr e);

  Result<NodePtr> Primary();

  /// ([name] [PARTITION BY ...] [ORDER BY ...] [frame]), for OVER and the WINDOW clause.
  Result<std::shared_ptr<const WindowAst>> WindowSpecification();

  Result<NodePtr> LambdaOrExpr();
  Result<NodePtr> FunctionCall(std::string name, int64_t at);

  // SQL's keyword-argument forms: substring(s FROM a FOR b), trim([BOTH|LEADING|TRAILING]
  // [chars] FROM s), position(sub IN s). The plain call forms are parsed as usual.
  Result<NodePtr> SpecialCall();

  Result<FrameBoundAst> FrameBound();

  Result<NodePtr> CaseExpr();

  // INTERVAL '3' DAY, INTERVAL '3 days', INTERVAL 3 DAY, INTERVAL (expr) DAY is not taken.
  Result<NodePtr> IntervalLiteral();

  // --- Types --------------------------------------------------------------------------------

  Result<int64_t> IntegerToken();

  Result<TypePtr> TypeName();

  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace flotilla::sql::internal
