#include "flotilla/compute/arithmetic.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "flotilla/compute/elementwise.h"

namespace flotilla::compute {
namespace {

// What one element-wise step produced: a value, a null (division by zero), or an overflow.
enum class Step { kOk, kNull, kOverflow };

template <typename T>
std::string ValueText(T v) {
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    return std::to_string(static_cast<int>(v));
  } else {
    return std::to_string(v);
  }
}

template <typename T>
Step IntegerStep(ArithmeticOp op, T a, T b, T* out) {
  switch (op) {
    case ArithmeticOp::kAdd:
      return __builtin_add_overflow(a, b, out) ? Step::kOverflow : Step::kOk;
    case ArithmeticOp::kSubtract:
      return __builtin_sub_overflow(a, b, out) ? Step::kOverflow : Step::kOk;
    case ArithmeticOp::kMultiply:
      return __builtin_mul_overflow(a, b, out) ? Step::kOverflow : Step::kOk;
    case ArithmeticOp::kIntDiv:
    case ArithmeticOp::kMod:
      if (b == 0) return Step::kNull;
      if constexpr (std::is_signed_v<T>) {
        // MIN / -1 does not fit; MIN % -1 is 0 but is undefined behaviour in C++.
        if (b == -1) {
          if (op == ArithmeticOp::kMod) {
            *out = 0;
            return Step::kOk;
          }
          return __builtin_sub_overflow(T(0), a, out) ? Step::kOverflow : Step::kOk;
        }
      }
      *out = op == ArithmeticOp::kIntDiv ? static_cast<T>(a / b) : static_cast<T>(a % b);
      return Step::kOk;
    case ArithmeticOp::kDivide:
      break;  // integers divide into float64, handled by the caller
  }
  return Step::kOverflow;
}

template <typename T>
Result<Array> IntegerKernel(ArithmeticOp op, const Array& left, const Array& right, int64_t n) {
  Operand l(left, n), r(right, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({l, r}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateUninitializedValues(n, sizeof(T)));
  T* out = reinterpret_cast<T*>(values->mutable_data());
  const T* a = left.values<T>();
  const T* b = right.values<T>();
  for (int64_t i = 0; i < n; ++i) {
    Step s = IntegerStep<T>(op, a[l.at(i)], b[r.at(i)], &out[i]);
    if (s == Step::kOk) continue;
    // Null rows hold arbitrary values; only a valid row can overflow or divide by zero.
    if (validity != nullptr && !bit_util::GetBit(validity->data(), i)) {
      if (s == Step::kNull) out[i] = 0;  // a zero divisor left the slot unwritten
      continue;
    }
    if (s == Step::kNull) {
      FLOTILLA_RETURN_NOT_OK(SetNull(&validity, i, n, &null_count));
      out[i] = 0;
      continue;
    }
    return Status::Invalid("integer overflow in " + ValueText(a[l.at(i)]) + " " +
                           ArithmeticOpSymbol(op) + " " + ValueText(b[r.at(i)]) + " (" +
                           left.type()->ToString() + ")");
  }
  return MakeFixedWidthArray(left.type(), n, std::move(validity), null_count, std::move(values));
}

template <typename In, typename Out>
Result<Array> FloatKernel(ArithmeticOp op, const Array& left, const Array& right, int64_t n,
                          TypePtr out_type) {
  Operand l(left, n), r(right, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({l, r}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateUninitializedValues(n, sizeof(Out)));
  Out* out = reinterpret_cast<Out*>(values->mutable_data());
  const In* a = left.values<In>();
  const In* b = right.values<In>();
  auto loop = [&](auto f) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = f(static_cast<Out>(a[l.at(i)]), static_cast<Out>(b[r.at(i)]));
    }
  };
  switch (op) {
    case ArithmeticOp::kAdd:
      loop([](Out x, Out y) { return x + y; });
      break;
    case ArithmeticOp::kSubtract:
      loop([](Out x, Out y) { return x - y; });
      break;
    case ArithmeticOp::kMultiply:
      loop([](Out x, Out y) { return x * y; });
      break;
    case ArithmeticOp::kDivide:
      loop([](Out x, Out y) { return x / y; });
      break;
    case ArithmeticOp::kIntDiv:
      loop([](Out x, Out y) { return std::trunc(x / y); });
      break;
    case ArithmeticOp::kMod:
      loop([](Out x, Out y) { return std::fmod(x, y); });
      break;
  }
  return MakeFixedWidthArray(std::move(out_type), n, std::move(validity), null_count,
                             std::move(values));
}

// Integer `/` divides as float64 with IEEE results for a zero divisor (1/0 = inf, 0/0 = NaN),
// as DuckDB does.
template <typename T>
Result<Array> IntegerDivideTyped(const Array& left, const Array& right, int64_t n) {
  Operand l(left, n), r(right, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({l, r}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateUninitializedValues(n, sizeof(double)));
  double* out = reinterpret_cast<double*>(values->mutable_data());
  const T* a = left.values<T>();
  const T* b = right.values<T>();
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<double>(a[l.at(i)]) / static_cast<double>(b[r.at(i)]);
  }
  return MakeFixedWidthArray(float64(), n, std::move(validity), null_count, std::move(values));
}

Result<Array> IntegerDivide(const Array& left, const Array& right, int64_t n) {
  switch (left.type_id()) {
    case TypeId::kInt8:
      return IntegerDivideTyped<int8_t>(left, right, n);
    case TypeId::kInt16:
      return IntegerDivideTyped<int16_t>(left, right, n);
    case TypeId::kInt32:
      return IntegerDivideTyped<int32_t>(left, right, n);
    case TypeId::kInt64:
      return IntegerDivideTyped<int64_t>(left, right, n);
    case TypeId::kUInt8:
      return IntegerDivideTyped<uint8_t>(left, right, n);
    case TypeId::kUInt16:
      return IntegerDivideTyped<uint16_t>(left, right, n);
    case TypeId::kUInt32:
      return IntegerDivideTyped<uint32_t>(left, right, n);
    case TypeId::kUInt64:
      return IntegerDivideTyped<uint64_t>(left, right, n);
    default:
      return Status::Internal("IntegerDivide on " + left.type()->ToString());
  }
}

Int128 Abs128(Int128 v) {
  return v < 0 ? -v : v;
}

// a / b rounded half away from zero; b != 0.
Int128 DivideRounded(Int128 a, Int128 b) {
  Int128 q = a / b;
  Int128 r = Abs128(a % b);
  if (r >= Abs128(b) - r) q += ((a < 0) != (b < 0)) ? -1 : 1;
  return q;
}

bool FitsInt64(Int128 v) {
  return v == static_cast<int64_t>(v);
}

// a * b, false when the product overflows Int128. Operands that fit int64 (nearly every value
// of a real decimal column) take one widening multiply: their product always fits Int128.
bool MultiplyChecked(Int128 a, Int128 b, Int128* out) {
  if (FitsInt64(a) && FitsInt64(b)) [[likely]] {
    *out = Int128{static_cast<int64_t>(a)} * static_cast<int64_t>(b);
    return true;
  }
  return !__builtin_mul_overflow(a, b, out);
}

// v brought to a larger scale by `factor`, a power of ten (1 when the scale does not change).
bool Rescale(Int128 v, Int128 factor, Int128* out) {
  if (factor == 1) {
    *out = v;
    return true;
  }
  return MultiplyChecked(v, factor, out);
}

// One row of decimal `kOp`: x and y are brought to the working scale by `fx` and `fy`, then
// combined. The caller checks the result against the output precision.
template <ArithmeticOp kOp>
Step DecimalStep(Int128 x, Int128 y, Int128 fx, Int128 fy, Int128* o) {
  if constexpr (kOp == ArithmeticOp::kMultiply) {
    return MultiplyChecked(x, y, o) ? Step::kOk : Step::kOverflow;
  } else {
    // A zero divisor gives null even when the dividend's rescale would overflow.
    if constexpr (kOp == ArithmeticOp::kDivide) {
      if (y == 0) return Step::kNull;
    }
    Int128 xs, ys;
    if (!Rescale(x, fx, &xs) || !Rescale(y, fy, &ys)) return Step::kOverflow;
    if constexpr (kOp == ArithmeticOp::kAdd) {
      return __builtin_add_overflow(xs, ys, o) ? Step::kOverflow : Step::kOk;
    } else if constexpr (kOp == ArithmeticOp::kSubtract) {
      return __builtin_sub_overflow(xs, ys, o) ? Step::kOverflow : Step::kOk;
    } else if constexpr (kOp == ArithmeticOp::kMod) {
      if (ys == 0) return Step::kNull;
      *o = xs % ys;
      return Step::kOk;
    } else {
      static_assert(kOp == ArithmeticOp::kDivide);
      *o = DivideRounded(xs, ys);
      return Step::kOk;
    }
  }
}

// One call of the decimal kernel: its inputs, the scale factors resolved once, and the output
// being filled.
struct DecimalCall {
  DecimalCall(ArithmeticOp op, const Array& left, const Array& right, int64_t n, TypePtr out_type)
      : op(op),
        left(left),
        right(right),
        l(left, n),
        r(right, n),
        n(n),
        out_type(std::move(out_type)) {}

  // A row whose step did not give an in-range value: zero under a null row or a null result,
  // otherwise the overflow error (worded from the original operands).
  Status RowException(Step st, int64_t i) {
    if (validity != nullptr && !bit_util::GetBit(validity->data(), i)) {
      out[i] = 0;
      return Status::OK();
    }
    if (st == Step::kNull) {
      out[i] = 0;
      return SetNull(&validity, i, n, &null_count);
    }
    return Status::Invalid("decimal overflow in " +
                           DecimalToString(left.values<Int128>()[l.at(i)], left.type()->scale()) +
                           " " + ArithmeticOpSymbol(op) + " " +
                           DecimalToString(right.values<Int128>()[r.at(i)], right.type()->scale()) +
                           ": the result does not fit " + out_type->ToString());
  }

  ArithmeticOp op;
  const Array& left;
  const Array& right;
  Operand l, r;
  int64_t n;
  TypePtr out_type;
  Int128 fx = 1, fy = 1;  // powers of ten that bring left and right to the working scale
  Int128 max = 0;         // largest magnitude the output precision holds
  BufferPtr validity;
  int64_t null_count = 0;
  Int128* out = nullptr;
};

// The row loop of decimal `kOp`, instantiated per operation and per broadcast shape so the loop
// has no dispatch. A broadcast operand is read, and brought to the working scale, once.
template <ArithmeticOp kOp, bool kLeftScalar, bool kRightScalar>
Status DecimalLoop(DecimalCall& c) {
  const Int128* a = c.left.values<Int128>();
  const Int128* b = c.right.values<Int128>();
  Int128 fx = c.fx, fy = c.fy;
  Int128 x0 = 0, y0 = 0;
  // A scalar whose rescale overflows is rescaled per row instead, which reports the overflow
  // on the first valid row as the general path does.
  if constexpr (kLeftScalar) {
    x0 = a[0];
    if (Int128 scaled; Rescale(x0, fx, &scaled)) {
      x0 = scaled;
      fx = 1;
    }
  }
  if constexpr (kRightScalar) {
    y0 = b[0];
    if (Int128 scaled; Rescale(y0, fy, &scaled)) {
      y0 = scaled;
      fy = 1;
    }
  }
  const Int128 max = c.max;
  Int128* out = c.out;
  for (int64_t i = 0; i < c.n; ++i) {
    const Int128 x = kLeftScalar ? x0 : a[i];
    const Int128 y = kRightScalar ? y0 : b[i];
    const Step st = DecimalStep<kOp>(x, y, fx, fy, &out[i]);
    // Compared without Abs128: a product can be exactly -2^127, whose negation overflows.
    if (st == Step::kOk && out[i] <= max && out[i] >= -max) continue;
    FLOTILLA_RETURN_NOT_OK(c.RowException(st, i));
  }
  return Status::OK();
}

template <ArithmeticOp kOp>
Status DecimalLoopForShape(DecimalCall& c) {
  const bool left_scalar = c.l.stride == 0, right_scalar = c.r.stride == 0;
  if (left_scalar && right_scalar) return DecimalLoop<kOp, true, true>(c);
  if (left_scalar) return DecimalLoop<kOp, true, false>(c);
  if (right_scalar) return DecimalLoop<kOp, false, true>(c);
  return DecimalLoop<kOp, false, false>(c);
}

// Decimals of at most 18 digits (every value fits in the low 64 bits of its 128) whose sum,
// difference or product cannot leave the output type by its precision: the row loop needs no
// overflow test and works on 64-bit words. Inputs without nulls only, so null rows keep the
// general path's zero.
template <bool kLeftScalar, bool kRightScalar>
void NarrowDecimalLoop(ArithmeticOp op, const int64_t* a, const int64_t* b, int64_t fx, int64_t fy,
                       int64_t n, Int128* out) {
  // Words 0, 2, 4, ...: the low halves of little-endian 128-bit values.
  auto x = [&](int64_t i) { return a[kLeftScalar ? 0 : 2 * i]; };
  auto y = [&](int64_t i) { return b[kRightScalar ? 0 : 2 * i]; };
  if (op == ArithmeticOp::kMultiply) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = Int128{x(i)} * y(i);
  } else if (op == ArithmeticOp::kAdd) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = Int128{x(i) * fx + y(i) * fy};
  } else {
    for (int64_t i = 0; i < n; ++i)
      out[i] = Int128{x(i) * fx - y(i) * fy};
  }
}

// Runs the narrow loop when it applies; false otherwise.
bool NarrowDecimal(const DecimalCall& c) {
  const ArithmeticOp op = c.op;
  const int32_t p1 = c.left.type()->precision(), p2 = c.right.type()->precision();
  const int32_t p = c.out_type->precision();
  if (p1 > 18 || p2 > 18 || c.left.null_count() > 0 || c.right.null_count() > 0) return false;
  if (op == ArithmeticOp::kMultiply) {
    if (p1 + p2 > p) return false;  // the product of p1 and p2 digits has at most p1 + p2
  } else if (op == ArithmeticOp::kAdd || op == ArithmeticOp::kSubtract) {
    // Each operand at the output's scale has fewer than p digits, so with p <= 18 neither the
    // rescale nor the sum leaves 64 bits.
    const int32_t s = c.out_type->scale();
    const int32_t digits = std::max(p1 - c.left.type()->scale(), p2 - c.right.type()->scale()) + s;
    if (p > 18 || digits + 1 > p) return false;
  } else {
    return false;
  }
  const auto* a = reinterpret_cast<const int64_t*>(c.left.values<Int128>());
  const auto* b = reinterpret_cast<const int64_t*>(c.right.values<Int128>());
  const auto fx = static_cast<int64_t>(c.fx), fy = static_cast<int64_t>(c.fy);
  const bool ls = c.l.stride == 0, rs = c.r.stride == 0;
  if (ls && rs) {
    NarrowDecimalLoop<true, true>(op, a, b, fx, fy, c.n, c.out);
  } else if (ls) {
    NarrowDecimalLoop<true, false>(op, a, b, fx, fy, c.n, c.out);
  } else if (rs) {
    NarrowDecimalLoop<false, true>(op, a, b, fx, fy, c.n, c.out);
  } else {
    NarrowDecimalLoop<false, false>(op, a, b, fx, fy, c.n, c.out);
  }
  return true;
}

Result<Array> DecimalKernel(ArithmeticOp op, const Array& left, const Array& right, int64_t n,
                            TypePtr out_type) {
  DecimalCall c(op, left, right, n, std::move(out_type));
  FLOTILLA_ASSIGN_OR_RETURN(c.validity, IntersectValidity({c.l, c.r}, n, &c.null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateUninitializedValues(n, sizeof(Int128)));
  c.out = reinterpret_cast<Int128*>(values->mutable_data());
  const int32_t s1 = left.type()->scale(), s2 = right.type()->scale();
  const int32_t s = c.out_type->scale();
  c.max = MaxDecimalForPrecision(c.out_type->precision());
  if (op == ArithmeticOp::kAdd || op == ArithmeticOp::kSubtract || op == ArithmeticOp::kMod) {
    c.fx = PowerOfTen(s - s1);
    c.fy = PowerOfTen(s - s2);
  } else if (op == ArithmeticOp::kDivide) {
    // x/10^s1 / (y/10^s2) * 10^s = x * 10^(s - s1 + s2) / y.
    const int32_t e = s - s1 + s2;
    if (e >= 0) {
      c.fx = PowerOfTen(e);
    } else {
      c.fy = PowerOfTen(-e);
    }
  }
  if (NarrowDecimal(c)) {
    return MakeFixedWidthArray(std::move(c.out_type), n, std::move(c.validity), c.null_count,
                               std::move(values));
  }
  Status st;
  switch (op) {
    case ArithmeticOp::kAdd:
      st = DecimalLoopForShape<ArithmeticOp::kAdd>(c);
      break;
    case ArithmeticOp::kSubtract:
      st = DecimalLoopForShape<ArithmeticOp::kSubtract>(c);
      break;
    case ArithmeticOp::kMultiply:
      st = DecimalLoopForShape<ArithmeticOp::kMultiply>(c);
      break;
    case ArithmeticOp::kDivide:
      st = DecimalLoopForShape<ArithmeticOp::kDivide>(c);
      break;
    case ArithmeticOp::kMod:
      st = DecimalLoopForShape<ArithmeticOp::kMod>(c);
      break;
    case ArithmeticOp::kIntDiv:  // rejected by ArithmeticResultType
      return Status::Internal("decimal // has no kernel");
  }
  FLOTILLA_RETURN_NOT_OK(st);
  return MakeFixedWidthArray(std::move(c.out_type), n, std::move(c.validity), c.null_count,
                             std::move(values));
}

Result<Array> DateDifference(const Array& left, const Array& right, int64_t n) {
  Operand l(left, n), r(right, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({l, r}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateUninitializedValues(n, sizeof(int64_t)));
  int64_t* out = reinterpret_cast<int64_t*>(values->mutable_data());
  const int32_t* a = left.values<int32_t>();
  const int32_t* b = right.values<int32_t>();
  for (int64_t i = 0; i < n; ++i)
    out[i] = int64_t{a[l.at(i)]} - int64_t{b[r.at(i)]};
  return MakeFixedWidthArray(int64(), n, std::move(validity), null_count, std::move(values));
}

}  // namespace

const char* ArithmeticOpSymbol(ArithmeticOp op) {
  switch (op) {
    case ArithmeticOp::kAdd:
      return "+";
    case ArithmeticOp::kSubtract:
      return "-";
    case ArithmeticOp::kMultiply:
      return "*";
    case ArithmeticOp::kDivide:
      return "/";
    case ArithmeticOp::kIntDiv:
      return "//";
    case ArithmeticOp::kMod:
      return "%";
  }
  return "?";
}

Int128 PowerOfTen(int32_t exponent) {
  Int128 v = 1;
  for (int32_t i = 0; i < exponent; ++i)
    v *= 10;
  return v;
}

Int128 MaxDecimalForPrecision(int32_t precision) {
  return PowerOfTen(precision) - 1;
}

Result<TypePtr> ArithmeticResultType(ArithmeticOp op, const TypePtr& left_type,
                                     const TypePtr& right_type) {
  const DataType& left = *left_type;
  const DataType& right = *right_type;
  auto mismatch = [&] {
    return Status::TypeError(std::string("cannot apply ") + ArithmeticOpSymbol(op) + " to " +
                             left.ToString() + " and " + right.ToString());
  };
  if (left.id() == TypeId::kDecimal128 && right.id() == TypeId::kDecimal128) {
    const int32_t p1 = left.precision(), s1 = left.scale();
    const int32_t p2 = right.precision(), s2 = right.scale();
    int32_t p = 0, s = 0;
    switch (op) {
      case ArithmeticOp::kAdd:
      case ArithmeticOp::kSubtract:
        s = std::max(s1, s2);
        p = std::max(p1 - s1, p2 - s2) + s + 1;
        break;
      case ArithmeticOp::kMultiply:
        s = s1 + s2;
        p = p1 + p2 + 1;
        break;
      case ArithmeticOp::kDivide:
        s = std::max(6, s1 + p2 + 1);
        p = p1 - s1 + s2 + s;
        if (p > 38) {
          s = std::max(s - (p - 38), std::min(s, 6));
          p = 38;
        }
        break;
      case ArithmeticOp::kMod:
        s = std::max(s1, s2);
        p = std::min(p1 - s1, p2 - s2) + s;
        break;
      case ArithmeticOp::kIntDiv:
        return mismatch();
    }
    if (s > 38) {
      return Status::TypeError(std::string("decimal ") + ArithmeticOpSymbol(op) + " of " +
                               left.ToString() + " and " + right.ToString() +
                               " needs a scale above 38");
    }
    return decimal128(std::clamp(p, 1, 38), s);
  }
  if (op == ArithmeticOp::kSubtract && left.id() == TypeId::kDate32 &&
      right.id() == TypeId::kDate32) {
    return int64();
  }
  if (!left.Equals(right)) return mismatch();
  if (left.is_integer()) return op == ArithmeticOp::kDivide ? float64() : left_type;
  if (left.is_floating()) return left_type;
  return mismatch();
}

Result<Array> Arithmetic(ArithmeticOp op, const Array& left, const Array& right, int64_t n) {
  FLOTILLA_RETURN_NOT_OK(CheckLengths({&left, &right}, n));
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr out_type, ArithmeticResultType(op, left.type(), right.type()));
  switch (left.type_id()) {
    case TypeId::kDecimal128:
      return DecimalKernel(op, left, right, n, std::move(out_type));
    case TypeId::kDate32:
      return DateDifference(left, right, n);
    case TypeId::kFloat32:
      return FloatKernel<float, float>(op, left, right, n, out_type);
    case TypeId::kFloat64:
      return FloatKernel<double, double>(op, left, right, n, out_type);
    default:
      break;
  }
  if (op == ArithmeticOp::kDivide) return IntegerDivide(left, right, n);
  switch (left.type_id()) {
    case TypeId::kInt8:
      return IntegerKernel<int8_t>(op, left, right, n);
    case TypeId::kInt16:
      return IntegerKernel<int16_t>(op, left, right, n);
    case TypeId::kInt32:
      return IntegerKernel<int32_t>(op, left, right, n);
    case TypeId::kInt64:
      return IntegerKernel<int64_t>(op, left, right, n);
    case TypeId::kUInt8:
      return IntegerKernel<uint8_t>(op, left, right, n);
    case TypeId::kUInt16:
      return IntegerKernel<uint16_t>(op, left, right, n);
    case TypeId::kUInt32:
      return IntegerKernel<uint32_t>(op, left, right, n);
    case TypeId::kUInt64:
      return IntegerKernel<uint64_t>(op, left, right, n);
    default:
      return Status::Internal("Arithmetic on " + left.type()->ToString());
  }
}

namespace {
template <typename T>
Result<Array> NegateTyped(const Array& values) {
  const int64_t n = values.length();
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out_buf, AllocateUninitializedValues(n, sizeof(T)));
  T* out = reinterpret_cast<T*>(out_buf->mutable_data());
  const T* in = values.values<T>();
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      if (__builtin_sub_overflow(T(0), in[i], &out[i]) && values.IsValid(i)) {
        return Status::Invalid("integer overflow in -(" + ValueText(in[i]) + ") (" +
                               values.type()->ToString() + ")");
      }
    } else if constexpr (std::is_same_v<T, Int128>) {
      out[i] = -in[i];  // |x| <= 10^38 - 1, so negation cannot overflow
    } else {
      out[i] = -in[i];
    }
  }
  BufferPtr validity;
  if (values.null_count() > 0) {
    FLOTILLA_ASSIGN_OR_RETURN(validity, AllocateBitmap(n));
    bit_util::CopyBitmap(values.validity(), values.offset(), n, validity->mutable_data(), 0);
  }
  return MakeFixedWidthArray(values.type(), n, std::move(validity), values.null_count(),
                             std::move(out_buf));
}
}  // namespace

Result<Array> Negate(const Array& values) {
  switch (values.type_id()) {
    case TypeId::kInt8:
      return NegateTyped<int8_t>(values);
    case TypeId::kInt16:
      return NegateTyped<int16_t>(values);
    case TypeId::kInt32:
      return NegateTyped<int32_t>(values);
    case TypeId::kInt64:
      return NegateTyped<int64_t>(values);
    case TypeId::kFloat32:
      return NegateTyped<float>(values);
    case TypeId::kFloat64:
      return NegateTyped<double>(values);
    case TypeId::kDecimal128:
      return NegateTyped<Int128>(values);
    default:
      return Status::TypeError("cannot negate " + values.type()->ToString());
  }
}

}  // namespace flotilla::compute
