#pragma once
// The loop that runs one distributed query on a cluster: the driver says what to run where, the
// backend runs it and reports back, result partitions are pulled over Flight as their tasks
// finish. Both backends (the in-process cluster and Dask) run this one loop, so a stall, a lost
// worker or a cancel means the same on each.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/distributed/cluster_backend.h"
#include "flotilla/distributed/partition_store.h"
#include "flotilla/distributed/query_driver.h"

namespace flotilla::distributed {

struct QueryLoopOptions {
  std::string token;  // the cluster's, to pull result partitions over Flight
  /// false: results are not pulled (their row counts are in the driver's ResultOrder()).
  bool fetch_results = true;
  /// How long a query with nothing running and nothing it can place waits for workers to join
  /// before it fails as stalled. A cluster whose workers come back (Dask's nannies restart them)
  /// waits; one whose workers never do need not.
  double stall_seconds = 60;
  /// How long a failed query waits for its running tasks to stop, so none of them writes after
  /// the caller cleans up.
  double drain_seconds = 60;
  /// Called after every task result the driver took (tests kill workers from it).
  std::function<void(int64_t task_id)> on_result;
};

/// Runs `driver`'s query to its end on `backend`. Returns the result partitions in result order
/// (none when not fetching), or the query's error; a failed write's staged files are removed.
Result<std::vector<StoredPartition>> RunQuery(QueryDriver& driver, ClusterBackend& backend,
                                              const QueryLoopOptions& options);

}  // namespace flotilla::distributed
