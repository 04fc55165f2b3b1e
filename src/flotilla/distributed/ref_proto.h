#pragma once
// PartitionRef <-> flotilla.proto.PartitionRef (for .cc files that already include task.pb.h).
#include "flotilla/distributed/partition_ref.h"
#include "flotilla/distributed/proto/task.pb.h"

namespace flotilla::distributed {

inline void RefToProto(const PartitionRef& ref, proto::PartitionRef* out) {
  out->set_id(ref.id);
  out->set_worker(ref.worker);
  out->set_address(ref.address);
  out->set_num_rows(ref.num_rows);
  out->set_size_bytes(ref.size_bytes);
  out->set_task_id(ref.task_id);
  out->set_index(ref.index);
  out->set_attempt(ref.attempt);
  out->set_query_id(ref.query_id);
}

inline PartitionRef RefFromProto(const proto::PartitionRef& p) {
  return {p.id(),      p.worker(), p.address(), p.num_rows(), p.size_bytes(),
          p.task_id(), p.index(),  p.attempt(), p.query_id()};
}

}  // namespace flotilla::distributed
