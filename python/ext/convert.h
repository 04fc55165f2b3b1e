#pragma once
// Values between Python and Arrow arrays.
//
// Python -> Array: lists (None is null; the type is that of the first non-None value unless
// given: bool, int -> int64, float -> float64, str, bytes, datetime.date -> date32,
// datetime.datetime -> timestamp[us], decimal.Decimal -> decimal128(38, s), list -> list<T>,
// dict -> struct) and numpy arrays (numeric and bool dtypes copied in one memcpy, datetime64
// to timestamp/date32, object and str arrays value by value).
// Array -> Python: lists of Python values (to_pydict), or numpy arrays that share the Arrow
// buffer when the column is fixed-width without nulls (to_numpy).
#include <pybind11/pybind11.h>

#include "flotilla/columnar/array.h"

namespace flotilla::python {

namespace py = pybind11;

/// `values` (a list, tuple or numpy array) as an array; `type` may be null (inferred).
Result<Array> ToArray(const py::handle& values, TypePtr type = nullptr);

/// Row `i` of `array` as a Python object (None for null).
py::object ToPython(const Array& array, int64_t i);

/// Every value of `array` as a Python list.
py::list ToList(const Array& array);

/// A numpy array over `array`'s values: zero-copy for fixed-width columns without nulls
/// (ints, floats, date32 as datetime64[D], timestamps as datetime64[unit]); float columns with
/// nulls become NaN; anything else an object array.
py::object ToNumpy(const Array& array);

/// A Python exception for a failed Status (ValueError, TypeError, KeyError -> ValueError with
/// the message, IOError -> OSError, NotImplemented -> NotImplementedError).
[[noreturn]] void Raise(const Status& status);

template <typename T>
T Check(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(*result);
}
inline void Check(const Status& status) {
  if (!status.ok()) Raise(status);
}

}  // namespace flotilla::python
