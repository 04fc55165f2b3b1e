#pragma once
// What the KeyTable layouts (fixed_key_table.cc, row_key_table.cc) share: the power-of-two slot
// array with linear probing, and the mini-batch loop of Insert and Find around a layout's own
// normalization and probe loops. Templates, so that the probe loops call no virtual function and
// inline the key comparison. Not part of the public contract.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "flotilla/compute/hash.h"
#include "flotilla/exec/hash/key_columns.h"
#include "flotilla/exec/hash/key_table.h"

namespace flotilla::exec::key_table_internal {

inline constexpr uint32_t kEmpty = UINT32_MAX;
// Find returns an empty slot's id as it is.
static_assert(kEmpty == KeyTable::kNotFound);
// How many rows ahead of the probe the slot of a row is prefetched.
inline constexpr int64_t kPrefetchRows = 16;
inline constexpr int64_t kInitialSlots = 256;
// A slot keeps 32 bits of its key's hash and its position is taken from them, so a table never
// needs the keys to grow; this caps it at 2^32 slots (2^31 keys).
inline constexpr int64_t kMaxSlots = int64_t{1} << 32;

inline Status TooManyKeys() {
  return Status::Invalid(
      "KeyTable: more than 2^31 distinct keys; partition the input by hash into several tables");
}

// The smallest power-of-two slot count that keeps `keys` keys at or under 50% load.
inline int64_t SlotsFor(int64_t keys) {
  int64_t capacity = kInitialSlots;
  while (capacity < 2 * keys)
    capacity *= 2;
  return capacity;
}

/// The slot holding the key `matches` accepts, or the empty slot where the probe from `hash`
/// stops. Slots have an `id`, kEmpty when the slot is free.
template <typename Slot, typename Matches>
[[gnu::always_inline]] inline Slot* ProbeSlots(Slot* slots, uint64_t mask, uint64_t hash,
                                               Matches&& matches) {
  for (uint64_t pos = hash & mask;; pos = (pos + 1) & mask) {
    Slot* slot = slots + pos;
    if (slot->id == kEmpty || matches(*slot)) return slot;
  }
}

/// Open addressing slots from a memory pool. A slot's position comes from its `tag` (the low 32
/// bits of its key's hash), so growing never reads the keys.
template <typename Slot>
class SlotArray {
 public:
  Slot* data() const { return slots_; }
  uint64_t mask() const { return mask_; }
  int64_t capacity() const { return capacity_; }
  int64_t memory_bytes() const { return capacity_ * static_cast<int64_t>(sizeof(Slot)); }

  /// Moves the occupied slots into `capacity` new ones (a power of two, above the count).
  Status Resize(int64_t capacity, MemoryPool* pool) {
    if (capacity > kMaxSlots) return TooManyKeys();
    FLOTILLA_ASSIGN_OR_RETURN(
        BufferPtr buffer, Buffer::Allocate(capacity * static_cast<int64_t>(sizeof(Slot)), pool));
    // All ones: every id is kEmpty (and every other field is defined).
    std::memset(buffer->mutable_data(), 0xFF, static_cast<size_t>(buffer->size()));
    auto* slots = reinterpret_cast<Slot*>(buffer->mutable_data());
    const auto mask = static_cast<uint64_t>(capacity - 1);
    auto never = [](const Slot&) { return false; };
    ForEachOccupied([&](const Slot& old) { *ProbeSlots(slots, mask, old.tag, never) = old; });
    buffer_ = std::move(buffer);
    slots_ = slots;
    capacity_ = capacity;
    mask_ = mask;
    return Status::OK();
  }

  /// Grows to hold `keys` keys without growing again; never shrinks.
  Status Reserve(int64_t keys, MemoryPool* pool) {
    const int64_t capacity = SlotsFor(keys);
    return capacity > capacity_ ? Resize(capacity, pool) : Status::OK();
  }

  /// Bytes a slot array for `keys` keys would allocate beside this one; 0 when they fit.
  int64_t GrowthBytes(int64_t keys) const {
    const int64_t capacity = SlotsFor(keys);
    return capacity > capacity_ ? capacity * static_cast<int64_t>(sizeof(Slot)) : 0;
  }

  template <typename F>
  void ForEachOccupied(F&& f) const {
    for (int64_t s = 0; s < capacity_; ++s) {
      if (slots_[s].id != kEmpty) f(slots_[s]);
    }
  }

 private:
  BufferPtr buffer_;
  Slot* slots_ = nullptr;
  int64_t capacity_ = 0;
  uint64_t mask_ = 0;
};

// Calls f(start, rows, hashes) for each mini-batch of `keys`, hashing it with HashRows when the
// caller gave no hashes.
template <typename F>
Status ForEachMiniBatch(const std::vector<Array>& keys, const uint64_t* hashes, MemoryPool* pool,
                        F&& f) {
  const int64_t n = keys[0].length();
  std::vector<Array> slices(keys.size());
  for (int64_t start = 0; start < n; start += kMiniBatchRows) {
    const int64_t rows = std::min(kMiniBatchRows, n - start);
    Array computed;
    const uint64_t* batch_hashes;
    if (hashes != nullptr) {
      batch_hashes = hashes + start;
    } else {
      if (rows == n) {
        FLOTILLA_ASSIGN_OR_RETURN(computed, compute::HashRows(keys, 0, pool));
      } else {
        for (size_t c = 0; c < keys.size(); ++c)
          slices[c] = keys[c].Slice(start, rows);
        FLOTILLA_ASSIGN_OR_RETURN(computed, compute::HashRows(slices, 0, pool));
      }
      batch_hashes = computed.values<uint64_t>();
    }
    FLOTILLA_RETURN_NOT_OK(f(start, rows, batch_hashes));
  }
  return Status::OK();
}

/// \brief A KeyTable over a SlotArray: the mini-batch loops of Insert and Find, Reserve, and the
/// memory accounting, around what the layout `Layout` (the derived class) provides:
///
///   // Normalizes rows [start, start + n) into `scratch`; has_states when some row has a
///   // state other than kRowKey in scratch->states.
///   Status Normalize(const std::vector<Array>& keys, int64_t start, int64_t n,
///                    Scratch* scratch, bool* has_states) const;
///   template <bool kStates> Status InsertRows(const Scratch&, const uint64_t* hashes,
///                                             int64_t n, uint32_t* ids);
///   template <bool kStates> void FindRows(const Scratch&, const uint64_t* hashes, int64_t n,
///                                         uint32_t* ids) const;
///   // Bytes the layout keeps beside the slots, and what `more_keys` keys would add to them.
///   int64_t StoredKeyBytes() const;
///   int64_t StoredKeyGrowthBytes(int64_t more_keys, int64_t more_key_bytes) const;
///
/// `kKeyWords` is the 8-byte words of a normalized key in Scratch::keys (0: the layout
/// serializes rows instead).
template <typename Layout, typename Slot, int kKeyWords>
class SlotKeyTable : public KeyTable {
 protected:
  SlotKeyTable(std::vector<TypePtr> key_types, bool nulls_equal, MemoryPool* pool,
               std::vector<Column> columns)
      : KeyTable(std::move(key_types), nulls_equal, pool), columns_(std::move(columns)) {}

  Status InitSlots() {
    filter_.assign(kFilterWords, 0);
    return slots_.Resize(kInitialSlots, pool_);
  }
  Status GrowSlots() { return slots_.Resize(2 * slots_.capacity(), pool_); }

  Status InsertImpl(const std::vector<Array>& keys, const uint64_t* hashes,
                    uint32_t* ids) override {
    scratch_.Prepare(columns_.size(), std::min(keys[0].length(), kMiniBatchRows), kKeyWords);
    Layout& layout = static_cast<Layout&>(*this);
    Status status =
        ForEachMiniBatch(keys, hashes, pool_, [&](int64_t start, int64_t n, const uint64_t* h) {
          bool has_states;
          FLOTILLA_RETURN_NOT_OK(layout.Normalize(keys, start, n, &scratch_, &has_states));
          return has_states ? layout.template InsertRows<true>(scratch_, h, n, ids + start)
                            : layout.template InsertRows<false>(scratch_, h, n, ids + start);
        });
    scratch_.ReleaseInputs();
    return status;
  }

  Status FindImpl(const std::vector<Array>& keys, const uint64_t* hashes,
                  uint32_t* ids) const override {
    // Scratch of its own: Find may run on several threads at once.
    Scratch scratch;
    scratch.Prepare(columns_.size(), std::min(keys[0].length(), kMiniBatchRows), kKeyWords);
    const Layout& layout = static_cast<const Layout&>(*this);
    return ForEachMiniBatch(keys, hashes, pool_, [&](int64_t start, int64_t n, const uint64_t* h) {
      bool has_states;
      FLOTILLA_RETURN_NOT_OK(layout.Normalize(keys, start, n, &scratch, &has_states));
      if (has_states) {
        layout.template FindRows<true>(scratch, h, n, ids + start);
      } else {
        layout.template FindRows<false>(scratch, h, n, ids + start);
      }
      return Status::OK();
    });
  }

  Status ReserveImpl(int64_t expected_keys) override {
    return slots_.Reserve(expected_keys, pool_);
  }

  int64_t MemoryBytesImpl() const override {
    return slots_.memory_bytes() + static_cast<const Layout&>(*this).StoredKeyBytes() +
           scratch_.memory_bytes() + kFilterWords * 8;
  }

  // A bit for each value of the hash's top 16 bits, set for every key inserted. While the table
  // holds few keys most bits are clear, and a Find whose bit is clear misses without probing:
  // probing a small join build (a semi join on a few hundred keys) is mostly misses, and a miss
  // otherwise walks its probe chain to an empty slot. Past kFilterKeys keys it is not read.
  void NoteKey(uint64_t hash) { filter_[hash >> 54] |= uint64_t{1} << ((hash >> 48) & 63); }
  bool FilterUseful() const { return size_ <= kFilterKeys; }
  bool MayHold(uint64_t hash) const { return (filter_[hash >> 54] >> ((hash >> 48) & 63)) & 1; }

  int64_t GrowthBytesImpl(int64_t more_keys, int64_t more_key_bytes) const override {
    return slots_.GrowthBytes(size_ + more_keys) + ScratchGrowth(more_keys, more_key_bytes) +
           static_cast<const Layout&>(*this).StoredKeyGrowthBytes(more_keys, more_key_bytes);
  }

  std::vector<Column> columns_;
  SlotArray<Slot> slots_;
  Scratch scratch_;
  std::vector<uint64_t> filter_;                 // see NoteKey
  static constexpr int64_t kFilterWords = 1024;  // 2^16 bits
  static constexpr int64_t kFilterKeys = 4096;   // a clear bit is then 94% likely or more

 private:
  // What the first Insert allocates for the scratch space kept between calls: per row of a mini
  // batch, normalized keys, hashes, states and ids (64 bytes is above every layout's), and the
  // mini batch's share of the key bytes. Later calls reuse it (at most a mini batch's worth).
  int64_t ScratchGrowth(int64_t more_keys, int64_t more_key_bytes) const {
    if (scratch_.memory_bytes() > 0) return 0;
    const int64_t rows = std::min(more_keys, kMiniBatchRows);
    return rows * 64 + (more_keys > 0 ? more_key_bytes / more_keys * rows : 0);
  }
};

/// A new table of the layout `Table`, initialized (its slots allocated).
template <typename Table>
Result<std::unique_ptr<KeyTable>> MakeTable(std::vector<TypePtr> key_types, bool nulls_equal,
                                            MemoryPool* pool, std::vector<Column> columns) {
  auto table = std::make_unique<Table>(std::move(key_types), nulls_equal, pool, std::move(columns));
  FLOTILLA_RETURN_NOT_OK(table->Init());
  return std::unique_ptr<KeyTable>(std::move(table));
}

}  // namespace flotilla::exec::key_table_internal
