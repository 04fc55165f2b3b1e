// greatest / least (variadic) and clip(x, lo, hi): pick one argument's value per row.
// Arguments of one type keep it (numbers, decimals, dates, timestamps, strings); mixed types
// meet at the binder's common type for CASE branches (expr/coercion.h).
// Floats order NaN above every number (as DuckDB and PostgreSQL do).

#include <cmath>
#include <limits>
#include <type_traits>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/cast.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/math_kernels.h"
#include "flotilla/types/coercion.h"

namespace flotilla::expr::math {
namespace {

using functions::ArgumentTypeError;
using functions::DispatchNumeric;
using functions::MakeOutput;
using functions::OutputRows;

template <typename T>
struct ValueLess {
  bool operator()(const Array& a, int64_t i, const Array& b, int64_t j) const {
    const T x = a.values<T>()[i];
    const T y = b.values<T>()[j];
    if constexpr (std::is_floating_point_v<T>) return x < y || (std::isnan(y) && !std::isnan(x));
    return x < y;
  }
  static bool IsNan(const Array& a, int64_t i) {
    if constexpr (std::is_floating_point_v<T>) return std::isnan(a.values<T>()[i]);
    return false;
  }
};

struct StringLess {
  bool operator()(const Array& a, int64_t i, const Array& b, int64_t j) const {
    return a.GetView(i) < b.GetView(j);  // bytewise = code point order for UTF-8
  }
  static bool IsNan(const Array&, int64_t) { return false; }
};

/// Calls `f(less)` with the ordering of `type`'s values.
template <typename F>
Result<Datum> WithLess(const TypePtr& type, F&& f) {
  switch (type->id()) {
    case TypeId::kString:
    case TypeId::kLargeString:
      return f(StringLess{});
    case TypeId::kDecimal128:
      return f(ValueLess<Int128>{});
    case TypeId::kDate32:
      return f(ValueLess<int32_t>{});
    case TypeId::kTimestamp:
      return f(ValueLess<int64_t>{});
    default:
      return DispatchNumeric(type->id(), [&](auto tag) { return f(ValueLess<decltype(tag)>{}); });
  }
}

bool Orderable(const DataType& t) {
  return t.is_numeric() || t.id() == TypeId::kDecimal128 || t.is_date_or_timestamp() ||
         t.is_string();
}

/// The type every argument converts to, by the binder's CASE/COALESCE rules (coercion.h):
/// wider integers, float64 with any float, one decimal wide enough for every decimal and
/// integer, timestamp for dates with timestamps.
Result<TypePtr> CommonType(std::string_view name, const std::vector<TypePtr>& types) {
  TypePtr common = types[0];
  for (size_t i = 0; i < types.size(); ++i) {
    if (!Orderable(*types[i])) {
      return ArgumentTypeError(name, i, "numbers, decimals, dates, timestamps or strings",
                               types[i]);
    }
    TypePtr next = flotilla::CommonType(common, types[i], CoercionPurpose::kUnify);
    if (next == nullptr) {
      return Status::TypeError(std::string(name) + "() cannot compare " + common->ToString() +
                               " with " + types[i]->ToString() + " (argument " +
                               std::to_string(i + 1) + ")");
    }
    common = std::move(next);
  }
  return common;
}

Result<std::vector<Datum>> ConvertAll(const std::vector<Datum>& args, std::string_view name) {
  std::vector<TypePtr> types;
  for (const auto& a : args)
    types.push_back(a.type());
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr common, CommonType(name, types));
  std::vector<Datum> out;
  for (const auto& a : args) {
    if (a.type()->Equals(*common)) {
      out.push_back(a);
      continue;
    }
    Result<Array> converted = compute::Cast(a.array(), common);
    if (!converted.ok()) return converted.status().WithContext(std::string(name) + "()");
    out.push_back(a.is_scalar() ? Datum::Scalar(*converted) : Datum::Column(*converted));
  }
  return out;
}

/// greatest/least: per row the winning non-null argument; null only when all are null.
Result<Datum> Select(const std::vector<Datum>& raw_args, int64_t num_rows, bool greatest,
                     std::string_view name) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Datum> args, ConvertAll(raw_args, name));
  const TypePtr type = args[0].type();
  return WithLess(type, [&](auto less) -> Result<Datum> {
    const int64_t rows = OutputRows(args, num_rows);
    FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type));
    FLOTILLA_RETURN_NOT_OK(builder->Reserve(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const Datum* best = nullptr;
      for (const auto& a : args) {
        if (a.IsNull(r)) continue;
        if (best == nullptr) {
          best = &a;
          continue;
        }
        const bool wins = greatest ? less(best->array(), best->index(r), a.array(), a.index(r))
                                   : less(a.array(), a.index(r), best->array(), best->index(r));
        if (wins) best = &a;
      }
      if (best == nullptr) {
        FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
      } else {
        FLOTILLA_RETURN_NOT_OK(builder->AppendArraySlice(best->array(), best->index(r), 1));
      }
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array result, builder->Finish());
    return MakeOutput(args, std::move(result));
  });
}

}  // namespace

Result<TypePtr> ResolveGreatest(const std::vector<TypePtr>& types) {
  return CommonType("greatest", types);
}
Result<Datum> ExecGreatest(const std::vector<Datum>& args, int64_t num_rows) {
  return Select(args, num_rows, true, "greatest");
}
Result<TypePtr> ResolveLeast(const std::vector<TypePtr>& types) {
  return CommonType("least", types);
}
Result<Datum> ExecLeast(const std::vector<Datum>& args, int64_t num_rows) {
  return Select(args, num_rows, false, "least");
}

Result<TypePtr> ResolveClip(const std::vector<TypePtr>& types) {
  return CommonType("clip", types);
}

Result<Datum> ExecClip(const std::vector<Datum>& raw_args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Datum> args, ConvertAll(raw_args, "clip"));
  const TypePtr type = args[0].type();
  return WithLess(type, [&](auto less) -> Result<Datum> {
    using Less = decltype(less);
    const int64_t rows = OutputRows(args, num_rows);
    FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type));
    FLOTILLA_RETURN_NOT_OK(builder->Reserve(rows));
    const Array& x = args[0].array();
    const Array& lo = args[1].array();
    const Array& hi = args[2].array();
    for (int64_t r = 0; r < rows; ++r) {
      if (functions::AnyNull(args, r)) {
        FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
        continue;
      }
      const int64_t xi = args[0].index(r), li = args[1].index(r), hi_i = args[2].index(r);
      const Datum* pick = &args[0];
      // NaN anywhere propagates, so a NaN bound never silently passes x through.
      if (Less::IsNan(x, xi)) {
        pick = &args[0];
      } else if (Less::IsNan(lo, li)) {
        pick = &args[1];
      } else if (Less::IsNan(hi, hi_i)) {
        pick = &args[2];
      } else if (less(hi, hi_i, lo, li)) {
        return Status::Invalid("clip(): lower bound " + lo.ValueToString(li) +
                               " is greater than upper bound " + hi.ValueToString(hi_i));
      } else if (less(x, xi, lo, li)) {
        pick = &args[1];
      } else if (less(hi, hi_i, x, xi)) {
        pick = &args[2];
      }
      FLOTILLA_RETURN_NOT_OK(builder->AppendArraySlice(pick->array(), pick->index(r), 1));
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array result, builder->Finish());
    return MakeOutput(args, std::move(result));
  });
}

}  // namespace flotilla::expr::math
