#pragma once
// Test-only builders for the element-wise kernel tests: short arrays from literals.

#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::testing {

inline constexpr std::nullopt_t N = std::nullopt;

inline Array I64(const std::vector<std::optional<int64_t>>& v) {
  return MakeNumeric(int64(), v);
}
inline Array I32(const std::vector<std::optional<int32_t>>& v) {
  return MakeNumeric(int32(), v);
}
inline Array I8(const std::vector<std::optional<int8_t>>& v) {
  return MakeNumeric(int8(), v);
}
inline Array U8(const std::vector<std::optional<uint8_t>>& v) {
  return MakeNumeric(uint8(), v);
}
inline Array F64(const std::vector<std::optional<double>>& v) {
  return MakeNumeric(float64(), v);
}
inline Array F32(const std::vector<std::optional<float>>& v) {
  return MakeNumeric(float32(), v);
}
inline Array Dates(const std::vector<std::optional<int32_t>>& v) {
  return MakeNumeric(date32(), v);
}
inline Array Bools(const std::vector<std::optional<bool>>& v) {
  BooleanBuilder b;
  for (const auto& x : v)
    (x ? b.Append(*x) : b.AppendNull()).Check();
  return b.Finish().ValueOrDie();
}
/// Decimals from text ("1.25") at decimal128(precision, scale); nullopt is null.
inline Array Decimals(int32_t precision, int32_t scale,
                      const std::vector<std::optional<std::string>>& v) {
  FixedSizeBinaryBuilder b(decimal128(precision, scale));
  for (const auto& x : v) {
    if (x) {
      b.AppendDecimal(DecimalFromString(*x, precision, scale).ValueOrDie()).Check();
    } else {
      b.AppendNull().Check();
    }
  }
  return b.Finish().ValueOrDie();
}
inline Array Strs(const std::vector<std::optional<std::string>>& v) {
  return MakeStrings(v);
}

}  // namespace flotilla::testing
