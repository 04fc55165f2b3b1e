#include "flotilla/exec/memory/spill_file.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>

#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/stream.h"

namespace flotilla::exec {

namespace fs = std::filesystem;

SpillFile::~SpillFile() {
  std::error_code ignored;
  fs::remove(path_, ignored);
}

namespace {

class FileSpillReader final : public SpillFile::Reader {
 public:
  explicit FileSpillReader(std::unique_ptr<ipc::StreamReader> reader)
      : reader_(std::move(reader)) {}
  Result<std::optional<RecordBatch>> Next() override { return reader_->Next(); }

 private:
  std::unique_ptr<ipc::StreamReader> reader_;
};

}  // namespace

Result<std::unique_ptr<SpillFile::Reader>> SpillFile::OpenReader() const {
  FLOTILLA_ASSIGN_OR_RETURN(auto input, io::FileInputStream::Open(path_));
  auto reader = ipc::StreamReader::Open(std::move(input));
  if (!reader.ok()) return reader.status().WithContext("reading spill file '" + path_ + "'");
  return std::unique_ptr<Reader>(new FileSpillReader(std::move(reader).ValueOrDie()));
}

Result<std::vector<RecordBatch>> SpillFile::ReadAll() const {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, OpenReader());
  std::vector<RecordBatch> batches;
  while (true) {
    FLOTILLA_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    batches.push_back(std::move(*batch));
  }
  return batches;
}

SpillWriter::~SpillWriter() {
  if (file_ != nullptr) {
    // Abandoned before Finish (an error upstream): drop the partial file.
    writer_.reset();
    (void)file_->Close();
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
}

Status SpillWriter::Write(const RecordBatch& batch) {
  if (batch.num_rows() == 0) return Status::OK();
  Status status = writer_->WriteBatch(batch);
  if (!status.ok()) return status.WithContext("writing spill file '" + path_ + "'");
  num_rows_ += batch.num_rows();
  return Status::OK();
}

Result<std::shared_ptr<SpillFile>> SpillWriter::Finish() {
  Status status = writer_->Close();
  if (status.ok()) status = file_->Close();
  const int64_t size = file_->Tell();
  writer_.reset();
  file_.reset();
  if (!status.ok()) {
    std::error_code ignored;
    fs::remove(path_, ignored);
    return status.WithContext("writing spill file '" + path_ + "'");
  }
  manager_->files_ += 1;
  manager_->bytes_ += size;
  return std::make_shared<SpillFile>(path_, schema_, num_rows_, size);
}

namespace {

constexpr char kSpillPrefix[] = "flotilla-spill-";

// The spill directories of this process's running queries.
std::mutex& ActiveMutex() {
  static std::mutex m;
  return m;
}
std::set<std::string>& Active() {
  static std::set<std::string> dirs;
  return dirs;
}

// Removes the spill directories under `base` whose process is gone, once per base and process:
// what a process killed with SIGKILL (or by a crash) left.
void RemoveStaleSpillDirectories(const fs::path& base) {
  static std::mutex mutex;
  static std::set<std::string> done;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert(base.string()).second) return;
  }
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kSpillPrefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + sizeof(kSpillPrefix) - 1, nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

}  // namespace

void RemoveActiveSpillDirectories() {
  std::lock_guard<std::mutex> lock(ActiveMutex());
  for (const std::string& dir : Active()) {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
}

SpillManager::SpillManager(std::vector<std::string> directories)
    : directories_(std::move(directories)) {}

SpillManager::~SpillManager() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!directory_.empty()) {
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
    std::lock_guard<std::mutex> active(ActiveMutex());
    Active().erase(directory_);
  }
}

std::string SpillManager::directory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return directory_;
}

Status SpillManager::EnsureDirectory() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!directory_.empty()) return Status::OK();
  static std::atomic<int64_t> counter{0};
  // The system's temporary directory only when something spills: a query that does not spill
  // runs whatever TMPDIR says.
  std::vector<std::string> bases = directories_;
  if (bases.empty()) {
    std::error_code error;
    const fs::path tmp = fs::temp_directory_path(error);
    if (error) {
      const char* env = std::getenv("TMPDIR");
      return Status::IOError("the query needs to spill, and the temporary directory (TMPDIR=" +
                             std::string(env == nullptr ? "unset" : env) + ") is not usable: " +
                             error.message() + "; set TMPDIR or the spill directories");
    }
    bases.push_back(tmp.string());
  }
  std::string errors;
  for (const std::string& base : bases) {
    RemoveStaleSpillDirectories(base);
    const fs::path candidate = fs::path(base) / (kSpillPrefix + std::to_string(getpid()) + "-" +
                                                 std::to_string(counter++));
    std::error_code error;
    fs::create_directories(candidate, error);
    if (!error) {
      directory_ = candidate.string();
      std::lock_guard<std::mutex> active(ActiveMutex());
      Active().insert(directory_);
      return Status::OK();
    }
    errors += "; '" + candidate.string() + "': " + error.message();
  }
  return Status::IOError("cannot create a spill directory under the spill_dirs" + errors);
}

Result<std::unique_ptr<SpillWriter>> SpillManager::Create(SchemaPtr schema) {
  FLOTILLA_RETURN_NOT_OK(EnsureDirectory());
  std::unique_ptr<SpillWriter> writer(new SpillWriter());
  writer->manager_ = this;
  writer->path_ = directory() + "/" + std::to_string(next_id_++) + ".arrows";
  writer->schema_ = schema;
  FLOTILLA_ASSIGN_OR_RETURN(writer->file_, io::FileOutputStream::Open(writer->path_));
  ipc::WriteOptions options;
  options.compression = ipc::Compression::kLz4Frame;
  options.min_compress_bytes = 256;
  FLOTILLA_ASSIGN_OR_RETURN(
      writer->writer_, ipc::StreamWriter::Open(writer->file_.get(), std::move(schema), options));
  return writer;
}

}  // namespace flotilla::exec
