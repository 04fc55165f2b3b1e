#pragma once
// The build side of a hash join: its rows and a hash table over their keys, shared read-only by
// the probing threads.
//
// A large build side is split by the top bits of its rows' key hashes into partitions, each
// with a KeyTable of its own, built by the query's threads at once: one table built by one
// thread was most of a join-heavy query (TPC-H Q9) while the other threads waited. Key ids are
// numbered across the partitions, so a probe sees one id space; a probe batch is split by the
// same bits and each part looked up in its partition's table.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/exec/hash/key_table.h"
#include "flotilla/expr/binder.h"

namespace flotilla {
class ThreadPool;
}

namespace flotilla::exec {

/// The key columns of `batch`.
Result<std::vector<Array>> EvaluateJoinKeys(const std::vector<expr::BoundExpression>& keys,
                                            const RecordBatch& batch);

/// Rows with a null in a key whose null_equal flag is off: they match nothing. Empty (and *any
/// false) when there are none.
std::vector<bool> NeverMatch(const std::vector<Array>& keys, const std::vector<bool>& null_equal,
                             int64_t n, bool* any);

/// Where the build runs: `pool` with `num_threads` threads (null or 1: the calling thread).
struct BuildThreads {
  ThreadPool* pool = nullptr;
  int num_threads = 1;
};

struct JoinTable {
  RecordBatch build;  // the right input's rows
  // Build rows of key id k: rows[offsets[k] .. offsets[k + 1]).
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> rows;
  std::unique_ptr<std::atomic<uint8_t>[]> matched;  // right/full joins

  /// The table over `build`. Rows with a null in a key whose null_equal flag is off are left
  /// out.
  static Status Build(RecordBatch build, const std::vector<expr::BoundExpression>& key_expressions,
                      const std::vector<bool>& null_equal, bool track_matches, BuildThreads threads,
                      JoinTable* out);

  /// The key id of each row of `keys` (the probe side's key columns), or KeyTable::kNotFound.
  /// Safe on several threads at once.
  Status Find(const std::vector<Array>& keys, uint32_t* ids) const;

  /// Bytes of the tables and the row lists (not the build rows).
  int64_t memory_bytes() const;

 private:
  std::vector<std::unique_ptr<KeyTable>> tables_;  // one, or 2^partition_bits_
  std::vector<uint32_t> bases_;                    // id of each partition's first key
  int partition_bits_ = 0;
};

}  // namespace flotilla::exec
