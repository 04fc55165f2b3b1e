#pragma once
// Test helpers for the element-wise function tests: build small arrays, call a function the
// way the engine does (function_test_support.h), and read results back.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/function_registry.h"
#include "flotilla/expr/functions/function_test_support.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::testing {

// The function tests speak the expression layer's terms (datums, the registry).
using namespace ::flotilla::expr;  // NOLINT

inline Array MakeDecimals(int32_t precision, int32_t scale,
                          const std::vector<std::optional<Int128>>& values) {
  FixedSizeBinaryBuilder b(decimal128(precision, scale));
  for (const auto& v : values) {
    if (v) {
      b.AppendDecimal(*v).Check();
    } else {
      b.AppendNull().Check();
    }
  }
  return b.Finish().ValueOrDie();
}

inline Datum Scalar(Array a) {
  return Datum::Scalar(std::move(a));
}
inline Datum StrScalar(const std::string& s) {
  return Scalar(MakeStrings({s}));
}
inline Datum I64Scalar(int64_t v) {
  return Scalar(MakeNumeric<int64_t>(int64(), {v}));
}

// Calling a function (resolve with constant arguments, exec, result checks) and wrapping a
// column are shared with the other function tests.
using flotilla::testing::Call;
using flotilla::testing::Col;

template <typename T>
std::vector<std::optional<T>> Values(const Datum& d) {
  std::vector<std::optional<T>> out;
  for (int64_t i = 0; i < d.array().length(); ++i) {
    if (d.array().IsNull(i)) {
      out.push_back(std::nullopt);
    } else {
      out.push_back(d.array().values<T>()[i]);
    }
  }
  return out;
}

inline std::vector<std::optional<std::string>> StringValues(const Datum& d) {
  std::vector<std::optional<std::string>> out;
  for (int64_t i = 0; i < d.array().length(); ++i) {
    if (d.array().IsNull(i)) {
      out.push_back(std::nullopt);
    } else {
      out.push_back(std::string(d.array().GetView(i)));
    }
  }
  return out;
}

/// One value of a function of all-scalar arguments, or the error.
template <typename T>
Result<std::optional<T>> CallOne(const std::string& name, const std::vector<Datum>& args) {
  FLOTILLA_ASSIGN_OR_RETURN(Datum out, Call(name, args));
  return Values<T>(out)[0];
}

}  // namespace flotilla::testing
