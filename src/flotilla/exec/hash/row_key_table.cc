// The row layout of KeyTable (strings, binary, wider keys): each key is serialized into a byte
// row — a 4-byte length of the rest, a null bit per column (when nulls are equal), then per
// column its fixed-width normalized value, or a 4-byte length and the bytes — appended to an
// arena in id order. Equal keys have equal rows. The slots hold {32 hash bits, id, the row's
// arena offset}, so a probe reads the slot, then the row; both are prefetched ahead of the probe
// (the row from the home slot, when it is taken).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "flotilla/exec/hash/binary_keys.h"
#include "flotilla/exec/hash/key_table_layouts.h"
#include "flotilla/exec/hash/slot_key_table.h"
#include "flotilla/exec/hash/stored_keys.h"

namespace flotilla::exec::key_table_internal {
namespace {

struct RowSlot {
  uint32_t tag;  // the low 32 bits of the hash, which also place the slot
  uint32_t id;
  int64_t offset;  // of the row in the arena
};

class RowKeyTable final : public SlotKeyTable<RowKeyTable, RowSlot, 0> {
  using Base = SlotKeyTable<RowKeyTable, RowSlot, 0>;
  using Slot = RowSlot;
  friend Base;

 public:
  RowKeyTable(std::vector<TypePtr> key_types, bool nulls_equal, MemoryPool* pool,
              std::vector<Column> columns)
      : Base(std::move(key_types), nulls_equal, pool, std::move(columns)) {
    mask_bytes_ = nulls_equal ? static_cast<int>(columns_.size() + 7) / 8 : 0;
    fixed_row_bytes_ = kLengthBytes + mask_bytes_;
    for (const Column& c : columns_) {
      fixed_row_bytes_ += IsBinary(c) ? 4 : c.width;
    }
  }

  Status Init() {
    FLOTILLA_ASSIGN_OR_RETURN(arena_, Buffer::Allocate(0, pool_));
    return InitSlots();
  }

 protected:
  Result<std::vector<Array>> KeysImpl() const override {
    const int64_t n = size_;
    const uint8_t* bytes = arena_->data();
    // Where each id's row starts (after its length), from the slots.
    std::vector<int64_t> row_starts(static_cast<size_t>(n));
    slots_.ForEachOccupied(
        [&](const Slot& slot) { row_starts[slot.id] = slot.offset + kLengthBytes; });
    std::vector<int64_t> cursors(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      cursors[i] = row_starts[i] + mask_bytes_;
    std::vector<Array> out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const Column& column = columns_[c];
      const int64_t mask_byte = static_cast<int64_t>(c / 8);
      const int bit = static_cast<int>(c % 8);
      auto null_at = [&](int64_t i) { return (bytes[row_starts[i] + mask_byte] >> bit) & 1; };
      Array built;
      if (column.kind == Kind::kBinary) {
        FLOTILLA_ASSIGN_OR_RETURN(
            built, BuildBinaryColumn<int32_t>(column, n, nulls_equal_, bytes, cursors.data(),
                                              null_at, pool_));
      } else if (column.kind == Kind::kLargeBinary) {
        FLOTILLA_ASSIGN_OR_RETURN(
            built, BuildBinaryColumn<int64_t>(column, n, nulls_equal_, bytes, cursors.data(),
                                              null_at, pool_));
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(
            built, BuildFixedColumn(
                       column, n, nulls_equal_, [&](int64_t i) { return bytes + cursors[i]; },
                       null_at, pool_));
        for (int64_t i = 0; i < n; ++i)
          cursors[i] += column.width;
      }
      out.push_back(std::move(built));
    }
    return out;
  }

 private:
  static constexpr int64_t kLengthBytes = 4;
  static constexpr int64_t kCacheLine = 64;  // the arena's buffer is aligned to it

  int64_t StoredKeyBytes() const { return arena_->capacity(); }

  int64_t StoredKeyGrowthBytes(int64_t more_keys, int64_t more_key_bytes) const {
    // A row holds its values, a length per key and at most a cache line of padding.
    const int64_t rows =
        more_key_bytes +
        more_keys * (kLengthBytes * static_cast<int64_t>(key_types_.size()) + kCacheLine);
    if (arena_size_ + rows <= arena_->capacity()) return 0;
    return std::max(2 * arena_->capacity(), arena_size_ + rows);  // Buffer::Reserve doubles
  }

  static uint32_t RowLength(const uint8_t* row) {
    uint32_t length;
    std::memcpy(&length, row, kLengthBytes);
    return length;
  }

  // Serializes rows [start, start + n) into scratch->row_bytes at scratch->row_offsets and, when
  // some row has a null and nulls are not equal, marks it in scratch->states (has_states).
  Status Normalize(const std::vector<Array>& keys, int64_t start, int64_t n, Scratch* scratch,
                   bool* has_states) const {
    int64_t* offsets = scratch->row_offsets.data();
    int64_t* lengths = offsets + 1;
    std::fill(lengths, lengths + n, fixed_row_bytes_);
    for (size_t c = 0; c < columns_.size(); ++c) {
      FLOTILLA_RETURN_NOT_OK(ResolveRows(keys[c], columns_[c], c, start, n, scratch));
      const ColumnRows& column_rows = scratch->columns[c];
      bool ok = true;
      if (columns_[c].kind == Kind::kBinary) {
        ok = AddBinaryLengths<int32_t>(column_rows, n, lengths);
      } else if (columns_[c].kind == Kind::kLargeBinary) {
        ok = AddBinaryLengths<int64_t>(column_rows, n, lengths);
      }
      if (!ok) {
        return Status::NotImplemented(fmt::format(
            "KeyTable: key column {} holds a value of 4 GiB or more, which cannot be a key", c));
      }
    }
    offsets[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (lengths[i] - kLengthBytes > int64_t{UINT32_MAX}) {
        return Status::NotImplemented(
            "KeyTable: a key of 4 GiB or more (all columns together) cannot be stored");
      }
      offsets[i + 1] += offsets[i];
    }
    scratch->row_bytes.resize(static_cast<size_t>(offsets[n]));
    uint8_t* bytes = scratch->row_bytes.data();
    int64_t* cursors = scratch->cursors.data();
    for (int64_t i = 0; i < n; ++i) {
      const auto length = static_cast<uint32_t>(offsets[i + 1] - offsets[i] - kLengthBytes);
      std::memcpy(bytes + offsets[i], &length, kLengthBytes);
      if (mask_bytes_ > 0) {
        std::memset(bytes + offsets[i] + kLengthBytes, 0, static_cast<size_t>(mask_bytes_));
      }
      cursors[i] = offsets[i] + kLengthBytes + mask_bytes_;
    }
    *has_states = false;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const Column& column = columns_[c];
      const ColumnRows& column_rows = scratch->columns[c];
      if (column.kind == Kind::kBinary) {
        WriteBinary<int32_t>(column_rows, n, bytes, cursors);
      } else if (column.kind == Kind::kLargeBinary) {
        WriteBinary<int64_t>(column_rows, n, bytes, cursors);
      } else {
        WriteFixed(column, column_rows, n, [&](int64_t i) { return bytes + cursors[i]; });
        for (int64_t i = 0; i < n; ++i)
          cursors[i] += column.width;
      }
      const uint8_t* is_null = column_rows.is_null;
      if (is_null == nullptr) continue;
      if (nulls_equal_) {
        const auto bit = static_cast<uint8_t>(1u << (c % 8));
        const int64_t mask_byte = kLengthBytes + static_cast<int64_t>(c / 8);
        for (int64_t i = 0; i < n; ++i) {
          if (is_null[i]) bytes[offsets[i] + mask_byte] |= bit;
        }
      } else {
        MarkNullRows(is_null, n, kRowSkip, scratch->states.data(), has_states);
      }
    }
    return Status::OK();
  }

  // `row` (with its length prefix, `size` bytes in all) equals the stored row at `offset`.
  bool SameRow(int64_t offset, const uint8_t* row, int64_t size) const {
    const uint8_t* stored = arena_->data() + offset;
    return RowLength(stored) == RowLength(row) &&
           std::memcmp(stored + kLengthBytes, row + kLengthBytes,
                       static_cast<size_t>(size - kLengthBytes)) == 0;
  }

  // Prefetches the slot of row i + kPrefetchRows and, half as far ahead (when that slot is in
  // cache), the stored row the probe will most likely compare with. Always inlined: GCC takes a
  // function that only prefetches for one without effects and drops the calls.
  [[gnu::always_inline]] void Prefetch(const uint64_t* hashes, int64_t i, int64_t n) const {
    const Slot* slots = slots_.data();
    const uint64_t mask = slots_.mask();
    if (i + kPrefetchRows < n) {
      __builtin_prefetch(slots + (hashes[i + kPrefetchRows] & mask));
    }
    if (i + kPrefetchRows / 2 < n) {
      // The row of the home slot, or of the next one when the home slot's tag differs: without
      // branches, which would wait for the slot to arrive and stall the probe when mispredicted.
      const uint64_t hash = hashes[i + kPrefetchRows / 2];
      const Slot& home = slots[hash & mask];
      const Slot& next = slots[(hash + 1) & mask];
      const int64_t offset = home.tag == static_cast<uint32_t>(hash) ? home.offset : next.offset;
      // An empty slot's offset is -1: clamp it into the arena.
      __builtin_prefetch(arena_->data() + std::min(static_cast<uint64_t>(offset),
                                                   static_cast<uint64_t>(arena_size_)));
    }
  }

  Status AppendRow(const uint8_t* row, int64_t size, int64_t* offset) {
    // A row that would cross a cache line boundary starts on the next line instead, so that
    // comparing a row of up to 64 bytes touches (and prefetches) one line.
    const int64_t in_line = arena_size_ & (kCacheLine - 1);
    if (in_line != 0 && in_line + size > kCacheLine) arena_size_ += kCacheLine - in_line;
    if (arena_size_ + size > arena_->capacity()) {
      FLOTILLA_RETURN_NOT_OK(arena_->Reserve(arena_size_ + size));
    }
    std::memcpy(arena_->mutable_data() + arena_size_, row, static_cast<size_t>(size));
    *offset = arena_size_;
    arena_size_ += size;
    return Status::OK();
  }

  // Row i has a null key while nulls are not equal: it gets kNotFound.
  static bool Skipped(const uint8_t* states, int64_t i, uint32_t* ids) {
    if (states[i] != kRowSkip) return false;
    ids[i] = kNotFound;
    return true;
  }

  // The slot of row i's serialized key, or the empty slot where it would go.
  Slot* Probe(const Scratch& scratch, const uint64_t* hashes, int64_t i) const {
    const int64_t* offsets = scratch.row_offsets.data();
    const uint8_t* row = scratch.row_bytes.data() + offsets[i];
    const int64_t size = offsets[i + 1] - offsets[i];
    const auto tag = static_cast<uint32_t>(hashes[i]);
    return ProbeSlots(slots_.data(), slots_.mask(), hashes[i], [&](const Slot& slot) {
      return slot.tag == tag && SameRow(slot.offset, row, size);
    });
  }

  template <bool kStates>
  Status InsertRows(const Scratch& scratch, const uint64_t* hashes, int64_t n, uint32_t* ids) {
    const int64_t* offsets = scratch.row_offsets.data();
    const uint8_t* states = scratch.states.data();
    for (int64_t i = 0; i < n; ++i) {
      Prefetch(hashes, i, n);
      if (kStates && Skipped(states, i, ids)) continue;
      Slot* slot = Probe(scratch, hashes, i);
      if (slot->id != kEmpty) {
        ids[i] = slot->id;
        continue;
      }
      FLOTILLA_RETURN_NOT_OK(AppendRow(scratch.row_bytes.data() + offsets[i],
                                       offsets[i + 1] - offsets[i], &slot->offset));
      slot->tag = static_cast<uint32_t>(hashes[i]);
      this->NoteKey(hashes[i]);
      slot->id = static_cast<uint32_t>(size_++);
      ids[i] = slot->id;
      if (2 * size_ > slots_.capacity()) FLOTILLA_RETURN_NOT_OK(GrowSlots());
    }
    return Status::OK();
  }

  template <bool kStates>
  void FindRows(const Scratch& scratch, const uint64_t* hashes, int64_t n, uint32_t* ids) const {
    const uint8_t* states = scratch.states.data();
    const bool filtered = FilterUseful();
    for (int64_t i = 0; i < n; ++i) {
      Prefetch(hashes, i, n);
      if (kStates && Skipped(states, i, ids)) continue;
      if (filtered && !MayHold(hashes[i])) {
        ids[i] = kNotFound;
        continue;
      }
      ids[i] = Probe(scratch, hashes, i)->id;
    }
  }

  int mask_bytes_;
  int64_t fixed_row_bytes_;  // bytes of a row before the binary values' bytes

  BufferPtr arena_;  // the rows in id order, each within one cache line when it fits in one
  int64_t arena_size_ = 0;
};

}  // namespace

Result<std::unique_ptr<KeyTable>> MakeRowKeyTable(std::vector<TypePtr> key_types, bool nulls_equal,
                                                  MemoryPool* pool, std::vector<Column> columns) {
  return MakeTable<RowKeyTable>(std::move(key_types), nulls_equal, pool, std::move(columns));
}

}  // namespace flotilla::exec::key_table_internal
