#pragma once
// What planning a scan of files gives the engine: the schema every task produces (before
// projection) and the tasks, in file order.
#include <memory>
#include <vector>

#include "flotilla/io/scan_task.h"

namespace flotilla::io {

struct FileScan {
  SchemaPtr schema;
  std::vector<std::shared_ptr<const io::ScanTask>> tasks;
};

}  // namespace flotilla::io
