#pragma once
// Grouping one batch's rows by key before a KeyTable sees them, when each row's whole key packs
// into a few 64-bit words: integers and dates as they are, strings of at most 7 bytes as their
// bytes and length. A small local table finds the batch's distinct keys with one word hash and a
// word compare per row, and only those go through the table's general normalization, hashing
// and row comparison. For a GROUP BY over few short strings (TPC-H Q1's flags) that general path
// was a quarter of the query. Not part of the public contract.

#include <cstdint>
#include <vector>

#include "flotilla/columnar/array.h"

namespace flotilla::exec::key_table_internal {

/// True when batches of `key_types` may pack: at most four columns of integers, dates, times,
/// fixed_size_binary of at most 8 bytes or strings (not floats, bools, decimals, dictionaries or
/// nested types).
bool KeysMayPack(const std::vector<TypePtr>& key_types);

class BatchGroups {
 public:
  enum class Outcome {
    kGrouped,
    kNotPacked,  // a null, a string longer than 7 bytes, or an unsupported type in this batch
    kTooMany,    // more than max_groups distinct keys
  };

  /// Groups rows [0, n) of `keys` (one array per column, n rows each).
  Outcome Group(const std::vector<Array>& keys, int64_t max_groups);

  /// After kGrouped: the first row of each group, in order of first appearance.
  const std::vector<int64_t>& first_rows() const { return first_rows_; }
  /// After kGrouped: the group of each row.
  const std::vector<uint32_t>& group_of_row() const { return group_of_row_; }

  int64_t memory_bytes() const {
    return static_cast<int64_t>(words_.capacity() * 8 + slots_.capacity() * 4 +
                                first_rows_.capacity() * 8 + group_of_row_.capacity() * 4);
  }

 private:
  bool Pack(const std::vector<Array>& keys, int64_t n);

  std::vector<uint64_t> words_;  // row-major: a word per key column
  std::vector<uint32_t> slots_;  // group of each slot, or empty
  std::vector<int64_t> first_rows_;
  std::vector<uint32_t> group_of_row_;
};

}  // namespace flotilla::exec::key_table_internal
