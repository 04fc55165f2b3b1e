#include "flotilla/expr/evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <unordered_set>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/boolean.h"
#include "flotilla/compute/cast.h"
#include "flotilla/compute/compare.h"
#include "flotilla/compute/concat.h"
#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/filter.h"
#include "flotilla/compute/take.h"

namespace flotilla::expr {
namespace {

Datum Wrap(bool scalar, Array out) {
  return scalar ? Datum::Scalar(std::move(out)) : Datum::Column(std::move(out));
}

Result<std::vector<Datum>> EvaluateChildren(const BoundNode& node, const RecordBatch& batch) {
  std::vector<Datum> out;
  out.reserve(node.children.size());
  for (const BoundPtr& c : node.children) {
    FLOTILLA_ASSIGN_OR_RETURN(Datum d, Evaluate(*c, batch));
    out.push_back(std::move(d));
  }
  return out;
}

// CASE and COALESCE evaluate each branch only on the rows that reach it, so that
// `CASE WHEN x > 0 THEN sqrt(x) END` and `coalesce(a, 1 / b)` do not fail on rows the guard
// keeps away (as SQL engines do). A row set is a list of ascending batch rows; nullptr means
// every row of the batch.
using RowSet = std::vector<int64_t>;

// A lambda's body reads the batch's columns by their own indices and its parameters (element,
// position) past them: only the former are the batch's.
void CollectColumns(const BoundNode& node, std::vector<char>* used) {
  if (node.kind == BoundKind::kColumn && static_cast<size_t>(node.column_index) < used->size()) {
    (*used)[static_cast<size_t>(node.column_index)] = 1;
  }
  for (const BoundPtr& c : node.children)
    CollectColumns(*c, used);
}

// Evaluates `node` on `rows` of `batch` only (row k of the result is batch row rows[k]). The
// columns the node reads are gathered; the others become zero-copy stand-ins of the right
// length, which it never reads.
Result<Datum> EvaluateOnRows(const BoundNode& node, const RecordBatch& batch, const RowSet* rows) {
  if (rows == nullptr || node.kind == BoundKind::kLiteral) return Evaluate(node, batch);
  const int64_t m = static_cast<int64_t>(rows->size());
  std::vector<char> used(static_cast<size_t>(batch.num_columns()), 0);
  CollectColumns(node, &used);
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, compute::AllocateValues(m, sizeof(int64_t)));
  std::memcpy(buffer->mutable_data(), rows->data(), static_cast<size_t>(m) * sizeof(int64_t));
  const Array indices = compute::MakeFixedWidthArray(int64(), m, nullptr, 0, std::move(buffer));
  std::vector<Array> columns;
  for (int c = 0; c < batch.num_columns(); ++c) {
    if (used[static_cast<size_t>(c)]) {
      FLOTILLA_ASSIGN_OR_RETURN(Array taken, compute::Take(batch.column(c), indices));
      columns.push_back(std::move(taken));
    } else {
      columns.push_back(batch.column(c).Slice(0, m));
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch subset, RecordBatch::Make(batch.schema(), columns, m));
  return Evaluate(node, subset);
}

// Columns and literals cost nothing to evaluate on every row and cannot fail.
bool Trivial(const BoundNode& node) {
  return node.kind == BoundKind::kColumn || node.kind == BoundKind::kLiteral;
}

// A branch value: `value` covers every row of the batch (rows == nullptr), exactly the batch
// rows in `rows` (in order), or one row for all (a scalar).
struct Branch {
  Datum value;
  const RowSet* rows = nullptr;
};

// Evaluates branch `node` for the rows `rows`: trivial branches over the whole batch, others on
// those rows only. `storage` keeps the row set alive.
Result<Branch> EvaluateBranch(const BoundNode& node, const RecordBatch& batch, RowSet rows,
                              bool all_rows, std::unique_ptr<RowSet>* storage) {
  Branch b;
  if (all_rows || Trivial(node) || static_cast<int64_t>(rows.size()) == batch.num_rows()) {
    FLOTILLA_ASSIGN_OR_RETURN(b.value, Evaluate(node, batch));
    return b;
  }
  *storage = std::make_unique<RowSet>(std::move(rows));
  b.rows = storage->get();
  FLOTILLA_ASSIGN_OR_RETURN(b.value, EvaluateOnRows(node, batch, b.rows));
  return b;
}

// Row i of the result is branches[choice[i]]'s value for batch row i. The branches chosen at all
// are concatenated and one gather picks every row, so copies run per type over whole buffers.
Result<Array> SelectByChoice(const TypePtr& type, const std::vector<Branch>& branches,
                             const std::vector<int32_t>& choice, int64_t n) {
  if (type->id() == TypeId::kNull || n == 0) return Array::MakeNull(type, n);
  std::vector<char> used(branches.size(), 0);
  for (int32_t c : choice)
    used[static_cast<size_t>(c)] = 1;
  std::vector<Array> parts;
  std::vector<int64_t> base(branches.size(), 0);
  int64_t total = 0;
  for (size_t a = 0; a < branches.size(); ++a) {
    if (!used[a]) continue;
    base[a] = total;
    total += branches[a].value.array().length();
    parts.push_back(branches[a].value.array());
  }
  if (parts.size() == 1) {
    for (size_t a = 0; a < branches.size(); ++a) {
      if (used[a] && branches[a].rows == nullptr) return branches[a].value.ToColumn(n);
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array all, parts.size() == 1 ? parts[0] : compute::Concat(parts));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr positions, compute::AllocateValues(n, sizeof(int64_t)));
  auto* p = reinterpret_cast<int64_t*>(positions->mutable_data());
  // Branches over a row subset: the next unread position of their rows (rows ascend, so one
  // forward scan per branch finds each row's position).
  std::vector<size_t> cursor(branches.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = static_cast<size_t>(choice[i]);
    const Branch& b = branches[c];
    int64_t at = i;
    if (b.value.is_scalar()) {
      at = 0;
    } else if (b.rows != nullptr) {
      while ((*b.rows)[cursor[c]] != i)
        ++cursor[c];
      at = static_cast<int64_t>(cursor[c]);
    }
    p[i] = base[c] + at;
  }
  return compute::Take(all,
                       compute::MakeFixedWidthArray(int64(), n, nullptr, 0, std::move(positions)));
}

bool TrueAt(const Datum& condition, int64_t k) {
  const Array& a = condition.array();
  const int64_t i = condition.index(k);
  return a.type_id() == TypeId::kBool && a.IsValid(i) && a.BoolValue(i);
}

// Row k of a branch value over `rows` (nullptr: every row) for batch row `row`.
bool ValidAt(const Branch& b, int64_t row, int64_t k) {
  if (b.value.type()->id() == TypeId::kNull) return false;
  return !b.value.IsNull(b.rows == nullptr ? row : k);
}

// The rows still to decide: all of the batch, or a subset.
struct Pending {
  bool all = true;
  RowSet rows;
  int64_t size(int64_t n) const { return all ? n : static_cast<int64_t>(rows.size()); }
  int64_t row(int64_t k) const { return all ? k : rows[static_cast<size_t>(k)]; }
  void Set(RowSet next, int64_t n) {
    all = static_cast<int64_t>(next.size()) == n;
    rows = all ? RowSet() : std::move(next);
  }
};

Result<Datum> EvaluateCase(const BoundNode& node, const RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  const size_t else_index = node.children.size() - 1;
  std::vector<int32_t> choice(static_cast<size_t>(n), static_cast<int32_t>(else_index));
  std::vector<Branch> branches(node.children.size());
  std::vector<std::unique_ptr<RowSet>> storage(node.children.size());
  Pending pending;
  for (size_t when = 0; when < else_index && pending.size(n) > 0; when += 2) {
    FLOTILLA_ASSIGN_OR_RETURN(
        Datum condition,
        EvaluateOnRows(*node.children[when], batch, pending.all ? nullptr : &pending.rows));
    RowSet taken, rest;
    for (int64_t k = 0; k < pending.size(n); ++k) {
      (TrueAt(condition, k) ? taken : rest).push_back(pending.row(k));
    }
    for (int64_t row : taken)
      choice[static_cast<size_t>(row)] = static_cast<int32_t>(when + 1);
    if (!taken.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(branches[when + 1],
                                EvaluateBranch(*node.children[when + 1], batch, std::move(taken),
                                               false, &storage[when + 1]));
    }
    pending.Set(std::move(rest), n);
  }
  if (pending.size(n) > 0) {
    FLOTILLA_ASSIGN_OR_RETURN(
        branches[else_index],
        EvaluateBranch(*node.children[else_index], batch, std::move(pending.rows), pending.all,
                       &storage[else_index]));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array out, SelectByChoice(node.type, branches, choice, n));
  return Datum::Column(std::move(out));
}

Result<Datum> EvaluateCoalesce(const BoundNode& node, const RecordBatch& batch) {
  const int64_t n = batch.num_rows();
  const size_t last = node.children.size() - 1;
  std::vector<Branch> branches(node.children.size());
  std::vector<std::unique_ptr<RowSet>> storage(node.children.size());
  FLOTILLA_ASSIGN_OR_RETURN(branches[0].value, Evaluate(*node.children[0], batch));
  // Fast path: a first argument without nulls is the answer.
  const Datum& first = branches[0].value;
  if (first.type()->id() != TypeId::kNull && first.array().null_count() == 0) return first;
  std::vector<int32_t> choice(static_cast<size_t>(n), static_cast<int32_t>(last));
  Pending pending;
  for (size_t i = 0; i <= last && pending.size(n) > 0; ++i) {
    if (i > 0) {
      FLOTILLA_ASSIGN_OR_RETURN(branches[i], EvaluateBranch(*node.children[i], batch, pending.rows,
                                                            pending.all, &storage[i]));
    }
    RowSet rest;
    for (int64_t k = 0; k < pending.size(n); ++k) {
      const int64_t row = pending.row(k);
      if (ValidAt(branches[i], row, k)) {
        choice[static_cast<size_t>(row)] = static_cast<int32_t>(i);
      } else {
        rest.push_back(row);
      }
    }
    pending.Set(std::move(rest), n);
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array out, SelectByChoice(node.type, branches, choice, n));
  return Datum::Column(std::move(out));
}

// From this many list values on, IN probes a hash set of the list instead of comparing each
// row with every value.
constexpr size_t kHashedInListSize = 8;

// Float keys as Compare orders them: -0.0 equals 0.0, and every NaN equals every NaN.
uint64_t FloatKey(double d) {
  if (d == 0) d = 0;
  if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return bits;
}

// Sets `bits`/`validity` of each row from the probe result: SQL's three-valued IN.
template <typename Contains>
Result<Array> ProbeRows(const Array& value, int64_t n, bool list_has_null, bool negated,
                        Contains contains) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, compute::AllocateBitmap(n));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, compute::AllocateBitmap(n));
  uint8_t* out = bits->mutable_data();
  uint8_t* valid = validity->mutable_data();
  int64_t null_count = 0;
  const bool value_has_nulls = value.null_count() > 0;
  for (int64_t i = 0; i < n; ++i) {
    if (value_has_nulls && value.IsNull(i)) {
      ++null_count;
      continue;
    }
    const bool found = contains(i);
    if (!found && list_has_null) {
      ++null_count;
      continue;
    }
    bit_util::SetBit(valid, i);
    if (found != negated) bit_util::SetBit(out, i);
  }
  return compute::MakeFixedWidthArray(boolean(), n, null_count > 0 ? std::move(validity) : nullptr,
                                      null_count, std::move(bits));
}

// x IN (long list) by hashing; sets *handled = false for types without a hashed path (bool,
// nested types, decimals of different scales), which take the comparison chain instead.
Result<Array> HashedIsIn(const Array& value, const std::vector<Datum>& args, int64_t n,
                         bool negated, bool* handled) {
  *handled = false;
  const DataType& type = *value.type();
  bool list_has_null = false;
  std::vector<const Array*> list;
  for (size_t i = 1; i < args.size(); ++i) {
    const Array& v = args[i].array();
    if (v.type_id() == TypeId::kNull || v.IsNull(0)) {
      list_has_null = true;
      continue;
    }
    const bool same = v.type()->Equals(type) ||
                      (type.id() == TypeId::kDecimal128 && v.type_id() == TypeId::kDecimal128 &&
                       v.type()->scale() == type.scale());
    if (!same) return Array();
    list.push_back(&v);
  }
  if (type.is_binary_like() || type.id() == TypeId::kFixedSizeBinary ||
      type.id() == TypeId::kDecimal128) {
    std::unordered_set<std::string_view> set;
    for (const Array* v : list)
      set.insert(v->GetView(0));
    *handled = true;
    return ProbeRows(value, n, list_has_null, negated,
                     [&](int64_t i) { return set.count(value.GetView(i)) > 0; });
  }
  if (type.is_floating()) {
    auto at = [&type](const Array& a, int64_t i) {
      return type.id() == TypeId::kFloat32 ? static_cast<double>(a.values<float>()[i])
                                           : a.values<double>()[i];
    };
    std::unordered_set<uint64_t> set;
    for (const Array* v : list)
      set.insert(FloatKey(at(*v, 0)));
    *handled = true;
    return ProbeRows(value, n, list_has_null, negated,
                     [&](int64_t i) { return set.count(FloatKey(at(value, i))) > 0; });
  }
  const int width = type.byte_width();
  if (type.is_fixed_width() && width >= 1 && width <= 8) {
    // Integers, dates, timestamps, durations: equal values have equal bytes.
    auto at = [width](const Array& a, int64_t i) {
      uint64_t key = 0;
      std::memcpy(&key, a.raw_values() + (a.offset() + i) * width, static_cast<size_t>(width));
      return key;
    };
    std::unordered_set<uint64_t> set;
    for (const Array* v : list)
      set.insert(at(*v, 0));
    *handled = true;
    return ProbeRows(value, n, list_has_null, negated,
                     [&](int64_t i) { return set.count(at(value, i)) > 0; });
  }
  return Array();
}

// x IN (a, b, ...) is (x = a) OR (x = b) OR ...: Kleene OR gives exactly SQL's null rules.
Result<Datum> EvaluateIsIn(const BoundNode& node, const std::vector<Datum>& args,
                           int64_t num_rows) {
  const bool scalar = args[0].is_scalar();
  const int64_t n = scalar ? 1 : num_rows;
  const Array& value = args[0].array();
  if (args.size() - 1 >= kHashedInListSize && value.type_id() != TypeId::kNull) {
    bool handled = false;
    FLOTILLA_ASSIGN_OR_RETURN(Array hashed, HashedIsIn(value, args, n, node.negated, &handled));
    if (handled) return Wrap(scalar, std::move(hashed));
  }
  Array result;
  if (args.size() == 1) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, compute::AllocateBitmap(n));
    result = compute::MakeFixedWidthArray(boolean(), n, nullptr, 0, std::move(bits));
  }
  for (size_t i = 1; i < args.size(); ++i) {
    Array match;
    if (args[i].type()->id() == TypeId::kNull || value.type_id() == TypeId::kNull) {
      FLOTILLA_ASSIGN_OR_RETURN(match, Array::MakeNull(boolean(), 1));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(
          match, compute::Compare(compute::CompareOp::kEqual, value, args[i].array(), n));
    }
    if (i == 1 && match.length() == n) {
      result = std::move(match);
    } else if (i == 1) {
      FLOTILLA_ASSIGN_OR_RETURN(result, Datum::Scalar(match).ToColumn(n));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(result, compute::KleeneOr(result, match, n));
    }
  }
  if (node.negated) {
    FLOTILLA_ASSIGN_OR_RETURN(result, compute::Not(result));
  }
  return Wrap(scalar, std::move(result));
}

Result<Datum> EvaluateIsNull(const BoundNode& node, const Datum& input) {
  const Array& a = input.array();
  const int64_t n = a.length();
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, compute::AllocateBitmap(n));
  uint8_t* out = bits->mutable_data();
  // A dictionary row is also null when the entry its index points to is null.
  const bool dictionary = a.type_id() == TypeId::kDictionary;
  const Array entries = dictionary ? a.dictionary() : Array();
  for (int64_t i = 0; i < n; ++i) {
    const bool is_null = a.IsNull(i) || (dictionary && entries.IsNull(a.DictionaryIndex(i)));
    if (is_null != node.negated) bit_util::SetBit(out, i);
  }
  return Wrap(input.is_scalar(),
              compute::MakeFixedWidthArray(boolean(), n, nullptr, 0, std::move(bits)));
}

// The input columns a lambda's body reads (indices below `inputs`).
void InputColumnsRead(const BoundNode& node, int inputs, std::vector<bool>* read) {
  if (node.kind == BoundKind::kColumn && node.column_index < inputs) {
    (*read)[static_cast<size_t>(node.column_index)] = true;
  }
  for (const BoundPtr& c : node.children)
    InputColumnsRead(*c, inputs, read);
}

// list_transform / list_filter: the body is evaluated once over every element of every list,
// as a batch of the elements, their positions and the input columns the body reads (each row's
// values repeated for its elements), then the results are put back into lists.
Result<Datum> EvaluateLambda(const BoundNode& node, const RecordBatch& batch) {
  const int inputs = node.column_index;
  std::vector<bool> read(static_cast<size_t>(inputs));
  InputColumnsRead(*node.children[1], inputs, &read);
  FLOTILLA_ASSIGN_OR_RETURN(Datum list_datum, Evaluate(*node.children[0], batch));
  // A constant list whose lambda reads no column gives a constant: evaluated once.
  const bool scalar =
      list_datum.is_scalar() && std::none_of(read.begin(), read.end(), [](bool b) { return b; });
  const int64_t n = scalar ? 1 : batch.num_rows();
  FLOTILLA_ASSIGN_OR_RETURN(Array lists, list_datum.ToColumn(n));
  const int64_t first = n == 0 ? 0 : lists.ValueOffset(0);
  const int64_t count = n == 0 ? 0 : lists.ValueOffset(n) - first;
  std::vector<int64_t> parents(static_cast<size_t>(count)), positions(static_cast<size_t>(count));
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t j = lists.ValueOffset(row); j < lists.ValueOffset(row + 1); ++j) {
      parents[static_cast<size_t>(j - first)] = row;
      positions[static_cast<size_t>(j - first)] = j - lists.ValueOffset(row) + 1;
    }
  }
  Int64Builder parent_builder(int64()), position_builder(int64());
  FLOTILLA_RETURN_NOT_OK(parent_builder.AppendValues(parents.data(), count));
  FLOTILLA_RETURN_NOT_OK(position_builder.AppendValues(positions.data(), count));
  FLOTILLA_ASSIGN_OR_RETURN(Array parent_index, parent_builder.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array position, position_builder.Finish());
  std::vector<Field> fields;
  std::vector<Array> columns;
  for (int i = 0; i < inputs; ++i) {
    fields.push_back(batch.schema()->field(i));
    if (read[static_cast<size_t>(i)]) {
      FLOTILLA_ASSIGN_OR_RETURN(Array repeated, compute::Take(batch.column(i), parent_index));
      columns.push_back(std::move(repeated));
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(Array unused, Array::MakeNull(batch.column(i).type(), count));
      columns.push_back(std::move(unused));
    }
  }
  const Array elements = lists.child(0).Slice(first, count);
  fields.push_back({"element", elements.type(), true});
  columns.push_back(elements);
  fields.push_back({"position", int64(), true});
  columns.push_back(position);
  FLOTILLA_ASSIGN_OR_RETURN(
      RecordBatch scope,
      RecordBatch::Make(std::make_shared<Schema>(std::move(fields)), std::move(columns), count));
  FLOTILLA_ASSIGN_OR_RETURN(Datum body, Evaluate(*node.children[1], scope));
  FLOTILLA_ASSIGN_OR_RETURN(Array results, body.ToColumn(count));

  // The lists again: the input's validity, offsets counting what each list keeps.
  const bool filter = node.name == "list_filter";
  std::vector<int32_t> offsets(static_cast<size_t>(n) + 1, 0);
  std::vector<uint8_t> validity(static_cast<size_t>((n + 7) / 8), 0);
  int64_t kept = 0;
  for (int64_t row = 0; row < n; ++row) {
    if (!lists.IsNull(row)) validity[static_cast<size_t>(row / 8)] |= uint8_t(1) << (row % 8);
    for (int64_t j = lists.ValueOffset(row); j < lists.ValueOffset(row + 1); ++j) {
      const int64_t k = j - first;
      if (!filter || (!results.IsNull(k) && results.BoolValue(k))) ++kept;
    }
    if (kept > INT32_MAX) return Status::Invalid(node.name + "(): the lists hold too many values");
    offsets[static_cast<size_t>(row) + 1] = static_cast<int32_t>(kept);
  }
  Array values = results;
  if (filter) {
    FLOTILLA_ASSIGN_OR_RETURN(values, compute::Filter(elements, results));
  }
  auto data = std::make_shared<ArrayData>();
  data->type = node.type;
  data->length = n;
  data->null_count = -1;
  FLOTILLA_ASSIGN_OR_RETURN(
      BufferPtr validity_buffer,
      Buffer::CopyOf({reinterpret_cast<const char*>(validity.data()), validity.size()}));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr offset_buffer,
                            Buffer::CopyOf({reinterpret_cast<const char*>(offsets.data()),
                                            offsets.size() * sizeof(int32_t)}));
  data->buffers = {std::move(validity_buffer), std::move(offset_buffer)};
  data->children = {values.data()};
  FLOTILLA_ASSIGN_OR_RETURN(Array out, Array::Make(std::move(data)));
  return Wrap(scalar, std::move(out));
}

Result<Array> Int64Array(const std::vector<int64_t>& values) {
  Int64Builder builder(int64());
  FLOTILLA_RETURN_NOT_OK(builder.AppendValues(values.data(), static_cast<int64_t>(values.size())));
  return builder.Finish();
}

// list_reduce: the accumulator starts as the first element (or the initial value) and becomes
// the body over (accumulator, next element, its position), step by step for all of a batch's
// lists at once: step s evaluates the body once over the rows whose lists are longer than s.
// A null list gives null; an empty one the initial value, or an error without one (as DuckDB).
Result<Datum> EvaluateReduce(const BoundNode& node, const RecordBatch& batch) {
  const int inputs = node.column_index;
  std::vector<bool> read(static_cast<size_t>(inputs));
  InputColumnsRead(*node.children[1], inputs, &read);
  const bool has_initial = node.children.size() == 3;
  FLOTILLA_ASSIGN_OR_RETURN(Datum list_datum, Evaluate(*node.children[0], batch));
  Datum initial_datum;
  if (has_initial) {
    FLOTILLA_ASSIGN_OR_RETURN(initial_datum, Evaluate(*node.children[2], batch));
  }
  const bool scalar = list_datum.is_scalar() && (!has_initial || initial_datum.is_scalar()) &&
                      std::none_of(read.begin(), read.end(), [](bool b) { return b; });
  const int64_t n = scalar ? 1 : batch.num_rows();
  FLOTILLA_ASSIGN_OR_RETURN(Array lists, list_datum.ToColumn(n));
  const Array elements = lists.child(0);
  auto length = [&](int64_t row) { return lists.ValueOffset(row + 1) - lists.ValueOffset(row); };

  std::vector<int64_t> active;
  for (int64_t row = 0; row < n; ++row) {
    if (lists.IsNull(row)) continue;
    if (!has_initial && length(row) == 0) {
      return Status::Invalid("list_reduce() of an empty list (give an initial value)");
    }
    active.push_back(row);
  }
  int64_t step = has_initial ? 0 : 1;
  Array acc;
  if (has_initial) {
    FLOTILLA_ASSIGN_OR_RETURN(Array initial, initial_datum.ToColumn(n));
    FLOTILLA_ASSIGN_OR_RETURN(Array rows, Int64Array(active));
    FLOTILLA_ASSIGN_OR_RETURN(acc, compute::Take(initial, rows));
  } else {
    std::vector<int64_t> firsts;
    for (int64_t row : active)
      firsts.push_back(lists.ValueOffset(row));
    FLOTILLA_ASSIGN_OR_RETURN(Array at, Int64Array(firsts));
    FLOTILLA_ASSIGN_OR_RETURN(acc, compute::Take(elements, at));
  }
  // Finished accumulators, and for each row where its value ended up (-1: a null list).
  std::vector<Array> finished;
  int64_t finished_rows = 0;
  std::vector<int64_t> result_at(static_cast<size_t>(n), -1);
  std::vector<Field> fields;
  for (int i = 0; i < inputs; ++i)
    fields.push_back(batch.schema()->field(i));
  fields.push_back({"accumulator", node.type, true});
  fields.push_back({"element", elements.type(), true});
  fields.push_back({"position", int64(), true});
  const auto schema = std::make_shared<Schema>(std::move(fields));
  while (!active.empty()) {
    std::vector<int64_t> done_at, go_at, go_rows, next, positions;
    for (size_t k = 0; k < active.size(); ++k) {
      const int64_t row = active[k];
      if (length(row) == step) {
        result_at[static_cast<size_t>(row)] = finished_rows + static_cast<int64_t>(done_at.size());
        done_at.push_back(static_cast<int64_t>(k));
      } else {
        go_at.push_back(static_cast<int64_t>(k));
        go_rows.push_back(row);
        next.push_back(lists.ValueOffset(row) + step);
        positions.push_back(step + 1);
      }
    }
    if (!done_at.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(Array at, Int64Array(done_at));
      FLOTILLA_ASSIGN_OR_RETURN(Array done, compute::Take(acc, at));
      finished_rows += done.length();
      finished.push_back(std::move(done));
    }
    if (go_rows.empty()) break;
    const int64_t m = static_cast<int64_t>(go_rows.size());
    FLOTILLA_ASSIGN_OR_RETURN(Array rows, Int64Array(go_rows));
    std::vector<Array> columns;
    for (int i = 0; i < inputs; ++i) {
      if (read[static_cast<size_t>(i)]) {
        FLOTILLA_ASSIGN_OR_RETURN(Array repeated, compute::Take(batch.column(i), rows));
        columns.push_back(std::move(repeated));
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(Array unused, Array::MakeNull(batch.column(i).type(), m));
        columns.push_back(std::move(unused));
      }
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array go, Int64Array(go_at));
    FLOTILLA_ASSIGN_OR_RETURN(Array acc_go, compute::Take(acc, go));
    FLOTILLA_ASSIGN_OR_RETURN(Array at_next, Int64Array(next));
    FLOTILLA_ASSIGN_OR_RETURN(Array x, compute::Take(elements, at_next));
    FLOTILLA_ASSIGN_OR_RETURN(Array position, Int64Array(positions));
    columns.push_back(std::move(acc_go));
    columns.push_back(std::move(x));
    columns.push_back(std::move(position));
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch scope, RecordBatch::Make(schema, std::move(columns), m));
    FLOTILLA_ASSIGN_OR_RETURN(Datum body, Evaluate(*node.children[1], scope));
    FLOTILLA_ASSIGN_OR_RETURN(acc, body.ToColumn(m));
    active = std::move(go_rows);
    ++step;
  }
  FLOTILLA_ASSIGN_OR_RETURN(
      Array values, finished.empty() ? Array::MakeNull(node.type, 0) : compute::Concat(finished));
  Int64Builder at(int64());
  for (int64_t i : result_at) {
    FLOTILLA_RETURN_NOT_OK(i < 0 ? at.AppendNull() : at.Append(i));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array indices, at.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array out, compute::Take(values, indices));
  return Wrap(scalar, std::move(out));
}

}  // namespace

Result<Datum> Evaluate(const BoundNode& node, const RecordBatch& batch) {
  switch (node.kind) {
    case BoundKind::kColumn:
      if (node.column_index >= batch.num_columns() ||
          !batch.column(node.column_index).type()->Equals(*node.type)) {
        return Status::Invalid("`" + node.text + "` was bound to a different schema");
      }
      return Datum::Column(batch.column(node.column_index));
    case BoundKind::kLiteral:
      return Datum::Scalar(node.literal);
    case BoundKind::kAggregate:
      return Status::NotImplemented("aggregate " + node.name +
                                    " must be evaluated by an aggregation operator");
    case BoundKind::kWindow:
      return Status::NotImplemented("window function " + node.name +
                                    " must be evaluated by a window operator");
    default:
      break;
  }
  // These two evaluate their branches on the rows that reach them.
  if (node.kind == BoundKind::kCase) return EvaluateCase(node, batch);
  if (node.kind == BoundKind::kCoalesce) return EvaluateCoalesce(node, batch);
  if (node.kind == BoundKind::kLambda) {
    const bool reduce = node.name == "list_reduce" || node.name == "list_reduce_from";
    Result<Datum> out = reduce ? EvaluateReduce(node, batch) : EvaluateLambda(node, batch);
    if (!out.ok()) return out.status().WithContext("in `" + node.text + "`");
    return out;
  }
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Datum> args, EvaluateChildren(node, batch));
  switch (node.kind) {
    case BoundKind::kCast: {
      Result<Array> out =
          compute::Cast(args[0].array(), node.type, compute::CastOptions{node.safe});
      if (!out.ok()) return out.status().WithContext("in `" + node.text + "`");
      return Wrap(args[0].is_scalar(), out.MoveValueUnsafe());
    }
    case BoundKind::kCall: {
      Result<Datum> out = node.function->exec(args, batch.num_rows());
      if (!out.ok()) return out.status().WithContext("in `" + node.text + "`");
      return out;
    }
    case BoundKind::kIsIn:
      return EvaluateIsIn(node, args, batch.num_rows());
    case BoundKind::kIsNull:
      return EvaluateIsNull(node, args[0]);
    default:
      return Status::Internal("unexpected bound node kind");
  }
}

Result<Datum> Evaluate(const BoundExpression& expression, const RecordBatch& batch) {
  return Evaluate(*expression.root, batch);
}

}  // namespace flotilla::expr
