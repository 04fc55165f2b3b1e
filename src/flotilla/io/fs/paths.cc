#include "flotilla/io/fs/paths.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>
#include <tuple>

#include "flotilla/io/fs/file.h"

namespace flotilla::io {

namespace fs = std::filesystem;

namespace {

bool Hidden(const std::string& name) {
  return !name.empty() && (name[0] == '.' || name[0] == '_');
}

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    if (end > start) parts.push_back(path.substr(start, end - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

void AddFile(const fs::path& p, std::vector<FileEntry>* out) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  out->push_back({p.string(), ec ? -1 : static_cast<int64_t>(size)});
}

// Directories already walked, by device and inode: symlinks to directories are followed, but a
// link back to a directory on the way (or to one seen elsewhere) is not walked again, so a cycle
// neither repeats files nor loops.
// (A glob's "**" keys it by the pattern segment too: two "**" may each need the directory.)
using Visited = std::set<std::tuple<dev_t, ino_t, size_t>>;

// True the first time `dir` (after symlinks) is seen at pattern segment `segment`.
bool FirstVisit(const fs::path& dir, Visited* visited, size_t segment = 0) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return false;
  return visited->insert({st.st_dev, st.st_ino, segment}).second;
}

Status WalkDirectory(const fs::path& dir, std::vector<FileEntry>* out) {
  std::error_code ec;
  Visited visited;
  FirstVisit(dir, &visited);
  fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec);
  if (ec) return Status::IOError("cannot list '" + dir.string() + "': " + ec.message());
  for (auto end = fs::recursive_directory_iterator(); it != end; it.increment(ec)) {
    if (ec) return Status::IOError("cannot list '" + dir.string() + "': " + ec.message());
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (Hidden(name) || !FirstVisit(it->path(), &visited)) it.disable_recursion_pending();
      continue;
    }
    if (!Hidden(name) && it->is_regular_file(ec)) AddFile(it->path(), out);
  }
  return Status::OK();
}

// Matches the remaining pattern segments [i, end) below `dir`.
void Match(const fs::path& dir, const std::vector<std::string>& parts, size_t i,
           std::vector<FileEntry>* out, Visited* visited) {
  std::error_code ec;
  if (i == parts.size()) {
    if (fs::is_regular_file(dir, ec)) AddFile(dir, out);
    return;
  }
  const std::string& part = parts[i];
  if (!HasGlob(part)) {
    Match(dir / part, parts, i + 1, out, visited);
    return;
  }
  if (!fs::is_directory(dir, ec)) return;
  if (part == "**") {
    // Each directory once, however many links lead to it.
    if (!FirstVisit(dir, visited, i)) return;
    Match(dir, parts, i + 1, out, visited);  // zero directories
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec) && !Hidden(it->path().filename().string()))
        Match(it->path(), parts, i, out, visited);
    }
    return;
  }
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (fnmatch(part.c_str(), name.c_str(), FNM_PERIOD) == 0) {
      Match(it->path(), parts, i + 1, out, visited);
    }
  }
}

}  // namespace

bool HasGlob(const std::string& pattern) {
  return pattern.find_first_of("*?[") != std::string::npos;
}

Result<std::vector<FileEntry>> ExpandPaths(const std::vector<std::string>& patterns) {
  std::vector<FileEntry> out;
  for (const std::string& pattern : patterns) {
    if (IsHttpUrl(pattern)) {
      out.push_back({pattern, -1});
      continue;
    }
    const std::string path = LocalPath(pattern);
    std::vector<FileEntry> found;
    std::error_code ec;
    if (HasGlob(path)) {
      const bool absolute = !path.empty() && path[0] == '/';
      Visited visited;
      Match(absolute ? fs::path("/") : fs::path("."), Split(path), 0, &found, &visited);
      if (!absolute) {
        for (FileEntry& f : found) {
          if (f.path.rfind("./", 0) == 0) f.path = f.path.substr(2);
        }
      }
    } else if (fs::is_directory(path, ec)) {
      FLOTILLA_RETURN_NOT_OK(WalkDirectory(path, &found));
    } else if (fs::exists(path, ec)) {
      AddFile(path, &found);
    } else {
      return Status::IOError("no such file or directory: '" + pattern + "'");
    }
    if (found.empty()) return Status::IOError("no files match '" + pattern + "'");
    std::sort(found.begin(), found.end(),
              [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

}  // namespace flotilla::io
