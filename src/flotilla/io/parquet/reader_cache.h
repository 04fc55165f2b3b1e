#pragma once
// Parquet footers shared by every scan of a process: a worker running many row-group tasks of
// one file, or queries run again over the same files, read and decode each footer once. A local
// file is known by its path, inode, size and modification time, so a file rewritten or replaced
// is read again; other URIs are not cached. Only footers are kept, not open files: a file
// deleted is not held.
#include <cstdint>
#include <memory>
#include <string>

#include "flotilla/io/parquet/reader.h"

namespace flotilla::io::parquet {

/// ParquetFileReader::Open(uri), through the process's cache.
Result<std::shared_ptr<ParquetFileReader>> OpenParquetCached(const std::string& uri);

struct FooterCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;  // footers read
};
FooterCacheStats FooterCacheCounts();

}  // namespace flotilla::io::parquet
