// KeyTable's checks and its choice of layout; the layouts are fixed_key_table.cc (keys in the
// slots) and row_key_table.cc (keys serialized into an arena).
#include "flotilla/exec/hash/key_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "flotilla/compute/take.h"
#include "flotilla/exec/hash/batch_groups.h"
#include "flotilla/exec/hash/key_columns.h"
#include "flotilla/exec/hash/key_table_layouts.h"
#include "flotilla/exec/hash/slot_key_table.h"

namespace flotilla::exec {

using key_table_internal::BatchGroups;
using key_table_internal::Column;
using key_table_internal::DescribeColumn;
using key_table_internal::IsBinary;
using key_table_internal::KeysMayPack;
using key_table_internal::kMaxFixedWords;
using key_table_internal::kMaxSlots;
using key_table_internal::LogicalType;
using key_table_internal::MakeFixedKeyTable;
using key_table_internal::MakeRowKeyTable;
using key_table_internal::TooManyKeys;

Result<std::unique_ptr<KeyTable>> KeyTable::Make(std::vector<TypePtr> key_types, bool nulls_equal,
                                                 MemoryPool* pool) {
  if (key_types.empty()) return Status::Invalid("KeyTable needs at least one key column");
  std::vector<Column> columns;
  bool all_fixed = true;
  int fixed_bytes = 0;
  for (size_t c = 0; c < key_types.size(); ++c) {
    FLOTILLA_ASSIGN_OR_RETURN(Column column, DescribeColumn(key_types[c], c));
    all_fixed &= !IsBinary(column);
    fixed_bytes += column.width;
    columns.push_back(std::move(column));
  }
  if (nulls_equal && columns.size() > 1) fixed_bytes += static_cast<int>(columns.size() + 7) / 8;
  if (all_fixed && fixed_bytes <= 8 * kMaxFixedWords) {
    return MakeFixedKeyTable(std::max(1, (fixed_bytes + 7) / 8), std::move(key_types), nulls_equal,
                             pool, std::move(columns));
  }
  const bool may_pack = KeysMayPack(key_types);
  FLOTILLA_ASSIGN_OR_RETURN(
      std::unique_ptr<KeyTable> table,
      MakeRowKeyTable(std::move(key_types), nulls_equal, pool, std::move(columns)));
  if (may_pack) table->batch_groups_ = std::make_unique<BatchGroups>();
  return table;
}

KeyTable::KeyTable(std::vector<TypePtr> key_types, bool nulls_equal, MemoryPool* pool)
    : key_types_(std::move(key_types)), nulls_equal_(nulls_equal), pool_(pool) {}

KeyTable::~KeyTable() = default;

Status KeyTable::CheckKeys(const std::vector<Array>& keys) const {
  if (keys.size() != key_types_.size()) {
    return Status::Invalid(fmt::format("KeyTable: got {} key columns, the table has {}",
                                       keys.size(), key_types_.size()));
  }
  for (size_t c = 0; c < keys.size(); ++c) {
    if (!keys[c].valid()) {
      return Status::Invalid(fmt::format("KeyTable: key column {} is an empty Array handle", c));
    }
    if (keys[c].length() != keys[0].length()) {
      return Status::Invalid(fmt::format(
          "KeyTable: key column {} has {} rows but key column 0 has {}; all key columns must "
          "have the same length",
          c, keys[c].length(), keys[0].length()));
    }
    if (!LogicalType(keys[c].type())->Equals(*LogicalType(key_types_[c]))) {
      return Status::TypeError(
          fmt::format("KeyTable: key column {} is {} but the table's key type is {}", c,
                      keys[c].type()->ToString(), key_types_[c]->ToString()));
    }
  }
  return Status::OK();
}

Status KeyTable::Insert(const std::vector<Array>& keys, uint32_t* ids) {
  return Insert(keys, nullptr, ids);
}

Status KeyTable::Insert(const std::vector<Array>& keys, const uint64_t* hashes, uint32_t* ids) {
  FLOTILLA_RETURN_NOT_OK(CheckKeys(keys));
  const int64_t n = keys[0].length();
  if (n == 0) return Status::OK();
  // Grouping first pays when a batch has at most an eighth as many keys as rows.
  constexpr int64_t kMinGroupedRows = 1024;
  constexpr int64_t kMaxBatchGroups = 1024;
  constexpr int kMaxMisses = 3;
  if (batch_groups_ != nullptr && n >= kMinGroupedRows) {
    switch (batch_groups_->Group(keys, std::min(kMaxBatchGroups, n / 8))) {
      case BatchGroups::Outcome::kGrouped:
        return InsertGrouped(keys, hashes, ids);
      case BatchGroups::Outcome::kTooMany:
        if (++batch_group_misses_ == kMaxMisses) batch_groups_.reset();
        break;
      case BatchGroups::Outcome::kNotPacked:
        break;
    }
  }
  return InsertImpl(keys, hashes, ids);
}

Status KeyTable::InsertGrouped(const std::vector<Array>& keys, const uint64_t* hashes,
                               uint32_t* ids) {
  const std::vector<int64_t>& first_rows = batch_groups_->first_rows();
  FLOTILLA_ASSIGN_OR_RETURN(Array indices, compute::TakeIndices(first_rows));
  std::vector<Array> distinct;
  distinct.reserve(keys.size());
  for (const Array& key : keys) {
    FLOTILLA_ASSIGN_OR_RETURN(Array taken, compute::Take(key, indices, pool_));
    distinct.push_back(std::move(taken));
  }
  std::vector<uint64_t> distinct_hashes;
  if (hashes != nullptr) {
    for (int64_t row : first_rows)
      distinct_hashes.push_back(hashes[row]);
  }
  // In order of first appearance, so ids stay in the order the rows first show each key.
  std::vector<uint32_t> distinct_ids(first_rows.size());
  FLOTILLA_RETURN_NOT_OK(InsertImpl(distinct, hashes != nullptr ? distinct_hashes.data() : nullptr,
                                    distinct_ids.data()));
  const std::vector<uint32_t>& group_of_row = batch_groups_->group_of_row();
  const int64_t n = keys[0].length();
  for (int64_t i = 0; i < n; ++i)
    ids[i] = distinct_ids[group_of_row[i]];
  return Status::OK();
}

Status KeyTable::Find(const std::vector<Array>& keys, uint32_t* ids) const {
  return Find(keys, nullptr, ids);
}

Status KeyTable::Find(const std::vector<Array>& keys, const uint64_t* hashes, uint32_t* ids) const {
  FLOTILLA_RETURN_NOT_OK(CheckKeys(keys));
  if (keys[0].length() == 0) return Status::OK();
  return FindImpl(keys, hashes, ids);
}

Status KeyTable::Reserve(int64_t expected_keys) {
  if (expected_keys < 0) {
    return Status::Invalid(
        fmt::format("KeyTable::Reserve: expected_keys must be >= 0, got {}", expected_keys));
  }
  if (expected_keys >= kMaxSlots / 2) return TooManyKeys();
  return ReserveImpl(expected_keys);
}

Result<std::vector<Array>> KeyTable::Keys() const {
  return KeysImpl();
}

int64_t KeyTable::memory_bytes() const {
  return MemoryBytesImpl() + (batch_groups_ != nullptr ? batch_groups_->memory_bytes() : 0);
}

}  // namespace flotilla::exec
