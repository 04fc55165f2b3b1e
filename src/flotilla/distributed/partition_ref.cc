#include "flotilla/distributed/partition_ref.h"

#include "flotilla/distributed/proto/task.pb.h"
#include "flotilla/distributed/ref_proto.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/expr/serialize.h"

namespace flotilla::distributed {

std::string MultiPartitionTicket(const std::vector<PartitionRef>& refs) {
  std::string ticket;
  for (const PartitionRef& r : refs) {
    if (!ticket.empty()) ticket += '\n';
    ticket += r.id;
  }
  return ticket;
}

PartitionScanTask::PartitionScanTask(std::vector<PartitionPiece> pieces, SchemaPtr schema,
                                     PartitionFetcher fetch, bool keep)
    : pieces_(std::move(pieces)),
      schema_(std::move(schema)),
      fetch_(std::move(fetch)),
      keep_(keep) {}

int64_t PartitionScanTask::num_rows() const {
  int64_t n = 0;
  for (const PartitionPiece& p : pieces_)
    n += p.num_rows();
  return n;
}

int64_t PartitionScanTask::size_bytes() const {
  int64_t n = 0;
  for (const PartitionPiece& p : pieces_)
    n += p.ref.size_bytes;
  return n;
}

std::string PartitionScanTask::ToString() const {
  if (pieces_.empty()) return "no partitions";
  std::string s = std::to_string(pieces_.size()) + " partition(s) on " + pieces_[0].ref.worker +
                  " ('" + pieces_[0].ref.id + "'";
  if (pieces_.size() > 1) s += ", ...";
  return s + ")";
}

Result<std::vector<RecordBatch>> PartitionScanTask::Read(const io::ScanPushdowns& pushdowns) const {
  std::vector<RecordBatch> rows;
  if (pieces_.empty()) return rows;
  if (fetch_ == nullptr) {
    return Status::Invalid("partition '" + pieces_[0].ref.id + "' can only be read on a worker");
  }
  std::vector<PartitionRef> refs;
  for (const PartitionPiece& p : pieces_)
    refs.push_back(p.ref);
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<StoredPartition> partitions, fetch_(refs, keep_));
  if (partitions.size() != pieces_.size()) {
    return Status::Invalid("partition fetch returned " + std::to_string(partitions.size()) +
                           " partitions for " + std::to_string(pieces_.size()));
  }
  // Each piece's rows [offset, offset + length) across its batches, zero-copy.
  for (size_t i = 0; i < pieces_.size(); ++i) {
    int64_t skip = pieces_[i].offset;
    int64_t want = pieces_[i].num_rows();
    for (const RecordBatch& b : partitions[i].batches) {
      if (want <= 0) break;
      if (skip >= b.num_rows()) {
        skip -= b.num_rows();
        continue;
      }
      int64_t take = std::min(b.num_rows() - skip, want);
      rows.push_back(skip == 0 && take == b.num_rows() ? b : b.Slice(skip, take));
      want -= take;
      skip = 0;
    }
  }
  if (!pushdowns.columns) return rows;
  std::vector<int> indices;
  for (const std::string& name : *pushdowns.columns) {
    int i = schema_->GetFieldIndex(name);
    if (i < 0) return Status::KeyError("partition input has no column '" + name + "'");
    indices.push_back(i);
  }
  for (RecordBatch& b : rows) {
    FLOTILLA_ASSIGN_OR_RETURN(b, b.SelectColumns(indices));
  }
  return rows;
}

Result<std::string> PartitionScanTask::Serialize() const {
  proto::PartitionInput input;
  for (const PartitionPiece& p : pieces_) {
    proto::PartitionPiece* piece = input.add_pieces();
    RefToProto(p.ref, piece->mutable_ref());
    piece->set_offset(p.offset);
    piece->set_length(p.length);
  }
  FLOTILLA_ASSIGN_OR_RETURN(std::string schema, expr::SerializeSchema(schema_));
  input.set_schema(std::move(schema));
  input.set_keep(keep_);
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
    for (const proto::PartitionPiece& p : input.pieces()) {
      pieces.push_back({RefFromProto(p.ref()), p.offset(), p.length()});
      if (pieces.back().ref.worker != pieces.front().ref.worker) {
        return Status::Invalid("partition scan task: pieces from more than one worker");
      }
    }
    return std::make_shared<PartitionScanTask>(std::move(pieces), std::move(schema), fetch,
                                               input.keep());
  };
}

}  // namespace flotilla::distributed
