#pragma once
// Type dispatch, hoisted out of hot loops: calls a generic lambda once with a value of the C type
// that stores a TypeId's values, so the loop inside is compiled per physical type.

#include <cstdint>

#include "flotilla/types/data_type.h"

namespace flotilla {

/// Calls `visit(T{})` for integer and floating-point ids, `otherwise()` for every other id.
template <typename Visit, typename Otherwise>
decltype(auto) VisitNumericType(TypeId id, Visit&& visit, Otherwise&& otherwise) {
  switch (id) {
    case TypeId::kInt8:
      return visit(int8_t{});
    case TypeId::kInt16:
      return visit(int16_t{});
    case TypeId::kInt32:
      return visit(int32_t{});
    case TypeId::kInt64:
      return visit(int64_t{});
    case TypeId::kUInt8:
      return visit(uint8_t{});
    case TypeId::kUInt16:
      return visit(uint16_t{});
    case TypeId::kUInt32:
      return visit(uint32_t{});
    case TypeId::kUInt64:
      return visit(uint64_t{});
    case TypeId::kFloat32:
      return visit(float{});
    case TypeId::kFloat64:
      return visit(double{});
    default:
      return otherwise();
  }
}

/// Like VisitNumericType, also mapping the temporal types to their storage type (date32 to
/// int32; timestamp and duration to int64).
template <typename Visit, typename Otherwise>
decltype(auto) VisitPrimitiveType(TypeId id, Visit&& visit, Otherwise&& otherwise) {
  switch (id) {
    case TypeId::kDate32:
      return visit(int32_t{});
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      return visit(int64_t{});
    default:
      return VisitNumericType(id, visit, otherwise);
  }
}

}  // namespace flotilla
