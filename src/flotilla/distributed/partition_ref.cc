#include "flotilla/distributed/partition_ref.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "flotilla/compute/concat.h"
#include "flotilla/distributed/proto/task.pb.h"
#include "flotilla/distributed/ref_proto.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/expr/serialize.h"

namespace flotilla::distributed {

// (Formatted in one go: the driver names a shuffle's M x N pieces, one per map task for each
// reducer, and temporaries per part were a fifth of its time at M = N = 2,000.)
std::string TaskOutputKey(int64_t query_id, int64_t task_id, int attempt) {
  return fmt::format("q{}/t{}.{}", query_id, task_id, attempt);
}

std::string PartitionKey(int64_t query_id, int64_t task_id, int attempt, int index) {
  return fmt::format("q{}/t{}.{}/p{}", query_id, task_id, attempt, index);
}

namespace {

// Whether `id` is PartitionKey(query_id, task_id, attempt, index), without making that string.
bool IsPartitionKey(const std::string& id, int64_t query_id, int64_t task_id, int attempt,
                    int index) {
  char key[96];
  const auto written =
      fmt::format_to_n(key, sizeof(key), "q{}/t{}.{}/p{}", query_id, task_id, attempt, index);
  return written.size <= sizeof(key) && std::string_view(key, written.size) == id;
}

}  // namespace

std::string MultiPartitionTicket(const std::vector<PartitionRef>& refs) {
  std::string ticket;
  for (const PartitionRef& r : refs) {
    if (!ticket.empty()) ticket += '\n';
    ticket += r.id;
  }
  return ticket;
}

PartitionScanTask::PartitionScanTask(std::vector<PartitionPiece> pieces, SchemaPtr schema,
                                     PartitionFetcher fetch, bool keep, bool coalesce)
    : pieces_(std::move(pieces)),
      schema_(std::move(schema)),
      fetch_(std::move(fetch)),
      keep_(keep),
      coalesce_(coalesce) {}

int64_t PartitionScanTask::num_rows() const {
  if (total_rows_ >= 0) return total_rows_;
  int64_t n = 0;
  for (const PartitionPiece& p : pieces_)
    n += p.num_rows();
  return n;
}

int64_t PartitionScanTask::size_bytes() const {
  if (total_bytes_ >= 0) return total_bytes_;
  int64_t n = 0;
  for (const PartitionPiece& p : pieces_)
    n += p.ref.size_bytes;
  return n;
}

std::string PartitionScanTask::ToString() const {
  if (compact_ != nullptr) {
    return fmt::format("partition {} of tasks from {} on {}", compact_->index(),
                       compact_->first_task(), compact_->worker());
  }
  if (pieces_.empty()) return "no partitions";
  std::string s = std::to_string(pieces_.size()) + " partition(s) on " + pieces_[0].ref.worker +
                  " ('" + pieces_[0].ref.id + "'";
  if (pieces_.size() > 1) s += ", ...";
  return s + ")";
}

Result<std::vector<RecordBatch>> PartitionScanTask::Read(const io::ScanPushdowns& pushdowns) const {
  std::vector<RecordBatch> rows;
  FLOTILLA_RETURN_NOT_OK(ReadEach(pushdowns, [&](RecordBatch b) {
    rows.push_back(std::move(b));
    return Status::OK();
  }));
  return rows;
}

Status PartitionScanTask::ReadEach(const io::ScanPushdowns& pushdowns,
                                   const std::function<Status(RecordBatch)>& each) const {
  if (fetch_ == nullptr && (compact_ != nullptr || !pieces_.empty())) {
    return Status::Invalid("partition scan task (" + ToString() + ") can only be read on a worker");
  }
  if (pieces_.empty()) return Status::OK();
  std::vector<int> indices;
  if (pushdowns.columns) {
    for (const std::string& name : *pushdowns.columns) {
      int i = schema_->GetFieldIndex(name);
      if (i < 0) return Status::KeyError("partition input has no column '" + name + "'");
      indices.push_back(i);
    }
  }
  std::vector<PartitionRef> refs;
  // Per piece, the rows still to skip and to take: [offset, offset + length), zero-copy.
  std::vector<int64_t> skip, want;
  for (const PartitionPiece& p : pieces_) {
    refs.push_back(p.ref);
    skip.push_back(p.offset);
    want.push_back(p.length >= 0 ? p.length : std::numeric_limits<int64_t>::max());
  }
  // Small batches wait here, when coalescing, until together they are worth a morsel.
  std::vector<RecordBatch> held;
  int64_t held_rows = 0, held_bytes = 0;
  auto flush = [&]() -> Status {
    if (held.empty()) return Status::OK();
    Result<RecordBatch> together =
        held.size() == 1 ? Result<RecordBatch>(std::move(held[0])) : compute::ConcatBatches(held);
    held.clear();
    held_rows = held_bytes = 0;
    if (!together.ok()) return together.status();
    return each(together.MoveValueUnsafe());
  };
  auto hand_on = [&](RecordBatch b) -> Status {
    if (pushdowns.columns) {
      FLOTILLA_ASSIGN_OR_RETURN(b, b.SelectColumns(indices));
    }
    if (!coalesce_) return each(std::move(b));
    const int64_t bytes = exec::SliceBytes(b);  // (a Flight fetch cuts pieces sent together)
    if (bytes >= kCoalesceBytes / 4 || b.num_rows() >= kCoalesceRows / 4) {
      FLOTILLA_RETURN_NOT_OK(flush());
      return each(std::move(b));
    }
    held_rows += b.num_rows();
    held_bytes += bytes;
    held.push_back(std::move(b));
    return held_rows >= kCoalesceRows || held_bytes >= kCoalesceBytes ? flush() : Status::OK();
  };
  auto piece = [&](int i, RecordBatch b) -> Status {
    if (i < 0 || static_cast<size_t>(i) >= pieces_.size()) {
      return Status::Invalid("partition fetch returned a batch of partition " + std::to_string(i) +
                             " of " + std::to_string(pieces_.size()));
    }
    const auto k = static_cast<size_t>(i);
    if (want[k] <= 0) return Status::OK();
    if (skip[k] >= b.num_rows()) {
      skip[k] -= b.num_rows();
      return Status::OK();
    }
    const int64_t take = std::min(b.num_rows() - skip[k], want[k]);
    if (skip[k] != 0 || take != b.num_rows()) b = b.Slice(skip[k], take);
    want[k] -= take;
    skip[k] = 0;
    return hand_on(std::move(b));
  };
  // Coalescing, a batch of several whole pieces' rows need not be cut into them only to be
  // concatenated again.
  PartitionRunFn run;
  if (coalesce_) {
    run = [&](const std::vector<PartitionRows>& parts, RecordBatch b) -> Status {
      const bool whole = std::all_of(parts.begin(), parts.end(), [&](const PartitionRows& p) {
        const auto k = static_cast<size_t>(p.index);
        return p.index >= 0 && k < pieces_.size() && skip[k] == 0 &&
               want[k] == std::numeric_limits<int64_t>::max();
      });
      if (whole) return hand_on(std::move(b));
      int64_t offset = 0;
      for (const PartitionRows& p : parts) {
        FLOTILLA_RETURN_NOT_OK(piece(p.index, b.Slice(offset, p.rows)));
        offset += p.rows;
      }
      return Status::OK();
    };
  }
  FLOTILLA_RETURN_NOT_OK(fetch_(refs, keep_, piece, run));
  return flush();
}

namespace {

// Partition `index` of `parts` (of query `query_id`, on `worker`) as CompactPieces, when they fit
// its form: at least two, in strictly increasing task order, not too spread out.
bool PackTasks(int64_t query_id, int index, const std::string& worker, const std::string& address,
               const std::vector<TaskPart>& parts, proto::CompactPieces* out) {
  if (parts.size() < 2) return false;
  const int64_t first = parts.front().task_id;
  const int64_t span = parts.back().task_id - first + 1;
  if (span < 2 || span > 64 * static_cast<int64_t>(parts.size())) return false;  // (or unsorted)
  std::string bits(static_cast<size_t>((span + 7) / 8), '\0');
  int64_t rows = 0, bytes = 0, previous = first - 1;
  for (const TaskPart& p : parts) {
    if (p.task_id <= previous) return false;
    previous = p.task_id;
    const int64_t k = p.task_id - first;
    bits[static_cast<size_t>(k / 8)] |= static_cast<char>(1 << (k % 8));
    if (p.attempt != 0) {
      out->add_retried_tasks(p.task_id);
      out->add_retried_attempts(p.attempt);
    }
    rows += p.rows;
    bytes += p.bytes;
  }
  out->set_query_id(query_id);
  out->set_index(index);
  out->set_worker(worker);
  out->set_address(address);
  out->set_first_task(first);
  out->set_tasks(std::move(bits));
  out->set_rows(rows);
  out->set_bytes(bytes);
  return true;
}

// `pieces` as CompactPieces, when they fit its form: whole partitions of one index and query,
// named as PartitionKey names them, in increasing task order (a task run again has a new id),
// their tasks not too spread out.
bool Compact(const std::vector<PartitionPiece>& pieces, proto::CompactPieces* out) {
  if (pieces.size() < 2) return false;
  const PartitionRef& first = pieces.front().ref;
  std::vector<TaskPart> parts;
  for (const PartitionPiece& p : pieces) {
    const PartitionRef& r = p.ref;
    if (p.offset != 0 || p.length != -1 || r.worker != first.worker || r.index != first.index ||
        r.query_id != first.query_id ||
        !IsPartitionKey(r.id, r.query_id, r.task_id, r.attempt, r.index)) {
      return false;
    }
    parts.push_back({r.task_id, r.attempt, r.num_rows, r.size_bytes});
  }
  return PackTasks(first.query_id, first.index, first.worker, first.address, parts, out);
}

Result<std::vector<PartitionPiece>> Expand(const proto::CompactPieces& c) {
  std::map<int64_t, int> retried;
  if (c.retried_tasks_size() != c.retried_attempts_size()) {
    return Status::Invalid("partition scan task: retried tasks without their attempts");
  }
  for (int i = 0; i < c.retried_tasks_size(); ++i)
    retried[c.retried_tasks(i)] = c.retried_attempts(i);
  std::vector<PartitionPiece> pieces;
  const std::string& bits = c.tasks();
  for (size_t byte = 0; byte < bits.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      if ((static_cast<unsigned char>(bits[byte]) >> bit & 1) == 0) continue;
      const int64_t task = c.first_task() + static_cast<int64_t>(byte) * 8 + bit;
      auto r = retried.find(task);
      const int attempt = r == retried.end() ? 0 : r->second;
      PartitionRef ref{PartitionKey(c.query_id(), task, attempt, c.index()),
                       c.worker(),
                       c.address(),
                       0,
                       0,
                       task,
                       c.index(),
                       attempt,
                       c.query_id()};
      pieces.push_back({std::move(ref), 0, -1});
    }
  }
  return pieces;
}

}  // namespace

std::shared_ptr<PartitionScanTask> PartitionScanTask::Unordered(
    int64_t query_id, int index, const std::string& worker, const std::string& address,
    std::vector<TaskPart> parts, SchemaPtr schema, bool keep, bool coalesce) {
  std::sort(parts.begin(), parts.end(),
            [](const TaskPart& a, const TaskPart& b) { return a.task_id < b.task_id; });
  auto compact = std::make_shared<proto::CompactPieces>();
  if (!PackTasks(query_id, index, worker, address, parts, compact.get())) {
    std::vector<PartitionPiece> pieces;
    for (const TaskPart& p : parts) {
      pieces.push_back({{PartitionKey(query_id, p.task_id, p.attempt, index), worker, address,
                         p.rows, p.bytes, p.task_id, index, p.attempt, query_id},
                        0,
                        -1});
    }
    return std::make_shared<PartitionScanTask>(std::move(pieces), std::move(schema), nullptr, keep,
                                               coalesce);
  }
  auto task = std::make_shared<PartitionScanTask>(std::vector<PartitionPiece>{}, std::move(schema),
                                                  nullptr, keep, coalesce);
  task->SetTotals(compact->rows(), compact->bytes());
  task->compact_ = std::move(compact);
  return task;
}

Result<std::string> PartitionScanTask::Serialize() const {
  proto::PartitionInput input;
  if (compact_ != nullptr) {
    *input.mutable_compact() = *compact_;
  } else if (!Compact(pieces_, input.mutable_compact())) {
    input.clear_compact();
    for (const PartitionPiece& p : pieces_) {
      proto::PartitionPiece* piece = input.add_pieces();
      RefToProto(p.ref, piece->mutable_ref());
      piece->set_offset(p.offset);
      piece->set_length(p.length);
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(std::string schema, expr::SerializeSchema(schema_));
  input.set_schema(std::move(schema));
  input.set_keep(keep_);
  input.set_coalesce(coalesce_);
  return input.SerializeAsString();
}

void RegisterPartitionScanTasks(io::ScanTaskRegistry* registry, PartitionFetcher fetch) {
  (*registry)["partition"] =
      [fetch](std::string_view bytes) -> Result<std::shared_ptr<const io::ScanTask>> {
    proto::PartitionInput input;
    if (!input.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return Status::Invalid("malformed partition scan task");
    }
    FLOTILLA_ASSIGN_OR_RETURN(SchemaPtr schema, expr::DeserializeSchema(input.schema()));
    std::vector<PartitionPiece> pieces;
    if (input.has_compact()) {
      FLOTILLA_ASSIGN_OR_RETURN(pieces, Expand(input.compact()));
      auto task = std::make_shared<PartitionScanTask>(std::move(pieces), std::move(schema), fetch,
                                                      input.keep(), input.coalesce());
      task->SetTotals(input.compact().rows(), input.compact().bytes());
      return task;
    }
    for (const proto::PartitionPiece& p : input.pieces()) {
      pieces.push_back({RefFromProto(p.ref()), p.offset(), p.length()});
      if (pieces.back().ref.worker != pieces.front().ref.worker) {
        return Status::Invalid("partition scan task: pieces from more than one worker");
      }
    }
    return std::make_shared<PartitionScanTask>(std::move(pieces), std::move(schema), fetch,
                                               input.keep(), input.coalesce());
  };
}

}  // namespace flotilla::distributed
