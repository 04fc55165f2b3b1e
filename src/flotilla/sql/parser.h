#pragma once
// The SQL parser: tokens (lexer.h) to statements (ast.h), by recursive descent with
// PostgreSQL's operator precedence:
//
//   OR < AND < NOT < IS, comparisons < BETWEEN, IN, LIKE < || < + - < * / % < ^ < unary - < ::
//
// Statements: [WITH ...] SELECT / VALUES / set operations with ORDER BY, LIMIT, OFFSET;
// EXPLAIN [ANALYZE]; CREATE [OR REPLACE] [TEMP] VIEW name AS query; CREATE TABLE name AS query;
// COPY (query) | table TO 'path' (options); SET name = value; DROP VIEW|TABLE [IF EXISTS];
// SHOW TABLES; DESCRIBE name. Errors point at the offending token (source_error.h).
#include <string_view>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/sql/ast.h"

namespace flotilla::sql {

/// Every statement of `sql` (separated by semicolons).
Result<std::vector<Statement>> Parse(std::string_view sql);

/// One expression (the DataFrame API's `expr("...")`).
Result<NodePtr> ParseExpression(std::string_view sql);

/// A type name as SQL writes it: "INTEGER", "decimal(15, 2)", "varchar", "int[]".
Result<TypePtr> ParseTypeName(std::string_view sql);

}  // namespace flotilla::sql
