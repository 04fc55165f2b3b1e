// Reading lists and structs: length, element access, slicing, joining, membership, fields.

#include <algorithm>
#include <string>
#include <vector>

#include "flotilla/common/suggest.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/list_functions.h"

namespace flotilla::expr::functions {

std::pair<int64_t, int64_t> ListRange(const Array& lists, int64_t i) {
  if (lists.type_id() == TypeId::kFixedSizeList) {
    int64_t n = lists.type()->fixed_size();
    return {(lists.offset() + i) * n, (lists.offset() + i + 1) * n};
  }
  return {lists.ValueOffset(i), lists.ValueOffset(i + 1)};
}

TypePtr VariableListOf(const DataType& list_type) {
  return list(list_type.fields()[0]);
}

namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

Result<Datum> LengthExec(const Args& args, int64_t num_rows) {
  Int64Builder builder(int64());
  const Array& lists = args[0].array();
  return MapRows(args, num_rows, &builder, [&](int64_t row) {
    auto [first, end] = ListRange(lists, args[0].index(row));
    return builder.Append(end - first);
  });
}

// The non-null elements (DuckDB's list_count).
Result<Datum> CountExec(const Args& args, int64_t num_rows) {
  Int64Builder builder(int64());
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  return MapRows(args, num_rows, &builder, [&](int64_t row) {
    auto [first, end] = ListRange(lists, args[0].index(row));
    int64_t valid = 0;
    for (int64_t j = first; j < end; ++j)
      valid += values.IsNull(j) ? 0 : 1;
    return builder.Append(valid);
  });
}

// Element i, negative counting from the end, out of range giving null: 0-based as Python
// (list_get), or 1-based as SQL (list_extract, where 0 is out of range).
template <bool kOneBased>
Result<Datum> GetExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(ElementType(*lists.type())));
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    auto [first, end] = ListRange(lists, args[0].index(row));
    FLOTILLA_ASSIGN_OR_RETURN(int64_t i,
                              IntegerAt(args[1], row, kOneBased ? "list_extract" : "list_get"));
    if (kOneBased) {
      if (i == 0) return builder->AppendNull();
      if (i > 0) i -= 1;
    }
    if (i < 0) i += end - first;
    if (i < 0 || i >= end - first) return builder->AppendNull();
    return builder->AppendArraySlice(values, first + i, 1);
  });
}

// The elements lo, lo + step, ... below hi of a list.
struct SliceBounds {
  int64_t lo = 0, hi = 0, step = 1;
};

// Each row's list cut to the elements `bounds(n, row)` gives for a list of n elements.
template <typename Bounds>
Result<Datum> SliceRows(const Args& args, int64_t num_rows, Bounds&& bounds) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(VariableListOf(*lists.type())));
  auto* out = static_cast<ListBuilder*>(builder.get());
  return MapRows(args, num_rows, out, [&](int64_t row) -> Status {
    auto [first, end] = ListRange(lists, args[0].index(row));
    FLOTILLA_ASSIGN_OR_RETURN(SliceBounds b, bounds(end - first, row));
    FLOTILLA_RETURN_NOT_OK(out->Append());
    if (b.step == 1) {
      if (b.hi <= b.lo) return Status::OK();
      return out->value_builder()->AppendArraySlice(values, first + b.lo, b.hi - b.lo);
    }
    for (int64_t i = b.lo; i < b.hi; i += b.step) {
      FLOTILLA_RETURN_NOT_OK(out->value_builder()->AppendArraySlice(values, first + i, 1));
    }
    return Status::OK();
  });
}

// Elements [start, end) with Python slice semantics: negative bounds count from the end, bounds
// are clamped, and a missing end means the list's end.
Result<Datum> SliceExec(const Args& args, int64_t num_rows) {
  return SliceRows(args, num_rows, [&](int64_t n, int64_t row) -> Result<SliceBounds> {
    auto clamp = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
    FLOTILLA_ASSIGN_OR_RETURN(const int64_t begin, IntegerAt(args[1], row, "list_slice"));
    int64_t end = n;
    if (args.size() > 2) {
      FLOTILLA_ASSIGN_OR_RETURN(end, IntegerAt(args[2], row, "list_slice"));
      end = clamp(end);
    }
    return SliceBounds{clamp(begin), end, 1};
  });
}

// DuckDB's list_slice: elements begin..end, 1-based and both inclusive; a negative bound counts
// from the end (-1 the last element), 0 as a begin is the first element, bounds are clamped; an
// optional step (positive) takes every step-th element from the first.
Result<Datum> SliceOneBasedExec(const Args& args, int64_t num_rows) {
  return SliceRows(args, num_rows, [&](int64_t n, int64_t row) -> Result<SliceBounds> {
    FLOTILLA_ASSIGN_OR_RETURN(const int64_t b, IntegerAt(args[1], row, "array_slice"));
    FLOTILLA_ASSIGN_OR_RETURN(const int64_t e, IntegerAt(args[2], row, "array_slice"));
    int64_t step = 1;
    if (args.size() > 3) {
      FLOTILLA_ASSIGN_OR_RETURN(step, IntegerAt(args[3], row, "array_slice"));
    }
    if (step <= 0) {
      return Status::Invalid("array_slice(): the step must be positive, got " +
                             std::to_string(step));
    }
    return SliceBounds{std::clamp<int64_t>(b > 0   ? b - 1
                                           : b < 0 ? n + b
                                                   : 0,
                                           0, n),
                       std::clamp<int64_t>(e >= 0 ? e : n + e + 1, 0, n), step};
  });
}

// A slice's type: a list, then integer bounds (and step); a variable-size list of its elements.
constexpr char kListSlice[] = "list_slice";
constexpr char kArraySlice[] = "array_slice";
template <const char* kName>
Result<TypePtr> ResolveSlice(const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectList(kName, t, 0));
  for (size_t i = 1; i < t.size(); ++i)
    FLOTILLA_RETURN_NOT_OK(ExpectInteger(kName, t, i));
  return VariableListOf(*t[0]);
}

// Null elements are skipped, as concat_ws skips null arguments.
Result<Datum> JoinExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  bool large =
      values.type_id() == TypeId::kLargeString || args[1].type()->id() == TypeId::kLargeString;
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(large ? large_utf8() : utf8()));
  StringAppender out(builder.get());
  std::string buffer;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) {
    auto [first, end] = ListRange(lists, args[0].index(row));
    std::string_view sep = ViewAt(args[1], row);
    buffer.clear();
    bool any = false;
    for (int64_t j = first; j < end; ++j) {
      if (values.IsNull(j)) continue;
      if (any) buffer.append(sep);
      buffer.append(values.GetView(j));
      any = true;
    }
    return out.Append(buffer);
  });
}

bool IsStringLike(const DataType& t) {
  return t.is_binary_like();
}

// Element j of `values` equals row r of `needle`, for the type pairs ResolveContains accepts.
bool ElementEquals(const Array& values, int64_t j, const Array& needle, int64_t r) {
  const DataType& a = *values.type();
  const DataType& b = *needle.type();
  if (a.is_integer() && b.is_integer()) {
    bool a_big = a.id() == TypeId::kUInt64 && values.values<uint64_t>()[j] > INT64_MAX;
    bool b_big = b.id() == TypeId::kUInt64 && needle.values<uint64_t>()[r] > INT64_MAX;
    if (a_big || b_big)
      return a_big && b_big && values.values<uint64_t>()[j] == needle.values<uint64_t>()[r];
    return IntegerBitsAt(values, j) == IntegerBitsAt(needle, r);
  }
  if (a.is_numeric() && b.is_numeric()) {
    auto as_double = [](const Array& x, int64_t i) {
      switch (x.type_id()) {
        case TypeId::kFloat32:
          return static_cast<double>(x.values<float>()[i]);
        case TypeId::kFloat64:
          return x.values<double>()[i];
        case TypeId::kUInt64:
          return static_cast<double>(x.values<uint64_t>()[i]);
        default:
          return static_cast<double>(IntegerBitsAt(x, i));
      }
    };
    return as_double(values, j) == as_double(needle, r);
  }
  if (IsStringLike(a) && IsStringLike(b)) return values.GetView(j) == needle.GetView(r);
  return values.Slice(j, 1).Equals(needle.Slice(r, 1));
}

Result<TypePtr> ResolveContains(const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectList("list_contains", t, 0));
  const DataType& e = *ElementType(*t[0]);
  const DataType& v = *t[1];
  bool ok = v.id() == TypeId::kNull || (e.is_numeric() && v.is_numeric()) ||
            (IsStringLike(e) && IsStringLike(v)) || e.Equals(v);
  if (!ok) return ArgumentTypeError("list_contains", 1, "a value of type " + e.ToString(), t[1]);
  return boolean();
}

// Null elements never match; a list without the value is false even if it holds nulls.
Result<Datum> ContainsExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  BooleanBuilder builder;
  return MapRows(args, num_rows, &builder, [&](int64_t row) {
    auto [first, end] = ListRange(lists, args[0].index(row));
    bool found = false;
    for (int64_t j = first; j < end && !found; ++j) {
      found = values.IsValid(j) && ElementEquals(values, j, args[1].array(), args[1].index(row));
    }
    return builder.Append(found);
  });
}

// The first field called `name` (names may repeat in a struct), or a KeyError suggesting the
// closest one.
Result<int> StructFieldIndex(const DataType& type, std::string_view name) {
  std::vector<std::string> names;
  for (const Field& f : type.fields()) {
    if (f.name == name) return static_cast<int>(names.size());
    names.push_back(f.name);
  }
  return Status::KeyError(NotFoundMessage("struct field", name, names));
}

// The result type is the named field's, so the name must be known at bind time.
Result<TypePtr> ResolveStructGet(const Types& t, const std::vector<Array>& literals) {
  if (t[0]->id() != TypeId::kStruct) return ArgumentTypeError("struct_get", 0, "a struct", t[0]);
  FLOTILLA_RETURN_NOT_OK(ExpectString("struct_get", t, 1));
  if (literals.size() < 2 || !literals[1].valid()) {
    return Status::TypeError(
        "struct_get() needs the field name (argument 2) as a constant string; got an "
        "expression that varies per row");
  }
  if (literals[1].IsNull(0)) {
    return Status::Invalid("struct_get() needs a non-null field name (argument 2)");
  }
  FLOTILLA_ASSIGN_OR_RETURN(int index, StructFieldIndex(*t[0], literals[1].GetView(0)));
  return t[0]->fields()[index].type;
}

Result<Datum> StructGetExec(const Args& args, int64_t num_rows) {
  if (!args[1].is_scalar() || args[1].IsNull(0)) {
    return Status::Invalid("struct_get(): the field name must be a non-null constant");
  }
  const Array& structs = args[0].array();
  FLOTILLA_ASSIGN_OR_RETURN(int index, StructFieldIndex(*structs.type(), ViewAt(args[1], 0)));
  const Array field = structs.field(index);
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(field.type()));
  // A null struct makes its field null, whatever the child holds in that slot.
  const Args structs_only = {args[0]};
  return MapRows(structs_only, args[0].is_scalar() ? 1 : num_rows, builder.get(), [&](int64_t row) {
    return builder->AppendArraySlice(field, args[0].index(row), 1);
  });
}

}  // namespace

Status RegisterListAccessFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"list_length",
              "Number of elements in the list (nulls included); null for a null list.", 1, 1,
              [](const Types& t) -> Result<TypePtr> {
                FLOTILLA_RETURN_NOT_OK(ExpectList("list_length", t, 0));
                return int64();
              },
              LengthExec}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"list_count", "Number of non-null elements in the list; null for a null list.", 1, 1,
              [](const Types& t) -> Result<TypePtr> {
                FLOTILLA_RETURN_NOT_OK(ExpectList("list_count", t, 0));
                return int64();
              },
              CountExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_get",
       "Element i of the list (0-based; negative counts from the end); null when out of range or "
       "any argument is null.",
       2, 2,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ExpectList("list_get", t, 0));
         FLOTILLA_RETURN_NOT_OK(ExpectInteger("list_get", t, 1));
         return ElementType(*t[0]);
       },
       GetExec<false>}));
  // SQL's l[i] reads list_extract(l, i), 1-based as DuckDB's.
  for (const char* name : {"list_extract", "list_element"}) {
    FLOTILLA_RETURN_NOT_OK(
        r->Add({name,
                "Element i of the list, 1-based as DuckDB's (l[i] in SQL; negative counts from the "
                "end, 0 and out of range give null); null when any argument is null.",
                2, 2,
                [](const Types& t) -> Result<TypePtr> {
                  FLOTILLA_RETURN_NOT_OK(ExpectList("list_extract", t, 0));
                  FLOTILLA_RETURN_NOT_OK(ExpectInteger("list_extract", t, 1));
                  return ElementType(*t[0]);
                },
                GetExec<true>}));
  }
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"list_slice",
              "Elements [start, end) of the list (0-based, negative from the end, clamped; end "
              "defaults to the list's end); null if any argument is null.",
              2, 3, ResolveSlice<kListSlice>, SliceExec}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"array_slice",
              "Elements begin..end of the list, 1-based and inclusive as DuckDB's list_slice "
              "(SQL's list_slice and array_slice; negative counts from the end, clamped; an "
              "optional positive step); null if any argument is null.",
              3, 4, ResolveSlice<kArraySlice>, SliceOneBasedExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_join",
       "The list's strings joined with the separator, skipping null elements; null if the list "
       "or separator is null.",
       2, 2,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ExpectList("list_join", t, 0));
         const TypePtr& e = ElementType(*t[0]);
         if (e->id() != TypeId::kString && e->id() != TypeId::kLargeString) {
           return ArgumentTypeError("list_join", 0, "a list of strings", t[0]);
         }
         FLOTILLA_RETURN_NOT_OK(ExpectString("list_join", t, 1));
         bool large = e->id() == TypeId::kLargeString || t[1]->id() == TypeId::kLargeString;
         return large ? large_utf8() : utf8();
       },
       JoinExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_contains",
       "Whether the list holds an element equal to the value (numbers compare by value); null "
       "if the list or value is null.",
       2, 2, ResolveContains, ContainsExec}));
  ScalarFunction struct_get{
      "struct_get",
      "struct_get(s, 'name'): the named field of the struct, with that field's type; null for a "
      "null struct. The name must be a constant; an unknown name is a KeyError suggesting the "
      "closest field.",
      2, 2};
  struct_get.exec = StructGetExec;
  struct_get.resolve_with_literals = ResolveStructGet;
  FLOTILLA_RETURN_NOT_OK(r->Add(std::move(struct_get)));
  return Status::OK();
}

}  // namespace flotilla::expr::functions
