// greatest / least (variadic) and clip(x, lo, hi): pick one argument's value per row.
// Arguments of one type keep it (numbers, decimals, dates, timestamps, strings); mixed numeric
// types meet at float64 when any is a float, else uint64 when all are unsigned, else int64.
// Floats order NaN above every number (as DuckDB and PostgreSQL do).

#include <cmath>
#include <limits>
#include <type_traits>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/functions/elementwise.h"
#include "flotilla/expr/functions/math_kernels.h"

namespace flotilla::expr::math {
namespace {

using elementwise::ArgumentTypeError;
using elementwise::DispatchNumeric;
using elementwise::MakeOutput;
using elementwise::OutputRows;

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

Result<TypePtr> CommonType(std::string_view name, const std::vector<TypePtr>& types) {
  bool all_same = true;
  for (const auto& t : types)
    all_same = all_same && t->Equals(*types[0]);
  if (all_same) {
    const DataType& t = *types[0];
    if (t.is_numeric() || t.id() == TypeId::kDecimal128 || t.id() == TypeId::kDate32 ||
        t.id() == TypeId::kTimestamp || elementwise::IsStringType(t)) {
      return types[0];
    }
    return ArgumentTypeError(name, "numbers, decimals, dates, timestamps or strings", types[0], 0);
  }
  bool any_float = false, all_unsigned = true;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!types[i]->is_numeric()) {
      return ArgumentTypeError(name,
                               "arguments of one type, or all numeric; " + types[i]->ToString() +
                                   " does not match " + types[0]->ToString() + ", so it",
                               types[i], i);
    }
    any_float = any_float || types[i]->is_floating();
    all_unsigned = all_unsigned && types[i]->is_integer() && !types[i]->is_signed_integer();
  }
  if (any_float) return float64();
  return all_unsigned ? uint64() : int64();
}

/// `d` with its values converted to the numeric type `target` (scalars stay scalars).
Result<Datum> ConvertTo(const Datum& d, const TypePtr& target, std::string_view name) {
  if (d.type()->Equals(*target)) return d;
  const Array& a = d.array();
  Result<Array> converted = DispatchNumeric(target->id(), [&](auto to_tag) -> Result<Array> {
    using To = decltype(to_tag);
    NumericBuilder<To> builder(target);
    FLOTILLA_RETURN_NOT_OK(builder.Reserve(a.length()));
    for (int64_t i = 0; i < a.length(); ++i) {
      if (a.IsNull(i)) {
        FLOTILLA_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      Result<To> v = DispatchNumeric(a.type_id(), [&](auto from_tag) -> Result<To> {
        using From = decltype(from_tag);
        const From x = a.values<From>()[i];
        if constexpr (std::is_same_v<From, uint64_t> && std::is_same_v<To, int64_t>) {
          if (x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            return Status::Invalid(std::string(name) + "(): " + std::to_string(x) +
                                   " does not fit int64, the common type of the arguments");
          }
        }
        return static_cast<To>(x);
      });
      FLOTILLA_RETURN_NOT_OK(v.status());
      FLOTILLA_RETURN_NOT_OK(builder.Append(*v));
    }
    return builder.Finish();
  });
  FLOTILLA_RETURN_NOT_OK(converted.status());
  return d.is_scalar() ? Datum::Scalar(*converted) : Datum::Column(*converted);
}

Result<std::vector<Datum>> ConvertAll(const std::vector<Datum>& args, std::string_view name) {
  std::vector<TypePtr> types;
  for (const auto& a : args)
    types.push_back(a.type());
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr common, CommonType(name, types));
  std::vector<Datum> out;
  for (const auto& a : args) {
    FLOTILLA_ASSIGN_OR_RETURN(Datum converted, ConvertTo(a, common, name));
    out.push_back(std::move(converted));
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
      if (elementwise::AnyNull(args, r)) {
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
