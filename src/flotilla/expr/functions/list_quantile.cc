// Exact quantiles of a list's non-null elements, with DuckDB's definitions (SQL's median,
// quantile_cont and quantile_disc aggregate the group into a list and call these):
//   quantile_disc(q): the element at position max(0, ceil(n * q) - 1) in sorted order;
//   quantile_cont(q): linear interpolation between the elements at floor and ceil of (n - 1) * q.
// Interpolated integers give float64, decimals keep their type (the step truncated toward zero,
// as DuckDB's), dates give timestamps and timestamps stay timestamps.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/list_functions.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

constexpr int64_t kMicrosPerDay = 86'400'000'000LL;

bool IsQuantileArgument(const DataType& t) {
  return t.is_numeric() || t.id() == TypeId::kDecimal128 || t.id() == TypeId::kNull;
}

Result<double> QuantileAt(const Datum& q, int64_t row, std::string_view function) {
  const Array& a = q.array();
  const int64_t i = q.index(row);
  const DataType& t = *a.type();
  double v = t.id() == TypeId::kDecimal128
                 ? static_cast<double>(DecimalValueAt(a, i)) / std::pow(10.0, t.scale())
             : t.is_floating() ? DoubleAt(a, i)
                               : static_cast<double>(IntegerBitsAt(a, i));
  if (!(v >= 0.0 && v <= 1.0)) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", v);
    return Status::Invalid(std::string(function) + "() takes a quantile between 0 and 1, got " +
                           text);
  }
  return v;
}

Status ExpectQuantile(std::string_view function, const Types& t) {
  if (t.size() > 1 && !IsQuantileArgument(*t[1])) {
    return ArgumentTypeError(function, 1, "a number between 0 and 1", t[1]);
  }
  return Status::OK();
}

Result<TypePtr> ResolveDisc(const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectList("quantile_disc", t, 0));
  const TypePtr& e = ElementType(*t[0]);
  if (!ElementOrder::IsOrderable(*e)) {
    return ArgumentTypeError("quantile_disc", 0, "a list of numbers, strings, bools or times",
                             t[0]);
  }
  FLOTILLA_RETURN_NOT_OK(ExpectQuantile("quantile_disc", t));
  return e;
}

Result<TypePtr> ResolveCont(const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectList("quantile_cont", t, 0));
  const TypePtr& e = ElementType(*t[0]);
  FLOTILLA_RETURN_NOT_OK(ExpectQuantile("quantile_cont", t));
  switch (e->id()) {
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal128:
    case TypeId::kTimestamp:
      return e;
    case TypeId::kDate32:
      return timestamp(TimeUnit::kMicro);
    default:
      if (e->is_integer() || e->id() == TypeId::kNull) return float64();
      return ArgumentTypeError("quantile_cont", 0, "a list of numbers, decimals, dates or times",
                               t[0]);
  }
}

// The row's non-null element positions, with positions k (and k + 1 when `pair`) in sorted order.
void Select(const ElementOrder& order, std::vector<int64_t>* index, size_t k, bool pair) {
  auto less = [&](int64_t a, int64_t b) { return order.Compare(a, b) < 0; };
  std::nth_element(index->begin(), index->begin() + static_cast<ptrdiff_t>(k), index->end(), less);
  if (pair && k + 1 < index->size()) {
    auto next =
        std::min_element(index->begin() + static_cast<ptrdiff_t>(k) + 1, index->end(), less);
    std::iter_swap(index->begin() + static_cast<ptrdiff_t>(k) + 1, next);
  }
}

void NonNull(const Array& values, int64_t first, int64_t end, std::vector<int64_t>* index) {
  index->clear();
  for (int64_t j = first; j < end; ++j)
    if (values.IsValid(j)) index->push_back(j);
}

Result<Datum> DiscExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  FLOTILLA_ASSIGN_OR_RETURN(ElementOrder order, ElementOrder::Make(values, "quantile_disc"));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(values.type()));
  std::vector<int64_t> index;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(double quantile, args.size() > 1
                                                   ? QuantileAt(args[1], row, "quantile_disc")
                                                   : Result<double>(0.5));
    auto [first, end] = ListRange(lists, args[0].index(row));
    NonNull(values, first, end, &index);
    if (index.empty()) return builder->AppendNull();
    const double n = static_cast<double>(index.size());
    const size_t k = std::min(static_cast<size_t>(std::max(0.0, std::ceil(n * quantile) - 1.0)),
                              index.size() - 1);
    Select(order, &index, k, false);
    return builder->AppendArraySlice(values, index[k], 1);
  });
}

// The element as the number interpolation works on: a double for numbers, the unscaled value
// for decimals, microseconds (or the timestamp's own unit) for times.
double AsDouble(const Array& values, int64_t j) {
  const DataType& t = *values.type();
  if (t.is_floating()) return DoubleAt(values, j);
  if (t.id() == TypeId::kUInt64) return static_cast<double>(values.values<uint64_t>()[j]);
  return static_cast<double>(IntegerBitsAt(values, j));
}
Int128 AsExact(const Array& values, int64_t j) {
  switch (values.type_id()) {
    case TypeId::kDecimal128:
      return DecimalValueAt(values, j);
    case TypeId::kDate32:
      return static_cast<Int128>(values.values<int32_t>()[j]) * kMicrosPerDay;
    default:
      return values.values<int64_t>()[j];
  }
}

Result<Datum> ContExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr type, ResolveCont({args[0].type()}));
  FLOTILLA_ASSIGN_OR_RETURN(ElementOrder order, ElementOrder::Make(values, "quantile_cont"));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type));
  const bool exact = type->id() == TypeId::kDecimal128 || type->id() == TypeId::kTimestamp;
  std::vector<int64_t> index;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(double quantile, args.size() > 1
                                                   ? QuantileAt(args[1], row, "quantile_cont")
                                                   : Result<double>(0.5));
    auto [first, end] = ListRange(lists, args[0].index(row));
    NonNull(values, first, end, &index);
    if (index.empty()) return builder->AppendNull();
    const double position = static_cast<double>(index.size() - 1) * quantile;
    const size_t lo = static_cast<size_t>(std::floor(position));
    const double step = position - std::floor(position);
    Select(order, &index, lo, true);
    const int64_t a = index[lo];
    const int64_t b = lo + 1 < index.size() ? index[lo + 1] : a;
    if (exact) {
      const Int128 low = AsExact(values, a), high = AsExact(values, b);
      const Int128 value =
          step == 0 ? low : low + static_cast<Int128>(static_cast<double>(high - low) * step);
      if (type->id() == TypeId::kDecimal128) {
        return static_cast<FixedSizeBinaryBuilder*>(builder.get())->AppendDecimal(value);
      }
      return static_cast<NumericBuilder<int64_t>*>(builder.get())
          ->Append(static_cast<int64_t>(value));
    }
    const double low = AsDouble(values, a), high = AsDouble(values, b);
    const double value = step == 0 ? low : low + (high - low) * step;
    if (type->id() == TypeId::kFloat32) {
      return static_cast<NumericBuilder<float>*>(builder.get())->Append(static_cast<float>(value));
    }
    return static_cast<NumericBuilder<double>*>(builder.get())->Append(value);
  });
}

}  // namespace

Status RegisterListQuantileFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_quantile_disc",
       "list_quantile_disc(list, q = 0.5): the non-null element at position ceil(n * q) - 1 in "
       "sorted order (an element of the list, with its type); null when there is none.",
       1, 2, ResolveDisc, DiscExec}));
  return r->Add(
      {"list_quantile_cont",
       "list_quantile_cont(list, q = 0.5): the q-quantile of the non-null elements, interpolated "
       "linearly between neighbours (float64 for integers; decimals, floats and timestamps keep "
       "their type; dates give timestamps); null when there is none.",
       1, 2, ResolveCont, ContExec});
}

}  // namespace flotilla::expr::functions
