#include "flotilla/dist/partition_ref.h"

#include "flotilla/dist/proto/task.pb.h"
#include "flotilla/dist/ref_proto.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/expr/serialize.h"

namespace flotilla::dist {

PartitionScanTask::PartitionScanTask(PartitionRef ref, SchemaPtr schema, int64_t offset,
                                     int64_t length, PartitionFetcher fetch)
    : ref_(std::move(ref)),
      schema_(std::move(schema)),
      offset_(offset),
      length_(length),
      fetch_(std::move(fetch)) {}

int64_t PartitionScanTask::num_rows() const {
  return length_ >= 0 ? length_ : ref_.num_rows - offset_;
}

std::string PartitionScanTask::ToString() const {
  std::string s = "partition '" + ref_.id + "' on " + ref_.worker;
  if (offset_ != 0 || length_ >= 0) {
    s += " rows [" + std::to_string(offset_) + ", " + std::to_string(offset_ + num_rows()) + ")";
  }
  return s;
}

Result<std::vector<RecordBatch>> PartitionScanTask::Read(
    const exec::ScanPushdowns& pushdowns) const {
  if (fetch_ == nullptr) {
    return Status::Invalid("partition '" + ref_.id + "' can only be read on a worker");
  }
  FLOTILLA_ASSIGN_OR_RETURN(StoredPartition partition, fetch_(ref_));
  // The rows of [offset, offset + length) across the batches, zero-copy.
  std::vector<RecordBatch> rows;
  int64_t skip = offset_;
  int64_t want = num_rows();
  for (const RecordBatch& b : partition.batches) {
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
  if (!pushdowns.columns) return rows;
  std::vector<int> indices;
  for (const std::string& name : *pushdowns.columns) {
    int i = schema_->GetFieldIndex(name);
    if (i < 0) return Status::KeyError("partition '" + ref_.id + "' has no column '" + name + "'");
    indices.push_back(i);
  }
  for (RecordBatch& b : rows) {
    FLOTILLA_ASSIGN_OR_RETURN(b, b.SelectColumns(indices));
  }
  return rows;
}

Result<std::string> PartitionScanTask::Serialize() const {
  proto::PartitionInput input;
  RefToProto(ref_, input.mutable_ref());
  input.set_offset(offset_);
  input.set_length(length_);
  FLOTILLA_ASSIGN_OR_RETURN(std::string schema, expr::SerializeSchema(schema_));
  input.set_schema(std::move(schema));
  return input.SerializeAsString();
}

void RegisterPartitionScanTasks(exec::PlanResolver* resolver, PartitionFetcher fetch) {
  resolver->scan_tasks["partition"] =
      [fetch](std::string_view bytes) -> Result<std::shared_ptr<const exec::ScanTask>> {
    proto::PartitionInput input;
    if (!input.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return Status::Invalid("malformed partition scan task");
    }
    FLOTILLA_ASSIGN_OR_RETURN(SchemaPtr schema, expr::DeserializeSchema(input.schema()));
    return std::make_shared<PartitionScanTask>(RefFromProto(input.ref()), std::move(schema),
                                               input.offset(), input.length(), fetch);
  };
}

}  // namespace flotilla::dist
