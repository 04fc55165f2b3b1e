#include "flotilla/exec/window/window_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "flotilla/columnar/decimal.h"
#include "flotilla/common/suggest.h"
#include "flotilla/compute/cast.h"
#include "flotilla/compute/concat.h"
#include "flotilla/compute/take.h"
#include "flotilla/expr/aggregate/aggregate_function.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::exec {
namespace {

using UInt128 = unsigned __int128;

constexpr Int128 kInt128Max = static_cast<Int128>(~UInt128{0} >> 1);
constexpr Int128 kInt128Min = -kInt128Max - 1;
// decimal128(38, s) holds magnitudes below 10^38.
constexpr Int128 kDecimal38Limit =
    static_cast<Int128>(10000000000000000000ull) * static_cast<Int128>(10000000000000000000ull);

// ---------------------------------------------------------------------------------------------
// Function names

enum class WindowKind {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  kFirstValue,
  kLastValue,
  kNthValue,
  kAggregate,
};

struct NamedKind {
  const char* name;
  WindowKind kind;
};

constexpr NamedKind kWindowFunctions[] = {
    {"row_number", WindowKind::kRowNumber},
    {"rank", WindowKind::kRank},
    {"dense_rank", WindowKind::kDenseRank},
    {"percent_rank", WindowKind::kPercentRank},
    {"cume_dist", WindowKind::kCumeDist},
    {"ntile", WindowKind::kNtile},
    {"lag", WindowKind::kLag},
    {"lead", WindowKind::kLead},
    {"first_value", WindowKind::kFirstValue},
    {"last_value", WindowKind::kLastValue},
    {"nth_value", WindowKind::kNthValue},
};

bool IsRanking(WindowKind kind) {
  return kind == WindowKind::kRowNumber || kind == WindowKind::kRank ||
         kind == WindowKind::kDenseRank || kind == WindowKind::kPercentRank ||
         kind == WindowKind::kCumeDist;
}

bool UsesFrame(WindowKind kind) {
  return kind == WindowKind::kFirstValue || kind == WindowKind::kLastValue ||
         kind == WindowKind::kNthValue || kind == WindowKind::kAggregate;
}

// A spec with its function found and its arguments checked.
struct ResolvedSpec {
  WindowKind kind = WindowKind::kAggregate;
  std::string name;  // lower case
  const expr::AggregateFunction* aggregate = nullptr;
  std::vector<TypePtr> arg_types;  // aggregates: the columns, then the constants
  TypePtr type;
};

std::string Call(const std::string& name) {
  return name + "()";
}

bool IsIntegerOrNull(const DataType& type) {
  return type.is_integer() || type.id() == TypeId::kNull;
}

// The value of a one-row integer constant; nullopt when it is null.
std::optional<int64_t> ConstantInteger(const Array& constant) {
  if (constant.type_id() == TypeId::kNull || constant.IsNull(0)) return std::nullopt;
  return VisitNumericType(
      constant.type_id(),
      [&](auto tag) -> std::optional<int64_t> {
        using T = decltype(tag);
        const T v = constant.values<T>()[0];
        if constexpr (std::is_same_v<T, uint64_t>) {
          // Larger than any partition: the same as INT64_MAX for every use here.
          return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                     ? std::numeric_limits<int64_t>::max()
                     : static_cast<int64_t>(v);
        } else {
          return static_cast<int64_t>(v);
        }
      },
      [] { return std::optional<int64_t>(); });
}

Status CheckArgumentCount(const ResolvedSpec& r, const WindowFunctionSpec& spec, size_t min_columns,
                          size_t max_columns, size_t max_constants, const char* usage) {
  if (spec.arguments.size() < min_columns || spec.arguments.size() > max_columns ||
      spec.constants.size() > max_constants) {
    return Status::TypeError(Call(r.name) + " takes " + usage + ", got " +
                             std::to_string(spec.arguments.size()) + " column argument(s) and " +
                             std::to_string(spec.constants.size()) + " constant(s)");
  }
  return Status::OK();
}

Status CheckIntegerConstant(const ResolvedSpec& r, const Array& constant, const char* what) {
  if (!IsIntegerOrNull(*constant.type())) {
    return Status::TypeError(Call(r.name) + " expects an integer " + what + ", got " +
                             constant.type()->ToString());
  }
  return Status::OK();
}

Result<ResolvedSpec> Resolve(const Schema& schema, const WindowFunctionSpec& spec) {
  ResolvedSpec r;
  r.name = AsciiLower(spec.name);
  bool found = false;
  for (const NamedKind& named : kWindowFunctions) {
    if (r.name == named.name) {
      r.kind = named.kind;
      found = true;
    }
  }
  if (!found) {
    auto aggregate = expr::DefaultAggregateRegistry().Find(r.name);
    if (!aggregate.ok()) {
      std::vector<std::string> names = expr::DefaultAggregateRegistry().Names();
      for (const NamedKind& named : kWindowFunctions)
        names.emplace_back(named.name);
      return Status::KeyError(NotFoundMessage("window function", spec.name, names));
    }
    r.kind = WindowKind::kAggregate;
    r.aggregate = *aggregate;
  }

  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    const int column = spec.arguments[i];
    if (column < 0 || column >= schema.num_fields()) {
      return Status::IndexError(Call(r.name) + ": argument " + std::to_string(i + 1) +
                                " is column " + std::to_string(column) +
                                ", out of range for a batch of " +
                                std::to_string(schema.num_fields()) + " columns");
    }
    r.arg_types.push_back(schema.field(column).type);
  }
  for (size_t i = 0; i < spec.constants.size(); ++i) {
    const Array& constant = spec.constants[i];
    if (!constant.valid() || constant.length() != 1) {
      return Status::Invalid(Call(r.name) + ": constant " + std::to_string(i + 1) +
                             " must be a one-row array");
    }
  }

  switch (r.kind) {
    case WindowKind::kRowNumber:
    case WindowKind::kRank:
    case WindowKind::kDenseRank:
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(r, spec, 0, 0, 0, "no arguments"));
      r.type = int64();
      break;
    case WindowKind::kPercentRank:
    case WindowKind::kCumeDist:
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(r, spec, 0, 0, 0, "no arguments"));
      r.type = float64();
      break;
    case WindowKind::kNtile:
      FLOTILLA_RETURN_NOT_OK(
          CheckArgumentCount(r, spec, 0, 0, 1, "the number of buckets as its one constant"));
      if (spec.constants.empty()) {
        return Status::TypeError(Call(r.name) +
                                 " takes the number of buckets as its one constant, got none");
      }
      FLOTILLA_RETURN_NOT_OK(CheckIntegerConstant(r, spec.constants[0], "number of buckets"));
      r.type = int64();
      break;
    case WindowKind::kLag:
    case WindowKind::kLead: {
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(
          r, spec, 1, 2, 2,
          "a value column, then optionally an offset constant and a default (a constant or a "
          "second column)"));
      if (spec.arguments.size() == 2 && spec.constants.size() == 2) {
        return Status::Invalid(Call(r.name) +
                               " got a default twice: as a second column and as a constant");
      }
      if (!spec.constants.empty()) {
        FLOTILLA_RETURN_NOT_OK(CheckIntegerConstant(r, spec.constants[0], "offset"));
      }
      const TypePtr& x = r.arg_types[0];
      const TypePtr* default_type = nullptr;
      if (spec.arguments.size() == 2) default_type = &r.arg_types[1];
      if (spec.constants.size() == 2) default_type = &spec.constants[1].type();
      if (default_type != nullptr && (*default_type)->id() != TypeId::kNull &&
          !(*default_type)->Equals(*x) && !compute::CanCast(**default_type, *x)) {
        return Status::TypeError(Call(r.name) + ": the default of type " +
                                 (*default_type)->ToString() +
                                 " cannot be converted to the value's type " + x->ToString());
      }
      r.type = x;
      break;
    }
    case WindowKind::kFirstValue:
    case WindowKind::kLastValue:
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(r, spec, 1, 1, 0, "one value column"));
      r.type = r.arg_types[0];
      break;
    case WindowKind::kNthValue:
      FLOTILLA_RETURN_NOT_OK(CheckArgumentCount(
          r, spec, 1, 1, 1, "a value column and the row number n as a constant"));
      if (spec.constants.empty()) {
        return Status::TypeError(Call(r.name) + " takes the row number n as a constant, got none");
      }
      FLOTILLA_RETURN_NOT_OK(CheckIntegerConstant(r, spec.constants[0], "row number n"));
      r.type = r.arg_types[0];
      break;
    case WindowKind::kAggregate: {
      for (const Array& constant : spec.constants)
        r.arg_types.push_back(constant.type());
      const expr::AggregateFunction& fn = *r.aggregate;
      const int n = static_cast<int>(r.arg_types.size());
      if (n < fn.min_args || (fn.max_args >= 0 && n > fn.max_args)) {
        return Status::TypeError(
            Call(fn.name) + " takes " + std::to_string(fn.min_args) +
            (fn.max_args == fn.min_args ? "" : " to " + std::to_string(fn.max_args)) +
            " argument(s) (columns, then constants), got " + std::to_string(n));
      }
      FLOTILLA_ASSIGN_OR_RETURN(r.type, fn.resolve(r.arg_types));
      break;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output columns

// A fixed-width result written row by row; every row must be written once (Set or SetNull).
template <typename T>
class OutputColumn {
 public:
  static Result<OutputColumn> Make(TypePtr type, int64_t length) {
    OutputColumn out;
    out.type_ = std::move(type);
    out.length_ = length;
    FLOTILLA_ASSIGN_OR_RETURN(out.values_,
                              Buffer::Allocate(length * static_cast<int64_t>(sizeof(T))));
    FLOTILLA_ASSIGN_OR_RETURN(out.validity_, Buffer::Allocate(bit_util::BytesForBits(length)));
    if (length > 0) {
      std::memset(out.validity_->mutable_data(), 0xFF,
                  static_cast<size_t>(bit_util::BytesForBits(length)));
    }
    return out;
  }

  T* values() { return reinterpret_cast<T*>(values_->mutable_data()); }
  void Set(int64_t i, T v) { values()[i] = v; }
  void SetNull(int64_t i) {
    values()[i] = T{};
    bit_util::ClearBit(validity_->mutable_data(), i);
    ++null_count_;
  }

  Array Finish() {
    auto data = std::make_shared<ArrayData>();
    data->type = type_;
    data->length = length_;
    data->null_count = null_count_;
    data->buffers = {null_count_ > 0 ? validity_ : nullptr, values_};
    return Array(std::move(data));
  }

 private:
  TypePtr type_;
  int64_t length_ = 0;
  BufferPtr values_;
  BufferPtr validity_;
  int64_t null_count_ = 0;
};

// Rows of `values` picked by an int64 index column (null index: null row).
Result<Array> TakeRows(const Array& values, OutputColumn<int64_t>* indices) {
  return Take(values, indices->Finish());
}

// Row validity of an array, with the per-row test hoisted (no bitmap: all valid).
struct Validity {
  const uint8_t* bits = nullptr;
  int64_t offset = 0;
  bool all_null = false;
  explicit Validity(const Array& a)
      : bits(a.null_count() > 0 ? a.validity() : nullptr),
        offset(a.offset()),
        all_null(a.type_id() == TypeId::kNull) {}
  bool operator()(int64_t i) const {
    return !all_null && (bits == nullptr || bit_util::GetBit(bits, offset + i));
  }
};

Int128 DecimalValue(const Array& a, int64_t i) {
  Int128 v;
  std::memcpy(&v, a.raw_values() + (a.offset() + i) * 16, 16);  // may be unaligned
  return v;
}

// ---------------------------------------------------------------------------------------------
// Partitions and peers

struct PartitionList {
  const std::vector<int64_t>* starts;
  int64_t num_rows;
  size_t size() const { return starts->size(); }
  int64_t begin(size_t p) const { return (*starts)[p]; }
  int64_t end(size_t p) const { return p + 1 < starts->size() ? (*starts)[p + 1] : num_rows; }
};

Status CheckPartitionStarts(const std::vector<int64_t>& starts, int64_t num_rows) {
  if (starts.empty()) {
    if (num_rows == 0) return Status::OK();
    return Status::Invalid("partition_starts is empty for a batch of " + std::to_string(num_rows) +
                           " rows; pass {0} for a single partition");
  }
  if (starts[0] != 0) {
    return Status::Invalid("partition_starts must begin with 0, got " + std::to_string(starts[0]));
  }
  for (size_t p = 1; p < starts.size(); ++p) {
    if (starts[p] < starts[p - 1] || starts[p] > num_rows) {
      return Status::Invalid("partition_starts must ascend within [0, " + std::to_string(num_rows) +
                             "], got " + std::to_string(starts[p]) + " at position " +
                             std::to_string(p) + " after " + std::to_string(starts[p - 1]));
    }
  }
  return Status::OK();
}

Status CheckOrderKeys(const RecordBatch& batch, const std::vector<SortKey>& order_keys) {
  for (const SortKey& key : order_keys) {
    if (key.column < 0 || key.column >= batch.num_columns()) {
      return Status::IndexError("order key column " + std::to_string(key.column) +
                                " is out of range for a batch of " +
                                std::to_string(batch.num_columns()) + " columns");
    }
  }
  return Status::OK();
}

// The starts of the peer groups of rows [begin, end), then `end`. Without a comparator the
// whole range is one group.
void PeerGroups(const RowComparator* peers, int64_t begin, int64_t end, std::vector<int64_t>* out) {
  out->clear();
  out->push_back(begin);
  if (peers != nullptr) {
    for (int64_t i = begin + 1; i < end; ++i) {
      if (peers->Compare(i - 1, i) != 0) out->push_back(i);
    }
  }
  out->push_back(end);
}

// ---------------------------------------------------------------------------------------------
// Frames

bool IsOffset(const FrameBound& b) {
  return b.kind == FrameBound::kPreceding || b.kind == FrameBound::kFollowing;
}

std::string BoundToString(const FrameBound& b) {
  switch (b.kind) {
    case FrameBound::kUnboundedPreceding:
      return "UNBOUNDED PRECEDING";
    case FrameBound::kPreceding:
      return std::to_string(b.offset) + " PRECEDING";
    case FrameBound::kCurrentRow:
      return "CURRENT ROW";
    case FrameBound::kFollowing:
      return std::to_string(b.offset) + " FOLLOWING";
    case FrameBound::kUnboundedFollowing:
      return "UNBOUNDED FOLLOWING";
  }
  return "?";
}

bool IsRangeKeyType(const DataType& t) {
  return t.is_numeric() || t.id() == TypeId::kDecimal128 || t.id() == TypeId::kDate32 ||
         t.id() == TypeId::kTimestamp || t.id() == TypeId::kDuration ||
         t.id() == TypeId::kTime64;
}

WindowFrame EffectiveFrame(const WindowFunctionSpec& spec, const std::vector<SortKey>& order_keys) {
  if (spec.frame) return *spec.frame;
  WindowFrame frame;  // RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  if (order_keys.empty()) frame.end = FrameBound{FrameBound::kUnboundedFollowing};
  return frame;
}

Status CheckFrame(const std::string& function, const WindowFrame& frame, const RecordBatch& batch,
                  const std::vector<SortKey>& order_keys) {
  const std::string where = Call(function) + " OVER (" + WindowFrameToString(frame) + ")";
  const FrameBound& s = frame.start;
  const FrameBound& e = frame.end;
  if (s.kind == FrameBound::kUnboundedFollowing) {
    return Status::Invalid(where + ": a frame cannot start at UNBOUNDED FOLLOWING");
  }
  if (e.kind == FrameBound::kUnboundedPreceding) {
    return Status::Invalid(where + ": a frame cannot end at UNBOUNDED PRECEDING");
  }
  for (const FrameBound* b : {&s, &e}) {
    if (IsOffset(*b) && b->offset < 0) {
      return Status::Invalid(where + ": frame offsets must not be negative, got " +
                             std::to_string(b->offset));
    }
  }
  if (s.kind == FrameBound::kCurrentRow && e.kind == FrameBound::kPreceding) {
    return Status::Invalid(where + ": a frame starting at CURRENT ROW cannot end PRECEDING it");
  }
  if (s.kind == FrameBound::kFollowing &&
      (e.kind == FrameBound::kPreceding || e.kind == FrameBound::kCurrentRow)) {
    return Status::Invalid(where +
                           ": a frame starting FOLLOWING the current row must end FOLLOWING it");
  }
  if (frame.type == WindowFrame::kRange && (IsOffset(s) || IsOffset(e))) {
    if (order_keys.size() != 1) {
      return Status::NotImplemented(
          where + ": RANGE with an offset needs exactly one ORDER BY key, got " +
          std::to_string(order_keys.size()) + "; use ROWS, or order by a single key");
    }
    const TypePtr& type = batch.column(order_keys[0].column).type();
    if (!IsRangeKeyType(*type)) {
      return Status::NotImplemented(
          where +
          ": RANGE with an offset needs a numeric, decimal, date, timestamp or duration ORDER "
          "BY key, got " +
          type->ToString() + " ('" + batch.schema()->field(order_keys[0].column).name + "')");
    }
  }
  return Status::OK();
}

Int128 SaturatingAdd(Int128 a, Int128 b) {
  Int128 r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kInt128Max : kInt128Min;
  return r;
}
Int128 SaturatingSub(Int128 a, Int128 b) {
  Int128 r;
  if (__builtin_sub_overflow(a, b, &r)) return b > 0 ? kInt128Min : kInt128Max;
  return r;
}
double SaturatingAdd(double a, double b) {
  return a + b;
}
double SaturatingSub(double a, double b) {
  return a - b;
}

// Offset bounds of rows [lo, hi) whose keys `key_at` (direction applied, so non-decreasing in
// the row) are all comparable numbers. `fs`/`fe` are indexed by row - base.
template <typename K, typename KeyAt>
void NumericOffsetBounds(const WindowFrame& frame, int64_t lo, int64_t hi, int64_t base,
                         K start_offset, K end_offset, KeyAt&& key_at, int64_t* fs, int64_t* fe) {
  const bool start_is_offset = IsOffset(frame.start);
  const bool end_is_offset = IsOffset(frame.end);
  const bool start_preceding = frame.start.kind == FrameBound::kPreceding;
  const bool end_preceding = frame.end.kind == FrameBound::kPreceding;
  int64_t s = lo, e = lo;
  for (int64_t i = lo; i < hi; ++i) {
    const K v = key_at(i);
    if (start_is_offset) {
      // The first row whose key is >= the target.
      const K target =
          start_preceding ? SaturatingSub(v, start_offset) : SaturatingAdd(v, start_offset);
      while (s < hi && key_at(s) < target)
        ++s;
      fs[i - base] = s;
    }
    if (end_is_offset) {
      // One past the last row whose key is <= the target.
      const K target = end_preceding ? SaturatingSub(v, end_offset) : SaturatingAdd(v, end_offset);
      while (e < hi && !(target < key_at(e)))
        ++e;
      fe[i - base] = e;
    }
  }
}

// Computes the frame [start, end) of every row of a partition. Within a partition both ends
// are non-decreasing in the row (the kernels below rely on it).
class FrameComputer {
 public:
  static Result<std::unique_ptr<FrameComputer>> Make(const RecordBatch& batch,
                                                     const std::vector<SortKey>& order_keys,
                                                     const WindowFrame& frame) {
    auto out = std::unique_ptr<FrameComputer>(new FrameComputer());
    out->frame_ = frame;
    if (frame.type == WindowFrame::kRange) {
      out->needs_peers_ =
          frame.start.kind == FrameBound::kCurrentRow || frame.end.kind == FrameBound::kCurrentRow;
      out->has_offset_ = IsOffset(frame.start) || IsOffset(frame.end);
      if (out->needs_peers_ && !order_keys.empty()) {
        FLOTILLA_ASSIGN_OR_RETURN(RowComparator peers, RowComparator::Make(batch, order_keys));
        out->peers_.emplace(std::move(peers));
      }
      if (out->has_offset_) {
        out->key_ = batch.column(order_keys[0].column);
        out->ascending_ = order_keys[0].ascending;
        out->nulls_first_ = order_keys[0].nulls_first;
      }
    }
    return out;
  }

  void Compute(int64_t ps, int64_t pe, std::vector<int64_t>* starts, std::vector<int64_t>* ends) {
    const int64_t m = pe - ps;
    starts->resize(static_cast<size_t>(m));
    ends->resize(static_cast<size_t>(m));
    int64_t* fs = starts->data();
    int64_t* fe = ends->data();
    if (frame_.type == WindowFrame::kRows) {
      for (int64_t k = 0; k < m; ++k) {
        fs[k] = RowsBound(frame_.start, ps, pe, ps + k, false);
        fe[k] = RowsBound(frame_.end, ps, pe, ps + k, true);
      }
    } else {
      if (needs_peers_) {
        PeerGroups(peers_ ? &*peers_ : nullptr, ps, pe, &peer_starts_);
        const bool start_current = frame_.start.kind == FrameBound::kCurrentRow;
        const bool end_current = frame_.end.kind == FrameBound::kCurrentRow;
        for (size_t g = 0; g + 1 < peer_starts_.size(); ++g) {
          const int64_t gs = peer_starts_[g], ge = peer_starts_[g + 1];
          for (int64_t i = gs; i < ge; ++i) {
            if (start_current) fs[i - ps] = gs;
            if (end_current) fe[i - ps] = ge;
          }
        }
      }
      if (frame_.start.kind == FrameBound::kUnboundedPreceding) std::fill(fs, fs + m, ps);
      if (frame_.end.kind == FrameBound::kUnboundedFollowing) std::fill(fe, fe + m, pe);
      if (has_offset_) RangeOffsetBounds(ps, pe, fs, fe);
    }
    for (int64_t k = 0; k < m; ++k) {
      if (fe[k] < fs[k]) fe[k] = fs[k];
    }
  }

 private:
  FrameComputer() = default;

  static int64_t RowsBound(const FrameBound& b, int64_t ps, int64_t pe, int64_t i, bool is_end) {
    Int128 v = i;
    switch (b.kind) {
      case FrameBound::kUnboundedPreceding:
        return ps;
      case FrameBound::kUnboundedFollowing:
        return pe;
      case FrameBound::kCurrentRow:
        break;
      case FrameBound::kPreceding:
        v -= b.offset;
        break;
      case FrameBound::kFollowing:
        v += b.offset;
        break;
    }
    if (is_end) v += 1;
    return static_cast<int64_t>(std::clamp<Int128>(v, ps, pe));
  }

  // Sets the offset bounds of RANGE frames on the one order key.
  void RangeOffsetBounds(int64_t ps, int64_t pe, int64_t* fs, int64_t* fe) {
    const int64_t m = pe - ps;
    int64_t nulls = 0;
    if (key_.null_count() > 0) {
      nulls = key_.validity() == nullptr
                  ? m
                  : m - bit_util::CountSetBits(key_.validity(), key_.offset() + ps, m);
    }
    // Non-null keys are rows [a, b); the nulls are before or after them.
    int64_t a = ps, b = pe;
    if (nulls_first_) {
      a += nulls;
    } else {
      b -= nulls;
    }
    if (nulls_first_) {
      SetBlockBounds(ps, a, ps, fs, fe);
    } else {
      SetBlockBounds(b, pe, ps, fs, fe);
    }

    const FrameBound& start = frame_.start;
    const FrameBound& end = frame_.end;
    const TypeId id = key_.type_id();
    if (id == TypeId::kFloat32 || id == TypeId::kFloat64) {
      auto run = [&](auto tag) {
        using T = decltype(tag);
        const T* values = key_.values<T>();
        // NaN sorts after every number: last when ascending, first when descending.
        int64_t lo = a, hi = b;
        if (ascending_) {
          while (hi > lo && std::isnan(values[hi - 1]))
            --hi;
          SetBlockBounds(hi, b, ps, fs, fe);
        } else {
          while (lo < hi && std::isnan(values[lo]))
            ++lo;
          SetBlockBounds(a, lo, ps, fs, fe);
        }
        const double sign = ascending_ ? 1.0 : -1.0;
        NumericOffsetBounds<double>(
            frame_, lo, hi, ps, static_cast<double>(start.offset), static_cast<double>(end.offset),
            [&](int64_t j) { return sign * static_cast<double>(values[j]); }, fs, fe);
      };
      if (id == TypeId::kFloat32) {
        run(float{});
      } else {
        run(double{});
      }
      return;
    }
    if (id == TypeId::kDecimal128) {
      Int128 unit = 1;
      for (int32_t d = 0; d < key_.type()->scale(); ++d)
        unit *= 10;
      auto scaled = [&](int64_t offset) {
        Int128 r;
        return __builtin_mul_overflow(static_cast<Int128>(offset), unit, &r) ? kInt128Max : r;
      };
      const bool asc = ascending_;
      NumericOffsetBounds<Int128>(
          frame_, a, b, ps, scaled(start.offset), scaled(end.offset),
          [&](int64_t j) {
            const Int128 v = DecimalValue(key_, j);
            return asc ? v : -v;
          },
          fs, fe);
      return;
    }
    VisitPrimitiveType(
        id,
        [&](auto tag) {
          using T = decltype(tag);
          const T* values = key_.values<T>();
          const bool asc = ascending_;
          NumericOffsetBounds<Int128>(
              frame_, a, b, ps, static_cast<Int128>(start.offset), static_cast<Int128>(end.offset),
              [&](int64_t j) {
                const Int128 v = static_cast<Int128>(values[j]);
                return asc ? v : -v;
              },
              fs, fe);
        },
        [] {});
  }

  // Rows [begin, end) are peers that only reach each other by offset (null or NaN keys).
  void SetBlockBounds(int64_t begin, int64_t end, int64_t base, int64_t* fs, int64_t* fe) const {
    for (int64_t i = begin; i < end; ++i) {
      if (IsOffset(frame_.start)) fs[i - base] = begin;
      if (IsOffset(frame_.end)) fe[i - base] = end;
    }
  }

  WindowFrame frame_;
  bool needs_peers_ = false;
  bool has_offset_ = false;
  std::optional<RowComparator> peers_;
  Array key_;
  bool ascending_ = true;
  bool nulls_first_ = false;
  std::vector<int64_t> peer_starts_;
};

// Calls `kernel(ps, pe, starts, ends)` for every non-empty partition with its rows' frames.
template <typename Kernel>
Status ForEachFramedPartition(const PartitionList& parts, FrameComputer* frames, Kernel&& kernel) {
  std::vector<int64_t> starts, ends;
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t ps = parts.begin(p), pe = parts.end(p);
    if (ps == pe) continue;
    frames->Compute(ps, pe, &starts, &ends);
    FLOTILLA_RETURN_NOT_OK(kernel(ps, pe, starts.data(), ends.data()));
  }
  return Status::OK();
}

// Moves a window [lo, hi) over the rows of a partition to successive frames whose ends never
// move back, calling remove(j) for each row that leaves and add(j) for each row that enters.
class SlidingWindow {
 public:
  explicit SlidingWindow(int64_t begin) : lo_(begin), hi_(begin) {}
  template <typename Add, typename Remove>
  void MoveTo(int64_t start, int64_t end, Add&& add, Remove&& remove) {
    const int64_t drop_end = std::min(start, hi_);
    for (int64_t j = lo_; j < drop_end; ++j)
      remove(j);
    lo_ = std::max(lo_, start);
    if (hi_ < lo_) hi_ = lo_;
    for (; hi_ < end; ++hi_)
      add(hi_);
  }

 private:
  int64_t lo_, hi_;
};

// ---------------------------------------------------------------------------------------------
// Ranking

Result<Array> ComputeRanking(WindowKind kind, const RecordBatch& batch, const PartitionList& parts,
                             const std::vector<SortKey>& order_keys) {
  const int64_t n = batch.num_rows();
  std::optional<RowComparator> peers;
  if (kind != WindowKind::kRowNumber && !order_keys.empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(RowComparator cmp, RowComparator::Make(batch, order_keys));
    peers.emplace(std::move(cmp));
  }
  const bool fractional = kind == WindowKind::kPercentRank || kind == WindowKind::kCumeDist;
  FLOTILLA_ASSIGN_OR_RETURN(auto ints, OutputColumn<int64_t>::Make(int64(), fractional ? 0 : n));
  FLOTILLA_ASSIGN_OR_RETURN(auto doubles,
                            OutputColumn<double>::Make(float64(), fractional ? n : 0));
  int64_t* iv = ints.values();
  double* dv = doubles.values();
  std::vector<int64_t> groups;
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t ps = parts.begin(p), pe = parts.end(p), m = pe - ps;
    if (m == 0) continue;
    if (kind == WindowKind::kRowNumber) {
      for (int64_t i = ps; i < pe; ++i)
        iv[i] = i - ps + 1;
      continue;
    }
    PeerGroups(peers ? &*peers : nullptr, ps, pe, &groups);
    for (size_t g = 0; g + 1 < groups.size(); ++g) {
      const int64_t gs = groups[g], ge = groups[g + 1];
      const int64_t rank = gs - ps + 1;
      for (int64_t i = gs; i < ge; ++i) {
        switch (kind) {
          case WindowKind::kRank:
            iv[i] = rank;
            break;
          case WindowKind::kDenseRank:
            iv[i] = static_cast<int64_t>(g) + 1;
            break;
          case WindowKind::kPercentRank:
            dv[i] = m == 1 ? 0.0 : static_cast<double>(rank - 1) / static_cast<double>(m - 1);
            break;
          default:  // cume_dist
            dv[i] = static_cast<double>(ge - ps) / static_cast<double>(m);
            break;
        }
      }
    }
  }
  return fractional ? doubles.Finish() : ints.Finish();
}

Result<Array> ComputeNtile(const RecordBatch& batch, const PartitionList& parts,
                           const Array& buckets_constant) {
  const int64_t n = batch.num_rows();
  const std::optional<int64_t> buckets = ConstantInteger(buckets_constant);
  if (!buckets) return Array::MakeNull(int64(), n);
  if (*buckets <= 0) {
    return Status::Invalid("ntile(): the number of buckets must be greater than zero, got " +
                           std::to_string(*buckets));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto out, OutputColumn<int64_t>::Make(int64(), n));
  int64_t* v = out.values();
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t ps = parts.begin(p), pe = parts.end(p), m = pe - ps;
    if (m == 0) continue;
    // The first m % buckets buckets get one row more (PostgreSQL's distribution).
    const int64_t per_bucket = m / *buckets;
    const int64_t larger = per_bucket == 0 ? 0 : m % *buckets;
    const int64_t larger_rows = larger * (per_bucket + 1);
    for (int64_t k = 0; k < m; ++k) {
      if (per_bucket == 0) {
        v[ps + k] = k + 1;
      } else if (k < larger_rows) {
        v[ps + k] = k / (per_bucket + 1) + 1;
      } else {
        v[ps + k] = larger + (k - larger_rows) / per_bucket + 1;
      }
    }
  }
  return out.Finish();
}

// ---------------------------------------------------------------------------------------------
// Navigation

Result<Array> ComputeLagLead(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                             const RecordBatch& batch, const PartitionList& parts) {
  const int64_t n = batch.num_rows();
  const Array& x = batch.column(spec.arguments[0]);
  std::optional<int64_t> offset = 1;
  if (!spec.constants.empty()) offset = ConstantInteger(spec.constants[0]);
  if (!offset) return Array::MakeNull(x.type(), n);

  // A default is appended after x's rows: one row for a constant, n rows for a column.
  Array values = x;
  bool has_default = false, per_row_default = false;
  Array default_values;
  if (spec.arguments.size() == 2) {
    default_values = batch.column(spec.arguments[1]);
    per_row_default = true;
  } else if (spec.constants.size() == 2) {
    default_values = spec.constants[1];
  }
  if (default_values.valid() && default_values.type_id() != TypeId::kNull &&
      default_values.null_count() < default_values.length()) {
    if (!default_values.type()->Equals(*x.type())) {
      FLOTILLA_ASSIGN_OR_RETURN(default_values, compute::Cast(default_values, x.type()));
    }
    FLOTILLA_ASSIGN_OR_RETURN(values, Concat({x, default_values}));
    has_default = true;
  }

  const Int128 shift =
      r.kind == WindowKind::kLag ? -static_cast<Int128>(*offset) : static_cast<Int128>(*offset);
  FLOTILLA_ASSIGN_OR_RETURN(auto indices, OutputColumn<int64_t>::Make(int64(), n));
  for (size_t p = 0; p < parts.size(); ++p) {
    const int64_t ps = parts.begin(p), pe = parts.end(p);
    for (int64_t i = ps; i < pe; ++i) {
      const Int128 j = static_cast<Int128>(i) + shift;
      if (j >= ps && j < pe) {
        indices.Set(i, static_cast<int64_t>(j));
      } else if (has_default) {
        indices.Set(i, per_row_default ? n + i : n);
      } else {
        indices.SetNull(i);
      }
    }
  }
  return TakeRows(values, &indices);
}

// first_value / last_value / nth_value, and the first / last aggregates.
Result<Array> ComputeFramePick(WindowKind kind, std::optional<int64_t> nth, const Array& x,
                               const PartitionList& parts, FrameComputer* frames) {
  FLOTILLA_ASSIGN_OR_RETURN(auto indices, OutputColumn<int64_t>::Make(int64(), parts.num_rows));
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        for (int64_t k = 0; k < pe - ps; ++k) {
          int64_t pick = -1;
          if (fs[k] < fe[k]) {
            if (kind == WindowKind::kFirstValue) {
              pick = fs[k];
            } else if (kind == WindowKind::kLastValue) {
              pick = fe[k] - 1;
            } else if (fe[k] - fs[k] >= *nth) {
              pick = fs[k] + *nth - 1;
            }
          }
          if (pick >= 0) {
            indices.Set(ps + k, pick);
          } else {
            indices.SetNull(ps + k);
          }
        }
        return Status::OK();
      }));
  return TakeRows(x, &indices);
}

// ---------------------------------------------------------------------------------------------
// Aggregates with dedicated kernels

Result<Array> ComputeCount(const Array* x, const PartitionList& parts, FrameComputer* frames) {
  FLOTILLA_ASSIGN_OR_RETURN(auto out, OutputColumn<int64_t>::Make(int64(), parts.num_rows));
  int64_t* v = out.values();
  const bool all_valid = x == nullptr || (x->null_count() == 0 && x->type_id() != TypeId::kNull);
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        if (all_valid) {
          for (int64_t k = 0; k < pe - ps; ++k)
            v[ps + k] = fe[k] - fs[k];
          return Status::OK();
        }
        const Validity valid(*x);
        SlidingWindow window(ps);
        int64_t count = 0;
        for (int64_t k = 0; k < pe - ps; ++k) {
          window.MoveTo(
              fs[k], fe[k], [&](int64_t j) { count += valid(j); },
              [&](int64_t j) { count -= valid(j); });
          v[ps + k] = count;
        }
        return Status::OK();
      }));
  return out.Finish();
}

// sum / mean of integers and decimals: a sliding sum modulo 2^128, exact whenever every frame's
// true sum fits in 128 bits (the caller checks). `get(j)` reads valid row j as an Int128.
template <typename Out, typename Get>
Result<Array> ExactSum(const std::string& name, const Array& x, Get&& get, const TypePtr& out_type,
                       bool mean, int32_t scale, const PartitionList& parts,
                       FrameComputer* frames) {
  FLOTILLA_ASSIGN_OR_RETURN(auto out, OutputColumn<Out>::Make(out_type, parts.num_rows));
  const Validity valid(x);
  const double unit = std::pow(10.0, scale);
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        SlidingWindow window(ps);
        UInt128 sum = 0;
        int64_t count = 0;
        for (int64_t k = 0; k < pe - ps; ++k) {
          window.MoveTo(
              fs[k], fe[k],
              [&](int64_t j) {
                if (valid(j)) {
                  sum += static_cast<UInt128>(get(j));
                  ++count;
                }
              },
              [&](int64_t j) {
                if (valid(j)) {
                  sum -= static_cast<UInt128>(get(j));
                  --count;
                }
              });
          const int64_t row = ps + k;
          if (count == 0) {
            out.SetNull(row);
            continue;
          }
          const auto total = static_cast<Int128>(sum);
          if constexpr (std::is_same_v<Out, double>) {
            out.Set(row, static_cast<double>(total) / unit / static_cast<double>(count));
          } else {
            bool fits;
            if constexpr (std::is_same_v<Out, Int128>) {
              fits = total < kDecimal38Limit && total > -kDecimal38Limit;
            } else {
              fits = total >= static_cast<Int128>(std::numeric_limits<Out>::min()) &&
                     total <= static_cast<Int128>(std::numeric_limits<Out>::max());
            }
            if (!fits) {
              return Status::Invalid(
                  Call(name) + " overflowed " + out_type->ToString() +
                  " in the window frame of row " + std::to_string(row) +
                  "; cast the argument to a wider type (decimal128(38, 0) or float64)");
            }
            out.Set(row, static_cast<Out>(total));
          }
        }
        return Status::OK();
      }));
  return out.Finish();
}

// Neumaier-compensated sum, as the sum/mean accumulators keep it.
struct CompensatedSum {
  double sum = 0.0;
  double compensation = 0.0;
  void Add(double v) {
    const double t = sum + v;
    if (std::abs(sum) >= std::abs(v)) {
      compensation += (sum - t) + v;
    } else {
      compensation += (v - t) + sum;
    }
    sum = t;
  }
  void Add(const CompensatedSum& other) {
    compensation += other.compensation;
    Add(other.sum);
  }
  // Once the sum is infinite or NaN the compensation holds inf - inf: leave it out.
  double Total() const { return std::isfinite(sum) ? sum + compensation : sum; }
};

// sum / mean of floats. Frames with a fixed start add rows in order, exactly like the
// accumulator; frames whose start moves query a tree of compensated partial sums.
template <typename T>
Result<Array> FloatSum(const Array& x, bool mean, const PartitionList& parts,
                       FrameComputer* frames) {
  FLOTILLA_ASSIGN_OR_RETURN(auto out, OutputColumn<double>::Make(float64(), parts.num_rows));
  const Validity valid(x);
  const T* values = x.values<T>();
  std::vector<CompensatedSum> tree;
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        const int64_t m = pe - ps;
        const bool fixed_start = std::all_of(fs, fs + m, [&](int64_t s) { return s == fs[0]; });
        auto emit = [&](int64_t row, const CompensatedSum& s, int64_t count) {
          if (count == 0) {
            out.SetNull(row);
          } else {
            out.Set(row, mean ? s.Total() / static_cast<double>(count) : s.Total());
          }
        };
        if (fixed_start) {
          CompensatedSum running;
          int64_t count = 0;
          int64_t next = fs[0];
          for (int64_t k = 0; k < m; ++k) {
            for (; next < fe[k]; ++next) {
              if (!valid(next)) continue;
              running.Add(static_cast<double>(values[next]));
              ++count;
            }
            emit(ps + k, running, count);
          }
          return Status::OK();
        }
        // Bottom-up segment tree over the partition: leaf k at m + k.
        tree.assign(static_cast<size_t>(2 * m), CompensatedSum{});
        for (int64_t k = 0; k < m; ++k) {
          if (valid(ps + k)) tree[m + k].sum = static_cast<double>(values[ps + k]);
        }
        for (int64_t k = m - 1; k >= 1; --k) {
          tree[k] = tree[2 * k];
          tree[k].Add(tree[2 * k + 1]);
        }
        SlidingWindow window(ps);
        int64_t count = 0;
        for (int64_t k = 0; k < m; ++k) {
          window.MoveTo(
              fs[k], fe[k], [&](int64_t j) { count += valid(j); },
              [&](int64_t j) { count -= valid(j); });
          CompensatedSum s;
          for (int64_t l = fs[k] - ps + m, h = fe[k] - ps + m; l < h; l >>= 1, h >>= 1) {
            if (l & 1) s.Add(tree[l++]);
            if (h & 1) s.Add(tree[--h]);
          }
          emit(ps + k, s, count);
        }
        return Status::OK();
      }));
  return out.Finish();
}

// Value access for min/max: Get(j) and a strict order (NaN above every number).
template <typename T>
struct PrimitiveValues {
  const T* values;
  explicit PrimitiveValues(const Array& a) : values(a.values<T>()) {}
  T Get(int64_t j) const { return values[j]; }
  static bool Less(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  }
};
struct DecimalValues {
  const Array* array;
  explicit DecimalValues(const Array& a) : array(&a) {}
  Int128 Get(int64_t j) const { return DecimalValue(*array, j); }
  static bool Less(Int128 a, Int128 b) { return a < b; }
};
struct BoolValues {
  const Array* array;
  explicit BoolValues(const Array& a) : array(&a) {}
  bool Get(int64_t j) const { return array->BoolValue(j); }
  static bool Less(bool a, bool b) { return !a && b; }
};
struct BinaryValues {
  const Array* array;
  explicit BinaryValues(const Array& a) : array(&a) {}
  std::string_view Get(int64_t j) const { return array->GetView(j); }
  static bool Less(std::string_view a, std::string_view b) { return a < b; }
};

// min / max over frames with a monotone deque of candidate rows: O(n). Among equal values the
// earliest row wins, as in the accumulator.
template <typename Values>
Result<Array> MinMax(const Array& x, bool is_max, const PartitionList& parts,
                     FrameComputer* frames) {
  const Values values(x);
  const Validity valid(x);
  FLOTILLA_ASSIGN_OR_RETURN(auto indices, OutputColumn<int64_t>::Make(int64(), parts.num_rows));
  std::vector<int64_t> deque;
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        deque.resize(static_cast<size_t>(pe - ps));
        size_t head = 0, tail = 0;
        auto better = [&](int64_t a, int64_t b) {
          return is_max ? Values::Less(values.Get(b), values.Get(a))
                        : Values::Less(values.Get(a), values.Get(b));
        };
        SlidingWindow window(ps);
        for (int64_t k = 0; k < pe - ps; ++k) {
          window.MoveTo(
              fs[k], fe[k],
              [&](int64_t j) {
                if (!valid(j)) return;
                while (tail > head && better(j, deque[tail - 1]))
                  --tail;
                deque[tail++] = j;
              },
              [&](int64_t j) {
                if (head < tail && deque[head] == j) ++head;
              });
          if (head < tail) {
            indices.Set(ps + k, deque[head]);
          } else {
            indices.SetNull(ps + k);
          }
        }
        return Status::OK();
      }));
  return TakeRows(x, &indices);
}

Result<Array> ComputeMinMax(const Array& x, bool is_max, const PartitionList& parts,
                            FrameComputer* frames) {
  switch (x.type_id()) {
    case TypeId::kBool:
      return MinMax<BoolValues>(x, is_max, parts, frames);
    case TypeId::kDecimal128:
      return MinMax<DecimalValues>(x, is_max, parts, frames);
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      return MinMax<BinaryValues>(x, is_max, parts, frames);
    default:
      break;
  }
  return VisitPrimitiveType(
      x.type_id(),
      [&](auto tag) -> Result<Array> {
        return MinMax<PrimitiveValues<decltype(tag)>>(x, is_max, parts, frames);
      },
      [&]() -> Result<Array> {
        return Status::TypeError(std::string(is_max ? "max" : "min") + "() cannot order " +
                                 x.type()->ToString());
      });
}

// any_value: the first non-null row of the frame.
Result<Array> ComputeAnyValue(const Array& x, const PartitionList& parts, FrameComputer* frames) {
  const Validity valid(x);
  FLOTILLA_ASSIGN_OR_RETURN(auto indices, OutputColumn<int64_t>::Make(int64(), parts.num_rows));
  std::vector<int64_t> next_valid;
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) -> Status {
        const int64_t m = pe - ps;
        next_valid.resize(static_cast<size_t>(m + 1));
        next_valid[m] = pe;
        for (int64_t k = m - 1; k >= 0; --k)
          next_valid[k] = valid(ps + k) ? ps + k : next_valid[k + 1];
        for (int64_t k = 0; k < m; ++k) {
          const int64_t pick = next_valid[fs[k] - ps];
          if (pick < fe[k]) {
            indices.Set(ps + k, pick);
          } else {
            indices.SetNull(ps + k);
          }
        }
        return Status::OK();
      }));
  return TakeRows(x, &indices);
}

// ---------------------------------------------------------------------------------------------
// Any aggregate, through its GroupedAccumulator

class GenericFrameAggregate {
 public:
  GenericFrameAggregate(const expr::AggregateFunction* function, std::vector<TypePtr> types,
                        std::vector<Array> constants, std::vector<Array> args, int64_t num_rows)
      : function_(function),
        types_(std::move(types)),
        constants_(std::move(constants)),
        args_(std::move(args)),
        row_group_(static_cast<size_t>(num_rows)) {}

  Status Partition(int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) {
    const int64_t m = pe - ps;
    const bool fixed_start = std::all_of(fs, fs + m, [&](int64_t s) { return s == fs[0]; });
    if (fixed_start) {
      // One running state fed each row once; each distinct frame end snapshots it into a group.
      FLOTILLA_ASSIGN_OR_RETURN(auto running, function_->MakeAccumulator(types_, constants_));
      FLOTILLA_RETURN_NOT_OK(running->Resize(1));
      int64_t fed = fs[0];
      for (int64_t k = 0; k < m; ++k) {
        if (k > 0 && fe[k] == fe[k - 1]) {
          row_group_[ps + k] = row_group_[ps + k - 1];
          continue;
        }
        if (fe[k] > fed) {
          FLOTILLA_RETURN_NOT_OK(Feed(running.get(), fed, fe[k], 0));
          fed = fe[k];
        }
        FLOTILLA_ASSIGN_OR_RETURN(uint32_t group, NewGroup(ps + k));
        FLOTILLA_RETURN_NOT_OK(chunk_->Merge(*running, &group));
      }
      return Status::OK();
    }
    for (int64_t k = 0; k < m; ++k) {
      if (k > 0 && fs[k] == fs[k - 1] && fe[k] == fe[k - 1]) {
        row_group_[ps + k] = row_group_[ps + k - 1];
        continue;
      }
      FLOTILLA_ASSIGN_OR_RETURN(uint32_t group, NewGroup(ps + k));
      FLOTILLA_RETURN_NOT_OK(Feed(chunk_.get(), fs[k], fe[k], group));
    }
    return Status::OK();
  }

  Result<Array> Finish() {
    FLOTILLA_RETURN_NOT_OK(FlushChunk());
    Array values;
    if (finished_.size() == 1) {
      values = finished_[0];
    } else {
      FLOTILLA_ASSIGN_OR_RETURN(values, Concat(finished_));
    }
    // Groups are numbered in row order, so one group per row is the identity.
    if (total_groups_ == static_cast<int64_t>(row_group_.size())) return values;
    FLOTILLA_ASSIGN_OR_RETURN(auto indices,
                              OutputColumn<int64_t>::Make(int64(), row_group_.size()));
    std::copy(row_group_.begin(), row_group_.end(), indices.values());
    return TakeRows(values, &indices);
  }

 private:
  // Groups live in chunks of a bounded number of groups, so that functions with large states
  // (approx_count_distinct's registers) keep only one chunk's worth alive.
  static constexpr int64_t kGroupsPerChunk = 1024;

  // A new group for `row`, returned as its id within the current chunk.
  Result<uint32_t> NewGroup(int64_t row) {
    if (chunk_ == nullptr || chunk_groups_ == kGroupsPerChunk) {
      FLOTILLA_RETURN_NOT_OK(FlushChunk());
      FLOTILLA_ASSIGN_OR_RETURN(chunk_, function_->MakeAccumulator(types_, constants_));
      chunk_groups_ = 0;
    }
    const auto group = static_cast<uint32_t>(chunk_groups_++);
    FLOTILLA_RETURN_NOT_OK(chunk_->Resize(chunk_groups_));
    row_group_[row] = total_groups_++;
    return group;
  }

  Status FlushChunk() {
    if (chunk_ == nullptr) return Status::OK();
    FLOTILLA_ASSIGN_OR_RETURN(Array values, chunk_->Finalize());
    finished_.push_back(std::move(values));
    chunk_.reset();
    return Status::OK();
  }

  // Updates `acc` with rows [begin, end) into `group`.
  Status Feed(expr::GroupedAccumulator* acc, int64_t begin, int64_t end, uint32_t group) {
    if (end <= begin) return Status::OK();
    const int64_t length = end - begin;
    std::vector<Array> sliced;
    sliced.reserve(args_.size());
    for (size_t i = 0; i < args_.size(); ++i) {
      sliced.push_back(constants_[i].valid() ? args_[i] : args_[i].Slice(begin, length));
    }
    group_ids_.assign(static_cast<size_t>(length), group);
    return acc->Update(sliced, group_ids_.data(), length);
  }

  const expr::AggregateFunction* function_;
  std::vector<TypePtr> types_;
  std::vector<Array> constants_;  // per argument: the constant, or invalid for a column
  std::vector<Array> args_;       // per argument: the column, or the constant
  std::vector<int64_t> row_group_;
  std::vector<uint32_t> group_ids_;
  std::unique_ptr<expr::GroupedAccumulator> chunk_;
  int64_t chunk_groups_ = 0;
  int64_t total_groups_ = 0;
  std::vector<Array> finished_;
};

Result<Array> ComputeGenericAggregate(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                                      const RecordBatch& batch, const PartitionList& parts,
                                      FrameComputer* frames) {
  std::vector<Array> constants, args;
  for (int column : spec.arguments) {
    constants.emplace_back();
    args.push_back(batch.column(column));
  }
  for (const Array& constant : spec.constants) {
    constants.push_back(constant);
    args.push_back(constant);
  }
  GenericFrameAggregate aggregate(r.aggregate, r.arg_types, std::move(constants), std::move(args),
                                  batch.num_rows());
  FLOTILLA_RETURN_NOT_OK(ForEachFramedPartition(
      parts, frames, [&](int64_t ps, int64_t pe, const int64_t* fs, const int64_t* fe) {
        return aggregate.Partition(ps, pe, fs, fe);
      }));
  return aggregate.Finish();
}

// True when a sliding 128-bit sum of `x` (decimal128) cannot wrap: rows * max |value| < 2^127.
bool DecimalSumFitsInt128(const Array& x) {
  const Validity valid(x);
  Int128 max_abs = 0;
  for (int64_t i = 0; i < x.length(); ++i) {
    if (!valid(i)) continue;
    const Int128 v = DecimalValue(x, i);
    if (v == kInt128Min) return false;
    max_abs = std::max(max_abs, v < 0 ? -v : v);
  }
  return max_abs == 0 || x.length() <= kInt128Max / max_abs;
}

Result<Array> ComputeAggregate(const ResolvedSpec& r, const WindowFunctionSpec& spec,
                               const RecordBatch& batch, const PartitionList& parts,
                               FrameComputer* frames) {
  const std::string& name = r.aggregate->name;
  if (name == "count_star") return ComputeCount(nullptr, parts, frames);
  if (spec.arguments.size() == 1 && spec.constants.empty()) {
    const Array& x = batch.column(spec.arguments[0]);
    const DataType& t = *x.type();
    if (name == "count") return ComputeCount(&x, parts, frames);
    if (name == "min" || name == "max") return ComputeMinMax(x, name == "max", parts, frames);
    if (name == "first") return ComputeFramePick(WindowKind::kFirstValue, 1, x, parts, frames);
    if (name == "last") return ComputeFramePick(WindowKind::kLastValue, 1, x, parts, frames);
    if (name == "any_value") return ComputeAnyValue(x, parts, frames);
    const bool mean = name == "mean" || name == "avg";
    if (name == "sum" || mean) {
      if (t.is_floating()) {
        return t.id() == TypeId::kFloat32 ? FloatSum<float>(x, mean, parts, frames)
                                          : FloatSum<double>(x, mean, parts, frames);
      }
      if (t.is_integer()) {
        return VisitNumericType(
            t.id(),
            [&](auto tag) -> Result<Array> {
              using T = decltype(tag);
              const T* values = x.values<T>();
              auto get = [values](int64_t j) { return static_cast<Int128>(values[j]); };
              if (mean) return ExactSum<double>(name, x, get, r.type, true, 0, parts, frames);
              if constexpr (std::is_signed_v<T>) {
                return ExactSum<int64_t>(name, x, get, r.type, false, 0, parts, frames);
              } else {
                return ExactSum<uint64_t>(name, x, get, r.type, false, 0, parts, frames);
              }
            },
            [&]() -> Result<Array> { return Status::Internal("integer type expected"); });
      }
      if (t.id() == TypeId::kDecimal128 && DecimalSumFitsInt128(x)) {
        auto get = [&x](int64_t j) { return DecimalValue(x, j); };
        if (mean) return ExactSum<double>(name, x, get, r.type, true, t.scale(), parts, frames);
        return ExactSum<Int128>(name, x, get, r.type, false, t.scale(), parts, frames);
      }
    }
  }
  return ComputeGenericAggregate(r, spec, batch, parts, frames);
}

}  // namespace

std::string WindowFrameToString(const WindowFrame& frame) {
  return std::string(frame.type == WindowFrame::kRows ? "ROWS" : "RANGE") + " BETWEEN " +
         BoundToString(frame.start) + " AND " + BoundToString(frame.end);
}

Result<TypePtr> WindowFunctionType(const Schema& schema, const WindowFunctionSpec& spec) {
  FLOTILLA_ASSIGN_OR_RETURN(ResolvedSpec r, Resolve(schema, spec));
  return r.type;
}

Result<Array> ComputeWindowFunction(const RecordBatch& sorted,
                                    const std::vector<int64_t>& partition_starts,
                                    const std::vector<SortKey>& order_keys,
                                    const WindowFunctionSpec& spec) {
  FLOTILLA_ASSIGN_OR_RETURN(ResolvedSpec r, Resolve(*sorted.schema(), spec));
  FLOTILLA_RETURN_NOT_OK(CheckPartitionStarts(partition_starts, sorted.num_rows()));
  FLOTILLA_RETURN_NOT_OK(CheckOrderKeys(sorted, order_keys));
  const PartitionList parts{&partition_starts, sorted.num_rows()};

  std::unique_ptr<FrameComputer> frames;
  if (UsesFrame(r.kind)) {
    const WindowFrame frame = EffectiveFrame(spec, order_keys);
    FLOTILLA_RETURN_NOT_OK(CheckFrame(r.name, frame, sorted, order_keys));
    FLOTILLA_ASSIGN_OR_RETURN(frames, FrameComputer::Make(sorted, order_keys, frame));
  }
  if (r.kind == WindowKind::kNthValue) {
    const std::optional<int64_t> nth = ConstantInteger(spec.constants[0]);
    if (nth && *nth <= 0) {
      return Status::Invalid("nth_value(): n must be greater than zero, got " +
                             std::to_string(*nth));
    }
  }
  if (sorted.num_rows() == 0) return Array::MakeEmpty(r.type);

  if (IsRanking(r.kind)) return ComputeRanking(r.kind, sorted, parts, order_keys);
  switch (r.kind) {
    case WindowKind::kNtile:
      return ComputeNtile(sorted, parts, spec.constants[0]);
    case WindowKind::kLag:
    case WindowKind::kLead:
      return ComputeLagLead(r, spec, sorted, parts);
    case WindowKind::kFirstValue:
    case WindowKind::kLastValue:
      return ComputeFramePick(r.kind, 1, sorted.column(spec.arguments[0]), parts, frames.get());
    case WindowKind::kNthValue: {
      const std::optional<int64_t> nth = ConstantInteger(spec.constants[0]);
      const Array& x = sorted.column(spec.arguments[0]);
      if (!nth) return Array::MakeNull(x.type(), sorted.num_rows());
      return ComputeFramePick(r.kind, nth, x, parts, frames.get());
    }
    default:
      return ComputeAggregate(r, spec, sorted, parts, frames.get());
  }
}

Result<std::vector<int64_t>> PartitionStarts(const RecordBatch& sorted,
                                             const std::vector<int>& partition_columns) {
  std::vector<SortKey> keys;
  for (int column : partition_columns) {
    if (column < 0 || column >= sorted.num_columns()) {
      return Status::IndexError("partition column " + std::to_string(column) +
                                " is out of range for a batch of " +
                                std::to_string(sorted.num_columns()) + " columns");
    }
    keys.push_back(SortKey{column});
  }
  std::vector<int64_t> starts;
  if (sorted.num_rows() == 0) return starts;
  starts.push_back(0);
  if (keys.empty()) return starts;
  FLOTILLA_ASSIGN_OR_RETURN(RowComparator cmp, RowComparator::Make(sorted, keys));
  for (int64_t i = 1; i < sorted.num_rows(); ++i) {
    if (cmp.Compare(i - 1, i) != 0) starts.push_back(i);
  }
  return starts;
}

}  // namespace flotilla::exec
