#include "flotilla/distributed/partition_store.h"

#include <charconv>
#include <filesystem>
#include <tuple>

#include "flotilla/exec/memory/batch_size.h"

namespace flotilla::distributed {

int64_t StoredPartition::num_rows() const {
  int64_t n = 0;
  for (const RecordBatch& b : batches)
    n += b.num_rows();
  return n;
}

int64_t PartitionBytes(const std::vector<RecordBatch>& batches) {
  int64_t n = 0;
  for (const RecordBatch& b : batches)
    n += exec::SliceBytes(b);
  return n;
}

int64_t ServedPartition::Bytes() const {
  if (ipc != nullptr) return ipc->size();
  return read != nullptr ? stream_bytes : PartitionBytes(batches);
}

Result<BufferPtr> ServedPartition::Stream() const {
  if (ipc != nullptr || read == nullptr) return ipc;
  return read();
}

int64_t HeldBytes(const RecordBatch& batch) {
  // A column: its ArrayData (with its control block and buffer list), two or three Buffer
  // objects and each allocation's rounding to 64 bytes. A batch: itself and its column list.
  constexpr int64_t kPerColumn = 384, kPerBatch = 128;
  return exec::SliceBytes(batch) + kPerBatch + kPerColumn * batch.num_columns();
}

namespace {

int64_t HeldBytesOf(const std::vector<RecordBatch>& batches) {
  int64_t n = 0;
  for (const RecordBatch& b : batches)
    n += HeldBytes(b);
  return n;
}

}  // namespace

struct PartitionStore::Entry {
  std::string key;
  bool group = false;  // a map task's partitions, "<key>/p<i>"; else one partition named `key`
  SchemaPtr schema;
  ipc::Compression compression = ipc::Compression::kLz4Frame;  // on disk; a group's on the wire
  std::vector<std::vector<RecordBatch>> partitions;            // in memory, until spilled
  std::shared_ptr<const PartitionIndex> index;  // once spilled: where each partition is
  std::string spill_path;                       // set once spilled
  int64_t bytes = 0;                            // in memory, or on disk once spilled
  // The spill file, kept open once read (at most kMaxOpenFiles of them; others are opened per
  // read).
  mutable std::shared_ptr<const OpenPartitionFile> file;

  bool spilled() const { return !spill_path.empty(); }
  std::string id(int i) const { return group ? key + "/p" + std::to_string(i) : key; }
  int count() const { return static_cast<int>(spilled() ? index->count() : partitions.size()); }
};

PartitionStore::PartitionStore(int64_t memory_budget, std::string spill_dir)
    : memory_budget_(memory_budget), spill_dir_(std::move(spill_dir)) {}

PartitionStore::~PartitionStore() {
  std::error_code ec;
  for (const auto& e : entries_) {
    if (!e->spill_path.empty()) std::filesystem::remove(e->spill_path, ec);
  }
}

void PartitionStore::ForgetLocked(const Entry& e) {
  by_id_.erase(e.key);
  if (e.file != nullptr) {
    // (A read under way keeps the descriptor, and so the deleted file, until it ends.)
    e.file.reset();
    --open_files_;
  }
  if (e.spill_path.empty()) {
    memory_bytes_ -= e.bytes;
  } else {
    spilled_bytes_ -= e.bytes;
    std::error_code ec;
    std::filesystem::remove(e.spill_path, ec);
  }
}

Status PartitionStore::AddLocked(std::unique_ptr<Entry> entry) {
  if (auto old = by_id_.find(entry->key); old != by_id_.end()) {
    const Entry* replaced = old->second;
    ForgetLocked(*replaced);
    std::erase_if(entries_, [&](const auto& e) { return e.get() == replaced; });
  }
  (entry->spilled() ? spilled_bytes_ : memory_bytes_) += entry->bytes;
  by_id_[entry->key] = entry.get();
  entries_.push_back(std::move(entry));
  return SpillLocked();
}

Status PartitionStore::Put(const std::string& id, StoredPartition partition) {
  auto entry = std::make_unique<Entry>();
  entry->key = id;
  entry->schema = std::move(partition.schema);
  entry->bytes = HeldBytesOf(partition.batches);
  entry->partitions.push_back(std::move(partition.batches));
  std::lock_guard lock(mutex_);
  return AddLocked(std::move(entry));
}

Status PartitionStore::PutGroup(const std::string& key, SchemaPtr schema,
                                std::vector<std::vector<RecordBatch>> partitions,
                                ipc::Compression compression) {
  auto entry = std::make_unique<Entry>();
  entry->key = key;
  entry->group = true;
  entry->schema = std::move(schema);
  entry->compression = compression;
  for (const std::vector<RecordBatch>& p : partitions)
    entry->bytes += HeldBytesOf(p);
  entry->partitions = std::move(partitions);
  std::lock_guard lock(mutex_);
  return AddLocked(std::move(entry));
}

Status PartitionStore::PutFile(const std::string& key, PartitionIndex index, std::string path,
                               ipc::Compression compression) {
  auto entry = std::make_unique<Entry>();
  entry->key = key;
  entry->group = true;
  entry->schema = index.schema;
  entry->compression = compression;
  entry->bytes = index.FileBytes();
  entry->index = std::make_shared<const PartitionIndex>(std::move(index));
  entry->spill_path = std::move(path);
  std::lock_guard lock(mutex_);
  ++spills_;
  spilled_.emplace_back(key, entry->bytes);
  return AddLocked(std::move(entry));
}

bool PartitionStore::TryReserve(int64_t bytes) {
  std::lock_guard lock(mutex_);
  if (memory_budget_ > 0 && memory_bytes_ + bytes > memory_budget_) return false;
  memory_bytes_ += bytes;
  return true;
}

void PartitionStore::ForceReserve(int64_t bytes) {
  std::lock_guard lock(mutex_);
  memory_bytes_ += bytes;
}

void PartitionStore::Release(int64_t bytes) {
  std::lock_guard lock(mutex_);
  memory_bytes_ -= bytes;
}

Result<std::string> PartitionStore::NewFilePath() {
  std::lock_guard lock(mutex_);
  return NewFilePathLocked();
}

Result<std::string> PartitionStore::NewFilePathLocked() {
  std::error_code ec;
  std::filesystem::create_directories(spill_dir_, ec);
  if (ec) {
    return Status::IOError("partition store: cannot create spill directory '" + spill_dir_ +
                           "': " + ec.message());
  }
  return spill_dir_ + "/partition-" + std::to_string(next_file_++) + ".arrows";
}

Status PartitionStore::SpillLocked() {
  if (memory_budget_ <= 0) return Status::OK();
  // The newest entry stays in memory: it is the likeliest to be read next.
  for (size_t i = 0; i + 1 < entries_.size() && memory_bytes_ > memory_budget_; ++i) {
    Entry& e = *entries_[i];
    if (e.spilled()) continue;
    auto context = [&](const Status& s) {
      return s.WithContext("partition store: spilling '" + e.key + "'");
    };
    Result<std::string> path = NewFilePathLocked();
    if (!path.ok()) return path.status();
    // Every partition of the entry in one file, each a byte range of its own.
    Result<PartitionIndex> index = [&]() -> Result<PartitionIndex> {
      FLOTILLA_ASSIGN_OR_RETURN(
          auto writer, PartitionFileWriter::Open(*path, e.schema, e.count(), e.compression));
      for (int i = 0; i < e.count(); ++i)
        FLOTILLA_RETURN_NOT_OK(writer->Append(i, e.partitions[static_cast<size_t>(i)]));
      return writer->Finish();
    }();
    if (!index.ok()) {
      std::error_code ec;
      std::filesystem::remove(*path, ec);
      return context(index.status());
    }
    memory_bytes_ -= e.bytes;
    e.bytes = index->FileBytes();
    spilled_bytes_ += e.bytes;
    e.partitions.clear();
    e.index = std::make_shared<const PartitionIndex>(index.MoveValueUnsafe());
    e.spill_path = path.MoveValueUnsafe();
    ++spills_;
    spilled_.emplace_back(e.key, e.bytes);
  }
  return Status::OK();
}

std::pair<const PartitionStore::Entry*, int> PartitionStore::FindLocked(
    const std::string& id) const {
  if (auto it = by_id_.find(id); it != by_id_.end() && !it->second->group) return {it->second, 0};
  // "<key>/p<i>" of a group.
  const size_t slash = id.rfind("/p");
  if (slash == std::string::npos) return {nullptr, -1};
  int index = -1;
  const char* first = id.data() + slash + 2;
  const char* last = id.data() + id.size();
  auto [end, error] = std::from_chars(first, last, index);
  if (error != std::errc() || end != last || first == last) return {nullptr, -1};
  auto it = by_id_.find(id.substr(0, slash));
  if (it == by_id_.end() || !it->second->group || index < 0 || index >= it->second->count()) {
    return {nullptr, -1};
  }
  return {it->second, index};
}

Result<ServedPartition> PartitionStore::Locate(const std::string& id) const {
  ServedPartition out;
  std::lock_guard lock(mutex_);
  auto [e, i] = FindLocked(id);
  if (e == nullptr) return Status::KeyError("partition '" + id + "' is not in this worker's store");
  out.schema = e->schema;
  // A single partition (a result, a broadcast side) goes out plain; lz4 is its disk codec.
  out.compression = e->group ? e->compression : ipc::Compression::kNone;
  if (!e->spilled()) {
    out.batches = e->partitions[static_cast<size_t>(i)];
    return out;
  }
  if (e->file == nullptr && open_files_ < kMaxOpenFiles) {
    Result<std::shared_ptr<const OpenPartitionFile>> opened =
        OpenPartitionFile::Open(e->spill_path);
    if (opened.ok()) {
      e->file = opened.MoveValueUnsafe();
      ++open_files_;
    }
  }
  out.stream_bytes = e->index->StreamBytes(i);
  // Read without the lock; an entry dropped meanwhile has lost its file, and this fails unless
  // the file was open already.
  out.read = [index = e->index, path = e->spill_path, file = e->file, i,
              id]() -> Result<BufferPtr> {
    Result<BufferPtr> read =
        file != nullptr ? file->ReadStream(*index, i) : ReadPartitionStream(path, *index, i);
    if (!read.ok()) {
      return read.status().WithContext("partition store: reading spilled partition '" + id + "'");
    }
    return read;
  };
  return out;
}

Result<ServedPartition> PartitionStore::Serve(const std::string& id) const {
  FLOTILLA_ASSIGN_OR_RETURN(ServedPartition out, Locate(id));
  if (out.read != nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(out.ipc, out.read());
    out.read = nullptr;
  }
  return out;
}

Result<StoredPartition> PartitionStore::Get(const std::string& id) const {
  FLOTILLA_ASSIGN_OR_RETURN(ServedPartition served, Serve(id));
  if (served.ipc == nullptr) return StoredPartition{served.schema, std::move(served.batches)};
  Result<std::vector<RecordBatch>> batches = DecodePartition(served.ipc);
  if (!batches.ok()) {
    return batches.status().WithContext("partition store: decoding partition '" + id + "'");
  }
  return StoredPartition{served.schema, batches.MoveValueUnsafe()};
}

bool PartitionStore::Contains(const std::string& id) const {
  std::lock_guard lock(mutex_);
  return FindLocked(id).first != nullptr;
}

std::vector<ListedPartition> PartitionStore::List(const std::string& prefix) const {
  std::lock_guard lock(mutex_);
  std::vector<ListedPartition> out;
  for (const auto& e : entries_) {
    for (int i = 0; i < e->count(); ++i) {
      std::string id = e->id(i);
      if (id.compare(0, prefix.size(), prefix) != 0) continue;
      if (!e->spilled()) {
        const std::vector<RecordBatch>& batches = e->partitions[static_cast<size_t>(i)];
        out.push_back({std::move(id), e->schema, StoredPartition{{}, batches}.num_rows(),
                       PartitionBytes(batches)});
      } else {
        out.push_back({std::move(id), e->schema, e->index->rows[static_cast<size_t>(i)],
                       e->index->decoded_bytes[static_cast<size_t>(i)]});
      }
    }
  }
  return out;
}

void PartitionStore::DropPrefix(const std::string& prefix) {
  std::lock_guard lock(mutex_);
  std::erase_if(entries_, [&](const std::unique_ptr<Entry>& e) {
    if (e->key.compare(0, prefix.size(), prefix) != 0) return false;
    ForgetLocked(*e);
    return true;
  });
}

int64_t PartitionStore::DropTask(const std::string& key) {
  std::lock_guard lock(mutex_);
  int64_t freed = 0;
  const std::string children = key + "/";
  std::erase_if(entries_, [&](const std::unique_ptr<Entry>& e) {
    if (e->key != key && e->key.compare(0, children.size(), children) != 0) return false;
    freed += e->bytes;
    ForgetLocked(*e);
    return true;
  });
  return freed;
}

std::vector<std::pair<std::string, int64_t>> PartitionStore::TakeSpilled() {
  std::lock_guard lock(mutex_);
  return std::exchange(spilled_, {});
}

PartitionStoreStats PartitionStore::stats() const {
  std::lock_guard lock(mutex_);
  return {static_cast<int64_t>(entries_.size()), memory_bytes_, spilled_bytes_, spills_};
}

}  // namespace flotilla::distributed
