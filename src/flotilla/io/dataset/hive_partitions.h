#pragma once
// Reading Hive-partitioned datasets back: the `col=value` directories in the paths of a scan's
// files become columns (after the file's own), typed by inference over every file's value
// (`__HIVE_DEFAULT_PARTITION__` is null), each file's rows carrying its values.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/io/file_scan.h"
#include "flotilla/io/scan_task.h"

namespace flotilla::io {

struct HivePartitions {
  std::vector<Field> fields;  // empty: the paths hold no partition directories
  /// Per file, the text of each field's value (nullopt: null).
  std::vector<std::vector<std::optional<std::string>>> values;
};

/// The `key=value` directories in `paths` (every directory of the path). Files must all have the
/// same keys in the same order, or none is used.
Result<HivePartitions> DiscoverHivePartitions(const std::vector<std::string>& paths);

/// Adds the partition columns to `scan`: its schema gains the fields, and each task (from file
/// `task_file[i]`) is wrapped to append its file's values. Nothing changes without partitions.
Status ApplyHivePartitions(const std::vector<std::string>& paths,
                           const std::vector<size_t>& task_file, FileScan* scan);

/// Lets DeserializePlan rebuild partition-wrapped tasks (the inner kinds must be registered in
/// `registry` too, before the plan is read).
void RegisterHivePartitionTasks(io::ScanTaskRegistry* registry);

}  // namespace flotilla::io
