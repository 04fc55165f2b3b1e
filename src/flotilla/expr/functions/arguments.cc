#include "flotilla/expr/functions/arguments.h"

#include <algorithm>
#include <limits>
#include <string>

namespace flotilla::expr::functions {

Status ArgumentTypeError(std::string_view function, size_t index, std::string_view expected,
                         const TypePtr& got) {
  return Status::TypeError(std::string(function) + "() expects " + std::string(expected) +
                           ", got " + got->ToString() + " for argument " +
                           std::to_string(index + 1));
}

bool IsStringOrNull(const DataType& type) {
  return type.is_string() || type.id() == TypeId::kNull;
}
bool IsBinaryOrNull(const DataType& type) {
  return type.id() == TypeId::kBinary || type.id() == TypeId::kLargeBinary ||
         type.id() == TypeId::kNull;
}
bool IsIntegerOrNull(const DataType& type) {
  return type.is_integer() || type.id() == TypeId::kNull;
}
bool IsBoolOrNull(const DataType& type) {
  return type.id() == TypeId::kBool || type.id() == TypeId::kNull;
}
bool IsList(const DataType& type) {
  return type.id() == TypeId::kList || type.id() == TypeId::kFixedSizeList;
}

Status ExpectString(std::string_view function, const std::vector<TypePtr>& types, size_t index) {
  if (IsStringOrNull(*types[index])) return Status::OK();
  return ArgumentTypeError(function, index, "a string", types[index]);
}
Status ExpectInteger(std::string_view function, const std::vector<TypePtr>& types, size_t index) {
  if (IsIntegerOrNull(*types[index])) return Status::OK();
  return ArgumentTypeError(function, index, "an integer", types[index]);
}
Status ExpectBool(std::string_view function, const std::vector<TypePtr>& types, size_t index) {
  if (IsBoolOrNull(*types[index])) return Status::OK();
  return ArgumentTypeError(function, index, "a bool", types[index]);
}
Status ExpectList(std::string_view function, const std::vector<TypePtr>& types, size_t index) {
  if (IsList(*types[index])) return Status::OK();
  return ArgumentTypeError(function, index, "a list", types[index]);
}

TypePtr StringResultType(const std::vector<TypePtr>& types, size_t first, size_t end) {
  for (size_t i = first; i < types.size() && i < end; ++i) {
    if (types[i]->id() == TypeId::kLargeString) return large_utf8();
  }
  return utf8();
}

Result<TypePtr> ResolveSignature(std::string_view function, const std::vector<TypePtr>& types,
                                 std::string_view signature, TypePtr result) {
  bool large = false;
  for (size_t i = 0; i < types.size(); ++i) {
    char kind = signature[std::min(i, signature.size() - 1)];
    if (kind == 's') {
      FLOTILLA_RETURN_NOT_OK(ExpectString(function, types, i));
      large = large || types[i]->id() == TypeId::kLargeString;
    } else if (kind == 'i') {
      FLOTILLA_RETURN_NOT_OK(ExpectInteger(function, types, i));
    } else {
      FLOTILLA_RETURN_NOT_OK(ExpectBool(function, types, i));
    }
  }
  if (result) return result;
  return large ? large_utf8() : utf8();
}

int64_t IntegerBitsAt(const Array& array, int64_t i) {
  return VisitNumericType(
      array.type_id(),
      [&](auto tag) { return static_cast<int64_t>(array.values<decltype(tag)>()[i]); },
      [] { return int64_t{0}; });
}

Result<int64_t> IntegerAt(const Datum& d, int64_t row, std::string_view function) {
  const Array& a = d.array();
  const int64_t i = d.index(row);
  if (a.type_id() == TypeId::kUInt64) {
    const uint64_t v = a.values<uint64_t>()[i];
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::Invalid(std::string(function) + "(): integer argument " + std::to_string(v) +
                             " is out of the int64 range");
    }
  } else if (!a.type()->is_integer()) {
    return Status::Internal(std::string(function) + "(): integer argument of type " +
                            a.type()->ToString());
  }
  return IntegerBitsAt(a, i);
}

double DoubleAt(const Datum& d, int64_t row) {
  const Array& a = d.array();
  const int64_t i = d.index(row);
  return DispatchNumeric(
      a.type_id(), [&](auto tag) { return static_cast<double>(a.values<decltype(tag)>()[i]); });
}

bool AllScalar(const std::vector<Datum>& args) {
  for (const Datum& a : args) {
    if (!a.is_scalar()) return false;
  }
  return true;
}

bool AnyNull(const std::vector<Datum>& args, int64_t row) {
  for (const Datum& a : args) {
    if (a.IsNull(row)) return true;
  }
  return false;
}

Datum MakeOutput(const std::vector<Datum>& args, Array result) {
  return AllScalar(args) ? Datum::Scalar(std::move(result)) : Datum::Column(std::move(result));
}

Result<PropagatedNulls> PropagateNulls(const std::vector<Datum>& args, int64_t n) {
  PropagatedNulls out;
  auto all_null = [&]() -> Result<PropagatedNulls> {
    FLOTILLA_ASSIGN_OR_RETURN(out.bitmap, Buffer::AllocateZeroed(bit_util::BytesForBits(n)));
    out.null_count = n;
    return std::move(out);
  };
  std::vector<uint8_t> scratch;
  for (const Datum& a : args) {
    const Array& array = a.array();
    if (array.type_id() == TypeId::kNull) return all_null();
    if (a.is_scalar()) {
      if (array.IsNull(0)) return all_null();
      continue;
    }
    if (array.null_count() == 0 || array.validity() == nullptr) continue;
    const int64_t bytes = bit_util::BytesForBits(n);
    if (out.bitmap == nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(out.bitmap, Buffer::AllocateZeroed(bytes));
      bit_util::CopyBitmap(array.validity(), array.offset(), n, out.bitmap->mutable_data(), 0);
      continue;
    }
    scratch.assign(static_cast<size_t>(bytes), 0);
    bit_util::CopyBitmap(array.validity(), array.offset(), n, scratch.data(), 0);
    uint8_t* bits = out.bitmap->mutable_data();
    for (int64_t i = 0; i < bytes; ++i)
      bits[i] &= scratch[static_cast<size_t>(i)];
  }
  if (out.bitmap) out.null_count = n - bit_util::CountSetBits(out.bitmap->data(), 0, n);
  return out;
}

Result<Datum> MakeFixedWidthDatum(const std::vector<Datum>& args, TypePtr type, int64_t n,
                                  PropagatedNulls nulls, BufferPtr values) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = n;
  data->null_count = nulls.null_count;
  data->buffers = {std::move(nulls.bitmap), std::move(values)};
  return MakeOutput(args, Array(std::move(data)));
}

Result<Datum> FinishDatum(ArrayBuilder* builder, const std::vector<Datum>& args) {
  FLOTILLA_ASSIGN_OR_RETURN(Array out, builder->Finish());
  return MakeOutput(args, std::move(out));
}

}  // namespace flotilla::expr::functions
