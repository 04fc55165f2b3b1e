#pragma once
// Files served over HTTP(S), read with range requests (libcurl): the size from a HEAD request,
// each ReadAt one "Range: bytes=a-b" GET.
#include <memory>
#include <string>

#include "flotilla/io/fs/file.h"

namespace flotilla::io {

Result<std::shared_ptr<RandomAccessFile>> OpenHttpFile(const std::string& url);

}  // namespace flotilla::io
