#pragma once
// Shared plumbing of the scalar function families: argument type checks that produce the
// registry's TypeError wording, typed reads of one row of a Datum, and the row loops that
// broadcast scalars and return a scalar only when every argument is one.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/datum.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::expr::functions {

// --- Resolve-time checks ------------------------------------------------------------------------

/// "lower() expects a string, got int64 for argument 1" (arguments are numbered from 1).
Status ArgumentTypeError(std::string_view function, size_t index, std::string_view expected,
                         const TypePtr& got);

/// A null-typed argument (an untyped NULL literal) is accepted wherever a scalar value is: every
/// kernel tests IsNull before reading a row, and a null-typed array is null everywhere.
bool IsStringOrNull(const DataType& type);
bool IsBinaryOrNull(const DataType& type);  // binary or large_binary, not text
bool IsIntegerOrNull(const DataType& type);
bool IsBoolOrNull(const DataType& type);
bool IsList(const DataType& type);  // list or fixed_size_list

Status ExpectString(std::string_view function, const std::vector<TypePtr>& types, size_t index);
Status ExpectInteger(std::string_view function, const std::vector<TypePtr>& types, size_t index);
Status ExpectBool(std::string_view function, const std::vector<TypePtr>& types, size_t index);
Status ExpectList(std::string_view function, const std::vector<TypePtr>& types, size_t index);

/// utf8, or large_utf8 when any argument in [first, end) is a large string: the output keeps the
/// widest offsets of its string inputs.
TypePtr StringResultType(const std::vector<TypePtr>& types, size_t first = 0,
                         size_t end = SIZE_MAX);

/// Checks every argument against `signature`, one letter per argument ('s' string, 'i' integer,
/// 'b' bool); the last letter repeats for variadic functions. Returns `result`, or when it is
/// null the StringResultType of the string arguments.
Result<TypePtr> ResolveSignature(std::string_view function, const std::vector<TypePtr>& types,
                                 std::string_view signature, TypePtr result = nullptr);

// --- Row access ---------------------------------------------------------------------------------

inline std::string_view ViewAt(const Datum& d, int64_t row) {
  return d.array().GetView(d.index(row));
}
/// A parameter (a count, position or index) of any integer type as int64; a uint64 above
/// INT64_MAX is an Invalid error naming `function`. The caller has checked the row is not null.
Result<int64_t> IntegerAt(const Datum& d, int64_t row, std::string_view function);
/// An integer value's bits widened to int64: uint64 is reinterpreted, not range-checked, for
/// callers that keep all 64 bits (list elements they read back by signedness, hash seeds) or
/// check the range themselves.
int64_t IntegerBitsAt(const Array& array, int64_t i);
/// Row `row` of a numeric datum as double (integers converted). Not null.
double DoubleAt(const Datum& d, int64_t row);
inline bool BoolAt(const Datum& d, int64_t row) {
  return d.array().BoolValue(d.index(row));
}

bool AllScalar(const std::vector<Datum>& args);
/// Rows the output has: 1 when every argument is a scalar, else `num_rows`.
inline int64_t OutputRows(const std::vector<Datum>& args, int64_t num_rows) {
  return AllScalar(args) ? 1 : num_rows;
}
bool AnyNull(const std::vector<Datum>& args, int64_t row);
/// `result` as a scalar Datum when every argument is a scalar, else as a column.
Datum MakeOutput(const std::vector<Datum>& args, Array result);
/// Finishes `builder` into a scalar Datum when every argument is a scalar, else a column.
Result<Datum> FinishDatum(ArrayBuilder* builder, const std::vector<Datum>& args);

/// Appends to a string or large_string builder without the caller knowing which.
class StringAppender {
 public:
  explicit StringAppender(ArrayBuilder* builder)
      : builder_(builder),
        small_(builder->type()->has_large_offsets() ? nullptr
                                                    : static_cast<StringBuilder*>(builder)),
        large_(builder->type()->has_large_offsets() ? static_cast<LargeStringBuilder*>(builder)
                                                    : nullptr) {}
  Status Append(std::string_view value) {
    return small_ ? small_->Append(value) : large_->Append(value);
  }
  Status AppendNull() { return builder_->AppendNull(); }

 private:
  ArrayBuilder* builder_;
  StringBuilder* small_;
  LargeStringBuilder* large_;
};

/// Validity of a null-propagating kernel's output over `n` rows: valid where every argument is.
/// `bitmap` is null when no argument has a null, so kernels can skip per-row checks.
struct PropagatedNulls {
  BufferPtr bitmap;
  int64_t null_count = 0;
};
Result<PropagatedNulls> PropagateNulls(const std::vector<Datum>& args, int64_t n);

/// A fixed-width result (`values` holds n values of `type`) with `nulls`, as a scalar Datum when
/// every argument is a scalar, else a column.
Result<Datum> MakeFixedWidthDatum(const std::vector<Datum>& args, TypePtr type, int64_t n,
                                  PropagatedNulls nulls, BufferPtr values);

/// \brief The column-at-a-time loop of null-propagating kernels with a numeric result:
/// out[row] = fn(row) for each row where no argument is null (0 elsewhere). `fn` returns a T
/// and cannot fail; no builder, no per-row null test when the arguments have no nulls.
template <typename T, typename Fn>
Result<Datum> MapValues(const std::vector<Datum>& args, int64_t num_rows, TypePtr type, Fn&& fn) {
  const int64_t n = OutputRows(args, num_rows);
  FLOTILLA_ASSIGN_OR_RETURN(PropagatedNulls nulls, PropagateNulls(args, n));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values,
                            Buffer::Allocate(n * static_cast<int64_t>(sizeof(T))));
  T* out = reinterpret_cast<T*>(values->mutable_data());
  if (nulls.bitmap == nullptr) {
    for (int64_t row = 0; row < n; ++row)
      out[row] = fn(row);
  } else {
    const uint8_t* valid = nulls.bitmap->data();
    for (int64_t row = 0; row < n; ++row)
      out[row] = bit_util::GetBit(valid, row) ? fn(row) : T{};
  }
  return MakeFixedWidthDatum(args, std::move(type), n, std::move(nulls), std::move(values));
}

/// \brief The common row loop: for each output row, appends null when any argument is null and
/// otherwise calls `fn(row)`, which appends exactly one value to `builder`.
template <typename Fn>
Result<Datum> MapRows(const std::vector<Datum>& args, int64_t num_rows, ArrayBuilder* builder,
                      Fn&& fn) {
  const int64_t n = OutputRows(args, num_rows);
  FLOTILLA_RETURN_NOT_OK(builder->Reserve(n));
  for (int64_t row = 0; row < n; ++row) {
    if (AnyNull(args, row)) {
      FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
    } else {
      FLOTILLA_RETURN_NOT_OK(fn(row));
    }
  }
  return FinishDatum(builder, args);
}

/// Calls `f(T{})` with the C type of a numeric TypeId (integers and floats); other ids are
/// a caller bug and call `f(double{})`: callers resolve types first.
template <typename F>
decltype(auto) DispatchNumeric(TypeId id, F&& f) {
  return VisitNumericType(id, f, [&]() -> decltype(auto) { return f(double{}); });
}

}  // namespace flotilla::expr::functions
