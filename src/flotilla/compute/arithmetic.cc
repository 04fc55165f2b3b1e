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
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues(n, sizeof(T)));
  T* out = reinterpret_cast<T*>(values->mutable_data());
  const T* a = left.values<T>();
  const T* b = right.values<T>();
  for (int64_t i = 0; i < n; ++i) {
    Step s = IntegerStep<T>(op, a[l.at(i)], b[r.at(i)], &out[i]);
    if (s == Step::kOk) continue;
    // Null rows hold arbitrary values; only a valid row can overflow or divide by zero.
    if (validity != nullptr && !bit_util::GetBit(validity->data(), i)) continue;
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
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues(n, sizeof(Out)));
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

// Integer `/` gives float64, and NULL for a zero divisor (DuckDB) rather than IEEE infinity.
template <typename T>
Result<Array> IntegerDivideTyped(const Array& left, const Array& right, int64_t n) {
  Operand l(left, n), r(right, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({l, r}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues(n, sizeof(double)));
  double* out = reinterpret_cast<double*>(values->mutable_data());
  const T* a = left.values<T>();
  const T* b = right.values<T>();
  for (int64_t i = 0; i < n; ++i) {
    const T divisor = b[r.at(i)];
    if (divisor == 0) {
      FLOTILLA_RETURN_NOT_OK(SetNull(&validity, i, n, &null_count));
      continue;
    }
    out[i] = static_cast<double>(a[l.at(i)]) / static_cast<double>(divisor);
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

bool Rescale(Int128 v, int32_t by, Int128* out) {
  return !__builtin_mul_overflow(v, PowerOfTen(by), out);
}

Result<Array> DecimalKernel(ArithmeticOp op, const Array& left, const Array& right, int64_t n,
                            TypePtr out_type) {
  Operand l(left, n), r(right, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({l, r}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues(n, sizeof(Int128)));
  Int128* out = reinterpret_cast<Int128*>(values->mutable_data());
  const Int128* a = left.values<Int128>();
  const Int128* b = right.values<Int128>();
  const int32_t s1 = left.type()->scale(), s2 = right.type()->scale();
  const int32_t s = out_type->scale();
  const Int128 max = MaxDecimalForPrecision(out_type->precision());
  auto step = [&](Int128 x, Int128 y, Int128* o) -> Step {
    Int128 xs = x, ys = y;
    switch (op) {
      case ArithmeticOp::kAdd:
      case ArithmeticOp::kSubtract:
      case ArithmeticOp::kMod:
        if (!Rescale(x, s - s1, &xs) || !Rescale(y, s - s2, &ys)) return Step::kOverflow;
        if (op == ArithmeticOp::kMod) {
          if (ys == 0) return Step::kNull;
          *o = xs % ys;
          return Step::kOk;
        }
        return (op == ArithmeticOp::kAdd ? __builtin_add_overflow(xs, ys, o)
                                         : __builtin_sub_overflow(xs, ys, o))
                   ? Step::kOverflow
                   : Step::kOk;
      case ArithmeticOp::kMultiply:
        return __builtin_mul_overflow(x, y, o) ? Step::kOverflow : Step::kOk;
      case ArithmeticOp::kDivide: {
        if (y == 0) return Step::kNull;
        // x/10^s1 / (y/10^s2) * 10^s = x * 10^(s - s1 + s2) / y.
        int32_t e = s - s1 + s2;
        if (e >= 0) {
          if (!Rescale(x, e, &xs)) return Step::kOverflow;
        } else if (!Rescale(y, -e, &ys)) {
          return Step::kOverflow;
        }
        *o = DivideRounded(xs, ys);
        return Step::kOk;
      }
      case ArithmeticOp::kIntDiv:
        break;
    }
    return Step::kOverflow;
  };
  for (int64_t i = 0; i < n; ++i) {
    Int128 x = a[l.at(i)], y = b[r.at(i)];
    Step st = step(x, y, &out[i]);
    // Compared without Abs128: a product can be exactly -2^127, whose negation overflows.
    if (st == Step::kOk && out[i] <= max && out[i] >= -max) continue;
    if (validity != nullptr && !bit_util::GetBit(validity->data(), i)) {
      out[i] = 0;
      continue;
    }
    if (st == Step::kNull) {
      out[i] = 0;
      FLOTILLA_RETURN_NOT_OK(SetNull(&validity, i, n, &null_count));
      continue;
    }
    return Status::Invalid("decimal overflow in " + DecimalToString(x, s1) + " " +
                           ArithmeticOpSymbol(op) + " " + DecimalToString(y, s2) +
                           ": the result does not fit " + out_type->ToString());
  }
  return MakeFixedWidthArray(std::move(out_type), n, std::move(validity), null_count,
                             std::move(values));
}

Result<Array> DateDifference(const Array& left, const Array& right, int64_t n) {
  Operand l(left, n), r(right, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({l, r}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, AllocateValues(n, sizeof(int64_t)));
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
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out_buf, AllocateValues(n, sizeof(T)));
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
