#pragma once
// The syntax tree the SQL parser produces: statements, queries, table references and
// expressions, exactly as written (names not yet resolved, types not yet checked). Every node
// keeps the byte offset it starts at, so the planner's errors can point into the text.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flotilla/types/data_type.h"

namespace flotilla::sql {

struct Query;
using QueryPtr = std::shared_ptr<const Query>;
struct Node;
using NodePtr = std::shared_ptr<const Node>;

enum class NodeKind {
  kColumnRef,     // names: [table.]column (one or two parts)
  kStar,          // names: [] or [table] for t.*
  kLiteral,       // literal, text
  kTypedLiteral,  // DATE '...' / TIMESTAMP '...': type, text
  kInterval,      // INTERVAL '3' DAY / INTERVAL '3 days': text (the quantity), unit
  kParameter,     // $1 or ?: text
  kUnary,         // op ("-", "+", "NOT") args[0]
  kBinary,        // args[0] op args[1]; op in upper case for words ("AND", "LIKE", "||", "=")
  kFunction,      // names[0](args) [FILTER (WHERE filter)] [OVER window]; distinct, star
  kCast,          // CAST(args[0] AS type), args[0]::type; flag: TRY_CAST
  kCase,          // CASE [operand] WHEN args[2i] THEN args[2i+1] ... [ELSE otherwise] END
  kInList,        // args[0] [NOT] IN (args[1..]); flag: NOT
  kInSubquery,    // args[0] [NOT] IN (subquery); flag: NOT
  kExists,        // [NOT] EXISTS (subquery); flag: NOT
  kSubquery,      // (subquery), a scalar
  kBetween,       // args[0] [NOT] BETWEEN args[1] AND args[2]; flag: NOT
  kIsNull,        // args[0] IS [NOT] NULL; flag: NOT
  kExtract,       // EXTRACT(unit FROM args[0])
  kQuantified,    // args[0] op ANY|ALL (subquery): text = op, flag: ALL
  kRow,           // (args[0], args[1], ...): a row value, on the left of IN (subquery)
  kLambda,        // names -> args[0]: a list function's lambda (x -> x + 1, (x, i) -> ...)
};

enum class LiteralKind { kNull, kBool, kInteger, kFloat, kString };

struct OrderItem {
  NodePtr expr;
  bool ascending = true;
  std::optional<bool> nulls_first;  // absent: NULLS LAST ascending, NULLS FIRST descending
};

struct FrameBoundAst {
  enum Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = kCurrentRow;
  NodePtr offset;  // kPreceding / kFollowing
};

struct WindowAst {
  std::string base;    // OVER w / OVER (w ...): the named window (WINDOW w AS (...)) refined
  int64_t offset = 0;  // where the specification starts
  std::vector<NodePtr> partition_by;
  std::vector<OrderItem> order_by;
  bool has_frame = false;
  bool rows = false;  // ROWS, else RANGE
  FrameBoundAst start, end;
};

struct Node {
  NodeKind kind;
  int64_t offset = 0;
  std::vector<std::string> names;
  std::string text;  // literal text, operator, interval quantity, extract unit
  std::string unit;  // interval unit
  LiteralKind literal = LiteralKind::kNull;
  bool flag = false;      // NOT / TRY_CAST
  bool distinct = false;  // f(DISTINCT x)
  bool star = false;      // count(*)
  TypePtr type;
  std::vector<NodePtr> args;
  NodePtr operand, otherwise, filter;
  /// kStar: `* EXCLUDE (a, b)` names left out, `* REPLACE (expr AS a)` columns given instead.
  std::vector<std::string> exclude;
  std::vector<std::pair<NodePtr, std::string>> replace;
  /// Levels of operator chains under this node (binary operators, casts, subscripts), which
  /// the parser builds in loops, not by recursion: it refuses chains deeper than
  /// expr::kMaxExpressionDepth. Nesting by recursion is bounded by the stack (CheckStackDepth).
  int depth = 1;
  QueryPtr subquery;
  std::shared_ptr<const WindowAst> over;
  std::vector<OrderItem> order_by;  // f(x ORDER BY ...): an ordered aggregate
};

enum class JoinKind { kInner, kLeft, kRight, kFull, kCross, kSemi, kAnti };

// USING SAMPLE / TABLESAMPLE: n ROWS or p PERCENT, with an optional seed.
struct SampleAst {
  bool percent = false;
  double amount = 0;
  std::optional<uint64_t> seed;
  int64_t offset = 0;
};

struct TableRef;
using TableRefPtr = std::shared_ptr<const TableRef>;

struct NamedArg {
  std::string name;  // empty for a positional argument
  NodePtr value;
};

struct TableRef {
  enum Kind { kNamed, kPath, kFunction, kSubquery, kJoin };
  Kind kind = kNamed;
  int64_t offset = 0;
  std::string name;  // table / function name, or the path
  std::vector<NamedArg> args;
  QueryPtr subquery;
  TableRefPtr left, right;
  JoinKind join = JoinKind::kInner;
  NodePtr on;
  std::vector<std::string> using_columns;
  bool natural = false;
  std::string alias;
  std::vector<std::string> column_aliases;
  std::optional<SampleAst> sample;  // t TABLESAMPLE ...: this table's rows sampled
};

struct SelectItem {
  NodePtr expr;
  std::string alias;  // empty when not written
  std::string text;   // the expression as written (the column's name without an alias)
};

struct SelectCore {
  bool distinct = false;
  std::vector<NodePtr> distinct_on;  // DISTINCT ON (...): one row per value of these
  std::vector<SelectItem> items;
  std::vector<TableRefPtr> from;  // comma-separated: cross joins
  NodePtr where;
  std::vector<NodePtr> group_by;
  bool group_by_all = false;
  // GROUPING SETS / ROLLUP / CUBE: each set lists positions in group_by; empty for a plain
  // GROUP BY (one set of every key).
  std::vector<std::vector<size_t>> grouping_sets;
  NodePtr having;
  NodePtr qualify;
  std::map<std::string, std::shared_ptr<const WindowAst>> windows;  // WINDOW name AS (...)
  // USING SAMPLE n ROWS | p PERCENT [REPEATABLE (seed)]: applied to the FROM clause's rows.
  std::optional<SampleAst> sample;
};

struct CommonTable {
  std::string name;
  std::vector<std::string> column_aliases;
  QueryPtr query;
  int64_t offset = 0;
  bool recursive = false;  // under WITH RECURSIVE: may refer to itself
};

// PIVOT source ON cols [IN (values)] [USING aggregates] [GROUP BY keys] and
// UNPIVOT source ON cols [INTO NAME n VALUE v], DuckDB's statements.
struct PivotAst {
  TableRefPtr source;
  std::vector<NodePtr> on;  // PIVOT: whose values become columns; UNPIVOT: the columns folded
  std::vector<NodePtr> in;  // PIVOT ... ON k IN (...): the values (else every value found)
  std::vector<SelectItem> aggregates;  // USING (count(*) when none)
  std::vector<NodePtr> group_by;       // none: every column not in ON or the aggregates
  std::string name_column = "name", value_column = "value";  // UNPIVOT ... INTO
  bool include_nulls = false;  // FROM t UNPIVOT INCLUDE NULLS (...): NULL values kept
};

enum class SetOpKind { kUnion, kIntersect, kExcept };

struct Query {
  // kSummarize: SUMMARIZE left, a row of statistics per column of left's result.
  enum Kind { kSelect, kSetOp, kValues, kSummarize, kPivot, kUnpivot };
  Kind kind = kSelect;
  int64_t offset = 0;
  std::vector<CommonTable> with;
  std::shared_ptr<const SelectCore> select;
  SetOpKind set_op = SetOpKind::kUnion;
  bool all = false;
  bool by_name = false;  // UNION [ALL] BY NAME: columns matched by name, missing ones NULL
  QueryPtr left, right;
  std::vector<std::vector<NodePtr>> values;
  std::shared_ptr<const PivotAst> pivot;  // kPivot, kUnpivot
  std::vector<OrderItem> order_by;
  NodePtr limit, offset_rows;
};

struct Statement {
  enum Kind {
    kQuery,
    kExplain,
    kCreateView,
    kCreateTable,
    kCopy,
    kSet,
    kDrop,
    kShowTables,
    kDescribe,
    kInsert,
  };
  Kind kind = kQuery;
  int64_t offset = 0;
  QueryPtr query;
  bool analyze = false;                     // EXPLAIN ANALYZE
  std::shared_ptr<const Statement> inner;   // EXPLAIN's statement
  std::string name;                         // view / table / setting
  std::vector<std::string> column_aliases;  // CREATE VIEW v (a, b); INSERT INTO t (a, b)
  std::vector<Field> columns;               // CREATE TABLE t (a INTEGER, b VARCHAR)
  bool temporary = false, or_replace = false, if_exists = false;
  std::string path;               // COPY ... TO 'path'
  std::vector<NamedArg> options;  // COPY's (FORMAT parquet, ...)
  NodePtr value;                  // SET's value
};

}  // namespace flotilla::sql
