#pragma once
// Files that appear whole or not at all: written under a hidden temporary name in the target
// directory (readers skip names starting with '.') and renamed into place when complete.
#include <functional>
#include <memory>
#include <string>

#include "flotilla/io/stream.h"

namespace flotilla::io {

/// The hidden temporary name WriteFileAtomically uses for `path`.
std::string TemporaryPathFor(const std::string& path);

/// Calls `write` with a stream to a temporary file beside `path` (which `write` must close) and
/// renames the file to `path` when it succeeds; on failure removes it and returns the error with
/// `path` named. Creates missing parent directories.
Status WriteFileAtomically(const std::string& path,
                           const std::function<Status(std::unique_ptr<OutputStream>)>& write);

}  // namespace flotilla::io
