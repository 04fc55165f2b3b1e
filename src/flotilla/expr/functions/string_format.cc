// format(template, args...) with {} placeholders (the fmt library's syntax, as DuckDB's format)
// and printf(template, args...) with C's % specifiers (fmt's printf implementation, type-safe:
// a mismatched specifier is an error naming the template, never undefined behaviour).

#include <fmt/args.h>
#include <fmt/format.h>
#include <fmt/printf.h>

#include <string>
#include <vector>

#include "flotilla/compute/cast.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/list_functions.h"
#include "flotilla/expr/functions/string_functions.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

Result<TypePtr> ResolveFormat(const char* name, const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectString(name, t, 0));
  for (size_t i = 1; i < t.size(); ++i) {
    const DataType& type = *t[i];
    if (type.id() == TypeId::kList || type.id() == TypeId::kStruct ||
        type.id() == TypeId::kFixedSizeList) {
      return ArgumentTypeError(name, i, "a number, string, bool or time", t[i]);
    }
  }
  return utf8();
}

// Numbers and bools pass as themselves (decimals as doubles); anything else as its text.
Result<Datum> Printable(const Datum& d) {
  const DataType& t = *d.type();
  if (t.is_numeric() || t.is_string() || t.id() == TypeId::kBool || t.id() == TypeId::kNull) {
    return d;
  }
  const TypePtr to = t.id() == TypeId::kDecimal128 ? float64() : utf8();
  FLOTILLA_ASSIGN_OR_RETURN(Array cast, compute::Cast(d.array(), to));
  return d.is_scalar() ? Datum::Scalar(std::move(cast)) : Datum::Column(std::move(cast));
}

template <typename Store>
void Push(Store* store, const Datum& d, int64_t row) {
  const Array& a = d.array();
  const int64_t i = d.index(row);
  const DataType& t = *a.type();
  if (a.IsNull(i)) {
    store->push_back(std::string("NULL"));
  } else if (t.id() == TypeId::kBool) {
    store->push_back(a.BoolValue(i));
  } else if (t.is_floating()) {
    store->push_back(DoubleAt(a, i));
  } else if (t.id() == TypeId::kUInt64) {
    store->push_back(a.values<uint64_t>()[i]);
  } else if (t.is_integer()) {
    store->push_back(IntegerBitsAt(a, i));
  } else {
    store->push_back(std::string(a.GetView(i)));
  }
}

template <bool kPrintf>
Result<Datum> FormatExec(const Args& raw, int64_t num_rows) {
  Args args;
  for (const Datum& d : raw) {
    FLOTILLA_ASSIGN_OR_RETURN(Datum p, Printable(d));
    args.push_back(std::move(p));
  }
  const char* name = kPrintf ? "printf" : "format";
  StringBuilder builder(utf8());
  const int64_t n = OutputRows(args, num_rows);
  FLOTILLA_RETURN_NOT_OK(builder.Reserve(n));
  using Context = std::conditional_t<kPrintf, fmt::printf_context, fmt::format_context>;
  fmt::dynamic_format_arg_store<Context> store;
  for (int64_t row = 0; row < n; ++row) {
    // A null template gives null; a null argument prints as NULL.
    if (args[0].IsNull(row)) {
      FLOTILLA_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    store.clear();
    for (size_t i = 1; i < args.size(); ++i)
      Push(&store, args[i], row);
    const std::string_view pattern = ViewAt(args[0], row);
    try {
      std::string text;
      if constexpr (kPrintf) {
        text = fmt::vsprintf(fmt::string_view(pattern.data(), pattern.size()), store);
      } else {
        text = fmt::vformat(fmt::string_view(pattern.data(), pattern.size()), store);
      }
      FLOTILLA_RETURN_NOT_OK(builder.Append(text));
    } catch (const std::exception& e) {
      return Status::Invalid(std::string(name) + "(): cannot format '" + std::string(pattern) +
                             "' with " + std::to_string(args.size() - 1) +
                             " argument(s): " + e.what());
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array out, builder.Finish());
  return AllScalar(args) ? Datum::Scalar(std::move(out)) : Datum::Column(std::move(out));
}

}  // namespace

Status RegisterFormatFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"format",
       "format(template, args...): the template with each {} (or {0}, {:.2f}, ... in the fmt "
       "library's syntax) replaced by an argument; a null argument prints as NULL, a null "
       "template gives null.",
       1, -1, [](const Types& t) { return ResolveFormat("format", t); }, FormatExec<false>}));
  return r->Add(
      {"printf",
       "printf(template, args...): the template with C's % specifiers (%d, %s, %.2f, %5d, ...) "
       "replaced by the arguments; a specifier that does not fit its argument is an error.",
       1, -1, [](const Types& t) { return ResolveFormat("printf", t); }, FormatExec<true>});
}

}  // namespace flotilla::expr::functions
