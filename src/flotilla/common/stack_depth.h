#pragma once
// How much of the calling thread's stack is left, for code that recurses on its input (the SQL
// parser and planner on nested parentheses, subqueries, CASE, calls): past a reserve it returns
// an error instead of overflowing the stack, as PostgreSQL's check_stack_depth does. Measured
// from the thread's real stack bounds, so it holds for any thread's stack size and for
// sanitizer builds, whose frames are larger.
#include "flotilla/common/status.h"

namespace flotilla {

/// The bytes kept free: what the deepest step of the callers may still need.
inline constexpr int64_t kStackReserveBytes = 256 << 10;

/// OK while more than kStackReserveBytes of the thread's stack are left; otherwise an Invalid
/// status saying that `what` is nested too deeply.
Status CheckStackDepth(const char* what);

}  // namespace flotilla
