// One-argument math: abs, sign, floor/ceil/trunc, round, and the float64 functions
// (sqrt, exp, ln, log10, log2, sin, cos, tan).

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/math_kernels.h"

namespace flotilla::expr::math {
namespace {

using functions::ArgumentTypeError;
using functions::DispatchNumeric;
using functions::MakeOutput;
using functions::OutputRows;

constexpr std::string_view FloatOpName(FloatOp op) {
  constexpr std::string_view kNames[] = {"sqrt", "exp", "ln", "log10", "log2", "sin", "cos", "tan"};
  return kNames[static_cast<int>(op)];
}
constexpr std::string_view RoundOpName(RoundOp op) {
  constexpr std::string_view kNames[] = {"floor", "ceil", "trunc"};
  return kNames[static_cast<int>(op)];
}

bool IsNumericOrDecimal(const DataType& t) {
  return t.is_numeric() || t.id() == TypeId::kDecimal128;
}

Int128 PowerOfTen(int exponent) {
  Int128 v = 1;
  for (int i = 0; i < exponent; ++i)
    v *= 10;
  return v;
}

double DecimalToDouble(Int128 v, int32_t scale) {
  return static_cast<double>(v) / std::pow(10.0, scale);
}

/// Runs `f(T{}, values)` over the numeric input, or `f(Int128{}, values)` for decimals.
template <typename F>
Status VisitInput(const Array& in, F&& f) {
  if (in.type_id() == TypeId::kDecimal128) return f(Int128{}, in.values<Int128>());
  return DispatchNumeric(in.type_id(), [&](auto tag) {
    using T = decltype(tag);
    return f(T{}, in.values<T>());
  });
}

/// Builds the output column of `type` from `compute(value) -> Result<U>` on every valid row.
template <typename U, typename In, typename Compute>
Result<Datum> MapRows(const std::vector<Datum>& args, int64_t num_rows, const TypePtr& type,
                      const In* values, Compute&& compute) {
  const int64_t rows = OutputRows(args, num_rows);
  std::unique_ptr<ArrayBuilder> builder;
  if constexpr (std::is_same_v<U, Int128>) {
    builder = std::make_unique<FixedSizeBinaryBuilder>(type);
  } else {
    builder = std::make_unique<NumericBuilder<U>>(type);
  }
  FLOTILLA_RETURN_NOT_OK(builder->Reserve(rows));
  const Datum& in = args[0];
  for (int64_t r = 0; r < rows; ++r) {
    if (args.size() > 1 ? functions::AnyNull(args, r) : in.IsNull(r)) {
      FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(U value, compute(values[in.index(r)], r));
    if constexpr (std::is_same_v<U, Int128>) {
      FLOTILLA_RETURN_NOT_OK(
          static_cast<FixedSizeBinaryBuilder*>(builder.get())->AppendDecimal(value));
    } else {
      FLOTILLA_RETURN_NOT_OK(static_cast<NumericBuilder<U>*>(builder.get())->Append(value));
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array result, builder->Finish());
  return MakeOutput(args, std::move(result));
}

Status CheckDecimalFits(Int128 v, const DataType& type, std::string_view name) {
  const Int128 limit = PowerOfTen(type.precision());
  if (v >= limit || v <= -limit) {
    return Status::Invalid(std::string(name) + "(): result " + DecimalToString(v, type.scale()) +
                           " does not fit " + type.ToString());
  }
  return Status::OK();
}

/// Rounds `v` to a multiple of `factor` (> 0) with the given mode.
enum class Mode { kFloor, kCeil, kTrunc, kHalfAwayFromZero };
Int128 RoundToMultiple(Int128 v, Int128 factor, Mode mode) {
  const Int128 rem = v % factor;  // sign of v
  const Int128 down = v - rem;    // toward zero
  if (rem == 0) return v;
  switch (mode) {
    case Mode::kTrunc:
      return down;
    case Mode::kFloor:
      return v < 0 ? down - factor : down;
    case Mode::kCeil:
      return v > 0 ? down + factor : down;
    case Mode::kHalfAwayFromZero: {
      const Int128 abs_rem = rem < 0 ? -rem : rem;
      if (abs_rem * 2 < factor) return down;
      return v < 0 ? down - factor : down + factor;
    }
  }
  return v;
}

template <FloatOp Op>
Result<TypePtr> ResolveFloatOpFn(const std::vector<TypePtr>& types) {
  if (!IsNumericOrDecimal(*types[0])) {
    return ArgumentTypeError(FloatOpName(Op), 0, "a number", types[0]);
  }
  return float64();
}

template <FloatOp Op>
Result<double> ApplyFloatOp(double x) {
  // Domain errors follow DuckDB (an error, not NaN); NaN input compares false and propagates.
  if constexpr (Op == FloatOp::kSqrt) {
    if (x < 0) return Status::Invalid("sqrt(): cannot take the square root of a negative number");
    return std::sqrt(x);
  } else if constexpr (Op == FloatOp::kExp) {
    return std::exp(x);
  } else if constexpr (Op == FloatOp::kSin) {
    return std::sin(x);
  } else if constexpr (Op == FloatOp::kCos) {
    return std::cos(x);
  } else if constexpr (Op == FloatOp::kTan) {
    return std::tan(x);
  } else {
    if (x < 0) {
      return Status::Invalid(std::string(FloatOpName(Op)) +
                             "(): cannot take the logarithm of a negative number");
    }
    if (x == 0) {
      return Status::Invalid(std::string(FloatOpName(Op)) +
                             "(): cannot take the logarithm of zero");
    }
    if constexpr (Op == FloatOp::kLn) return std::log(x);
    if constexpr (Op == FloatOp::kLog10) return std::log10(x);
    return std::log2(x);
  }
}

template <FloatOp Op>
Result<Datum> ExecFloatOpFn(const std::vector<Datum>& args, int64_t num_rows) {
  const Array& in = args[0].array();
  const int32_t scale = in.type()->scale();
  Result<Datum> out = Status::Internal("unreached");
  FLOTILLA_RETURN_NOT_OK(VisitInput(in, [&](auto tag, const auto* values) -> Status {
    using T = decltype(tag);
    out = MapRows<double>(args, num_rows, float64(), values, [&](T v, int64_t) {
      if constexpr (std::is_same_v<T, Int128>)
        return ApplyFloatOp<Op>(DecimalToDouble(v, scale));
      else
        return ApplyFloatOp<Op>(static_cast<double>(v));
    });
    return out.status();
  }));
  return out;
}

/// A decimal rounded to a whole number keeps its precision with scale 0, as DuckDB types it:
/// the digits after the point become room for the carry (ceil(9.99) = 10 fits decimal(3, 0)).
TypePtr WholeNumberType(const TypePtr& type) {
  return type->id() == TypeId::kDecimal128 ? decimal128(type->precision(), 0) : type;
}

template <RoundOp Op>
Result<TypePtr> ResolveRoundOpFn(const std::vector<TypePtr>& types) {
  if (!IsNumericOrDecimal(*types[0])) {
    return ArgumentTypeError(RoundOpName(Op), 0, "a number", types[0]);
  }
  return WholeNumberType(types[0]);
}

template <RoundOp Op>
Result<Datum> ExecRoundOpFn(const std::vector<Datum>& args, int64_t num_rows) {
  const Array& in = args[0].array();
  const TypePtr& type = in.type();
  // Integers are already whole.
  if (type->is_integer()) return args[0];
  constexpr std::string_view kName = RoundOpName(Op);
  constexpr Mode kMode =
      Op == RoundOp::kFloor ? Mode::kFloor : (Op == RoundOp::kCeil ? Mode::kCeil : Mode::kTrunc);
  Result<Datum> out = Status::Internal("unreached");
  FLOTILLA_RETURN_NOT_OK(VisitInput(in, [&](auto tag, const auto* values) -> Status {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Int128>) {
      const Int128 factor = PowerOfTen(type->scale());
      const TypePtr whole = WholeNumberType(type);
      out =
          MapRows<Int128>(args, num_rows, whole, values, [&](Int128 v, int64_t) -> Result<Int128> {
            const Int128 r = RoundToMultiple(v, factor, kMode) / factor;
            FLOTILLA_RETURN_NOT_OK(CheckDecimalFits(r, *whole, kName));
            return r;
          });
    } else if constexpr (std::is_floating_point_v<T>) {
      out = MapRows<T>(args, num_rows, type, values, [](T v, int64_t) -> Result<T> {
        if constexpr (Op == RoundOp::kFloor) return std::floor(v);
        if constexpr (Op == RoundOp::kCeil) return std::ceil(v);
        return std::trunc(v);
      });
    }
    return out.status();
  }));
  return out;
}

template <std::size_t... I>
constexpr auto FloatResolvers(std::index_sequence<I...>) {
  return std::array<ResolveFn, sizeof...(I)>{&ResolveFloatOpFn<static_cast<FloatOp>(I)>...};
}
template <std::size_t... I>
constexpr auto FloatExecutors(std::index_sequence<I...>) {
  return std::array<ExecFn, sizeof...(I)>{&ExecFloatOpFn<static_cast<FloatOp>(I)>...};
}
template <std::size_t... I>
constexpr auto RoundResolvers(std::index_sequence<I...>) {
  return std::array<ResolveFn, sizeof...(I)>{&ResolveRoundOpFn<static_cast<RoundOp>(I)>...};
}
template <std::size_t... I>
constexpr auto RoundExecutors(std::index_sequence<I...>) {
  return std::array<ExecFn, sizeof...(I)>{&ExecRoundOpFn<static_cast<RoundOp>(I)>...};
}

}  // namespace

ResolveFn FloatOpResolver(FloatOp op) {
  static constexpr auto kFns = FloatResolvers(std::make_index_sequence<8>());
  return kFns[static_cast<size_t>(op)];
}
ExecFn FloatOpExecutor(FloatOp op) {
  static constexpr auto kFns = FloatExecutors(std::make_index_sequence<8>());
  return kFns[static_cast<size_t>(op)];
}
ResolveFn RoundOpResolver(RoundOp op) {
  static constexpr auto kFns = RoundResolvers(std::make_index_sequence<3>());
  return kFns[static_cast<size_t>(op)];
}
ExecFn RoundOpExecutor(RoundOp op) {
  static constexpr auto kFns = RoundExecutors(std::make_index_sequence<3>());
  return kFns[static_cast<size_t>(op)];
}

Result<TypePtr> ResolveAbs(const std::vector<TypePtr>& types) {
  if (!IsNumericOrDecimal(*types[0])) return ArgumentTypeError("abs", 0, "a number", types[0]);
  return types[0];
}

Result<Datum> ExecAbs(const std::vector<Datum>& args, int64_t num_rows) {
  const Array& in = args[0].array();
  const TypePtr& type = in.type();
  Result<Datum> out = Status::Internal("unreached");
  FLOTILLA_RETURN_NOT_OK(VisitInput(in, [&](auto tag, const auto* values) -> Status {
    using T = decltype(tag);
    out = MapRows<T>(args, num_rows, type, values, [&](T v, int64_t) -> Result<T> {
      if constexpr (std::is_floating_point_v<T>) {
        return std::fabs(v);
      } else if constexpr (std::is_unsigned_v<T>) {
        return v;
      } else {
        if constexpr (!std::is_same_v<T, Int128>) {
          if (v == std::numeric_limits<T>::min()) {
            return Status::Invalid("abs(): " + std::to_string(v) + " has no absolute value in " +
                                   type->ToString() + " (integer overflow)");
          }
        }
        return static_cast<T>(v < 0 ? -v : v);
      }
    });
    return out.status();
  }));
  return out;
}

Result<TypePtr> ResolveSign(const std::vector<TypePtr>& types) {
  if (!IsNumericOrDecimal(*types[0])) return ArgumentTypeError("sign", 0, "a number", types[0]);
  return types[0]->is_floating() ? types[0] : int8();
}

Result<Datum> ExecSign(const std::vector<Datum>& args, int64_t num_rows) {
  const Array& in = args[0].array();
  Result<Datum> out = Status::Internal("unreached");
  FLOTILLA_RETURN_NOT_OK(VisitInput(in, [&](auto tag, const auto* values) -> Status {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      // NaN and signed zeros are their own sign.
      out = MapRows<T>(args, num_rows, in.type(), values, [](T v, int64_t) -> Result<T> {
        return v > 0 ? T{1} : (v < 0 ? T{-1} : v);
      });
    } else {
      out = MapRows<int8_t>(args, num_rows, int8(), values, [](T v, int64_t) -> Result<int8_t> {
        return static_cast<int8_t>(v > 0 ? 1 : (v < T{0} ? -1 : 0));
      });
    }
    return out.status();
  }));
  return out;
}

namespace {

// round(decimal(p, s), d) is decimal(p, min(max(d, 0), s)) when d is a constant (as DuckDB), so
// the dropped digits become room for the carry; with per-row digits the scale stays s.
TypePtr RoundResultType(const TypePtr& x, const Datum* digits) {
  if (x->id() != TypeId::kDecimal128) return x;
  if (digits == nullptr) return WholeNumberType(x);
  if (!digits->is_scalar() || digits->IsNull(0)) return x;
  Result<int64_t> d = functions::IntegerAt(*digits, 0, "round");
  if (!d.ok()) return x;
  const int64_t scale = std::clamp<int64_t>(*d, 0, x->scale());
  return decimal128(x->precision(), static_cast<int32_t>(scale));
}

}  // namespace

Result<TypePtr> ResolveRound(const std::vector<TypePtr>& types,
                             const std::vector<Array>& literals) {
  if (!IsNumericOrDecimal(*types[0])) return ArgumentTypeError("round", 0, "a number", types[0]);
  if (types.size() > 1 && !types[1]->is_integer()) {
    return ArgumentTypeError("round", 1, "an integer number of digits", types[1]);
  }
  if (types.size() == 1) return RoundResultType(types[0], nullptr);
  if (literals.size() > 1 && literals[1].valid()) {
    const Datum digits = Datum::Scalar(literals[1]);
    return RoundResultType(types[0], &digits);
  }
  return types[0];
}

Result<Datum> ExecRound(const std::vector<Datum>& args, int64_t num_rows) {
  const Array& in = args[0].array();
  const TypePtr& type = in.type();
  const TypePtr out_type = RoundResultType(type, args.size() > 1 ? &args[1] : nullptr);
  // Rounded decimal values are multiples of 10^(scale - out scale): divide to the out scale.
  const Int128 rescale = PowerOfTen(type->scale() - out_type->scale());
  auto digits_at = [&](int64_t row) -> Result<int64_t> {
    if (args.size() < 2) return int64_t{0};
    return functions::IntegerAt(args[1], row, "round");
  };
  Result<Datum> out = Status::Internal("unreached");
  FLOTILLA_RETURN_NOT_OK(VisitInput(in, [&](auto tag, const auto* values) -> Status {
    using T = decltype(tag);
    out = MapRows<T>(args, num_rows, out_type, values, [&](T v, int64_t row) -> Result<T> {
      FLOTILLA_ASSIGN_OR_RETURN(int64_t digits, digits_at(row));
      if constexpr (std::is_floating_point_v<T>) {
        if (digits == 0) return static_cast<T>(std::round(v));
        // Scale, round half away from zero, scale back; when scaling overflows the value has
        // no digits to drop (or, for very negative digits, rounds to zero).
        const double modifier = std::pow(10.0, static_cast<double>(digits));
        const double scaled = static_cast<double>(v) * modifier;
        if (!std::isfinite(scaled) || modifier == 0) {
          return digits > 0 || !std::isfinite(v) ? v : static_cast<T>(std::copysign(0.0, v));
        }
        return static_cast<T>(std::round(scaled) / modifier);
      } else {
        // Integers and decimals: drop (scale - digits) decimal digits of the unscaled value.
        const int64_t scale = std::is_same_v<T, Int128> ? type->scale() : 0;
        const int64_t drop = scale - digits;
        if (drop <= 0) return v;
        // Dropping more than 38 digits leaves nothing of any decimal128 or integer value.
        const Int128 rounded =
            drop > 38 ? 0
                      : RoundToMultiple(static_cast<Int128>(v), PowerOfTen(static_cast<int>(drop)),
                                        Mode::kHalfAwayFromZero);
        if constexpr (std::is_same_v<T, Int128>) {
          FLOTILLA_RETURN_NOT_OK(CheckDecimalFits(rounded / rescale, *out_type, "round"));
          return rounded / rescale;
        } else {
          if (rounded > static_cast<Int128>(std::numeric_limits<T>::max()) ||
              rounded < static_cast<Int128>(std::numeric_limits<T>::min())) {
            return Status::Invalid("round(): " + std::to_string(v) + " rounded to " +
                                   std::to_string(digits) + " digits overflows " +
                                   type->ToString());
          }
          return static_cast<T>(rounded);
        }
      }
    });
    return out.status();
  }));
  return out;
}

}  // namespace flotilla::expr::math
