#pragma once
// The loop that runs distributed queries on a cluster: the driver says what to run where, the
// backend runs it and reports back, result partitions are pulled over Flight as their tasks
// finish. Both backends (the in-process cluster and Dask) run this one loop, so a stall, a lost
// worker or a cancel means the same on each.
//
// RunQuery runs one query, with the driver's own scheduler, on the calling thread. A
// ClusterSession is the loop of a cluster connection: one thread, one Scheduler shared by every
// query that runs there, admitted from any thread. The scheduler places the older query's tasks
// first; a query that fails or is cancelled stops only its own tasks.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
  /// How long a query with nothing running and nothing it can place (while the cluster runs
  /// nothing either) waits for workers to join before it fails as stalled. A cluster whose
  /// workers come back (Dask's nannies restart them) waits; one whose workers never do need not.
  double stall_seconds = 60;
  /// How long a failed query waits for its running tasks to stop, so none of them writes after
  /// the caller cleans up.
  double drain_seconds = 60;
  /// Called after every task result the driver took (tests kill workers from it).
  std::function<void(int64_t task_id)> on_result;
};

using QueryOutput = Result<std::vector<StoredPartition>>;

/// Runs `driver`'s query (a driver with a scheduler of its own) to its end on `backend`.
/// Returns the result partitions in result order (none when not fetching), or the query's
/// error; a failed write's staged files are removed.
QueryOutput RunQuery(QueryDriver& driver, ClusterBackend& backend, const QueryLoopOptions& options);

class ClusterSession {
 public:
  /// `backend` must outlive the session; the session's thread is its only caller (Interrupt
  /// aside).
  explicit ClusterSession(ClusterBackend& backend);
  /// Close().
  ~ClusterSession();
  ClusterSession(const ClusterSession&) = delete;
  ClusterSession& operator=(const ClusterSession&) = delete;

  /// What the drivers of its queries share (DriverOptions::scheduler).
  const std::shared_ptr<Scheduler>& scheduler() const;
  /// A worker of the cluster: queries started from now on use it. (Workers joining while
  /// queries run come from the backend.)
  void AddWorker(const WorkerSpec& worker);
  /// The worker left the cluster: what it held is recomputed where still needed.
  void RemoveWorker(const std::string& worker);
  /// The cluster's workers as the session knows them (lost ones left out).
  std::vector<std::string> workers() const;

  /// Starts `driver`'s query (made with this session's scheduler, not started), alongside the
  /// queries running. The driver belongs to the session's thread until Wait returns its end.
  /// Invalid when a query of the same id runs (its task ids would be that query's).
  Status Start(QueryDriver& driver, QueryLoopOptions options);
  /// The query's output once it ended (the session forgets it then); nullopt while it runs
  /// after `timeout_seconds`.
  std::optional<QueryOutput> Wait(int64_t query_id, double timeout_seconds);
  /// Start, then Wait for the end.
  QueryOutput Run(QueryDriver& driver, QueryLoopOptions options);
  /// Ends the query with a Cancelled error: its tasks stop, the other queries' run on.
  void Cancel(int64_t query_id, const std::string& why);
  /// Cancels what still runs, waits for it to end, and stops the thread.
  void Close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flotilla::distributed
