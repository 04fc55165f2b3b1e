// Building lists and structs from values: SQL's [a, b, c] (list_value), list_concat, and
// {'k': v} / struct_pack(k := v). Null elements stay elements; the result itself is never null.

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/list_functions.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

Result<TypePtr> ResolveListValue(const Types& t) {
  // The binder has cast every argument to one type (ScalarFunction::unify_arguments).
  for (size_t i = 1; i < t.size(); ++i) {
    if (!t[i]->Equals(*t[0])) {
      return ArgumentTypeError("list_value", i, t[0]->ToString(), t[i]);
    }
  }
  return list(t.empty() ? null() : t[0]);
}

Result<Datum> ListValueExec(const Args& args, int64_t num_rows) {
  // No arguments: one empty list, a constant like any call whose arguments all are.
  const int64_t n = args.empty() ? 1 : OutputRows(args, num_rows);
  const TypePtr element = args.empty() ? null() : args[0].type();
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(list(element)));
  auto* lists = static_cast<ListBuilder*>(builder.get());
  FLOTILLA_RETURN_NOT_OK(lists->Reserve(n));
  for (int64_t row = 0; row < n; ++row) {
    FLOTILLA_RETURN_NOT_OK(lists->Append());
    for (const Datum& a : args) {
      FLOTILLA_RETURN_NOT_OK(lists->value_builder()->AppendArraySlice(a.array(), a.index(row), 1));
    }
  }
  if (args.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(Array out, builder->Finish());
    return Datum::Scalar(std::move(out));
  }
  return FinishDatum(builder.get(), args);
}

Result<TypePtr> ResolveListConcat(const Types& t) {
  // The binder has cast both arguments to one type (ScalarFunction::unify_arguments).
  if (t[0]->id() == TypeId::kNull) return list(null());
  if (t[0]->id() != TypeId::kList) return ArgumentTypeError("list_concat", 0, "a list", t[0]);
  return t[0];
}

// The elements of the first list, then the second's; a null list counts as empty (as DuckDB).
Result<Datum> ListConcatExec(const Args& args, int64_t num_rows) {
  const int64_t n = OutputRows(args, num_rows);
  const TypePtr type = args[0].type()->id() == TypeId::kNull ? list(null()) : args[0].type();
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type));
  auto* lists = static_cast<ListBuilder*>(builder.get());
  FLOTILLA_RETURN_NOT_OK(lists->Reserve(n));
  for (int64_t row = 0; row < n; ++row) {
    FLOTILLA_RETURN_NOT_OK(lists->Append());
    for (const Datum& a : args) {
      const Array& l = a.array();
      const int64_t i = a.index(row);
      if (l.type_id() == TypeId::kNull || l.IsNull(i)) continue;
      auto [first, end] = ListRange(l, i);
      FLOTILLA_RETURN_NOT_OK(
          lists->value_builder()->AppendArraySlice(l.child(0), first, end - first));
    }
  }
  return FinishDatum(builder.get(), args);
}

// struct_pack('name', value, 'name', value, ...): names are constant strings, unique
// case-insensitively as DuckDB requires.
Result<TypePtr> ResolveStructPack(const Types& t, const std::vector<Array>& literals) {
  if (t.empty() || t.size() % 2 != 0) {
    return Status::TypeError("struct_pack() takes name, value pairs");
  }
  std::vector<Field> fields;
  std::set<std::string> seen;
  for (size_t i = 0; i < t.size(); i += 2) {
    if (i >= literals.size() || !literals[i].valid() || literals[i].IsNull(0) ||
        (t[i]->id() != TypeId::kString && t[i]->id() != TypeId::kLargeString)) {
      return Status::TypeError("struct_pack() needs each field name (argument " +
                               std::to_string(i + 1) + ") as a constant string");
    }
    std::string name(literals[i].GetView(0));
    std::string key = name;
    for (char& c : key)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!seen.insert(key).second) {
      return Status::Invalid("struct_pack(): the field name '" + name + "' is given twice");
    }
    fields.push_back(Field(std::move(name), t[i + 1]));
  }
  return struct_(std::move(fields));
}

Result<Datum> StructPackExec(const Args& args, int64_t num_rows) {
  std::vector<Field> fields;
  Args values;
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    fields.push_back(Field(std::string(ViewAt(args[i], 0)), args[i + 1].type()));
    values.push_back(args[i + 1]);
  }
  const int64_t n = OutputRows(values, num_rows);
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(struct_(std::move(fields))));
  auto* structs = static_cast<StructBuilder*>(builder.get());
  FLOTILLA_RETURN_NOT_OK(structs->Reserve(n));
  for (int64_t row = 0; row < n; ++row) {
    FLOTILLA_RETURN_NOT_OK(structs->Append());
    for (size_t f = 0; f < values.size(); ++f) {
      FLOTILLA_RETURN_NOT_OK(structs->field_builder(static_cast<int>(f))
                                 ->AppendArraySlice(values[f].array(), values[f].index(row), 1));
    }
  }
  return FinishDatum(builder.get(), values);
}

}  // namespace

Status RegisterListConstructFunctions(FunctionRegistry* r) {
  ScalarFunction list_value{
      "list_value",
      "list_value(a, b, ...): a list of the arguments, cast to one type (SQL's [a, b, ...]); "
      "null arguments are null elements.",
      0,
      -1,
      ResolveListValue,
      ListValueExec};
  list_value.unify_arguments = true;
  FLOTILLA_RETURN_NOT_OK(r->Add(std::move(list_value)));
  ScalarFunction list_concat{
      "list_concat",
      "list_concat(a, b): a's elements, then b's, cast to one type (SQL's a || b of lists); a "
      "null list counts as empty.",
      2,
      2,
      ResolveListConcat,
      ListConcatExec};
  list_concat.unify_arguments = true;
  FLOTILLA_RETURN_NOT_OK(r->Add(std::move(list_concat)));
  ScalarFunction struct_pack{
      "struct_pack",
      "struct_pack('name', value, ...): a struct with one field per pair (SQL's {'name': value} "
      "and struct_pack(name := value)); names are constant and unique.",
      2, -1};
  struct_pack.resolve_with_literals = ResolveStructPack;
  struct_pack.exec = StructPackExec;
  return r->Add(std::move(struct_pack));
}

}  // namespace flotilla::expr::functions
