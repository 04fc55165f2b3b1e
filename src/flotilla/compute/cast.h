#pragma once
// Cast: converts an array to another type, value by value.
//
// Supported conversions (anything else is a TypeError naming both types):
//   integer <-> integer        range-checked
//   integer/bool <-> float     float -> integer rounds to nearest, ties to even (as PostgreSQL
//                              and DuckDB); NaN, inf and out of range fail
//   integer/float/decimal -> decimal, decimal -> integer/float
//                              rounded half away from zero to the target scale; a value that
//                              needs more digits than the target precision fails
//   integer/float <-> bool     non-zero is true
//   string -> integer, float, decimal, bool, date32, timestamp   (see compute/parse.h; text
//                              like '2.5' or '1e3' casts to an integer rounded half away)
//   any of the above, date32, timestamp, duration -> string (the text Array::ValueToString
//                              prints)
//   string <-> large_string, date32 <-> timestamp (midnight / floor to the day), timestamp unit
//   changes (finer: checked multiply; coarser: floor)
//   null -> anything (all nulls); a type to itself (returned unchanged)
//   dictionary -> its value type (decoded: each row becomes the dictionary value its index
//                              points to; a null index or a null entry is null), and on to any
//                              type the value type casts to
// A value that cannot be converted is an Invalid error naming the value, its row and the target
// type when options.safe (CAST), and a null when not (TRY_CAST).

#include "flotilla/columnar/array.h"

namespace flotilla::compute {

struct CastOptions {
  /// true: a value that cannot be converted is an error (CAST); false: it becomes null
  /// (TRY_CAST).
  bool safe = true;
};

/// True when Cast supports converting `from` to `to` (individual values may still fail).
bool CanCast(const DataType& from, const DataType& to);

/// `values` converted to `to`. Nulls stay null.
Result<Array> Cast(const Array& values, const TypePtr& to, const CastOptions& options = {});

}  // namespace flotilla::compute
