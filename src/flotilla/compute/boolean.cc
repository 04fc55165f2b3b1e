#include "flotilla/compute/boolean.h"

#include "flotilla/compute/elementwise.h"

namespace flotilla::compute {
namespace {

Status CheckBool(const Array& a, const char* op) {
  if (a.type_id() == TypeId::kBool || a.type_id() == TypeId::kNull) return Status::OK();
  return Status::TypeError(std::string(op) + " expects bool operands, got " + a.type()->ToString());
}

// `dominant` is the value that decides the result alone: false for AND, true for OR.
Result<Array> Kleene(const Array& left, const Array& right, int64_t n, bool dominant,
                     const char* op) {
  FLOTILLA_RETURN_NOT_OK(CheckLengths({&left, &right}, n));
  FLOTILLA_RETURN_NOT_OK(CheckBool(left, op));
  FLOTILLA_RETURN_NOT_OK(CheckBool(right, op));
  Operand l(left, n), r(right, n);
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(n));
  uint8_t* out = bits->mutable_data();
  const bool no_nulls = !l.has_nulls() && !r.has_nulls();
  if (no_nulls && l.stride == 1 && r.stride == 1 && left.offset() % 8 == 0 &&
      right.offset() % 8 == 0 && left.type_id() == TypeId::kBool &&
      right.type_id() == TypeId::kBool) {
    // Whole bytes at a time; the bits past n are cleared again.
    const uint8_t* a = left.raw_values() + left.offset() / 8;
    const uint8_t* b = right.raw_values() + right.offset() / 8;
    const int64_t bytes = bit_util::BytesForBits(n);
    for (int64_t i = 0; i < bytes; ++i)
      out[i] = dominant ? (a[i] | b[i]) : (a[i] & b[i]);
    if (n % 8 != 0) out[bytes - 1] &= static_cast<uint8_t>((1u << (n % 8)) - 1);
    return MakeFixedWidthArray(boolean(), n, nullptr, 0, std::move(bits));
  }
  if (no_nulls) {
    for (int64_t i = 0; i < n; ++i) {
      const bool a = left.BoolValue(l.at(i)), b = right.BoolValue(r.at(i));
      if (dominant ? (a || b) : (a && b)) bit_util::SetBit(out, i);
    }
    return MakeFixedWidthArray(boolean(), n, nullptr, 0, std::move(bits));
  }
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, AllocateBitmap(n));
  uint8_t* valid = validity->mutable_data();
  int64_t null_count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool va = l.IsValid(i), vb = r.IsValid(i);
    const bool a = va && left.BoolValue(l.at(i)), b = vb && right.BoolValue(r.at(i));
    if ((va && a == dominant) || (vb && b == dominant)) {
      bit_util::SetBit(valid, i);
      if (dominant) bit_util::SetBit(out, i);
    } else if (va && vb) {
      bit_util::SetBit(valid, i);
      if (!dominant) bit_util::SetBit(out, i);
    } else {
      ++null_count;
    }
  }
  return MakeFixedWidthArray(boolean(), n, std::move(validity), null_count, std::move(bits));
}

}  // namespace

Result<Array> KleeneAnd(const Array& left, const Array& right, int64_t n) {
  return Kleene(left, right, n, false, "AND");
}

Result<Array> KleeneOr(const Array& left, const Array& right, int64_t n) {
  return Kleene(left, right, n, true, "OR");
}

Result<Array> Not(const Array& values) {
  FLOTILLA_RETURN_NOT_OK(CheckBool(values, "NOT"));
  const int64_t n = values.length();
  Operand v(values, n);
  int64_t null_count = 0;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, IntersectValidity({v}, n, &null_count));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(n));
  if (values.type_id() == TypeId::kNull) {
    return MakeFixedWidthArray(boolean(), n, std::move(validity), null_count, std::move(bits));
  }
  uint8_t* out = bits->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    if (!values.BoolValue(i)) bit_util::SetBit(out, i);
  }
  return MakeFixedWidthArray(boolean(), n, std::move(validity), null_count, std::move(bits));
}

}  // namespace flotilla::compute
