#pragma once
// Test-only: build small arrays and call registry functions the way the engine does (find,
// check arity, resolve, exec), checking the contract on every call: the result has the resolved
// type, the right row count, and is a scalar exactly when every argument is. Its own namespace
// keeps these inline helpers apart from other families' test helpers in the same binary.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/function_registry.h"

namespace flotilla::testing {

// The function tests speak the expression layer's terms (datums, the registry).
using namespace ::flotilla::expr;  // NOLINT

using OptString = std::optional<std::string>;
using OptInt = std::optional<int64_t>;

inline Array Strings(const std::vector<OptString>& values, TypePtr type = utf8()) {
  auto builder = MakeBuilder(type).ValueOrDie();
  for (const auto& v : values) {
    if (!v) {
      builder->AppendNull().Check();
    } else if (type->has_large_offsets()) {
      static_cast<LargeStringBuilder*>(builder.get())->Append(*v).Check();
    } else {
      static_cast<StringBuilder*>(builder.get())->Append(*v).Check();
    }
  }
  return builder->Finish().ValueOrDie();
}

template <typename T = int64_t>
Array Numbers(const std::vector<std::optional<T>>& values, TypePtr type = int64()) {
  NumericBuilder<T> builder(type);
  for (const auto& v : values)
    (v ? builder.Append(*v) : builder.AppendNull()).Check();
  return builder.Finish().ValueOrDie();
}
inline Array Ints(const std::vector<OptInt>& values) {
  return Numbers<int64_t>(values);
}

inline Array Bools(const std::vector<std::optional<bool>>& values) {
  BooleanBuilder builder;
  for (const auto& v : values)
    (v ? builder.Append(*v) : builder.AppendNull()).Check();
  return builder.Finish().ValueOrDie();
}

/// A list array from the rows of `values` (an array of the element type): each entry of `rows`
/// is {first, count} into values, or nullopt for a null list.
inline Array Lists(const Array& values,
                   const std::vector<std::optional<std::pair<int64_t, int64_t>>>& rows) {
  auto builder = MakeBuilder(list(values.type())).ValueOrDie();
  auto* lists = static_cast<ListBuilder*>(builder.get());
  for (const auto& r : rows) {
    if (!r) {
      lists->AppendNull().Check();
      continue;
    }
    lists->Append().Check();
    lists->value_builder()->AppendArraySlice(values, r->first, r->second).Check();
  }
  return builder->Finish().ValueOrDie();
}

inline Datum Col(Array a) {
  return Datum::Column(std::move(a));
}
inline Datum Lit(Array a) {
  return Datum::Scalar(std::move(a));
}
inline Datum LitS(const std::string& s) {
  return Lit(Strings({s}));
}
inline Datum LitI(int64_t v) {
  return Lit(Ints({v}));
}
inline Datum LitB(bool v) {
  return Lit(Bools({v}));
}
inline Datum NullLit() {
  return Lit(Array::MakeNull(null(), 1).ValueOrDie());
}

/// Resolves argument types through the registry, with no argument known to be constant.
inline Result<TypePtr> Resolve(std::string_view name, const std::vector<TypePtr>& types) {
  FLOTILLA_ASSIGN_OR_RETURN(const ScalarFunction* f, DefaultRegistry().Find(name));
  return f->Resolve(types);
}

/// Calls `name` over `num_rows` rows (default: the length of the first column argument).
inline Result<Datum> Call(std::string_view name, const std::vector<Datum>& args,
                          int64_t num_rows = -1) {
  FLOTILLA_ASSIGN_OR_RETURN(const ScalarFunction* f, DefaultRegistry().Find(name));
  int n = static_cast<int>(args.size());
  if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
    return Status::Invalid("wrong number of arguments in test");
  }
  bool all_scalar = true;
  std::vector<TypePtr> types;
  std::vector<Array> literals;  // scalars stand for the literals the binder would pass
  for (const Datum& a : args) {
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
  EXPECT_TRUE(out.type()->Equals(*type))
      << name << ": result " << out.type()->ToString() << " but resolved " << type->ToString();
  EXPECT_EQ(out.is_scalar(), all_scalar) << name;
  EXPECT_EQ(out.array().length(), all_scalar ? 1 : num_rows) << name;
  return out;
}

/// The result as printable text ("[a, null, b]") for compact expectations.
inline std::string CallToString(std::string_view name, const std::vector<Datum>& args,
                                int64_t num_rows = -1) {
  Result<Datum> r = Call(name, args, num_rows);
  if (!r.ok()) return r.status().ToString();
  return r->array().ToString();
}

}  // namespace flotilla::testing
