#include "flotilla/io/fs/atomic_write.h"

#include <cstdio>
#include <filesystem>

namespace flotilla::io {

std::string TemporaryPathFor(const std::string& path) {
  const std::filesystem::path target(path);
  return (target.parent_path() / ("." + target.filename().string() + ".tmp")).string();
}

Status WriteFileAtomically(const std::string& path,
                           const std::function<Status(std::unique_ptr<OutputStream>)>& write) {
  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec)
      return Status::IOError("cannot create directory '" + target.parent_path().string() +
                             "': " + ec.message());
  }
  const std::string temp = TemporaryPathFor(path);
  auto run = [&]() -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(auto stream, FileOutputStream::Open(temp));
    return write(std::move(stream));
  };
  Status st = run();
  if (!st.ok()) {
    std::remove(temp.c_str());
    return st.WithContext("writing '" + path + "'");
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::remove(temp.c_str());
    return Status::IOError("cannot rename '" + temp + "' to '" + path + "': " + ec.message());
  }
  return Status::OK();
}

}  // namespace flotilla::io
