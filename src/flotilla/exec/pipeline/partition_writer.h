#pragma once
// Where a hash repartition hands the pieces of each morsel as it splits them, when the caller
// keeps the partitions itself (a distributed shuffle's map side writes them to its store as
// they come) instead of the sink holding them all until its input ends.
#include <vector>

#include "flotilla/columnar/record_batch.h"
#include "flotilla/common/result.h"

namespace flotilla::exec {

class PartitionWriter {
 public:
  virtual ~PartitionWriter() = default;
  /// One morsel's pieces: `pieces[p]` belongs to partition p (no empty batches). Called from
  /// the threads that split the morsels, in the order they finish, not the input's.
  virtual Status Write(std::vector<std::vector<RecordBatch>> pieces) = 0;
};

}  // namespace flotilla::exec
