#pragma once
// The local runner's queries in the distributed runner's event schema (events.h), so one
// subscriber, event log or trace serves both. A local query's pipelines are its nodes, each run
// as one task on worker "local": query_started (message: the pipelines, one per line, in the
// distributed plan's form), execution_started, then per pipeline node_started (inputs: the
// pipelines it reads), submitted, scheduled, completed (rows and bytes it produced, its operators'
// figures) and node_finished, as the pipelines start and end, and last the query's end. A pipeline
// running when the query fails gets a failed event.
#include <cstdint>
#include <memory>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/distributed/events.h"
#include "flotilla/exec/pipeline/executor.h"

namespace flotilla::distributed {

/// The worker name of a local query's tasks.
inline constexpr char kLocalWorker[] = "local";

/// Runs `plan` on the local engine like exec::Run, reporting its events to `subscribers` (from
/// the thread running the query's watcher, then this one; never two at once).
Result<exec::QueryResult> RunLocalWithEvents(
    const exec::PlanPtr& plan, const exec::ExecOptions& options, int64_t query_id,
    const std::vector<std::shared_ptr<EventSubscriber>>& subscribers);

}  // namespace flotilla::distributed
