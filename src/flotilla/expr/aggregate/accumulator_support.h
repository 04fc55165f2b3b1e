#pragma once
// Internal helpers shared by the accumulator implementations: building result arrays from
// per-group vectors, type dispatch, and argument checks. Not part of the public contract.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/decimal.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::expr::aggregate_internal {

/// A fixed-width array of `type` from one C value per group; `valid` (1 = valid, one byte per
/// group) may be null for "all valid".
template <typename T>
Result<Array> MakeFixedWidthArray(const TypePtr& type, const std::vector<T>& values,
                                  const std::vector<uint8_t>* valid);
/// A boolean array from one byte per group.
Result<Array> MakeBooleanArray(const std::vector<uint8_t>& values,
                               const std::vector<uint8_t>* valid);

/// A string/binary (any offset width) or fixed_size_binary array from one value per group.
Result<Array> MakeBinaryArray(const TypePtr& type, const std::vector<std::string>& values,
                              const std::vector<uint8_t>* valid);

/// "sum() expects <what>, got <type> for argument <index+1>".
Status ArgumentTypeError(const std::string& function, const std::string& what, const TypePtr& type,
                         int index);

/// Checks that MergePartial got `expected` state arrays of at least `n` rows each.
Status CheckPartialState(const std::string& function, const std::vector<Array>& state,
                         size_t expected, int64_t n);

/// Calls `visit(T{})` with the C type of a numeric or temporal type (integers, floats, date32,
/// timestamp, duration) and returns its result; returns `otherwise()` for other types.
template <typename Visit, typename Otherwise>
auto VisitPrimitive(TypeId id, Visit&& visit, Otherwise&& otherwise) {
  return VisitPrimitiveType(id, visit, otherwise);
}

/// Value i of a decimal128 array (the values buffer may be unaligned for 16-byte loads).
inline Int128 DecimalAt(const Array& array, int64_t i) {
  Int128 v;
  __builtin_memcpy(&v, array.raw_values() + (array.offset() + i) * 16, 16);
  return v;
}

/// Calls `f(i)` for every valid row i < n of `array` (none for the null type), with a separate
/// loop for arrays without nulls. `f` returns false to stop; the result is the row where it
/// stopped, or -1 when every row was visited.
template <typename F>
int64_t ForEachValid(const Array& array, int64_t n, F&& f) {
  if (array.type_id() == TypeId::kNull) return -1;
  const uint8_t* validity = array.validity();
  if (array.null_count() == 0 || validity == nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      if (!f(i)) return i;
    }
    return -1;
  }
  const int64_t offset = array.offset();
  for (int64_t i = 0; i < n; ++i) {
    if (bit_util::GetBit(validity, offset + i) && !f(i)) return i;
  }
  return -1;
}

/// Grows a per-group vector to `n` entries filled with `init`.
template <typename T>
void GrowTo(std::vector<T>* v, int64_t n, const T& init = T()) {
  if (static_cast<int64_t>(v->size()) < n) v->resize(static_cast<size_t>(n), init);
}

/// Calls `f(i, x)` for every valid row i < n with its value x as a double (decimals scaled,
/// temporal types as their stored integer); other types visit nothing.
template <typename F>
void ForEachValidAsDouble(const Array& array, int64_t n, F&& f) {
  if (array.type_id() == TypeId::kDecimal128) {
    const double unit = std::pow(10.0, array.type()->scale());
    (void)ForEachValid(array, n, [&](int64_t i) {
      f(i, static_cast<double>(DecimalAt(array, i)) / unit);
      return true;
    });
    return;
  }
  VisitPrimitive(
      array.type_id(),
      [&](auto tag) {
        using T = decltype(tag);
        const T* values = array.values<T>();
        (void)ForEachValid(array, n, [&](int64_t i) {
          f(i, static_cast<double>(values[i]));
          return true;
        });
      },
      [] {});
}

}  // namespace flotilla::expr::aggregate_internal
