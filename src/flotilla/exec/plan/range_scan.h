#pragma once
// A source of generated integers: SQL's range(start, stop, step) and generate_series, as scan
// tasks of at most kRangeTaskRows values each, so a long range streams in bounded memory,
// splits across threads and workers, and serializes to a worker as three numbers.
#include <cstdint>
#include <string>

#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::exec {

inline constexpr int64_t kRangeTaskRows = int64_t{1} << 20;

/// A scan of one int64 column `column` holding start, start + step, ... up to `stop`
/// (included when `inclusive`; a negative step counts down). A zero step is an error.
Result<PlanPtr> MakeRangeScan(const std::string& column, int64_t start, int64_t stop, int64_t step,
                              bool inclusive);

/// Lets serialized plans carry range tasks (kind "range").
void RegisterRangeScanTasks(io::ScanTaskRegistry* registry);

}  // namespace flotilla::exec
