#include "flotilla/compute/row_comparator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string_view>

#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/concat.h"

namespace flotilla::compute {
namespace internal {
namespace {

// Null test shared by the accessors: one pointer check when the column has no nulls.
struct NullMask {
  const uint8_t* validity = nullptr;
  int64_t offset = 0;
  explicit NullMask(const Array& a)
      : validity(a.null_count() > 0 ? a.validity() : nullptr), offset(a.offset()) {}
  bool IsNull(int64_t i) const {
    return validity != nullptr && !bit_util::GetBit(validity, offset + i);
  }
};

template <typename T>
int ThreeWay(const T& a, const T& b) {
  return (a > b) - (a < b);
}

template <typename T>
struct IntAccess : NullMask {
  const T* values;
  explicit IntAccess(const Array& a) : NullMask(a), values(a.values<T>()) {}
  T Get(int64_t i) const { return values[i]; }
  static int Cmp(T a, T b) { return ThreeWay(a, b); }
};

template <typename T>
struct FloatAccess : IntAccess<T> {
  using IntAccess<T>::IntAccess;
  // NaN sorts after every number and equals every NaN; -0.0 == 0.0 falls out of operator<.
  static int Cmp(T a, T b) {
    const bool an = std::isnan(a), bn = std::isnan(b);
    if (an || bn) return static_cast<int>(an) - static_cast<int>(bn);
    return ThreeWay(a, b);
  }
};

struct BoolAccess : NullMask {
  const uint8_t* bits;
  explicit BoolAccess(const Array& a) : NullMask(a), bits(a.raw_values()) {}
  bool Get(int64_t i) const { return bit_util::GetBit(bits, offset + i); }
  static int Cmp(bool a, bool b) { return ThreeWay<int>(a, b); }
};

struct DecimalAccess : NullMask {
  const uint8_t* raw;
  explicit DecimalAccess(const Array& a) : NullMask(a), raw(a.raw_values() + a.offset() * 16) {}
  Int128 Get(int64_t i) const {
    Int128 v;
    std::memcpy(&v, raw + i * 16, 16);  // memcpy: foreign buffers need not be 16-aligned
    return v;
  }
  static int Cmp(Int128 a, Int128 b) { return ThreeWay(a, b); }
};

template <typename Offset>
struct BinaryAccess : NullMask {
  const Offset* offsets;
  const char* data;
  explicit BinaryAccess(const Array& a)
      : NullMask(a),
        offsets(a.data()->buffers[1]->data_as<Offset>() + a.offset()),
        data(a.data()->buffers[2] ? a.data()->buffers[2]->data_as<char>() : nullptr) {}
  std::string_view Get(int64_t i) const {
    return {data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])};
  }
  // string_view::compare is memcmp-based: bytewise and unsigned.
  static int Cmp(std::string_view a, std::string_view b) { return a.compare(b); }
};

struct FixedBinaryAccess : NullMask {
  const char* raw;
  size_t width;
  explicit FixedBinaryAccess(const Array& a)
      : NullMask(a),
        raw(reinterpret_cast<const char*>(a.raw_values()) + a.offset() * a.type()->byte_width()),
        width(static_cast<size_t>(a.type()->byte_width())) {}
  std::string_view Get(int64_t i) const { return {raw + i * width, width}; }
  static int Cmp(std::string_view a, std::string_view b) { return a.compare(b); }
};

// Dictionary columns compare by the rank of their value, precomputed per row (-1 for null).
struct RankAccess {
  std::vector<int64_t> ranks;
  bool IsNull(int64_t i) const { return ranks[i] < 0; }
  int64_t Get(int64_t i) const { return ranks[i]; }
  static int Cmp(int64_t a, int64_t b) { return ThreeWay(a, b); }
};

struct NullTypeAccess {
  explicit NullTypeAccess(const Array&) {}
  bool IsNull(int64_t) const { return true; }
  int Get(int64_t) const { return 0; }
  static int Cmp(int, int) { return 0; }
};

template <typename Access>
class TypedKeyComparator final : public KeyComparator {
 public:
  TypedKeyComparator(Access left, Access right, const SortKey& key)
      : left_(std::move(left)),
        right_(std::move(right)),
        ascending_(key.ascending),
        nulls_first_(key.nulls_first) {}

  int Compare(int64_t l, int64_t r) const override {
    const bool ln = left_.IsNull(l), rn = right_.IsNull(r);
    if (ln || rn) {
      if (ln && rn) return 0;
      return ln == nulls_first_ ? -1 : 1;
    }
    const int c = Access::Cmp(left_.Get(l), right_.Get(r));
    return ascending_ ? c : -c;
  }

 private:
  Access left_, right_;
  bool ascending_, nulls_first_;
};

template <typename Access>
std::unique_ptr<KeyComparator> MakeTyped(const Array& left, const Array& right,
                                         const SortKey& key) {
  return std::make_unique<TypedKeyComparator<Access>>(Access(left), Access(right), key);
}

// Per-row ranks of a dictionary column given the ranks of its dictionary entries.
std::vector<int64_t> RowRanks(const Array& column, const std::vector<int64_t>& entry_ranks,
                              int64_t entry_base) {
  std::vector<int64_t> ranks(column.length());
  for (int64_t i = 0; i < column.length(); ++i) {
    ranks[i] = column.IsNull(i) ? -1 : entry_ranks[entry_base + column.DictionaryIndex(i)];
  }
  return ranks;
}

Result<std::unique_ptr<KeyComparator>> MakeDictionaryComparator(const Array& left,
                                                                const Array& right,
                                                                const SortKey& key) {
  // Two sides with different dictionaries are ranked together so their ranks are comparable.
  const bool shared = left.data()->dictionary == right.data()->dictionary;
  Array entries = left.dictionary();
  if (!shared) {
    FLOTILLA_ASSIGN_OR_RETURN(entries, Concat({left.dictionary(), right.dictionary()}));
  }
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<int64_t> entry_ranks, RankValues(entries));
  RankAccess l{RowRanks(left, entry_ranks, 0)};
  // A shared dictionary shares the entry ranks, not the row ranks: the rows are different arrays.
  RankAccess r{RowRanks(right, entry_ranks, shared ? 0 : left.dictionary().length())};
  return std::unique_ptr<KeyComparator>(
      std::make_unique<TypedKeyComparator<RankAccess>>(std::move(l), std::move(r), key));
}

Result<std::unique_ptr<KeyComparator>> MakeKeyComparator(const Array& left, const Array& right,
                                                         const SortKey& key) {
  switch (left.type_id()) {
    case TypeId::kNull:
      return MakeTyped<NullTypeAccess>(left, right, key);
    case TypeId::kBool:
      return MakeTyped<BoolAccess>(left, right, key);
    case TypeId::kInt8:
      return MakeTyped<IntAccess<int8_t>>(left, right, key);
    case TypeId::kInt16:
      return MakeTyped<IntAccess<int16_t>>(left, right, key);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return MakeTyped<IntAccess<int32_t>>(left, right, key);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      return MakeTyped<IntAccess<int64_t>>(left, right, key);
    case TypeId::kUInt8:
      return MakeTyped<IntAccess<uint8_t>>(left, right, key);
    case TypeId::kUInt16:
      return MakeTyped<IntAccess<uint16_t>>(left, right, key);
    case TypeId::kUInt32:
      return MakeTyped<IntAccess<uint32_t>>(left, right, key);
    case TypeId::kUInt64:
      return MakeTyped<IntAccess<uint64_t>>(left, right, key);
    case TypeId::kFloat32:
      return MakeTyped<FloatAccess<float>>(left, right, key);
    case TypeId::kFloat64:
      return MakeTyped<FloatAccess<double>>(left, right, key);
    case TypeId::kDecimal128:
      return MakeTyped<DecimalAccess>(left, right, key);
    case TypeId::kString:
    case TypeId::kBinary:
      return MakeTyped<BinaryAccess<int32_t>>(left, right, key);
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      return MakeTyped<BinaryAccess<int64_t>>(left, right, key);
    case TypeId::kFixedSizeBinary:
      return MakeTyped<FixedBinaryAccess>(left, right, key);
    case TypeId::kDictionary:
      return MakeDictionaryComparator(left, right, key);
    default:
      break;
  }
  return Status::Internal("no comparator for " + left.type()->ToString());
}

}  // namespace

Status CheckSortable(const DataType& type, const std::string& column) {
  const DataType* t = &type;
  if (t->id() == TypeId::kDictionary) t = t->value_type().get();
  if (t->is_nested() || t->id() == TypeId::kDictionary) {
    return Status::NotImplemented(fmt::format(
        "cannot sort by column '{}' of type {}: sort keys must be numbers, dates, timestamps, "
        "durations, decimals, bool, strings, binary or dictionaries of those; sort by a field "
        "or element extracted from it instead",
        column, type.ToString()));
  }
  return Status::OK();
}

Result<std::vector<int64_t>> RankValues(const Array& values) {
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, RecordBatch::FromColumns({{"value", values}}));
  FLOTILLA_ASSIGN_OR_RETURN(RowComparator cmp, RowComparator::Make(batch, {SortKey{0}}));
  std::vector<int64_t> order(values.length());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return cmp.Compare(a, b) < 0; });
  std::vector<int64_t> ranks(values.length());
  int64_t rank = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k > 0 && cmp.Compare(order[k - 1], order[k]) != 0) ++rank;
    ranks[order[k]] = values.IsNull(order[k]) ? -1 : rank;
  }
  return ranks;
}

}  // namespace internal

Result<RowComparator> RowComparator::Make(const RecordBatch& batch,
                                          const std::vector<SortKey>& keys) {
  return Make(batch, batch, keys);
}

Result<RowComparator> RowComparator::Make(const RecordBatch& left, const RecordBatch& right,
                                          const std::vector<SortKey>& keys) {
  if (!left.schema()->Equals(*right.schema())) {
    return Status::TypeError(
        "RowComparator: the two batches have different schemas; compare batches of one schema");
  }
  RowComparator out;
  for (const SortKey& key : keys) {
    if (key.column < 0 || key.column >= left.num_columns()) {
      return Status::IndexError(fmt::format(
          "sort key column {} is out of range for a batch of {} columns (valid: 0 to {})",
          key.column, left.num_columns(), left.num_columns() - 1));
    }
    const Array& column = left.column(key.column);
    FLOTILLA_RETURN_NOT_OK(
        internal::CheckSortable(*column.type(), left.schema()->field(key.column).name));
    FLOTILLA_ASSIGN_OR_RETURN(auto comparator,
                              internal::MakeKeyComparator(column, right.column(key.column), key));
    out.keys_.push_back(std::move(comparator));
  }
  return out;
}

}  // namespace flotilla::compute
