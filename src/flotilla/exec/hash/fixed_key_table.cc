// The fixed layout of KeyTable: every key column is fixed-width and the normalized key (values in
// column order, then a null bit per column when nulls are equal and there are several columns)
// fits in kWords 8-byte words, stored in the slot beside the id, so a lookup visits one cache
// line. The null key of a one-column table has no slot: it is null_id_.
#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "flotilla/exec/hash/key_table_layouts.h"
#include "flotilla/exec/hash/slot_key_table.h"
#include "flotilla/exec/hash/stored_keys.h"

namespace flotilla::exec::key_table_internal {
namespace {

template <int kWords>
struct FixedSlot {
  uint64_t key[kWords];
  uint32_t id;
  uint32_t tag;  // the low 32 bits of the hash, which also place the slot
};

template <int kWords>
class FixedKeyTable final : public SlotKeyTable<FixedKeyTable<kWords>, FixedSlot<kWords>, kWords> {
  using Base = SlotKeyTable<FixedKeyTable<kWords>, FixedSlot<kWords>, kWords>;
  using Slot = FixedSlot<kWords>;
  friend Base;

 public:
  FixedKeyTable(std::vector<TypePtr> key_types, bool nulls_equal, MemoryPool* pool,
                std::vector<Column> columns)
      : Base(std::move(key_types), nulls_equal, pool, std::move(columns)) {
    int offset = 0;
    for (const Column& c : columns_) {
      offsets_.push_back(offset);
      offset += c.width;
    }
    has_mask_ = nulls_equal && columns_.size() > 1;
    mask_offset_ = offset;
    const int key_bytes = offset + (has_mask_ ? static_cast<int>(columns_.size() + 7) / 8 : 0);
    fills_key_ = key_bytes == 8 * kWords;
  }

  Status Init() { return this->InitSlots(); }

 protected:
  Result<std::vector<Array>> KeysImpl() const override {
    const int64_t n = size_;
    std::vector<uint64_t> dense(static_cast<size_t>(n) * kWords, 0);
    slots_.ForEachOccupied(
        [&](const Slot& slot) { std::copy_n(slot.key, kWords, dense.data() + slot.id * kWords); });
    const auto* bytes = reinterpret_cast<const uint8_t*>(dense.data());
    constexpr int64_t kStride = 8 * kWords;
    std::vector<Array> out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const uint8_t* base = bytes + offsets_[c];
      auto value_at = [&](int64_t i) { return base + i * kStride; };
      Array column;
      if (has_mask_) {
        const uint8_t* mask = bytes + mask_offset_ + c / 8;
        const int bit = static_cast<int>(c % 8);
        FLOTILLA_ASSIGN_OR_RETURN(
            column, BuildFixedColumn(
                        columns_[c], n, true, value_at,
                        [&](int64_t i) { return (mask[i * kStride] >> bit) & 1; }, pool_));
      } else {
        const int64_t null_id = null_id_ == kNotFound ? -1 : int64_t{null_id_};
        FLOTILLA_ASSIGN_OR_RETURN(column, BuildFixedColumn(
                                              columns_[c], n, null_id >= 0, value_at,
                                              [&](int64_t i) { return i == null_id; }, pool_));
      }
      out.push_back(std::move(column));
    }
    return out;
  }

 private:
  using Base::columns_;
  using Base::slots_;
  using KeyTable::kNotFound;
  using KeyTable::nulls_equal_;
  using KeyTable::pool_;
  using KeyTable::size_;

  // The keys live in the slots.
  int64_t StoredKeyBytes() const { return 0; }
  int64_t StoredKeyGrowthBytes(int64_t, int64_t) const { return 0; }

  // Writes the normalized keys of rows [start, start + n) to scratch->keys and, when some row is
  // a null key without a mask bit, the row states to scratch->states (has_states).
  Status Normalize(const std::vector<Array>& keys, int64_t start, int64_t n, Scratch* scratch,
                   bool* has_states) const {
    auto* key_bytes = reinterpret_cast<uint8_t*>(scratch->keys.data());
    constexpr int64_t kStride = 8 * kWords;
    if (!fills_key_) std::memset(key_bytes, 0, static_cast<size_t>(n * kStride));
    *has_states = false;
    for (size_t c = 0; c < columns_.size(); ++c) {
      FLOTILLA_RETURN_NOT_OK(ResolveRows(keys[c], columns_[c], c, start, n, scratch));
      const ColumnRows& column_rows = scratch->columns[c];
      uint8_t* base = key_bytes + offsets_[c];
      WriteFixed(columns_[c], column_rows, n, [base](int64_t i) { return base + i * kStride; });
      const uint8_t* is_null = column_rows.is_null;
      if (is_null == nullptr) continue;
      if (has_mask_) {
        uint8_t* mask = key_bytes + mask_offset_ + c / 8;
        const auto bit = static_cast<uint8_t>(1u << (c % 8));
        for (int64_t i = 0; i < n; ++i) {
          if (is_null[i]) mask[i * kStride] |= bit;
        }
      } else {
        MarkNullRows(is_null, n, nulls_equal_ ? kRowNullKey : kRowSkip, scratch->states.data(),
                     has_states);
      }
    }
    return Status::OK();
  }

  static bool SameKey(const uint64_t* a, const uint64_t* b) {
    bool same = true;
    for (int w = 0; w < kWords; ++w)
      same &= a[w] == b[w];
    return same;
  }

  template <bool kStates>
  Status InsertRows(const Scratch& scratch, const uint64_t* hashes, int64_t n, uint32_t* ids) {
    const uint64_t* keys = scratch.keys.data();
    const uint8_t* states = scratch.states.data();
    // Kept in registers: the stores into slots could otherwise alias them.
    Slot* slots = slots_.data();
    uint64_t mask = slots_.mask();
    for (int64_t i = 0; i < n; ++i) {
      if (i + kPrefetchRows < n) __builtin_prefetch(slots + (hashes[i + kPrefetchRows] & mask), 1);
      if constexpr (kStates) {
        if (states[i] == kRowSkip) {
          ids[i] = kNotFound;
          continue;
        }
        if (states[i] == kRowNullKey) {
          if (null_id_ == kNotFound) null_id_ = static_cast<uint32_t>(size_++);
          ids[i] = null_id_;
          continue;
        }
      }
      const uint64_t* key = keys + i * kWords;
      Slot* slot =
          ProbeSlots(slots, mask, hashes[i], [key](const Slot& s) { return SameKey(s.key, key); });
      if (slot->id != kEmpty) {
        ids[i] = slot->id;
        continue;
      }
      std::copy_n(key, kWords, slot->key);
      slot->tag = static_cast<uint32_t>(hashes[i]);
      this->NoteKey(hashes[i]);
      slot->id = static_cast<uint32_t>(size_++);
      ids[i] = slot->id;
      if (2 * ++entries_ > slots_.capacity()) {
        FLOTILLA_RETURN_NOT_OK(this->GrowSlots());
        slots = slots_.data();
        mask = slots_.mask();
      }
    }
    return Status::OK();
  }

  template <bool kStates>
  void FindRows(const Scratch& scratch, const uint64_t* hashes, int64_t n, uint32_t* ids) const {
    const uint64_t* keys = scratch.keys.data();
    const uint8_t* states = scratch.states.data();
    const Slot* slots = slots_.data();
    const uint64_t mask = slots_.mask();
    const bool filtered = this->FilterUseful();
    for (int64_t i = 0; i < n; ++i) {
      if (i + kPrefetchRows < n) __builtin_prefetch(slots + (hashes[i + kPrefetchRows] & mask));
      if constexpr (kStates) {
        if (states[i] != kRowKey) {
          ids[i] = states[i] == kRowNullKey ? null_id_ : kNotFound;
          continue;
        }
      }
      if (filtered && !this->MayHold(hashes[i])) {
        ids[i] = kNotFound;
        continue;
      }
      const uint64_t* key = keys + i * kWords;
      ids[i] = ProbeSlots(slots, mask, hashes[i], [key](const Slot& s) {
                 return SameKey(s.key, key);
               })->id;
    }
  }

  std::vector<int> offsets_;  // byte offset of each column's value in the key
  bool has_mask_;             // null bits after the values
  int mask_offset_;
  bool fills_key_;  // the values fill all kWords words (nothing to zero first)

  int64_t entries_ = 0;  // keys in slots (size_ minus the null key)
  uint32_t null_id_ = kNotFound;
};

}  // namespace

Result<std::unique_ptr<KeyTable>> MakeFixedKeyTable(int words, std::vector<TypePtr> key_types,
                                                    bool nulls_equal, MemoryPool* pool,
                                                    std::vector<Column> columns) {
  switch (words) {
    case 1:
      return MakeTable<FixedKeyTable<1>>(std::move(key_types), nulls_equal, pool,
                                         std::move(columns));
    case 2:
      return MakeTable<FixedKeyTable<2>>(std::move(key_types), nulls_equal, pool,
                                         std::move(columns));
    case 3:
      return MakeTable<FixedKeyTable<3>>(std::move(key_types), nulls_equal, pool,
                                         std::move(columns));
    default:
      return MakeTable<FixedKeyTable<4>>(std::move(key_types), nulls_equal, pool,
                                         std::move(columns));
  }
}

}  // namespace flotilla::exec::key_table_internal
