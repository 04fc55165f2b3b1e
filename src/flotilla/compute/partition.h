#pragma once
// Partitioning: splitting one batch into N batches by hash of key columns, at random, or by
// ranges of sort keys. The local repartition and the distributed shuffle write both use these,
// so the routing of a row (which partition it goes to) is a wire contract: two processes given
// the same row, key columns, partition count and seed must choose the same partition. The rules
// are defined exactly below; changing one is a breaking change.
//
// Every function comes in two layers: `*PartitionIds` computes one partition id per row (so an
// operator can reuse the ids, e.g. to also route a row count or a bloom filter), and
// `ScatterByPartition` moves the rows.

#include <cstdint>
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/compute/row_comparator.h"

namespace flotilla::compute {

/// \brief The rows of `batch` split into `num_partitions` batches: row i goes to batch
/// partition_ids[i].
///
/// Within each partition the rows keep their input order. One counting pass over the ids, one
/// pass to lay out the row indices of every partition back to back, then one gather per
/// partition and column. Every output batch has `batch`'s schema; a partition that receives no
/// row is an empty batch. When all rows go to one partition that partition is `batch` itself
/// (shared buffers); otherwise the outputs share no buffers with `batch` except dictionaries.
/// Invalid when num_partitions < 1 or the id count differs from the row count; IndexError
/// naming the row when an id is >= num_partitions.
Result<std::vector<RecordBatch>> ScatterByPartition(const RecordBatch& batch,
                                                    const std::vector<uint32_t>& partition_ids,
                                                    int num_partitions,
                                                    MemoryPool* pool = DefaultMemoryPool());

/// \brief Hash partition ids: out[i] = HashRows(keys, seed)[i] mod num_partitions.
///
/// HashRows is the row hash of compute/hash.h (XXH3-based, defined value by value there and
/// pinned by its golden test); the modulo is unsigned 64-bit. Rows whose keys are equal by
/// HashRows' value semantics (null equals null, -0.0 equals 0.0, all NaNs equal, a dictionary
/// equals its decoded values, int32 5 equals int64 5) get the same id on every machine. The
/// keys, their order, `seed` and `num_partitions` must be the same on every writer of one
/// shuffle. An operator that hash-partitions and then builds a hash table on the same keys
/// should hash the table with a different seed: within one partition the partition hash is
/// constant modulo num_partitions.
///
/// `keys` are at least one column of equal length (Invalid otherwise); num_partitions >= 1.
Status HashPartitionIds(const std::vector<Array>& keys, int num_partitions, uint64_t seed,
                        std::vector<uint32_t>* out, MemoryPool* pool = DefaultMemoryPool());

/// HashPartitionIds over columns `key_columns` of `batch` (in that order), then
/// ScatterByPartition. IndexError for a key column out of range.
Result<std::vector<RecordBatch>> PartitionByHash(const RecordBatch& batch,
                                                 const std::vector<int>& key_columns,
                                                 int num_partitions, uint64_t seed = 0,
                                                 MemoryPool* pool = DefaultMemoryPool());

/// \brief Random partition ids: with G = SplitMix64::ForStream(seed, stream_offset) (see
/// compute/sample.h), out[i] = G.Bounded(num_partitions) drawn for i = 0, 1, ... in order.
///
/// Each row goes to a uniformly random partition, independently of the others. Deterministic
/// for (seed, stream_offset, num_rows, num_partitions); callers that partition several batches
/// should pass a distinct stream_offset per batch (e.g. its morsel sequence number) so that
/// the batches are not routed alike.
Status RandomPartitionIds(int64_t num_rows, int num_partitions, uint64_t seed,
                          int64_t stream_offset, std::vector<uint32_t>* out);

/// RandomPartitionIds for the rows of `batch`, then ScatterByPartition.
Result<std::vector<RecordBatch>> PartitionRandom(const RecordBatch& batch, int num_partitions,
                                                 uint64_t seed, int64_t stream_offset = 0,
                                                 MemoryPool* pool = DefaultMemoryPool());

/// \brief Range partition ids: out[i] = the first partition p whose upper boundary
/// boundaries[p] sorts at or after row i, or boundaries.num_rows() when there is none.
///
/// `keys` name columns of `batch`; `boundaries` has one column per key, in the order of
/// `keys`, each of the same type as its key column (TypeError otherwise; names do not
/// matter), and its rows must be sorted by the keys (Invalid otherwise). Rows and boundaries
/// are compared as RowComparator compares (per key direction, nulls first or last as the key
/// says, NaN after all numbers, -0.0 == 0.0, strings bytewise, dictionaries by value). So
/// partition p holds the rows r with boundaries[p - 1] < r <= boundaries[p]: a row equal to a
/// boundary goes to that boundary's partition, equal rows go to one partition, and sorting
/// every partition by the keys and concatenating partitions 0, 1, ..., N - 1 gives the whole
/// input sorted by the keys. With B boundaries there are B + 1 partitions; equal consecutive
/// boundaries leave the partitions between them empty. Binary search: O(log B) comparisons
/// per row.
Status RangePartitionIds(const RecordBatch& batch, const std::vector<SortKey>& keys,
                         const RecordBatch& boundaries, std::vector<uint32_t>* out);

/// RangePartitionIds, then ScatterByPartition into boundaries.num_rows() + 1 batches.
Result<std::vector<RecordBatch>> PartitionByRange(const RecordBatch& batch,
                                                  const std::vector<SortKey>& keys,
                                                  const RecordBatch& boundaries,
                                                  MemoryPool* pool = DefaultMemoryPool());

/// \brief num_partitions - 1 boundaries for PartitionByRange, the quantiles of `sample`.
///
/// `sample` is sorted by `keys` (stably, as SortIndices does) into s_0 <= ... <= s_{m-1} and
/// boundary j (j = 1 .. num_partitions - 1) is s_q with q = ceil(j * m / num_partitions) - 1,
/// so each partition receives about m / num_partitions of the sample's rows. The result has
/// one column per key, in the order of `keys`, with the name and type of the sample's column.
/// Skewed samples give repeated boundaries. An empty sample gives all-null boundaries, which
/// are valid but route every row to the first or the last partition. Invalid when
/// num_partitions < 1; IndexError / NotImplemented for key columns out of range or not
/// sortable.
Result<RecordBatch> RangeBoundaries(const RecordBatch& sample, const std::vector<SortKey>& keys,
                                    int num_partitions, MemoryPool* pool = DefaultMemoryPool());

}  // namespace flotilla::compute
