#include "flotilla/io/parquet/reader_cache.h"

#include <sys/stat.h>

#include <condition_variable>
#include <list>
#include <mutex>
#include <set>
#include <unordered_map>

#include "flotilla/io/fs/file.h"

namespace flotilla::io::parquet {
namespace {

// Footers kept, least recently used dropped first.
constexpr size_t kMaxFooters = 1024;

struct Entry {
  std::string path;
  uint64_t inode;
  int64_t size;
  int64_t mtime_ns;
  std::shared_ptr<ParquetFileReader> reader;  // its footer; its file is not used again
};

struct Cache {
  std::mutex mutex;
  std::list<Entry> lru;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_path;
  // Paths whose footer is being read: scans of one file starting at once read it once.
  std::set<std::string> loading;
  std::condition_variable loaded;
  FooterCacheStats stats;
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // never destroyed: scans may run during exit
  return *cache;
}

}  // namespace

Result<std::shared_ptr<ParquetFileReader>> OpenParquetCached(const std::string& uri) {
  if (IsHttpUrl(uri)) return ParquetFileReader::Open(uri);
  const std::string path = LocalPath(uri);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ParquetFileReader::Open(uri);  // its error
  const uint64_t inode = st.st_ino;
  const int64_t size = st.st_size;
  const int64_t mtime_ns =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  Cache& cache = TheCache();
  std::shared_ptr<ParquetFileReader> cached;
  {
    std::unique_lock lock(cache.mutex);
    cache.loaded.wait(lock, [&] { return cache.loading.count(path) == 0; });
    auto it = cache.by_path.find(path);
    if (it != cache.by_path.end()) {
      const Entry& e = *it->second;
      if (e.inode == inode && e.size == size && e.mtime_ns == mtime_ns) {
        cache.lru.splice(cache.lru.begin(), cache.lru, it->second);
        cache.stats.hits += 1;
        cached = e.reader;
      } else {
        cache.lru.erase(it->second);  // the file changed
        cache.by_path.erase(it);
      }
    }
    if (!cached) {
      cache.stats.misses += 1;
      cache.loading.insert(path);
    }
  }
  if (cached) {
    FLOTILLA_ASSIGN_OR_RETURN(std::shared_ptr<io::RandomAccessFile> file, io::OpenFile(uri));
    if (file->size() == size) return cached->Reopen(std::move(file));
    // Changed since the stat: read it afresh below.
  }
  // Read outside the lock; others asking for the path wait (a failure is not kept: each of
  // them then reads, and says what is wrong, itself).
  Result<std::shared_ptr<ParquetFileReader>> opened = ParquetFileReader::Open(uri);
  std::lock_guard lock(cache.mutex);
  cache.loading.erase(path);
  cache.loaded.notify_all();
  FLOTILLA_ASSIGN_OR_RETURN(std::shared_ptr<ParquetFileReader> reader, std::move(opened));
  if (auto it = cache.by_path.find(path); it != cache.by_path.end()) {
    cache.lru.erase(it->second);
    cache.by_path.erase(it);
  }
  // The entry keeps the footer only: a reader of no file.
  cache.lru.push_front({path, inode, size, mtime_ns, reader->Reopen(nullptr)});
  cache.by_path[path] = cache.lru.begin();
  while (cache.lru.size() > kMaxFooters) {
    cache.by_path.erase(cache.lru.back().path);
    cache.lru.pop_back();
  }
  return reader;
}

FooterCacheStats FooterCacheCounts() {
  Cache& cache = TheCache();
  std::lock_guard lock(cache.mutex);
  return cache.stats;
}

}  // namespace flotilla::io::parquet
