#include "flotilla/compute/partition.h"

#include <fmt/format.h>

#include <limits>

#include "flotilla/compute/gather.h"
#include "flotilla/compute/hash.h"
#include "flotilla/compute/sample.h"
#include "flotilla/compute/sort.h"
#include "flotilla/compute/take.h"

namespace flotilla::compute {
namespace {

Status CheckPartitionCount(int num_partitions, const char* function) {
  if (num_partitions < 1) {
    return Status::Invalid(fmt::format("{}: the number of partitions must be at least 1, got {}",
                                       function, num_partitions));
  }
  return Status::OK();
}

Status CheckColumn(const RecordBatch& batch, int column, const char* function) {
  if (column < 0 || column >= batch.num_columns()) {
    return Status::IndexError(
        fmt::format("{}: column {} is out of range for a batch of {} columns (valid: 0 to {})",
                    function, column, batch.num_columns(), batch.num_columns() - 1));
  }
  return Status::OK();
}

// Row indices grouped by partition: the rows of partition p are positions
// [starts[p], starts[p + 1]) of the returned index array, in row order.
template <typename Index>
Result<Array> GroupRowsByPartition(const std::vector<uint32_t>& ids,
                                   const std::vector<int64_t>& starts, MemoryPool* pool) {
  const int64_t n = static_cast<int64_t>(ids.size());
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer,
                            Buffer::Allocate(n * static_cast<int64_t>(sizeof(Index)), pool));
  Index* out = reinterpret_cast<Index*>(buffer->mutable_data());
  std::vector<int64_t> cursor(starts.begin(), starts.end() - 1);
  for (int64_t i = 0; i < n; ++i)
    out[cursor[ids[i]]++] = static_cast<Index>(i);
  auto d = std::make_shared<ArrayData>();
  d->type = sizeof(Index) == 4 ? uint32() : uint64();
  d->length = n;
  d->buffers = {nullptr, std::move(buffer)};
  return Array(std::move(d));
}

// One schema for the key columns of the rows and of the boundaries, so that RowComparator can
// compare the two (it requires equal schemas).
Result<std::pair<RecordBatch, RecordBatch>> AlignRangeKeys(const RecordBatch& batch,
                                                           const std::vector<SortKey>& keys,
                                                           const RecordBatch& boundaries) {
  if (boundaries.num_columns() != static_cast<int>(keys.size())) {
    return Status::Invalid(fmt::format(
        "range partitioning: the boundaries have {} columns but there are {} sort keys; give "
        "one boundary column per sort key, in key order",
        boundaries.num_columns(), keys.size()));
  }
  std::vector<Field> fields;
  std::vector<Array> row_keys;
  for (size_t k = 0; k < keys.size(); ++k) {
    FLOTILLA_RETURN_NOT_OK(CheckColumn(batch, keys[k].column, "range partitioning"));
    const Field& field = batch.schema()->field(keys[k].column);
    const Array& boundary = boundaries.column(static_cast<int>(k));
    if (!boundary.type()->Equals(*field.type)) {
      return Status::TypeError(fmt::format(
          "range partitioning: boundary column {} ('{}') is {} but sort key {} (column '{}') is "
          "{}; boundaries must have the key columns' types",
          k, boundaries.schema()->field(static_cast<int>(k)).name, boundary.type()->ToString(), k,
          field.name, field.type->ToString()));
    }
    fields.push_back(Field{field.name, field.type, true});
    row_keys.push_back(batch.column(keys[k].column));
  }
  auto schema = std::make_shared<Schema>(std::move(fields));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch rows,
                            RecordBatch::Make(schema, std::move(row_keys), batch.num_rows()));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch bounds,
                            RecordBatch::Make(schema, boundaries.columns(), boundaries.num_rows()));
  return std::make_pair(std::move(rows), std::move(bounds));
}

}  // namespace

Result<std::vector<RecordBatch>> ScatterByPartition(const RecordBatch& batch,
                                                    const std::vector<uint32_t>& partition_ids,
                                                    int num_partitions, MemoryPool* pool) {
  FLOTILLA_RETURN_NOT_OK(CheckPartitionCount(num_partitions, "ScatterByPartition"));
  const int64_t n = batch.num_rows();
  if (static_cast<int64_t>(partition_ids.size()) != n) {
    return Status::Invalid(fmt::format(
        "ScatterByPartition: {} partition ids for a batch of {} rows; give one id per row",
        partition_ids.size(), n));
  }
  std::vector<int64_t> starts(num_partitions + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t id = partition_ids[i];
    if (id >= static_cast<uint32_t>(num_partitions)) {
      return Status::IndexError(fmt::format(
          "ScatterByPartition: row {} has partition id {} but there are {} partitions (valid: "
          "0 to {})",
          i, id, num_partitions, num_partitions - 1));
    }
    ++starts[id + 1];
  }
  for (int p = 0; p < num_partitions; ++p) {
    // All rows in one partition: hand the input over instead of copying it.
    if (n > 0 && starts[p + 1] == n) {
      // Fresh empty columns, so that the empty partitions do not keep the input alive.
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch empty, RecordBatch::MakeEmpty(batch.schema()));
      std::vector<RecordBatch> out(num_partitions, empty);
      out[p] = batch;
      return out;
    }
    starts[p + 1] += starts[p];
  }

  Array grouped;
  if (n <= static_cast<int64_t>(std::numeric_limits<uint32_t>::max())) {
    FLOTILLA_ASSIGN_OR_RETURN(grouped, GroupRowsByPartition<uint32_t>(partition_ids, starts, pool));
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(grouped, GroupRowsByPartition<uint64_t>(partition_ids, starts, pool));
  }
  std::vector<RecordBatch> out;
  out.reserve(num_partitions);
  for (int p = 0; p < num_partitions; ++p) {
    const Array indices = grouped.Slice(starts[p], starts[p + 1] - starts[p]);
    std::vector<Array> columns;
    columns.reserve(batch.num_columns());
    for (const Array& column : batch.columns()) {
      FLOTILLA_ASSIGN_OR_RETURN(Array taken, internal::Gather(column, indices, pool));
      columns.push_back(std::move(taken));
    }
    FLOTILLA_ASSIGN_OR_RETURN(
        RecordBatch part, RecordBatch::Make(batch.schema(), std::move(columns), indices.length()));
    out.push_back(std::move(part));
  }
  return out;
}

Status HashPartitionIds(const std::vector<Array>& keys, int num_partitions, uint64_t seed,
                        std::vector<uint32_t>* out, MemoryPool* pool) {
  FLOTILLA_RETURN_NOT_OK(CheckPartitionCount(num_partitions, "HashPartitionIds"));
  if (keys.empty()) {
    return Status::Invalid(
        "hash partitioning needs at least one key column; use PartitionRandom to spread rows "
        "without keys");
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array hashes, HashRows(keys, seed, pool));
  const uint64_t* h = hashes.values<uint64_t>();
  const uint64_t n = static_cast<uint64_t>(num_partitions);
  out->resize(hashes.length());
  for (int64_t i = 0; i < hashes.length(); ++i)
    (*out)[i] = static_cast<uint32_t>(h[i] % n);
  return Status::OK();
}

Result<std::vector<RecordBatch>> PartitionByHash(const RecordBatch& batch,
                                                 const std::vector<int>& key_columns,
                                                 int num_partitions, uint64_t seed,
                                                 MemoryPool* pool) {
  std::vector<Array> keys;
  keys.reserve(key_columns.size());
  for (int c : key_columns) {
    FLOTILLA_RETURN_NOT_OK(CheckColumn(batch, c, "PartitionByHash"));
    keys.push_back(batch.column(c));
  }
  std::vector<uint32_t> ids;
  FLOTILLA_RETURN_NOT_OK(HashPartitionIds(keys, num_partitions, seed, &ids, pool));
  return ScatterByPartition(batch, ids, num_partitions, pool);
}

Status RandomPartitionIds(int64_t num_rows, int num_partitions, uint64_t seed,
                          int64_t stream_offset, std::vector<uint32_t>* out) {
  FLOTILLA_RETURN_NOT_OK(CheckPartitionCount(num_partitions, "RandomPartitionIds"));
  SplitMix64 random = SplitMix64::ForStream(seed, static_cast<uint64_t>(stream_offset));
  const uint64_t n = static_cast<uint64_t>(num_partitions);
  out->resize(num_rows);
  for (int64_t i = 0; i < num_rows; ++i)
    (*out)[i] = static_cast<uint32_t>(random.Bounded(n));
  return Status::OK();
}

Result<std::vector<RecordBatch>> PartitionRandom(const RecordBatch& batch, int num_partitions,
                                                 uint64_t seed, int64_t stream_offset,
                                                 MemoryPool* pool) {
  std::vector<uint32_t> ids;
  FLOTILLA_RETURN_NOT_OK(
      RandomPartitionIds(batch.num_rows(), num_partitions, seed, stream_offset, &ids));
  return ScatterByPartition(batch, ids, num_partitions, pool);
}

Status RangePartitionIds(const RecordBatch& batch, const std::vector<SortKey>& keys,
                         const RecordBatch& boundaries, std::vector<uint32_t>* out) {
  if (boundaries.num_rows() >= std::numeric_limits<int>::max()) {
    return Status::Invalid(fmt::format("range partitioning: {} boundaries is too many partitions",
                                       boundaries.num_rows()));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto aligned, AlignRangeKeys(batch, keys, boundaries));
  const auto& [rows, bounds] = aligned;
  std::vector<SortKey> aligned_keys;
  for (size_t k = 0; k < keys.size(); ++k) {
    aligned_keys.push_back({static_cast<int>(k), keys[k].ascending, keys[k].nulls_first});
  }
  FLOTILLA_ASSIGN_OR_RETURN(RowComparator between, RowComparator::Make(bounds, aligned_keys));
  const int64_t b = bounds.num_rows();
  for (int64_t j = 1; j < b; ++j) {
    if (between.Compare(j - 1, j) > 0) {
      return Status::Invalid(fmt::format(
          "range partitioning: boundary {} sorts after boundary {}; boundaries must be sorted "
          "by the keys (RangeBoundaries computes them from a sample)",
          j - 1, j));
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(RowComparator cmp, RowComparator::Make(rows, bounds, aligned_keys));
  const int64_t n = rows.num_rows();
  out->resize(n);
  for (int64_t i = 0; i < n; ++i) {
    // The first boundary that is >= the row, i.e. the number of boundaries below it.
    int64_t lo = 0, hi = b;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (cmp.Compare(i, mid) > 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    (*out)[i] = static_cast<uint32_t>(lo);
  }
  return Status::OK();
}

Result<std::vector<RecordBatch>> PartitionByRange(const RecordBatch& batch,
                                                  const std::vector<SortKey>& keys,
                                                  const RecordBatch& boundaries, MemoryPool* pool) {
  std::vector<uint32_t> ids;
  FLOTILLA_RETURN_NOT_OK(RangePartitionIds(batch, keys, boundaries, &ids));
  return ScatterByPartition(batch, ids, static_cast<int>(boundaries.num_rows() + 1), pool);
}

Result<RecordBatch> RangeBoundaries(const RecordBatch& sample, const std::vector<SortKey>& keys,
                                    int num_partitions, MemoryPool* pool) {
  FLOTILLA_RETURN_NOT_OK(CheckPartitionCount(num_partitions, "RangeBoundaries"));
  std::vector<int> key_columns;
  for (const SortKey& key : keys) {
    FLOTILLA_RETURN_NOT_OK(CheckColumn(sample, key.column, "RangeBoundaries"));
    key_columns.push_back(key.column);
  }
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch key_batch, sample.SelectColumns(key_columns));
  FLOTILLA_ASSIGN_OR_RETURN(Array order, SortIndices(sample, keys, pool));
  const int64_t count = num_partitions - 1;
  const int64_t m = sample.num_rows();
  if (m == 0) {
    std::vector<Array> columns;
    for (const Field& field : key_batch.schema()->fields()) {
      FLOTILLA_ASSIGN_OR_RETURN(Array nulls, Array::MakeNull(field.type, count));
      columns.push_back(std::move(nulls));
    }
    return RecordBatch::Make(key_batch.schema(), std::move(columns), count);
  }
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(count * 8, pool));
  uint64_t* picks = reinterpret_cast<uint64_t*>(buffer->mutable_data());
  const uint64_t* sorted = order.values<uint64_t>();
  for (int64_t j = 1; j <= count; ++j) {
    // ceil(j * m / N) - 1 in 128 bits: j * m can exceed 64 bits for huge samples.
    const unsigned __int128 product = static_cast<unsigned __int128>(j) * m;
    const int64_t q = static_cast<int64_t>((product + num_partitions - 1) / num_partitions) - 1;
    picks[j - 1] = sorted[q];
  }
  auto d = std::make_shared<ArrayData>();
  d->type = uint64();
  d->length = count;
  d->buffers = {nullptr, std::move(buffer)};
  return Take(key_batch, Array(std::move(d)), pool);
}

}  // namespace flotilla::compute
