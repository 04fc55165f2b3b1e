// count_distinct (exact) and approx_count_distinct (HyperLogLog).
//
// count_distinct keeps one hash set of (group, canonical value) per accumulator: a table of
// (group, word) slots for values of at most 8 bytes, else byte strings in one arena (lookups
// reuse a scratch key). Its partial state is list<T> of each group's distinct values. Floats are
// canonical: -0.0 counts as 0.0 and every NaN as one value.

#include <xxhash.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/buffer.h"
#include "flotilla/columnar/builder.h"
#include "flotilla/compute/hash.h"
#include "flotilla/expr/aggregate/accumulator_support.h"
#include "flotilla/expr/aggregate/hyperloglog.h"

namespace flotilla::expr {
namespace {

using aggregate_internal::ArgumentTypeError;
using aggregate_internal::CheckPartialState;
using aggregate_internal::GrowTo;
using aggregate_internal::HyperLogLog;
using aggregate_internal::MakeBinaryArray;
using aggregate_internal::MakeFixedWidthArray;

bool IsDistinctCountable(const DataType& t) {
  return t.is_numeric() || t.is_binary_like() || t.id() == TypeId::kDecimal128 ||
         t.id() == TypeId::kDate32 || t.id() == TypeId::kTimestamp || t.id() == TypeId::kDuration ||
         t.id() == TypeId::kTime64 || t.id() == TypeId::kBool || t.id() == TypeId::kFixedSizeBinary;
}

// Appends the canonical bytes of row i (valid) to `key`.
void AppendValueBytes(const Array& a, int64_t i, std::string* key) {
  const DataType& t = *a.type();
  if (t.id() == TypeId::kBool) {
    key->push_back(a.BoolValue(i) ? 1 : 0);
  } else if (t.id() == TypeId::kFloat32 || t.id() == TypeId::kFloat64) {
    double v = t.id() == TypeId::kFloat32 ? a.values<float>()[i] : a.values<double>()[i];
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
    if (v == 0) v = 0.0;
    if (t.id() == TypeId::kFloat32) {
      const auto f = static_cast<float>(v);
      key->append(reinterpret_cast<const char*>(&f), sizeof f);
    } else {
      key->append(reinterpret_cast<const char*>(&v), sizeof v);
    }
  } else if (t.is_binary_like() || t.id() == TypeId::kFixedSizeBinary) {
    key->append(a.GetView(i));
  } else {
    const int width = t.byte_width();
    key->append(reinterpret_cast<const char*>(a.raw_values() + (a.offset() + i) * width),
                static_cast<size_t>(width));
  }
}

// An array of `type` (no nulls) from canonical value bytes, the inverse of AppendValueBytes.
Result<Array> ArrayFromValueBytes(const TypePtr& type, const std::vector<std::string_view>& vals) {
  if (type->is_binary_like() || type->id() == TypeId::kFixedSizeBinary) {
    return MakeBinaryArray(type, std::vector<std::string>(vals.begin(), vals.end()), nullptr);
  }
  if (type->id() == TypeId::kBool) {
    std::vector<uint8_t> bits;
    for (std::string_view v : vals)
      bits.push_back(static_cast<uint8_t>(v[0]));
    return aggregate_internal::MakeBooleanArray(bits, nullptr);
  }
  const int width = type->byte_width();
  std::vector<uint8_t> bytes(vals.size() * static_cast<size_t>(width));
  for (size_t i = 0; i < vals.size(); ++i)
    std::memcpy(&bytes[i * width], vals[i].data(), width);
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = static_cast<int64_t>(vals.size());
  FLOTILLA_ASSIGN_OR_RETURN(
      BufferPtr values,
      Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
  data->buffers = {nullptr, values};
  return Array(std::move(data));
}

// A set of byte strings in one arena with open addressing: no allocation per key, and a probe
// touches one slot (its hash) before any bytes. std::unordered_set<std::string> cost a node
// and a cache miss per distinct key, which at a million keys was most of TPC-H Q16 at SF 10.
class ByteSet {
 public:
  // Adds `key`; false when it was already there.
  bool Insert(std::string_view key) {
    if (2 * (count_ + 1) > slots_.size()) Grow();
    const uint64_t hash = XXH3_64bits(key.data(), key.size());
    const size_t mask = slots_.size() - 1;
    for (size_t at = hash & mask;; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (slot.length == kEmpty) {
        slot = {hash, arena_.size(), static_cast<uint32_t>(key.size())};
        arena_.append(key);
        entries_.push_back(at);
        ++count_;
        return true;
      }
      if (slot.hash == hash && slot.length == key.size() &&
          std::memcmp(arena_.data() + slot.offset, key.data(), key.size()) == 0) {
        return false;
      }
    }
  }
  size_t size() const { return count_; }
  // The keys in insertion order.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t at : entries_) {
      const Slot& slot = slots_[at];
      f(std::string_view(arena_.data() + slot.offset, slot.length));
    }
  }
  int64_t memory_bytes() const {
    return static_cast<int64_t>(slots_.capacity() * sizeof(Slot) + arena_.capacity() +
                                entries_.capacity() * sizeof(size_t));
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint64_t hash = 0;
    size_t offset = 0;
    uint32_t length = kEmpty;
  };
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
    const size_t mask = slots_.size() - 1;
    for (size_t& at : entries_) {
      const Slot& slot = old[at];
      size_t to = slot.hash & mask;
      while (slots_[to].length != kEmpty)
        to = (to + 1) & mask;
      slots_[to] = slot;
      at = to;
    }
  }
  std::vector<Slot> slots_;
  std::vector<size_t> entries_;  // slot of each key, in insertion order
  std::string arena_;
  size_t count_ = 0;
};

// The distinct (group, value) pairs of values whose canonical bytes are at most 8: the value as
// a little-endian word, in an open-addressing table of 16-byte slots. Hashing a word and
// comparing two integers is several times cheaper than the byte-string set, and these are most
// of what count_distinct sees (keys, dates, small numbers).
class WordKeys {
 public:
  using Key = uint64_t;

  static bool Fits(const DataType& t) {
    if (t.id() == TypeId::kBool) return true;
    if (t.is_binary_like() || t.id() == TypeId::kFixedSizeBinary) return false;
    return t.byte_width() > 0 && t.byte_width() <= 8;
  }

  // Calls f(i, key) for every valid row i in [begin, end); one type dispatch per call.
  template <typename F>
  static void ForEachKeyOf(const Array& a, int64_t begin, int64_t end, F&& f) {
    const TypeId id = a.type_id();
    auto each = [&](auto&& key_of) {
      for (int64_t i = begin; i < end; ++i) {
        if (a.IsValid(i)) f(i, key_of(i));
      }
    };
    if (id == TypeId::kBool) {
      each([&](int64_t i) { return Key{a.BoolValue(i) ? 1u : 0u}; });
    } else if (id == TypeId::kFloat32 || id == TypeId::kFloat64) {
      each([&](int64_t i) {
        std::string bytes;
        AppendValueBytes(a, i, &bytes);
        Key k = 0;
        std::memcpy(&k, bytes.data(), bytes.size());
        return k;
      });
    } else {
      const int width = a.type()->byte_width();
      const uint8_t* base = a.raw_values() + a.offset() * width;
      each([&](int64_t i) {
        Key k = 0;
        std::memcpy(&k, base + i * width, static_cast<size_t>(width));
        return k;
      });
    }
  }

  bool Insert(uint32_t group, Key value) {
    if (2 * (count_ + 1) > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t at = Hash(group, value) & mask;; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (!slot.used) {
        slot = {value, group, 1};
        ++count_;
        return true;
      }
      if (slot.value == value && slot.group == group) return false;
    }
  }
  // f(group, value) for every pair, in slot order (the same for the same inserts).
  template <typename F>
  void ForEach(F&& f) const {
    for (const Slot& slot : slots_) {
      if (slot.used) f(slot.group, slot.value);
    }
  }
  size_t size() const { return count_; }
  int64_t memory_bytes() const { return static_cast<int64_t>(slots_.capacity() * sizeof(Slot)); }

  static Result<Array> MakeArray(const TypePtr& type, const std::vector<Key>& values) {
    std::vector<std::string_view> views;
    views.reserve(values.size());
    for (const Key& v : values)
      views.emplace_back(reinterpret_cast<const char*>(&v), sizeof v);
    return ArrayFromValueBytes(type, views);
  }

 private:
  struct Slot {
    uint64_t value = 0;
    uint32_t group = 0;
    uint32_t used = 0;
  };
  static uint64_t Hash(uint32_t group, uint64_t value) {
    uint64_t h = value * 0x9E3779B97F4A7C15ULL + group;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (!slot.used) continue;
      size_t to = Hash(slot.group, slot.value) & mask;
      while (slots_[to].used)
        to = (to + 1) & mask;
      slots_[to] = slot;
    }
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// The distinct (group, value) pairs of any countable value: 4 bytes of group id, then the
// value's canonical bytes, in a ByteSet.
class BytesKeys {
 public:
  using Key = std::string_view;

  template <typename F>
  static void ForEachKeyOf(const Array& a, int64_t begin, int64_t end, F&& f) {
    const bool views = a.type()->is_binary_like() || a.type_id() == TypeId::kFixedSizeBinary;
    std::string bytes;
    for (int64_t i = begin; i < end; ++i) {
      if (!a.IsValid(i)) continue;
      if (views) {
        f(i, a.GetView(i));
      } else {
        bytes.clear();
        AppendValueBytes(a, i, &bytes);
        f(i, std::string_view(bytes));
      }
    }
  }

  bool Insert(uint32_t group, Key value) {
    scratch_.assign(reinterpret_cast<const char*>(&group), 4);
    scratch_.append(value);
    return keys_.Insert(scratch_);
  }
  template <typename F>
  void ForEach(F&& f) const {
    keys_.ForEach([&](std::string_view key) {
      uint32_t group;
      std::memcpy(&group, key.data(), 4);
      f(group, key.substr(4));
    });
  }
  size_t size() const { return keys_.size(); }
  int64_t memory_bytes() const { return keys_.memory_bytes(); }

  static Result<Array> MakeArray(const TypePtr& type, const std::vector<Key>& values) {
    return ArrayFromValueBytes(type, values);
  }

 private:
  ByteSet keys_;
  std::string scratch_;  // reused for each lookup
};

template <typename Keys>
class CountDistinctAccumulator : public GroupedAccumulator {
 public:
  explicit CountDistinctAccumulator(TypePtr type) : type_(std::move(type)) {}

  Status Resize(int64_t num_groups) override {
    GrowTo(&counts_, num_groups, int64_t{0});
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    Keys::ForEachKeyOf(args[0], 0, num_rows,
                       [&](int64_t i, typename Keys::Key key) { Insert(group_ids[i], key); });
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const CountDistinctAccumulator&>(other);
    o.keys_.ForEach([&](uint32_t g, typename Keys::Key key) { Insert(group_map[g], key); });
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    // Group the keys by group id (counting sort), then one list per group.
    std::vector<int32_t> offsets(static_cast<size_t>(num_groups_) + 1, 0);
    keys_.ForEach([&](uint32_t g, const typename Keys::Key&) { ++offsets[g + 1]; });
    for (int64_t g = 0; g < num_groups_; ++g)
      offsets[g + 1] += offsets[g];
    std::vector<int32_t> cursor(offsets.begin(), offsets.end() - 1);
    std::vector<typename Keys::Key> values(keys_.size());
    keys_.ForEach([&](uint32_t g, const typename Keys::Key& key) { values[cursor[g]++] = key; });
    FLOTILLA_ASSIGN_OR_RETURN(Array child, Keys::MakeArray(type_, values));
    auto data = std::make_shared<ArrayData>();
    data->type = list(type_);
    data->length = num_groups_;
    FLOTILLA_ASSIGN_OR_RETURN(
        BufferPtr offsets_buffer,
        Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(offsets.data()),
                                        offsets.size() * sizeof(int32_t))));
    data->buffers = {nullptr, offsets_buffer};
    data->children = {child.data()};
    return std::vector<Array>{Array(std::move(data))};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState("count_distinct", state, 1, n));
    const Array& lists = state[0];
    const Array values = lists.child(0);
    for (int64_t i = 0; i < n; ++i) {
      if (lists.IsNull(i)) continue;
      Keys::ForEachKeyOf(values, lists.ValueOffset(i), lists.ValueOffset(i + 1),
                         [&](int64_t, typename Keys::Key key) { Insert(group_ids[i], key); });
    }
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    return MakeFixedWidthArray(
        int64(), std::vector<int64_t>(counts_.begin(), counts_.begin() + num_groups_), nullptr);
  }

  int64_t memory_bytes() const override { return num_groups_ * 8 + keys_.memory_bytes(); }

 private:
  void Insert(uint32_t g, typename Keys::Key key) {
    if (keys_.Insert(g, key)) ++counts_[g];
  }

  TypePtr type_;
  Keys keys_;
  std::vector<int64_t> counts_;
};

class ApproxDistinctAccumulator : public GroupedAccumulator {
 public:
  Status Resize(int64_t num_groups) override {
    GrowTo(&sketches_, num_groups);
    num_groups_ = std::max(num_groups_, num_groups);
    return Status::OK();
  }

  Status Update(const std::vector<Array>& args, const uint32_t* group_ids,
                int64_t num_rows) override {
    const Array& a = args[0];
    hashes_.resize(static_cast<size_t>(a.length()));
    FLOTILLA_RETURN_NOT_OK(compute::ValueHashes(a, hashes_.data()));
    (void)aggregate_internal::ForEachValid(a, num_rows, [&](int64_t i) {
      // ValueHashes leaves integers unmixed; HyperLogLog needs uniform bits.
      sketches_[group_ids[i]].Add(XXH3_64bits(&hashes_[i], sizeof(uint64_t)));
      return true;
    });
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const ApproxDistinctAccumulator&>(other);
    for (int64_t g = 0; g < o.num_groups_; ++g)
      sketches_[group_map[g]].Merge(o.sketches_[g]);
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    std::vector<std::string> bytes(static_cast<size_t>(num_groups_));
    for (int64_t g = 0; g < num_groups_; ++g)
      sketches_[g].Serialize(&bytes[g]);
    FLOTILLA_ASSIGN_OR_RETURN(Array out, MakeBinaryArray(binary(), bytes, nullptr));
    return std::vector<Array>{out};
  }

  Status MergePartial(const std::vector<Array>& state, const uint32_t* group_ids,
                      int64_t n) override {
    FLOTILLA_RETURN_NOT_OK(CheckPartialState("approx_count_distinct", state, 1, n));
    for (int64_t i = 0; i < n; ++i) {
      if (state[0].IsValid(i)) {
        FLOTILLA_RETURN_NOT_OK(sketches_[group_ids[i]].MergeSerialized(state[0].GetView(i)));
      }
    }
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    std::vector<int64_t> out(static_cast<size_t>(num_groups_));
    for (int64_t g = 0; g < num_groups_; ++g) {
      out[g] = static_cast<int64_t>(std::llround(sketches_[g].Estimate()));
    }
    return MakeFixedWidthArray(int64(), out, nullptr);
  }

 private:
  std::vector<HyperLogLog> sketches_;
  std::vector<uint64_t> hashes_;  // reused across batches
};

Result<TypePtr> ResolveCountDistinct(const std::vector<TypePtr>& args) {
  if (!IsDistinctCountable(*args[0])) {
    return ArgumentTypeError("count_distinct", "a non-nested argument", args[0], 0);
  }
  return int64();
}
Result<std::vector<TypePtr>> CountDistinctState(const std::vector<TypePtr>& args) {
  FLOTILLA_RETURN_NOT_OK(ResolveCountDistinct(args));
  return std::vector<TypePtr>{list(args[0])};
}
Result<std::unique_ptr<GroupedAccumulator>> MakeCountDistinct(const std::vector<TypePtr>& args,
                                                              const std::vector<Array>&) {
  if (WordKeys::Fits(*args[0])) {
    return std::unique_ptr<GroupedAccumulator>(new CountDistinctAccumulator<WordKeys>(args[0]));
  }
  return std::unique_ptr<GroupedAccumulator>(new CountDistinctAccumulator<BytesKeys>(args[0]));
}

Result<TypePtr> ResolveApprox(const std::vector<TypePtr>&) {
  return int64();
}
Result<std::vector<TypePtr>> ApproxState(const std::vector<TypePtr>&) {
  return std::vector<TypePtr>{binary()};
}
Result<std::unique_ptr<GroupedAccumulator>> MakeApprox(const std::vector<TypePtr>&,
                                                       const std::vector<Array>&) {
  return std::unique_ptr<GroupedAccumulator>(new ApproxDistinctAccumulator());
}

}  // namespace

Status RegisterDistinctAggregates(AggregateRegistry* registry) {
  FLOTILLA_RETURN_NOT_OK(registry->Add(
      {"count_distinct",
       "Exact number of distinct non-null values (-0.0 equals 0.0, NaNs are one value); 0 for "
       "an empty group.",
       1, 1, ResolveCountDistinct, CountDistinctState, MakeCountDistinct}));
  return registry->Add(
      {"approx_count_distinct",
       "Approximate number of distinct non-null values (HyperLogLog, 2^14 registers: about "
       "0.8% standard error; exact up to 2048 distinct values); 0 for an empty group.",
       1, 1, ResolveApprox, ApproxState, MakeApprox});
}

}  // namespace flotilla::expr
