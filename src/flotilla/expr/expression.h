#pragma once
// The expression tree users build (from SQL, Python or C++): immutable nodes shared by pointer.
// An Expression is untyped; Bind (binder.h) resolves it against a schema.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/decimal.h"

namespace flotilla::expr {

class Expression;
using ExprPtr = std::shared_ptr<const Expression>;

enum class ExprKind {
  kColumn,     // name()
  kLiteral,    // literal(): a one-row array
  kAlias,      // children()[0] named name()
  kCast,       // children()[0] to cast_type(); try_cast() gives null instead of an error
  kUnary,      // unary_op() children()[0]
  kBinary,     // children()[0] binary_op() children()[1]
  kCall,       // scalar function name() over children()
  kCase,       // children() = when0, then0, when1, then1, ..., [else]; has_else()
  kIsIn,       // children()[0] IN (children()[1..]); negated() for NOT IN
  kBetween,    // children()[0] BETWEEN children()[1] AND children()[2]; negated()
  kIsNull,     // children()[0] IS NULL; negated() for IS NOT NULL
  kCoalesce,   // first non-null of children()
  kAggregate,  // aggregate name() over children(); evaluated by an aggregation operator
  kWindow,     // window function name() over children(); evaluated by a window operator
};

enum class UnaryOp { kNegate, kNot };
enum class BinaryOp {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kIntDiv,
  kMod,
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kAnd,
  kOr,
};

/// "+", "=", "AND", ...
const char* BinaryOpSymbol(BinaryOp op);
/// The registry function implementing `op`: "add", "eq", "and", ...
const char* BinaryOpFunctionName(BinaryOp op);

/// The deepest expression tree accepted (a lone column has depth 1; DuckDB's
/// max_expression_depth): binding, serializing, the SQL parser and the Python API refuse deeper
/// ones with an error, since every pass over a tree recurses. Binding and evaluating a chain
/// this deep takes under 1 MB of stack in an optimized build (about 5 MB under ASan at -O0),
/// within the 8 MB Linux gives a thread.
inline constexpr int kMaxExpressionDepth = 1000;

class Expression {
 public:
  ExprKind kind() const { return kind_; }
  /// Column name, alias, or function/aggregate/window name.
  const std::string& name() const { return name_; }
  const std::vector<ExprPtr>& children() const { return children_; }
  const Array& literal() const { return literal_; }
  const TypePtr& cast_type() const { return cast_type_; }
  bool try_cast() const { return flag_; }
  bool negated() const { return flag_; }
  bool has_else() const { return flag_; }
  UnaryOp unary_op() const { return unary_op_; }
  BinaryOp binary_op() const { return binary_op_; }
  /// Levels of the tree: 1 for a leaf.
  int depth() const { return depth_; }

  /// SQL-like text, e.g. "o_orderdate < '1995-03-15'"; used in error messages.
  std::string ToString() const;

  /// Low-level constructor; prefer the factory functions below.
  struct Parts {
    ExprKind kind;
    std::string name;
    std::vector<ExprPtr> children;
    Array literal;
    TypePtr cast_type;
    bool flag = false;
    UnaryOp unary_op = UnaryOp::kNegate;
    BinaryOp binary_op = BinaryOp::kAdd;
  };
  explicit Expression(Parts parts);

 private:
  ExprKind kind_;
  std::string name_;
  std::vector<ExprPtr> children_;
  Array literal_;
  TypePtr cast_type_;
  bool flag_;
  UnaryOp unary_op_;
  BinaryOp binary_op_;
  int depth_ = 1;
};

/// Invalid when `e` is deeper than kMaxExpressionDepth.
Status CheckExpressionDepth(const Expression& e);

// --- Factories -----------------------------------------------------------------------------

ExprPtr Column(std::string name);
/// A literal from a one-row array.
ExprPtr Literal(Array one_value);
ExprPtr Literal(int32_t value);  // int32, like an SQL integer literal
ExprPtr Literal(int64_t value);
ExprPtr Literal(double value);
ExprPtr Literal(bool value);
ExprPtr Literal(std::string value);
ExprPtr Literal(const char* value);  // a string (without it, "x" would become a bool)
/// A null of `type`; use null() for an untyped NULL that takes its type from context.
ExprPtr NullLiteral(TypePtr type);
ExprPtr DateLiteral(int64_t year, unsigned month, unsigned day);
/// `unscaled` / 10^scale as decimal128(precision, scale).
ExprPtr DecimalLiteral(Int128 unscaled, int32_t precision, int32_t scale);
/// "123.45" as decimal128(5, 2): precision and scale from the digits written.
Result<ExprPtr> DecimalLiteral(std::string_view text);
ExprPtr TimestampLiteral(int64_t value, TimeUnit unit);

ExprPtr Alias(ExprPtr input, std::string name);
ExprPtr Cast(ExprPtr input, TypePtr type);
ExprPtr TryCast(ExprPtr input, TypePtr type);
ExprPtr Negate(ExprPtr input);
ExprPtr Not(ExprPtr input);
ExprPtr Binary(BinaryOp op, ExprPtr left, ExprPtr right);
ExprPtr Add(ExprPtr left, ExprPtr right);
ExprPtr Subtract(ExprPtr left, ExprPtr right);
ExprPtr Multiply(ExprPtr left, ExprPtr right);
ExprPtr Divide(ExprPtr left, ExprPtr right);
ExprPtr IntDiv(ExprPtr left, ExprPtr right);
ExprPtr Mod(ExprPtr left, ExprPtr right);
ExprPtr Equal(ExprPtr left, ExprPtr right);
ExprPtr NotEqual(ExprPtr left, ExprPtr right);
ExprPtr Less(ExprPtr left, ExprPtr right);
ExprPtr LessEqual(ExprPtr left, ExprPtr right);
ExprPtr Greater(ExprPtr left, ExprPtr right);
ExprPtr GreaterEqual(ExprPtr left, ExprPtr right);
ExprPtr And(ExprPtr left, ExprPtr right);
ExprPtr Or(ExprPtr left, ExprPtr right);
/// A scalar function from DefaultRegistry(), resolved by name at bind time.
ExprPtr Call(std::string function, std::vector<ExprPtr> args);
/// CASE WHEN whens[i] THEN thens[i] ... [ELSE otherwise] END (otherwise may be nullptr).
ExprPtr Case(std::vector<std::pair<ExprPtr, ExprPtr>> when_then, ExprPtr otherwise = nullptr);
ExprPtr IfElse(ExprPtr condition, ExprPtr then, ExprPtr otherwise);
/// `input IN (values...)`; the values must be literals.
ExprPtr IsIn(ExprPtr input, std::vector<ExprPtr> values, bool negated = false);
ExprPtr Between(ExprPtr input, ExprPtr low, ExprPtr high, bool negated = false);
ExprPtr IsNull(ExprPtr input);
ExprPtr IsNotNull(ExprPtr input);
ExprPtr Coalesce(std::vector<ExprPtr> args);
ExprPtr Aggregate(std::string function, std::vector<ExprPtr> args);
ExprPtr Window(std::string function, std::vector<ExprPtr> args);

}  // namespace flotilla::expr
