#pragma once
// Expands what a user names as input — a file, a directory, a glob with `*`, `?`, `[...]` and
// `**` (any number of directories), a file:// URI or an http(s):// URL — into the files to read,
// sorted by path so that reads are deterministic.
#include <cstdint>
#include <string>
#include <vector>

#include "flotilla/common/result.h"

namespace flotilla::io {

struct FileEntry {
  std::string path;   // as OpenFile accepts it
  int64_t size = -1;  // -1 for URLs (known once opened)
};

/// Files under directories are found recursively; names starting with '.' or '_' (hidden files,
/// _SUCCESS markers, in-progress writes) are skipped there. An error when nothing matches.
Result<std::vector<FileEntry>> ExpandPaths(const std::vector<std::string>& patterns);

/// True when `pattern` holds glob characters.
bool HasGlob(const std::string& pattern);

}  // namespace flotilla::io
