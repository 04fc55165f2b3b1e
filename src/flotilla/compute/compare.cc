#include "flotilla/compute/compare.h"

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/arithmetic.h"
#include "flotilla/compute/elementwise.h"

namespace flotilla::compute {
namespace {

template <typename T>
int ThreeWay(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    // NaN sorts above every number and equals itself, so ORDER BY and = agree.
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  // Branch-free, so the comparison loops compile to flag sets rather than jumps.
  return static_cast<int>(b < a) - static_cast<int>(a < b);
}

// Runs `cmp(left_pos, right_pos) -> int` over every row. The op switch sits outside the loop
// so each instantiation is a tight loop the compiler can unroll.
template <typename Cmp>
Result<Array> Loop(CompareOp op, const Array& left, const Array& right, int64_t n, Cmp cmp) {
  Operand l(left, n), r(right, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({l, r}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(n));
  uint8_t* out = bits->mutable_data();
  // Eight results a byte, without a branch per row. The strides (0 for a broadcast constant)
  // are compile-time constants, so a comparison of two columns or of a column with a constant
  // is a loop the compiler vectorizes.
  auto run_strided = [&](auto pred, auto left_stride, auto right_stride) {
    constexpr int64_t kL = decltype(left_stride)::value, kR = decltype(right_stride)::value;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      // One 0/1 byte per row, then the eight bytes' low bits gathered into one byte by a
      // multiplication (byte k lands on bit k of the top byte).
      uint8_t flags[8];
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k)
        flags[k] = static_cast<uint8_t>(pred(cmp((i + k) * kL, (i + k) * kR)));
      uint64_t word;
      std::memcpy(&word, flags, 8);
      out[i / 8] = static_cast<uint8_t>((word * 0x0102040810204080ull) >> 56);
    }
    for (; i < n; ++i) {
      if (pred(cmp(i * kL, i * kR))) bit_util::SetBit(out, i);
    }
  };
  auto run = [&](auto pred) {
    using One = std::integral_constant<int64_t, 1>;
    using Zero = std::integral_constant<int64_t, 0>;
    if (l.stride == 1 && r.stride == 1) {
      run_strided(pred, One{}, One{});
    } else if (l.stride == 1) {
      run_strided(pred, One{}, Zero{});
    } else if (r.stride == 1) {
      run_strided(pred, Zero{}, One{});
    } else {
      run_strided(pred, Zero{}, Zero{});
    }
  };
  switch (op) {
    case CompareOp::kEqual:
      run([](int c) { return c == 0; });
      break;
    case CompareOp::kNotEqual:
      run([](int c) { return c != 0; });
      break;
    case CompareOp::kLess:
      run([](int c) { return c < 0; });
      break;
    case CompareOp::kLessEqual:
      run([](int c) { return c <= 0; });
      break;
    case CompareOp::kGreater:
      run([](int c) { return c > 0; });
      break;
    case CompareOp::kGreaterEqual:
      run([](int c) { return c >= 0; });
      break;
  }
  return MakeFixedWidthArray(boolean(), n, std::move(validity), null_count, std::move(bits));
}

template <typename T>
Result<Array> Fixed(CompareOp op, const Array& left, const Array& right, int64_t n) {
  const T* a = left.values<T>();
  const T* b = right.values<T>();
  return Loop(op, left, right, n, [a, b](int64_t i, int64_t j) { return ThreeWay(a[i], b[j]); });
}

// Decimals of different scales: bring both to the larger scale. A value that overflows while
// rescaling is larger in magnitude than any value of the other side, so its sign decides.
Result<Array> Decimals(CompareOp op, const Array& left, const Array& right, int64_t n) {
  const Int128* a = left.values<Int128>();
  const Int128* b = right.values<Int128>();
  const int32_t s1 = left.type()->scale(), s2 = right.type()->scale();
  // A column of at most 18 digits against a constant (`l_quantity < 24`): every value fits in
  // the low 64 bits of its 128, so comparing those is exact and twice as cheap.
  if (right.length() == 1 && n != 1 && s2 <= s1 && left.type()->precision() <= 18) {
    Int128 constant;
    if (!__builtin_mul_overflow(b[0], PowerOfTen(s1 - s2), &constant) &&
        constant == static_cast<int64_t>(constant)) {
      const auto* words = reinterpret_cast<const int64_t*>(a);  // little-endian: low word first
      const auto c = static_cast<int64_t>(constant);
      return Loop(op, left, right, n,
                  [words, c](int64_t i, int64_t) { return ThreeWay(words[2 * i], c); });
    }
  }
  if (s1 == s2) {
    return Loop(op, left, right, n, [a, b](int64_t i, int64_t j) { return ThreeWay(a[i], b[j]); });
  }
  const Int128 fa = PowerOfTen(s1 < s2 ? s2 - s1 : 0), fb = PowerOfTen(s2 < s1 ? s1 - s2 : 0);
  // A constant on the side of the smaller scale (`l_quantity >= 1`) is rescaled once.
  Int128 constant;
  if (right.length() == 1 && n != 1 && s2 < s1 && !__builtin_mul_overflow(b[0], fb, &constant)) {
    return Loop(op, left, right, n,
                [a, constant](int64_t i, int64_t) { return ThreeWay(a[i], constant); });
  }
  if (left.length() == 1 && n != 1 && s1 < s2 && !__builtin_mul_overflow(a[0], fa, &constant)) {
    return Loop(op, left, right, n,
                [b, constant](int64_t, int64_t j) { return ThreeWay(constant, b[j]); });
  }
  return Loop(op, left, right, n, [=](int64_t i, int64_t j) {
    Int128 x, y;
    if (__builtin_mul_overflow(a[i], fa, &x)) return a[i] < 0 ? -1 : 1;
    if (__builtin_mul_overflow(b[j], fb, &y)) return b[j] < 0 ? 1 : -1;
    return ThreeWay(x, y);
  });
}

// Strings and binaries: the offsets and bytes are read directly, not through a call per row,
// and equality compares lengths before bytes.
template <typename Offset>
Result<Array> Binary(CompareOp op, const Array& left, const Array& right, int64_t n) {
  const Offset* lo = left.values<Offset>();
  const Offset* ro = right.values<Offset>();
  const BufferPtr& ld = left.data()->buffers[2];
  const BufferPtr& rd = right.data()->buffers[2];
  const char* lb = ld ? reinterpret_cast<const char*>(ld->data()) : "";
  const char* rb = rd ? reinterpret_cast<const char*>(rd->data()) : "";
  auto view = [](const Offset* offsets, const char* bytes, int64_t i) {
    return std::string_view(bytes + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
  };
  if (op == CompareOp::kEqual || op == CompareOp::kNotEqual) {
    // 0 when equal, 1 when not: Loop's predicates read it as a three-way result.
    return Loop(op, left, right, n, [=](int64_t i, int64_t j) {
      const Offset length = lo[i + 1] - lo[i];
      if (length != ro[j + 1] - ro[j]) return 1;
      return std::memcmp(lb + lo[i], rb + ro[j], static_cast<size_t>(length)) == 0 ? 0 : 1;
    });
  }
  return Loop(op, left, right, n, [=](int64_t i, int64_t j) {
    const int c = view(lo, lb, i).compare(view(ro, rb, j));
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  });
}

}  // namespace

const char* CompareOpSymbol(CompareOp op) {
  switch (op) {
    case CompareOp::kEqual:
      return "=";
    case CompareOp::kNotEqual:
      return "!=";
    case CompareOp::kLess:
      return "<";
    case CompareOp::kLessEqual:
      return "<=";
    case CompareOp::kGreater:
      return ">";
    case CompareOp::kGreaterEqual:
      return ">=";
  }
  return "?";
}

Status CheckComparable(const DataType& left, const DataType& right) {
  if (left.id() == TypeId::kDecimal128 && right.id() == TypeId::kDecimal128) return Status::OK();
  const bool orderable = left.is_numeric() || left.is_binary_like() || left.id() == TypeId::kBool ||
                         left.id() == TypeId::kDate32 || left.id() == TypeId::kTimestamp ||
                         left.id() == TypeId::kDuration || left.id() == TypeId::kTime64 ||
                         left.id() == TypeId::kFixedSizeBinary;
  if (orderable && left.Equals(right)) return Status::OK();
  return Status::TypeError("cannot compare " + left.ToString() + " with " + right.ToString());
}

Result<Array> Compare(CompareOp op, const Array& left, const Array& right, int64_t n) {
  FLOTILLA_RETURN_NOT_OK(CheckLengths({&left, &right}, n));
  FLOTILLA_RETURN_NOT_OK(CheckComparable(*left.type(), *right.type()));
  switch (left.type_id()) {
    case TypeId::kInt8:
      return Fixed<int8_t>(op, left, right, n);
    case TypeId::kInt16:
      return Fixed<int16_t>(op, left, right, n);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return Fixed<int32_t>(op, left, right, n);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      return Fixed<int64_t>(op, left, right, n);
    case TypeId::kUInt8:
      return Fixed<uint8_t>(op, left, right, n);
    case TypeId::kUInt16:
      return Fixed<uint16_t>(op, left, right, n);
    case TypeId::kUInt32:
      return Fixed<uint32_t>(op, left, right, n);
    case TypeId::kUInt64:
      return Fixed<uint64_t>(op, left, right, n);
    case TypeId::kFloat32:
      return Fixed<float>(op, left, right, n);
    case TypeId::kFloat64:
      return Fixed<double>(op, left, right, n);
    case TypeId::kDecimal128:
      return Decimals(op, left, right, n);
    case TypeId::kBool:
      return Loop(op, left, right, n, [&](int64_t i, int64_t j) {
        return ThreeWay<int>(left.BoolValue(i), right.BoolValue(j));
      });
    case TypeId::kString:
    case TypeId::kBinary:
      return Binary<int32_t>(op, left, right, n);
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      return Binary<int64_t>(op, left, right, n);
    default:
      return Loop(op, left, right, n, [&](int64_t i, int64_t j) {
        int c = left.GetView(i).compare(right.GetView(j));
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      });
  }
}

}  // namespace flotilla::compute
