// Per-row reductions and reorderings of lists: sum, mean, min, max, distinct, sort.

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "flotilla/compute/hash.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/list_functions.h"

namespace flotilla::expr::functions {

bool ElementOrder::IsOrderable(const DataType& t) {
  switch (t.id()) {
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
    case TypeId::kBool:
    case TypeId::kDecimal128:
      return true;
    default:
      return t.is_numeric() || t.is_binary_like();
  }
}

Result<ElementOrder> ElementOrder::Make(const Array& values, std::string_view function) {
  const DataType& t = *values.type();
  if (!IsOrderable(t)) {
    return Status::NotImplemented(std::string(function) + "() cannot order elements of type " +
                                  t.ToString());
  }
  Kind kind = t.is_floating()                 ? Kind::kFloating
              : t.id() == TypeId::kBool       ? Kind::kBool
              : t.is_binary_like()            ? Kind::kBytes
              : t.id() == TypeId::kUInt64     ? Kind::kUnsigned
              : t.id() == TypeId::kDecimal128 ? Kind::kDecimal
                                              : Kind::kSigned;
  return ElementOrder(values, kind);
}

namespace {
template <typename T>
int ThreeWay(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}
}  // namespace

double DoubleAt(const Array& a, int64_t i) {
  return a.type_id() == TypeId::kFloat32 ? a.values<float>()[i] : a.values<double>()[i];
}

Int128 DecimalValueAt(const Array& values, int64_t j) {
  Int128 v;
  __builtin_memcpy(&v, values.raw_values() + (values.offset() + j) * 16, 16);
  return v;
}

namespace {
int64_t SignedAt(const Array& a, int64_t i) {
  switch (a.type_id()) {
    case TypeId::kDate32:
      return a.values<int32_t>()[i];
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      return a.values<int64_t>()[i];
    default:
      return IntegerBitsAt(a, i);
  }
}
}  // namespace

int ElementOrder::Compare(int64_t i, int64_t j) const {
  switch (kind_) {
    case Kind::kSigned:
      return ThreeWay(SignedAt(values_, i), SignedAt(values_, j));
    case Kind::kUnsigned:
      return ThreeWay(values_.values<uint64_t>()[i], values_.values<uint64_t>()[j]);
    case Kind::kBool:
      return ThreeWay(values_.BoolValue(i), values_.BoolValue(j));
    case Kind::kDecimal:
      return ThreeWay(DecimalValueAt(values_, i), DecimalValueAt(values_, j));
    case Kind::kBytes:
      return values_.GetView(i).compare(values_.GetView(j));
    case Kind::kFloating: {
      double a = DoubleAt(values_, i), b = DoubleAt(values_, j);
      if (std::isnan(a) || std::isnan(b)) return ThreeWay(std::isnan(a), std::isnan(b));
      return ThreeWay(a, b);
    }
  }
  return 0;
}

namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

Status ExpectNumericList(std::string_view function, const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectList(function, t, 0));
  const TypePtr& element = ElementType(*t[0]);
  if (element->is_numeric() || element->id() == TypeId::kDecimal128) return Status::OK();
  return ArgumentTypeError(function, 0, "a list of numbers or decimals", t[0]);
}

// As the sum aggregate: decimals sum exactly into decimal128(38, s).
TypePtr SumType(const DataType& element) {
  if (element.id() == TypeId::kDecimal128) return decimal128(38, element.scale());
  if (element.is_floating()) return float64();
  return element.is_signed_integer() ? int64() : uint64();
}

// Nulls are skipped; a list with no non-null element sums to null. Integer overflow is an error.
template <typename Acc>
Result<Datum> SumExec(const Args& args, int64_t num_rows, TypePtr type) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  NumericBuilder<Acc> builder(std::move(type));
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    auto [first, end] = ListRange(lists, args[0].index(row));
    Acc sum = 0;
    bool any = false;
    for (int64_t j = first; j < end; ++j) {
      if (values.IsNull(j)) continue;
      any = true;
      if constexpr (std::is_floating_point_v<Acc>) {
        sum += DoubleAt(values, j);
      } else {
        Acc v = std::is_signed_v<Acc>
                    ? static_cast<Acc>(IntegerBitsAt(values, j))
                    : static_cast<Acc>(static_cast<uint64_t>(IntegerBitsAt(values, j)));
        if (__builtin_add_overflow(sum, v, &sum)) {
          return Status::Invalid("list_sum() overflows " + builder.type()->ToString() + " at row " +
                                 std::to_string(row));
        }
      }
    }
    return any ? builder.Append(sum) : builder.AppendNull();
  });
}

Result<Datum> DecimalSumExec(const Args& args, int64_t num_rows, TypePtr type) {
  // The largest decimal128(38, s) magnitude is 10^38 - 1.
  constexpr Int128 kLimit =
      static_cast<Int128>(10000000000000000000ull) * static_cast<Int128>(10000000000000000000ull);
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  FixedSizeBinaryBuilder builder(std::move(type));
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    auto [first, end] = ListRange(lists, args[0].index(row));
    Int128 sum = 0;
    bool any = false;
    for (int64_t j = first; j < end; ++j) {
      if (values.IsNull(j)) continue;
      any = true;
      if (__builtin_add_overflow(sum, DecimalValueAt(values, j), &sum) || sum >= kLimit ||
          sum <= -kLimit) {
        return Status::Invalid("list_sum() overflows " + builder.type()->ToString() + " at row " +
                               std::to_string(row));
      }
    }
    return any ? builder.AppendDecimal(sum) : builder.AppendNull();
  });
}

Result<Datum> MeanExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  const DataType& e = *values.type();
  DoubleBuilder builder(float64());
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    auto [first, end] = ListRange(lists, args[0].index(row));
    double sum = 0;
    int64_t count = 0;
    const double unit = e.id() == TypeId::kDecimal128 ? std::pow(10.0, e.scale()) : 1.0;
    for (int64_t j = first; j < end; ++j) {
      if (values.IsNull(j)) continue;
      ++count;
      sum += e.id() == TypeId::kDecimal128 ? static_cast<double>(DecimalValueAt(values, j)) / unit
             : e.is_floating()             ? DoubleAt(values, j)
             : e.id() == TypeId::kUInt64   ? static_cast<double>(values.values<uint64_t>()[j])
                                           : static_cast<double>(IntegerBitsAt(values, j));
    }
    return count ? builder.Append(sum / static_cast<double>(count)) : builder.AppendNull();
  });
}

// The smallest (or largest) non-null element, copied with its type; null when there is none.
template <bool kMax>
Result<Datum> ExtremeExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  FLOTILLA_ASSIGN_OR_RETURN(ElementOrder order,
                            ElementOrder::Make(values, kMax ? "list_max" : "list_min"));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(values.type()));
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    auto [first, end] = ListRange(lists, args[0].index(row));
    int64_t best = -1;
    for (int64_t j = first; j < end; ++j) {
      if (values.IsNull(j)) continue;
      if (best < 0 || (kMax ? order.Compare(j, best) > 0 : order.Compare(j, best) < 0)) best = j;
    }
    return best < 0 ? builder->AppendNull() : builder->AppendArraySlice(values, best, 1);
  });
}

// First occurrences in list order, nulls left out (as DuckDB's and Daft's).
Result<Datum> DistinctExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  std::vector<uint64_t> hashes(static_cast<size_t>(values.length()));
  FLOTILLA_RETURN_NOT_OK(compute::ValueHashes(values, hashes.data()));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(VariableListOf(*lists.type())));
  auto* out = static_cast<ListBuilder*>(builder.get());
  std::unordered_multimap<uint64_t, int64_t> seen;
  return MapRows(args, num_rows, out, [&](int64_t row) -> Status {
    auto [first, end] = ListRange(lists, args[0].index(row));
    FLOTILLA_RETURN_NOT_OK(out->Append());
    seen.clear();
    for (int64_t j = first; j < end; ++j) {
      if (values.IsNull(j)) continue;
      auto [lo, hi] = seen.equal_range(hashes[j]);
      bool duplicate = std::any_of(lo, hi, [&](const auto& entry) {
        return values.Slice(entry.second, 1).Equals(values.Slice(j, 1));
      });
      if (duplicate) continue;
      seen.emplace(hashes[j], j);
      FLOTILLA_RETURN_NOT_OK(out->value_builder()->AppendArraySlice(values, j, 1));
    }
    return Status::OK();
  });
}

// Ascending (descending when the flag is true), nulls last either way; equal elements keep their
// order.
Result<Datum> SortExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array values = lists.child(0);
  FLOTILLA_ASSIGN_OR_RETURN(ElementOrder order, ElementOrder::Make(values, "list_sort"));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(VariableListOf(*lists.type())));
  auto* out = static_cast<ListBuilder*>(builder.get());
  std::vector<int64_t> index;
  return MapRows(args, num_rows, out, [&](int64_t row) -> Status {
    auto [first, end] = ListRange(lists, args[0].index(row));
    bool descending = args.size() > 1 && BoolAt(args[1], row);
    index.resize(static_cast<size_t>(end - first));
    std::iota(index.begin(), index.end(), first);
    auto nulls = std::stable_partition(index.begin(), index.end(),
                                       [&](int64_t j) { return values.IsValid(j); });
    std::stable_sort(index.begin(), nulls, [&](int64_t a, int64_t b) {
      return descending ? order.Compare(a, b) > 0 : order.Compare(a, b) < 0;
    });
    FLOTILLA_RETURN_NOT_OK(out->Append());
    for (int64_t j : index) {
      FLOTILLA_RETURN_NOT_OK(out->value_builder()->AppendArraySlice(values, j, 1));
    }
    return Status::OK();
  });
}

// list_order_by(list<struct<value, key1, ...>>, descending1, nulls_first1, ...): the values in
// the order of the keys (each with its direction and null placement), ties in list order. SQL's
// ORDER BY inside an aggregate call: the group's rows are collected as such structs.
Result<TypePtr> ResolveOrderBy(const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectList("list_order_by", t, 0));
  const TypePtr& e = ElementType(*t[0]);
  if (e->id() != TypeId::kStruct || e->fields().size() < 2 ||
      t.size() != 1 + 2 * (e->fields().size() - 1)) {
    return Status::TypeError(
        "list_order_by() takes a list of structs (value, key, ...) and a direction and null "
        "placement flag per key");
  }
  for (size_t k = 1; k < e->fields().size(); ++k) {
    if (!ElementOrder::IsOrderable(*e->fields()[k].type) &&
        e->fields()[k].type->id() != TypeId::kNull) {
      return ArgumentTypeError("list_order_by", 0, "sort keys of numbers, strings, bools or times",
                               t[0]);
    }
  }
  for (size_t i = 1; i < t.size(); ++i)
    FLOTILLA_RETURN_NOT_OK(ExpectBool("list_order_by", t, i));
  return list(e->fields()[0]);
}

Result<Datum> OrderByExec(const Args& args, int64_t num_rows) {
  const Array& lists = args[0].array();
  const Array rows = lists.child(0);
  const Array values = rows.field(0);
  struct Key {
    Array column;
    std::optional<ElementOrder> order;  // none for an all-null key
    bool descending, nulls_first;
  };
  std::vector<Key> keys;
  for (int k = 1; k < static_cast<int>(rows.type()->fields().size()); ++k) {
    Key key{rows.field(k), std::nullopt, false, false};
    if (key.column.type_id() != TypeId::kNull) {
      FLOTILLA_ASSIGN_OR_RETURN(ElementOrder order,
                                ElementOrder::Make(key.column, "list_order_by"));
      key.order = order;
    }
    keys.push_back(std::move(key));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(list(rows.type()->fields()[0])));
  auto* out = static_cast<ListBuilder*>(builder.get());
  std::vector<int64_t> index;
  const Args lists_only = {args[0]};
  return MapRows(lists_only, args[0].is_scalar() ? 1 : num_rows, out, [&](int64_t row) -> Status {
    for (size_t k = 0; k < keys.size(); ++k) {
      keys[k].descending = BoolAt(args[1 + 2 * k], row);
      keys[k].nulls_first = BoolAt(args[2 + 2 * k], row);
    }
    auto [first, end] = ListRange(lists, args[0].index(row));
    index.resize(static_cast<size_t>(end - first));
    std::iota(index.begin(), index.end(), first);
    std::stable_sort(index.begin(), index.end(), [&](int64_t a, int64_t b) {
      for (const Key& k : keys) {
        const bool null_a = k.column.IsNull(a) || rows.IsNull(a);
        const bool null_b = k.column.IsNull(b) || rows.IsNull(b);
        if (null_a != null_b) return null_a == k.nulls_first;
        if (null_a) continue;
        const int c = k.order->Compare(a, b);
        if (c != 0) return k.descending ? c > 0 : c < 0;
      }
      return false;
    });
    FLOTILLA_RETURN_NOT_OK(out->Append());
    for (int64_t j : index) {
      FLOTILLA_RETURN_NOT_OK(out->value_builder()->AppendArraySlice(values, j, 1));
    }
    return Status::OK();
  });
}

Result<TypePtr> ResolveOrderable(std::string_view function, const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectList(function, t, 0));
  if (!ElementOrder::IsOrderable(*ElementType(*t[0]))) {
    return ArgumentTypeError(function, 0, "a list of numbers, strings, bools or times", t[0]);
  }
  return ElementType(*t[0]);
}

}  // namespace

Status RegisterListAggregateFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_sum",
       "Sum of the list's non-null numbers (int64, uint64 or float64; decimal128(38, s) for "
       "decimals, exact); null when there are none. Integer and decimal overflow are errors.",
       1, 1,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ExpectNumericList("list_sum", t));
         return SumType(*ElementType(*t[0]));
       },
       [](const Args& a, int64_t n) -> Result<Datum> {
         TypePtr type = SumType(*ElementType(*a[0].type()));
         if (type->id() == TypeId::kDecimal128) return DecimalSumExec(a, n, type);
         if (type->id() == TypeId::kFloat64) return SumExec<double>(a, n, type);
         if (type->id() == TypeId::kInt64) return SumExec<int64_t>(a, n, type);
         return SumExec<uint64_t>(a, n, type);
       }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"list_mean",
              "Mean of the list's non-null numbers (decimals too) as float64; null when there are "
              "none.",
              1, 1,
              [](const Types& t) -> Result<TypePtr> {
                FLOTILLA_RETURN_NOT_OK(ExpectNumericList("list_mean", t));
                return float64();
              },
              MeanExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_min", "Smallest non-null element (NaN above every number); null when there is none.",
       1, 1, [](const Types& t) { return ResolveOrderable("list_min", t); }, ExtremeExec<false>}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_max", "Largest non-null element (NaN above every number); null when there is none.", 1,
       1, [](const Types& t) { return ResolveOrderable("list_max", t); }, ExtremeExec<true>}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_distinct",
       "The list without repeated elements or nulls, in order of first occurrence; null for a "
       "null list.",
       1, 1,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ExpectList("list_distinct", t, 0));
         return VariableListOf(*t[0]);
       },
       DistinctExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_order_by",
       "list_order_by(list of structs (value, key, ...), descending, nulls_first, ...): the "
       "values ordered by the keys, each with its direction and null placement, ties in list "
       "order (SQL's ORDER BY inside an aggregate); null for a null list.",
       3, -1, ResolveOrderBy, OrderByExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"list_sort",
       "The list sorted ascending (descending when the optional flag is true), nulls last; null "
       "for a null list.",
       1, 2,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ResolveOrderable("list_sort", t));
         if (t.size() > 1) FLOTILLA_RETURN_NOT_OK(ExpectBool("list_sort", t, 1));
         return VariableListOf(*t[0]);
       },
       SortExec}));
  return Status::OK();
}

}  // namespace flotilla::expr::functions
