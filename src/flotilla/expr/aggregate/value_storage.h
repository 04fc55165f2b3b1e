#pragma once
// Per-group storage of one orderable value (numbers, decimals, temporals, bool, strings and
// binary), shared by the aggregates that pick a value per group (select.cc) or compare a key per
// group (arg_select.cc). Internal to the aggregate library.

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/expr/aggregate/accumulator_support.h"

namespace flotilla::expr::aggregate_internal {

// Per-group value storage; one per physical type so the update loops are typed.
template <typename T>
struct PrimitiveStorage {
  using View = T;
  std::vector<T> values;
  static T Get(const Array& a, int64_t i) { return a.values<T>()[i]; }
  static bool Less(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  }
  void Set(uint32_t g, T v) { values[g] = v; }
  T At(int64_t g) const { return values[g]; }
  void Resize(int64_t n) { GrowTo(&values, n, T{}); }
  int64_t memory_bytes() const { return static_cast<int64_t>(values.capacity() * sizeof(T)); }
  Result<Array> Build(const TypePtr& type, int64_t n, const std::vector<uint8_t>& valid) const {
    std::vector<T> out(values.begin(), values.begin() + n);
    return MakeFixedWidthArray(type, out, &valid);
  }
};

struct DecimalStorage : PrimitiveStorage<Int128> {
  static Int128 Get(const Array& a, int64_t i) { return DecimalAt(a, i); }
};

struct BoolStorage {
  using View = bool;
  std::vector<uint8_t> values;
  static bool Get(const Array& a, int64_t i) { return a.BoolValue(i); }
  static bool Less(bool a, bool b) { return !a && b; }
  void Set(uint32_t g, bool v) { values[g] = v; }
  bool At(int64_t g) const { return values[g] != 0; }
  void Resize(int64_t n) { GrowTo(&values, n, uint8_t{0}); }
  int64_t memory_bytes() const { return static_cast<int64_t>(values.capacity()); }
  Result<Array> Build(const TypePtr&, int64_t n, const std::vector<uint8_t>& valid) const {
    std::vector<uint8_t> out(values.begin(), values.begin() + n);
    return MakeBooleanArray(out, &valid);
  }
};

struct BinaryStorage {
  using View = std::string_view;
  // One string per group; assign() reuses its capacity, so a new extreme costs no allocation
  // once the group's string is large enough.
  std::vector<std::string> values;
  int64_t heap_bytes = 0;  // the strings' own allocations (past the inline buffer)
  static std::string_view Get(const Array& a, int64_t i) { return a.GetView(i); }
  static bool Less(std::string_view a, std::string_view b) { return a < b; }
  void Set(uint32_t g, std::string_view v) {
    std::string& s = values[g];
    const auto before = static_cast<int64_t>(s.capacity());
    s.assign(v);
    heap_bytes += static_cast<int64_t>(s.capacity()) - before;
  }
  std::string_view At(int64_t g) const { return values[g]; }
  void Resize(int64_t n) { GrowTo(&values, n); }
  int64_t memory_bytes() const {
    return static_cast<int64_t>(values.capacity() * sizeof(std::string)) + heap_bytes;
  }
  Result<Array> Build(const TypePtr& type, int64_t n, const std::vector<uint8_t>& valid) const {
    std::vector<std::string> out(values.begin(), values.begin() + n);
    return MakeBinaryArray(type, out, &valid);
  }
};

/// Whether a type has a storage above (orderable and not nested).
inline bool IsSelectable(const DataType& t) {
  return t.is_numeric() || t.is_binary_like() || t.id() == TypeId::kDecimal128 ||
         t.id() == TypeId::kDate32 || t.id() == TypeId::kTimestamp || t.id() == TypeId::kDuration ||
         t.id() == TypeId::kTime64 || t.id() == TypeId::kBool || t.id() == TypeId::kFixedSizeBinary;
}

/// Calls `visit(Storage{})` with the storage of `type`, or returns `otherwise()` when it has none.
template <typename Visit, typename Otherwise>
auto VisitStorage(const DataType& type, Visit&& visit, Otherwise&& otherwise) {
  switch (type.id()) {
    case TypeId::kBool:
      return visit(BoolStorage{});
    case TypeId::kDecimal128:
      return visit(DecimalStorage{});
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      return visit(BinaryStorage{});
    default:
      break;
  }
  return VisitPrimitive(
      type.id(), [&](auto tag) { return visit(PrimitiveStorage<decltype(tag)>{}); }, otherwise);
}

}  // namespace flotilla::expr::aggregate_internal
