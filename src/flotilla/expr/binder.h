#pragma once
// Binding: resolves an Expression against a schema into a typed tree the evaluator runs.
//
// What binding does:
//  - column names become indices (unknown names are a KeyError with a did-you-mean hint);
//  - operators become calls of registry functions ("add", "eq", "and", ...), and calls by name
//    are resolved in DefaultRegistry() with their argument count and types checked; a function
//    with resolve_with_literals also sees the values of its (folded) literal arguments;
//  - an untyped NULL argument a function rejects is cast to the first type that makes the call
//    resolve (the other arguments' types, then utf8, float64, int64, date32, timestamp[us],
//    bool): year(NULL) is a null int64, sqrt(NULL) a null float64;
//  - dictionary-encoded operands are decoded (a cast to the value type) wherever they are used
//    as values: operators, function and aggregate arguments, CASE/COALESCE branches, IN; only
//    a column reference, an alias, an explicit CAST to the same dictionary type and IS [NOT] NULL
//    keep the encoding;
//  - implicit casts are inserted as explicit kCast nodes (coercion rules below);
//  - BETWEEN becomes (x >= low AND x <= high), IF_ELSE a CASE;
//  - a subtree made only of literals is evaluated once and replaced by its value, and an
//    arithmetic or comparison operator with a NULL constant operand becomes a NULL constant.
//
// Coercion (operands of arithmetic, comparison, CASE branches, COALESCE, IN lists):
//  - untyped NULL takes the other side's type;
//  - integers widen to the wider type; signed with unsigned widens to the signed type wider than
//    the unsigned one (capped at int64, so uint64 with a signed type is int64, range-checked);
//  - integer with float -> the float type (float64 unless both are float32);
//  - integer with decimal -> decimal(digits of the integer type, 0); decimal with float ->
//    float64; two decimals are left alone for arithmetic (the kernel's precision rules apply)
//    and brought to a common decimal for CASE/COALESCE/IN;
//  - date32 with timestamp -> timestamp; timestamps of different units -> the finer unit;
//  - string with large_string -> large_string;
//  - a string literal compared with a date or timestamp is parsed as one (an unparsable literal
//    is an error naming the comparison); a string column is not converted implicitly.
// Errors name the sub-expression: "cannot compare date32 with string in `o_orderdate < 'abc'`".

#include <memory>
#include <string>
#include <vector>

#include "flotilla/expr/expression.h"
#include "flotilla/expr/function_registry.h"
#include "flotilla/types/schema.h"

namespace flotilla::expr {

enum class BoundKind {
  kColumn,     // column_index
  kLiteral,    // literal (one row)
  kCast,       // children[0] to type; safe = false for TRY_CAST
  kCall,       // function over children
  kCase,       // when0, then0, ..., else (always present; a typed null when not written)
  kIsIn,       // children[0] IN (children[1..], all literals of children[0]'s type); negated
  kIsNull,     // children[0] IS [NOT] NULL; negated
  kCoalesce,   // first non-null of children
  kAggregate,  // placeholder: evaluation is NotImplemented
  kWindow,     // placeholder: evaluation is NotImplemented
  // name (list_transform | list_filter) over children[0], a list, with children[1], the
  // lambda's body, bound against the input's columns followed by the element and its 1-based
  // position (column_index is the number of input columns); list_reduce[_from]: the body reads
  // the accumulator, the element and its position, children[2] is the initial value.
  kLambda,
};

struct BoundNode;
using BoundPtr = std::shared_ptr<const BoundNode>;

struct BoundNode {
  BoundKind kind;
  TypePtr type;  // the result type
  std::vector<BoundPtr> children;
  int column_index = -1;
  Array literal;
  const ScalarFunction* function = nullptr;
  std::string name;  // function / aggregate name
  bool safe = true;
  bool negated = false;
  std::string text;  // the source expression's ToString(), for error messages
};

/// A bound expression: its root and the name of the column it produces.
struct BoundExpression {
  BoundPtr root;
  std::string name;  // alias, column name, or the expression text
  const TypePtr& type() const { return root->type; }
};

/// Binds `expression` against `schema` (see the file comment).
Result<BoundExpression> Bind(const ExprPtr& expression, const Schema& schema);

/// Convenience: a bound node that is a literal.
BoundPtr MakeBoundLiteral(Array one_value, std::string text);

}  // namespace flotilla::expr
