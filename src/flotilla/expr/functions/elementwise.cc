#include "flotilla/expr/functions/elementwise.h"

#include <limits>

namespace flotilla::expr::elementwise {

int64_t OutputRows(const std::vector<Datum>& args, int64_t num_rows) {
  for (const auto& a : args) {
    if (!a.is_scalar()) return num_rows;
  }
  return 1;
}

Datum MakeOutput(const std::vector<Datum>& args, Array result) {
  for (const auto& a : args) {
    if (!a.is_scalar()) return Datum::Column(std::move(result));
  }
  return Datum::Scalar(std::move(result));
}

bool AnyNull(const std::vector<Datum>& args, int64_t row) {
  for (const auto& a : args) {
    if (a.IsNull(row)) return true;
  }
  return false;
}

Result<int64_t> IntegerAt(const Datum& datum, int64_t row, std::string_view function) {
  const Array& a = datum.array();
  const int64_t i = datum.index(row);
  switch (a.type_id()) {
    case TypeId::kInt8:
      return static_cast<int64_t>(a.values<int8_t>()[i]);
    case TypeId::kInt16:
      return static_cast<int64_t>(a.values<int16_t>()[i]);
    case TypeId::kInt32:
      return static_cast<int64_t>(a.values<int32_t>()[i]);
    case TypeId::kInt64:
      return a.values<int64_t>()[i];
    case TypeId::kUInt8:
      return static_cast<int64_t>(a.values<uint8_t>()[i]);
    case TypeId::kUInt16:
      return static_cast<int64_t>(a.values<uint16_t>()[i]);
    case TypeId::kUInt32:
      return static_cast<int64_t>(a.values<uint32_t>()[i]);
    case TypeId::kUInt64: {
      uint64_t v = a.values<uint64_t>()[i];
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Status::Invalid(std::string(function) + "(): integer argument " + std::to_string(v) +
                               " is out of the int64 range");
      }
      return static_cast<int64_t>(v);
    }
    default:
      return Status::Internal(std::string(function) + "(): integer argument of type " +
                              a.type()->ToString());
  }
}

double DoubleAt(const Datum& datum, int64_t row) {
  const Array& a = datum.array();
  const int64_t i = datum.index(row);
  return DispatchNumeric(a.type_id(), [&](auto tag) {
    using T = decltype(tag);
    return static_cast<double>(a.values<T>()[i]);
  });
}

std::string_view StringAt(const Datum& datum, int64_t row) {
  return datum.array().GetView(datum.index(row));
}

bool IsStringType(const DataType& type) {
  return type.id() == TypeId::kString || type.id() == TypeId::kLargeString;
}

Status ArgumentTypeError(std::string_view function, std::string_view expected, const TypePtr& got,
                         size_t index) {
  return Status::TypeError(std::string(function) + "() expects " + std::string(expected) +
                           ", got " + got->ToString() + " for argument " +
                           std::to_string(index + 1));
}

}  // namespace flotilla::expr::elementwise
