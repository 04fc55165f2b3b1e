#include "flotilla/types/coercion.h"

#include <algorithm>

namespace flotilla {
namespace {

TypePtr SignedOfWidth(int bytes) {
  switch (bytes) {
    case 1:
      return int8();
    case 2:
      return int16();
    case 4:
      return int32();
    default:
      return int64();
  }
}

TypePtr UnsignedOfWidth(int bytes) {
  switch (bytes) {
    case 1:
      return uint8();
    case 2:
      return uint16();
    case 4:
      return uint32();
    default:
      return uint64();
  }
}

TypePtr IntegerCommon(const DataType& a, const DataType& b) {
  const int wa = a.byte_width(), wb = b.byte_width();
  if (a.is_signed_integer() == b.is_signed_integer()) {
    return a.is_signed_integer() ? SignedOfWidth(std::max(wa, wb))
                                 : UnsignedOfWidth(std::max(wa, wb));
  }
  const int signed_width = a.is_signed_integer() ? wa : wb;
  const int unsigned_width = a.is_signed_integer() ? wb : wa;
  return SignedOfWidth(std::max(signed_width, 2 * unsigned_width));
}

TypePtr DecimalFor(const DataType& t) {
  return decimal128(IntegerDecimalDigits(t.id()), 0);
}

TypePtr DecimalCommon(const DataType& a, const DataType& b) {
  const int32_t scale = std::max(a.scale(), b.scale());
  const int32_t int_digits = std::max(a.precision() - a.scale(), b.precision() - b.scale());
  return decimal128(std::min(38, int_digits + scale), scale);
}

TimeUnit Finer(TimeUnit a, TimeUnit b) {
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

}  // namespace

int32_t IntegerDecimalDigits(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 3;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 5;
    case TypeId::kInt32:
    case TypeId::kUInt32:
      return 10;
    case TypeId::kInt64:
      return 19;
    case TypeId::kUInt64:
      return 20;
    default:
      return 0;
  }
}

TypePtr IntegerAsDecimal(const DataType& t) {
  return DecimalFor(t);
}

TypePtr CommonType(const TypePtr& a, const TypePtr& b, CoercionPurpose purpose) {
  if (a->id() == TypeId::kNull) return b;
  if (b->id() == TypeId::kNull) return a;
  if (a->Equals(*b)) return a;
  const DataType& x = *a;
  const DataType& y = *b;
  const bool xd = x.id() == TypeId::kDecimal128, yd = y.id() == TypeId::kDecimal128;
  if (xd && yd) return purpose == CoercionPurpose::kUnify ? DecimalCommon(x, y) : nullptr;
  if (x.is_integer() && y.is_integer()) return IntegerCommon(x, y);
  if ((xd && y.is_integer()) || (yd && x.is_integer())) {
    const TypePtr as_decimal = xd ? DecimalFor(y) : DecimalFor(x);
    // Arithmetic and comparison kernels take decimals of any scale: the caller casts only the
    // integer side, to IntegerAsDecimal.
    if (purpose != CoercionPurpose::kUnify) return nullptr;
    return DecimalCommon(xd ? x : *as_decimal, xd ? *as_decimal : y);
  }
  if ((x.is_numeric() || xd) && (y.is_numeric() || yd)) {
    const bool both32 = x.id() == TypeId::kFloat32 && (y.is_integer() || y.id() == x.id());
    const bool both32r = y.id() == TypeId::kFloat32 && x.is_integer();
    return both32 || both32r ? float32() : float64();
  }
  if (x.id() == TypeId::kTimestamp && y.id() == TypeId::kTimestamp) {
    return timestamp(Finer(x.unit(), y.unit()), x.timezone());
  }
  if (x.id() == TypeId::kTimestamp && y.id() == TypeId::kDate32) return a;
  if (y.id() == TypeId::kTimestamp && x.id() == TypeId::kDate32) return b;
  const bool xs = x.id() == TypeId::kString || x.id() == TypeId::kLargeString;
  const bool ys = y.id() == TypeId::kString || y.id() == TypeId::kLargeString;
  if (xs && ys) return large_utf8();
  if (x.id() == TypeId::kList && y.id() == TypeId::kList && purpose == CoercionPurpose::kUnify) {
    // [] (list<null>) and [1, 2] unify to list<int32>, [1] and [2.5] to list<decimal>.
    TypePtr element = CommonType(x.fields()[0].type, y.fields()[0].type, purpose);
    if (element != nullptr) return list(element);
  }
  return nullptr;
}

}  // namespace flotilla
