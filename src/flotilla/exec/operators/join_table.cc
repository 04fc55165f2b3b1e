#include "flotilla/exec/operators/join_table.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "flotilla/common/thread_pool.h"
#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/hash.h"
#include "flotilla/compute/take.h"
#include "flotilla/expr/evaluator.h"

namespace flotilla::exec {
namespace {

// Builds of at least this many rows are partitioned (below it one table is built quickly).
constexpr int64_t kPartitionedBuildRows = int64_t{1} << 19;
// 16 partitions: enough to keep every thread busy to the end, few enough that a probe batch's
// part in each stays large.
constexpr int kPartitionBits = 4;
// Rows hashed per task when a build's hashes are computed in parallel.
constexpr int64_t kHashChunkRows = int64_t{1} << 16;

// fn(0) .. fn(n - 1) on the build's threads.
Status RunTasks(const BuildThreads& threads, int64_t n, const std::function<Status(int64_t)>& fn) {
  if (threads.pool == nullptr || threads.num_threads <= 1 || n <= 1) {
    for (int64_t i = 0; i < n; ++i)
      FLOTILLA_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  // On a pool thread, TaskGroup::Wait could leave no thread for the tasks; ParallelFor cannot.
  if (ThreadPool::Current() != nullptr) return ParallelFor(n, fn);
  std::atomic<int64_t> next{0};
  TaskGroup group(threads.pool);
  const int64_t workers = std::min<int64_t>(n, threads.num_threads);
  for (int64_t w = 0; w < workers; ++w) {
    group.Spawn([&]() -> Status {
      for (int64_t i = next++; i < n; i = next++)
        FLOTILLA_RETURN_NOT_OK(fn(i));
      return Status::OK();
    });
  }
  return group.Wait();
}

// The rows 0 .. n-1 ordered by partition (counting sort): partition p's rows are
// order[starts[p] .. starts[p + 1]), in row order.
struct PartitionOrder {
  Array order;  // uint32
  std::vector<int64_t> starts;
};

Result<PartitionOrder> OrderByPartition(const uint64_t* hashes, int64_t n, int bits) {
  const int parts = 1 << bits;
  const int shift = 64 - bits;
  PartitionOrder out;
  out.starts.assign(static_cast<size_t>(parts) + 1, 0);
  for (int64_t i = 0; i < n; ++i)
    ++out.starts[(hashes[i] >> shift) + 1];
  for (int p = 0; p < parts; ++p)
    out.starts[p + 1] += out.starts[p];
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, compute::AllocateUninitializedValues(n, 4));
  auto* order = reinterpret_cast<uint32_t*>(buffer->mutable_data());
  std::vector<int64_t> cursor(out.starts.begin(), out.starts.end() - 1);
  for (int64_t i = 0; i < n; ++i)
    order[cursor[hashes[i] >> shift]++] = static_cast<uint32_t>(i);
  out.order = compute::MakeFixedWidthArray(uint32(), n, nullptr, 0, std::move(buffer));
  return out;
}

// The rows `part` (an index array) of every key column, and their hashes.
Status TakePart(const std::vector<Array>& keys, const uint64_t* hashes, const Array& part,
                std::vector<Array>* part_keys, std::vector<uint64_t>* part_hashes) {
  part_keys->clear();
  for (const Array& key : keys) {
    FLOTILLA_ASSIGN_OR_RETURN(Array taken, compute::Take(key, part));
    part_keys->push_back(std::move(taken));
  }
  const uint32_t* rows = part.values<uint32_t>();
  part_hashes->resize(static_cast<size_t>(part.length()));
  for (int64_t j = 0; j < part.length(); ++j)
    (*part_hashes)[j] = hashes[rows[j]];
  return Status::OK();
}

}  // namespace

Result<std::vector<Array>> EvaluateJoinKeys(const std::vector<expr::BoundExpression>& keys,
                                            const RecordBatch& batch) {
  std::vector<Array> out;
  for (const auto& k : keys) {
    FLOTILLA_ASSIGN_OR_RETURN(expr::Datum d, expr::Evaluate(k, batch));
    FLOTILLA_ASSIGN_OR_RETURN(Array column, d.ToColumn(batch.num_rows()));
    out.push_back(std::move(column));
  }
  return out;
}

std::vector<bool> NeverMatch(const std::vector<Array>& keys, const std::vector<bool>& null_equal,
                             int64_t n, bool* any) {
  std::vector<bool> out;
  *any = false;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (null_equal[k] || keys[k].null_count() == 0) continue;
    if (out.empty()) out.assign(static_cast<size_t>(n), false);
    for (int64_t i = 0; i < n; ++i) {
      if (keys[k].IsNull(i)) {
        out[static_cast<size_t>(i)] = true;
        *any = true;
      }
    }
  }
  return out;
}

Status JoinTable::Build(RecordBatch build,
                        const std::vector<expr::BoundExpression>& key_expressions,
                        const std::vector<bool>& null_equal, bool track_matches,
                        BuildThreads threads, JoinTable* out) {
  out->build = std::move(build);
  const int64_t n = out->build.num_rows();
  if (n >= int64_t{UINT32_MAX}) {
    return Status::NotImplemented("hash join: a build partition has more than 2^32 rows");
  }
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<Array> keys, EvaluateJoinKeys(key_expressions, out->build));
  std::vector<TypePtr> types;
  for (const Array& k : keys)
    types.push_back(k.type());
  std::vector<uint32_t> ids(static_cast<size_t>(n));
  const bool partitioned =
      n >= kPartitionedBuildRows && threads.pool != nullptr && threads.num_threads > 1;
  out->partition_bits_ = partitioned ? kPartitionBits : 0;
  const int parts = 1 << out->partition_bits_;
  out->tables_.resize(static_cast<size_t>(parts));
  out->bases_.assign(static_cast<size_t>(parts), 0);
  if (!partitioned) {
    FLOTILLA_ASSIGN_OR_RETURN(out->tables_[0], KeyTable::Make(types, /*nulls_equal=*/true));
    // Sized once for every row: growing by doubling rehashes and faults in fresh pages at each
    // step, which for a million-row build costs more than the inserts themselves.
    FLOTILLA_RETURN_NOT_OK(out->tables_[0]->Reserve(n));
    FLOTILLA_RETURN_NOT_OK(out->tables_[0]->Insert(keys, ids.data()));
  } else {
    std::vector<uint64_t> hashes(static_cast<size_t>(n));
    FLOTILLA_RETURN_NOT_OK(
        RunTasks(threads, (n + kHashChunkRows - 1) / kHashChunkRows, [&](int64_t c) -> Status {
          const int64_t start = c * kHashChunkRows;
          const int64_t length = std::min(kHashChunkRows, n - start);
          std::vector<Array> slices;
          for (const Array& key : keys)
            slices.push_back(key.Slice(start, length));
          FLOTILLA_ASSIGN_OR_RETURN(Array h, compute::HashRows(slices));
          std::memcpy(hashes.data() + start, h.values<uint64_t>(),
                      static_cast<size_t>(length) * sizeof(uint64_t));
          return Status::OK();
        }));
    FLOTILLA_ASSIGN_OR_RETURN(PartitionOrder order,
                              OrderByPartition(hashes.data(), n, kPartitionBits));
    // Each partition writes the (partition-local) ids of its own rows only.
    FLOTILLA_RETURN_NOT_OK(RunTasks(threads, parts, [&](int64_t p) -> Status {
      FLOTILLA_ASSIGN_OR_RETURN(out->tables_[p], KeyTable::Make(types, /*nulls_equal=*/true));
      const int64_t begin = order.starts[p];
      const int64_t m = order.starts[p + 1] - begin;
      if (m == 0) return Status::OK();
      const Array part = order.order.Slice(begin, m);
      std::vector<Array> part_keys;
      std::vector<uint64_t> part_hashes;
      FLOTILLA_RETURN_NOT_OK(TakePart(keys, hashes.data(), part, &part_keys, &part_hashes));
      FLOTILLA_RETURN_NOT_OK(out->tables_[p]->Reserve(m));
      std::vector<uint32_t> part_ids(static_cast<size_t>(m));
      FLOTILLA_RETURN_NOT_OK(
          out->tables_[p]->Insert(part_keys, part_hashes.data(), part_ids.data()));
      const uint32_t* rows = part.values<uint32_t>();
      for (int64_t j = 0; j < m; ++j)
        ids[rows[j]] = part_ids[j];
      return Status::OK();
    }));
    uint32_t base = 0;
    for (int p = 0; p < parts; ++p) {
      out->bases_[p] = base;
      base += static_cast<uint32_t>(out->tables_[p]->size());
    }
    const int shift = 64 - kPartitionBits;
    for (int64_t i = 0; i < n; ++i)
      ids[i] += out->bases_[hashes[i] >> shift];
  }
  bool any = false;
  const std::vector<bool> never = NeverMatch(keys, null_equal, n, &any);
  size_t groups = 0;
  for (const auto& table : out->tables_)
    groups += static_cast<size_t>(table->size());
  out->offsets.assign(groups + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (any && never[static_cast<size_t>(i)]) continue;
    ++out->offsets[ids[static_cast<size_t>(i)] + 1];
  }
  for (size_t g = 0; g < groups; ++g)
    out->offsets[g + 1] += out->offsets[g];
  out->rows.resize(out->offsets[groups]);
  std::vector<uint32_t> cursor(out->offsets.begin(), out->offsets.end() - 1);
  for (int64_t i = 0; i < n; ++i) {
    if (any && never[static_cast<size_t>(i)]) continue;
    out->rows[cursor[ids[static_cast<size_t>(i)]]++] = static_cast<uint32_t>(i);
  }
  if (track_matches) {
    out->matched.reset(new std::atomic<uint8_t>[static_cast<size_t>(std::max<int64_t>(n, 1))]);
    for (int64_t i = 0; i < n; ++i)
      out->matched[static_cast<size_t>(i)] = 0;
  }
  return Status::OK();
}

Status JoinTable::Find(const std::vector<Array>& keys, uint32_t* ids) const {
  if (partition_bits_ == 0) return tables_[0]->Find(keys, ids);
  const int64_t n = keys[0].length();
  if (n == 0) return Status::OK();
  FLOTILLA_ASSIGN_OR_RETURN(Array hash_array, compute::HashRows(keys));
  const uint64_t* hashes = hash_array.values<uint64_t>();
  FLOTILLA_ASSIGN_OR_RETURN(PartitionOrder order, OrderByPartition(hashes, n, partition_bits_));
  std::vector<Array> part_keys;
  std::vector<uint64_t> part_hashes;
  std::vector<uint32_t> part_ids;
  for (size_t p = 0; p < tables_.size(); ++p) {
    const int64_t begin = order.starts[p];
    const int64_t m = order.starts[p + 1] - begin;
    if (m == 0) continue;
    const Array part = order.order.Slice(begin, m);
    FLOTILLA_RETURN_NOT_OK(TakePart(keys, hashes, part, &part_keys, &part_hashes));
    part_ids.resize(static_cast<size_t>(m));
    FLOTILLA_RETURN_NOT_OK(tables_[p]->Find(part_keys, part_hashes.data(), part_ids.data()));
    const uint32_t* rows = part.values<uint32_t>();
    for (int64_t j = 0; j < m; ++j) {
      ids[rows[j]] =
          part_ids[j] == KeyTable::kNotFound ? KeyTable::kNotFound : bases_[p] + part_ids[j];
    }
  }
  return Status::OK();
}

int64_t JoinTable::memory_bytes() const {
  int64_t bytes = static_cast<int64_t>((offsets.size() + rows.size()) * sizeof(uint32_t));
  for (const auto& table : tables_)
    bytes += table->memory_bytes();
  return bytes;
}

}  // namespace flotilla::exec
