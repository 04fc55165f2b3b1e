#include <fmt/core.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "flotilla/cli/commands.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::cli {

int TerminalWidth() {
  if (!isatty(STDOUT_FILENO)) return 0;
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

int RunCat(const CatOptions& options) {
  int failures = 0;
  for (const auto& path : options.paths) {
    SchemaPtr schema;
    auto batches = ipc::ReadFile(path, &schema);
    if (!batches.ok()) {
      fmt::print(stderr, "flotilla: {}\n", batches.status().WithContext(path).ToString());
      ++failures;
      continue;
    }
    if (options.paths.size() > 1) fmt::print("{}:\n", path);
    if (options.schema_only) {
      fmt::print("{}", schema->ToString());
    } else {
      fmt::print("{}", FormatTable(*schema, *batches, options.table));
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace flotilla::cli
