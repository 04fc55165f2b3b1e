#pragma once
// Evaluation of bound expressions over a RecordBatch, vectorized over whole columns.
//
// The result is a scalar Datum when it does not depend on the rows (only literals below it),
// else a column of batch.num_rows() rows. SQL null semantics throughout: comparisons and
// arithmetic with a null give null; AND/OR/NOT are Kleene; CASE takes the first WHEN that is
// true (null counts as not true), else ELSE (null when absent); coalesce takes the first non-null
// argument; x IN (list) is true on a match, null when x is null or when there is no match and the
// list holds a null, else false. CASE evaluates each WHEN on the rows no earlier WHEN took and
// each THEN/ELSE on the rows that take it; coalesce evaluates an argument on the rows where all
// before it are null. So a guard keeps failing rows away (CASE WHEN x > 0 THEN sqrt(x) END),
// while a row that does reach a failing branch makes the whole evaluation fail.

#include "flotilla/columnar/record_batch.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/datum.h"

namespace flotilla::expr {

/// Evaluates `expression` (bound against `batch`'s schema) over `batch`.
Result<Datum> Evaluate(const BoundExpression& expression, const RecordBatch& batch);
/// Evaluates one bound node.
Result<Datum> Evaluate(const BoundNode& node, const RecordBatch& batch);

}  // namespace flotilla::expr
