#pragma once
// Test helpers for the element-wise function tests: build small arrays, call a function the
// way the engine does (DefaultRegistry().Find, resolve, exec), and read results back.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/function_registry.h"

namespace flotilla::expr::testing {

template <typename T>
Array MakeArray(const TypePtr& type, const std::vector<std::optional<T>>& values) {
  NumericBuilder<T> b(type);
  for (const auto& v : values) {
    if (v) {
      b.Append(*v).Check();
    } else {
      b.AppendNull().Check();
    }
  }
  return b.Finish().ValueOrDie();
}

inline Array MakeStrings(const std::vector<std::optional<std::string>>& values) {
  StringBuilder b(utf8());
  for (const auto& v : values) {
    if (v) {
      b.Append(*v).Check();
    } else {
      b.AppendNull().Check();
    }
  }
  return b.Finish().ValueOrDie();
}

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

inline Datum Col(Array a) {
  return Datum::Column(std::move(a));
}
inline Datum Scalar(Array a) {
  return Datum::Scalar(std::move(a));
}
inline Datum StrScalar(const std::string& s) {
  return Scalar(MakeStrings({s}));
}
inline Datum I64Scalar(int64_t v) {
  return Scalar(MakeArray<int64_t>(int64(), {v}));
}

/// Resolves and executes `name`; checks the result's type is the resolved one, its length,
/// and that it is a scalar exactly when every argument is.
inline Result<Datum> Call(const std::string& name, const std::vector<Datum>& args,
                          int64_t num_rows = -1) {
  FLOTILLA_ASSIGN_OR_RETURN(const ScalarFunction* f, DefaultRegistry().Find(name));
  const int n = static_cast<int>(args.size());
  if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
    return Status::Invalid("wrong number of arguments in test");
  }
  std::vector<TypePtr> types;
  std::vector<Array> literals;  // scalars stand for the literals the binder would pass
  bool all_scalar = true;
  for (const auto& a : args) {
    types.push_back(a.type());
    literals.push_back(a.is_scalar() ? a.array() : Array());
    if (!a.is_scalar()) {
      all_scalar = false;
      if (num_rows < 0) num_rows = a.array().length();
    }
  }
  if (num_rows < 0) num_rows = 1;
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr type, f->Resolve(types, literals));
  FLOTILLA_ASSIGN_OR_RETURN(Datum out, f->exec(args, num_rows));
  EXPECT_TRUE(out.type()->Equals(*type)) << out.type()->ToString() << " vs " << type->ToString();
  EXPECT_EQ(out.is_scalar(), all_scalar) << name;
  EXPECT_EQ(out.array().length(), all_scalar ? 1 : num_rows) << name;
  return out;
}

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

}  // namespace flotilla::expr::testing
