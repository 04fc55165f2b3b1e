#pragma once
// KeyTable: a hash table from rows of one or more key columns to dense ids 0, 1, 2, ... — the
// core of hash aggregation (id = group), DISTINCT, pivot and the build side of hash joins (id =
// distinct build key; the probe side calls Find).
//
// Key equality agrees with the row hash of compute/hash.h: two rows are equal exactly when every
// key column holds the same logical value, where
//   - integers, date32, timestamp and duration compare as their integers; bool as bool;
//   - float32/float64 compare by value except that -0.0 equals 0.0 and every NaN equals every
//     other NaN;
//   - string/binary (either offset width) and fixed_size_binary compare bytewise, decimal128 by
//     its 16 bytes;
//   - a dictionary-encoded column compares by the values its indices point to, so a dictionary
//     column and a dense column of its value type give the same ids;
//   - nulls: see `nulls_equal` in Make.
//
// Layout (see "Hash aggregation" in the design notes' PERFORMANCE.md): open addressing with
// linear probing over a power-of-two slot array, doubled as soon as more than half full.
//   - Fixed layout: when every key column is fixed-width and the normalized key (canonical value
//     bytes, plus a null bit per column when nulls are equal and there are several columns) fits
//     in 32 bytes, a slot holds the key itself, its id and 32 hash bits; a lookup visits one cache
//     line. A single int64 key uses 16-byte slots.
//   - Row layout (strings, binary, wider keys): each distinct key is serialized into a byte row
//     kept in an arena, and a slot holds {32 hash bits, id, row offset}; a row is compared only
//     when the hash bits match.
// Rows are handled in mini-batches of a few thousand: type dispatch once per column and batch,
// keys normalized column by column, then a probe loop that prefetches the slots (and the likely
// rows) of the rows ahead. No allocation per row, no virtual call per row.
// Row-layout tables first group a batch whose whole key packs into a few words (short strings,
// integers) by a small table of the batch's own (batch_groups.h), and insert only its distinct
// keys; every table keeps a filter of its keys' top hash bits that lets Find answer most
// misses of a small table without probing.

#include <cstdint>
#include <memory>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/common/memory_pool.h"
#include "flotilla/common/result.h"

namespace flotilla::exec {

namespace key_table_internal {
class BatchGroups;
}

class KeyTable {
 public:
  /// The id given to rows that are not in the table (Find) or cannot be keys (a null key when
  /// nulls are not equal).
  static constexpr uint32_t kNotFound = UINT32_MAX;

  /// \brief A new, empty table for keys of `key_types` (at least one column).
  ///
  /// Supported key types: null, bool, every integer, float32/64, decimal128, date32, timestamp,
  /// duration, string, large_string, binary, large_binary, fixed_size_binary, and dictionaries of
  /// any of these (compared by value: the table's key type of such a column is its value type).
  /// Nested types (list, fixed_size_list, struct) are NotImplemented, naming the column.
  ///
  /// `nulls_equal`: true = a null equals another null in the same column and differs from every
  /// value (GROUP BY, DISTINCT, null-safe join); false = a row with a null in any key column is
  /// never inserted nor found (SQL join equality): Insert and Find give kNotFound for it.
  ///
  /// The slot array, the stored keys and the hashes computed for Insert/Find are allocated from
  /// `pool`.
  static Result<std::unique_ptr<KeyTable>> Make(std::vector<TypePtr> key_types, bool nulls_equal,
                                                MemoryPool* pool = DefaultMemoryPool());

  virtual ~KeyTable();
  KeyTable(const KeyTable&) = delete;
  KeyTable& operator=(const KeyTable&) = delete;

  /// \brief Writes the id of each row of `keys` to ids[0 .. keys[0].length()), inserting keys
  /// not seen before: ids are 0, 1, 2, ... in order of first appearance.
  ///
  /// `keys` holds one array per key column, all of the same length. Each must have the column's
  /// type, or be a dictionary array whose value type is it, or be the dense value type when the
  /// column was declared as a dictionary. Slices (offset != 0) and validity bitmaps are fine.
  /// Errors: Invalid (wrong number of columns, different lengths, a dictionary index out of
  /// range), TypeError (a column of another type), OutOfMemory (from the pool when growing).
  /// After an error the table is consistent (keys inserted before it keep their ids) but `ids`
  /// may be only partly written.
  Status Insert(const std::vector<Array>& keys, uint32_t* ids);
  /// \brief Same as Insert(keys, ids), with the rows' hashes already computed: hashes[i] must be
  /// HashRows(keys) of row i (seed 0), which callers that partition rows by hash first reuse.
  ///
  /// Strictly, any hash works as long as every Insert and Find on this table uses the same
  /// function and equal keys get equal hashes; the overloads without `hashes` use HashRows.
  Status Insert(const std::vector<Array>& keys, const uint64_t* hashes, uint32_t* ids);

  /// \brief Lookup only: writes the id of each row of `keys` to ids[i], or kNotFound when the
  /// key is not in the table. Same inputs and errors as Insert.
  ///
  /// Const and free of any mutation, so any number of threads may call Find on one table at
  /// once (for example to probe a built join table), as long as no thread calls Insert.
  Status Find(const std::vector<Array>& keys, uint32_t* ids) const;
  /// Find with precomputed hashes (see Insert(keys, hashes, ids)).
  Status Find(const std::vector<Array>& keys, const uint64_t* hashes, uint32_t* ids) const;

  /// Sizes the table for `expected_keys` distinct keys, so inserting that many does not grow it
  /// (useful when the build side's row count is known). Never shrinks.
  Status Reserve(int64_t expected_keys);

  /// Number of distinct keys inserted so far (ids are 0 .. size() - 1).
  int64_t size() const { return size_; }

  /// \brief The distinct keys, one array per key column, where row i is the key of id i.
  ///
  /// Each array has the column's declared type, except that dictionary columns come back
  /// decoded (as their value type). A float key comes back canonical: 0.0 for a key first seen
  /// as -0.0, and one NaN bit pattern for all NaNs. Costs one pass over the stored keys; meant
  /// to be called once, when the table is complete.
  Result<std::vector<Array>> Keys() const;

  /// Bytes held (slot array, stored key rows, scratch space kept between Insert calls), for the
  /// memory manager.
  int64_t memory_bytes() const;

  /// Bytes that inserting up to `more_keys` new keys of `more_key_bytes` bytes in all (their
  /// values' size; only stored rows of variable-width keys use it) would allocate beside what
  /// the table holds: a larger slot array or key arena, held with the old one while it is
  /// copied. 0 when they fit. Lets a caller reserve memory before the growth, not after.
  int64_t GrowthBytes(int64_t more_keys, int64_t more_key_bytes) const {
    return GrowthBytesImpl(more_keys, more_key_bytes);
  }

  /// The key types as given to Make.
  const std::vector<TypePtr>& key_types() const { return key_types_; }
  bool nulls_equal() const { return nulls_equal_; }

 protected:
  KeyTable(std::vector<TypePtr> key_types, bool nulls_equal, MemoryPool* pool);

  // The layouts' implementations, called with checked keys of at least one row; `hashes` is
  // nullptr when the caller gave none.
  virtual Status InsertImpl(const std::vector<Array>& keys, const uint64_t* hashes,
                            uint32_t* ids) = 0;
  virtual Status FindImpl(const std::vector<Array>& keys, const uint64_t* hashes,
                          uint32_t* ids) const = 0;
  virtual Status ReserveImpl(int64_t expected_keys) = 0;
  virtual Result<std::vector<Array>> KeysImpl() const = 0;
  virtual int64_t MemoryBytesImpl() const = 0;
  virtual int64_t GrowthBytesImpl(int64_t more_keys, int64_t more_key_bytes) const = 0;

  std::vector<TypePtr> key_types_;
  bool nulls_equal_;
  MemoryPool* pool_;
  int64_t size_ = 0;

 private:
  Status CheckKeys(const std::vector<Array>& keys) const;
  // Inserts a batch grouped by batch_groups_: its distinct keys only, then each row's id.
  Status InsertGrouped(const std::vector<Array>& keys, const uint64_t* hashes, uint32_t* ids);

  // Set for row-layout tables whose keys may pack into words (batch_groups.h); dropped after
  // a few batches with too many distinct keys for grouping them first to pay.
  std::unique_ptr<key_table_internal::BatchGroups> batch_groups_;
  int batch_group_misses_ = 0;
};

}  // namespace flotilla::exec
