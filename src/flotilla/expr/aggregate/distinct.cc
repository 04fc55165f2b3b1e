// count_distinct (exact) and approx_count_distinct (HyperLogLog).
//
// count_distinct keeps one hash set of (group, canonical value bytes) per accumulator, in one
// arena (lookups reuse a scratch key). Its
// partial state is list<T> of each group's distinct values. Floats are canonical: -0.0 counts
// as 0.0 and every NaN as one value.

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
    const Array& a = args[0];
    (void)aggregate_internal::ForEachValid(a, num_rows, [&](int64_t i) {
      Insert(group_ids[i], a, i);
      return true;
    });
    return Status::OK();
  }

  Status Merge(const GroupedAccumulator& other, const uint32_t* group_map) override {
    const auto& o = static_cast<const CountDistinctAccumulator&>(other);
    o.keys_.ForEach([&](std::string_view key) {
      const uint32_t g = group_map[GroupOf(key)];
      scratch_.assign(key);
      std::memcpy(scratch_.data(), &g, 4);
      InsertScratch(g);
    });
    return Status::OK();
  }

  Result<std::vector<Array>> SerializePartial() const override {
    // Group the keys by group id (counting sort), then one list per group.
    std::vector<int32_t> offsets(static_cast<size_t>(num_groups_) + 1, 0);
    keys_.ForEach([&](std::string_view key) { ++offsets[GroupOf(key) + 1]; });
    for (int64_t g = 0; g < num_groups_; ++g)
      offsets[g + 1] += offsets[g];
    std::vector<int32_t> cursor(offsets.begin(), offsets.end() - 1);
    std::vector<std::string_view> values(keys_.size());
    keys_.ForEach([&](std::string_view key) { values[cursor[GroupOf(key)]++] = key.substr(4); });
    FLOTILLA_ASSIGN_OR_RETURN(Array child, ArrayFromValueBytes(type_, values));
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
      for (int64_t j = lists.ValueOffset(i); j < lists.ValueOffset(i + 1); ++j) {
        if (values.IsValid(j)) Insert(group_ids[i], values, j);
      }
    }
    return Status::OK();
  }

  Result<Array> Finalize() const override {
    return MakeFixedWidthArray(
        int64(), std::vector<int64_t>(counts_.begin(), counts_.begin() + num_groups_), nullptr);
  }

  int64_t memory_bytes() const override { return num_groups_ * 8 + keys_.memory_bytes(); }

 private:
  static uint32_t GroupOf(std::string_view key) {
    uint32_t g;
    std::memcpy(&g, key.data(), 4);
    return g;
  }
  void Insert(uint32_t g, const Array& a, int64_t i) {
    scratch_.assign(reinterpret_cast<const char*>(&g), 4);
    AppendValueBytes(a, i, &scratch_);
    InsertScratch(g);
  }
  void InsertScratch(uint32_t g) {
    if (keys_.Insert(scratch_)) ++counts_[g];
  }

  TypePtr type_;
  ByteSet keys_;  // 4 bytes of group id, then the value's bytes
  std::vector<int64_t> counts_;
  std::string scratch_;
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
  return std::unique_ptr<GroupedAccumulator>(new CountDistinctAccumulator(args[0]));
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
