#include "flotilla/distributed/partition_store.h"

#include <filesystem>

#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/io/ipc/ipc.h"

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

struct PartitionStore::Entry {
  std::string id;
  SchemaPtr schema;
  std::vector<RecordBatch> batches;  // empty once spilled
  std::string spill_path;            // set once spilled
  int64_t bytes = 0;                 // in memory, or on disk once spilled
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
  by_id_.erase(e.id);
  if (e.spill_path.empty()) {
    memory_bytes_ -= e.bytes;
  } else {
    spilled_bytes_ -= e.bytes;
    std::error_code ec;
    std::filesystem::remove(e.spill_path, ec);
  }
}

Status PartitionStore::Put(const std::string& id, StoredPartition partition) {
  std::lock_guard lock(mutex_);
  if (auto old = by_id_.find(id); old != by_id_.end()) {
    const Entry* replaced = old->second;
    ForgetLocked(*replaced);
    std::erase_if(entries_, [&](const auto& e) { return e.get() == replaced; });
  }
  auto entry = std::make_unique<Entry>();
  entry->id = id;
  entry->schema = std::move(partition.schema);
  entry->bytes = PartitionBytes(partition.batches);
  entry->batches = std::move(partition.batches);
  memory_bytes_ += entry->bytes;
  by_id_[id] = entry.get();
  entries_.push_back(std::move(entry));
  return SpillLocked();
}

Status PartitionStore::SpillLocked() {
  if (memory_budget_ <= 0) return Status::OK();
  // The newest partition stays in memory: it is the likeliest to be read next.
  for (size_t i = 0; i + 1 < entries_.size() && memory_bytes_ > memory_budget_; ++i) {
    Entry& e = *entries_[i];
    if (!e.spill_path.empty()) continue;
    std::error_code ec;
    std::filesystem::create_directories(spill_dir_, ec);
    if (ec) {
      return Status::IOError("partition store: cannot create spill directory '" + spill_dir_ +
                             "': " + ec.message());
    }
    std::string path = spill_dir_ + "/partition-" + std::to_string(next_file_++) + ".arrows";
    ipc::WriteOptions options;
    options.compression = ipc::Compression::kLz4Frame;
    Status s = ipc::WriteStreamFile(path, e.schema, e.batches, options);
    if (!s.ok()) {
      return s.WithContext("partition store: spilling partition '" + e.id + "'");
    }
    memory_bytes_ -= e.bytes;
    e.bytes = static_cast<int64_t>(std::filesystem::file_size(path, ec));
    spilled_bytes_ += e.bytes;
    e.batches.clear();
    e.spill_path = std::move(path);
    ++spills_;
  }
  return Status::OK();
}

Result<StoredPartition> PartitionStore::Get(const std::string& id) const {
  std::string path;
  StoredPartition out;
  {
    std::lock_guard lock(mutex_);
    auto it = by_id_.find(id);
    if (it == by_id_.end())
      return Status::KeyError("partition '" + id + "' is not in this worker's store");
    const Entry* found = it->second;
    out.schema = found->schema;
    if (found->spill_path.empty()) {
      out.batches = found->batches;
      return out;
    }
    path = found->spill_path;
  }
  auto batches = ipc::ReadFile(path);
  if (!batches.ok()) {
    return batches.status().WithContext("partition store: reading spilled partition '" + id + "'");
  }
  out.batches = batches.MoveValueUnsafe();
  return out;
}

bool PartitionStore::Contains(const std::string& id) const {
  std::lock_guard lock(mutex_);
  return by_id_.count(id) > 0;
}

void PartitionStore::DropPrefix(const std::string& prefix) {
  std::lock_guard lock(mutex_);
  std::erase_if(entries_, [&](const std::unique_ptr<Entry>& e) {
    if (e->id.compare(0, prefix.size(), prefix) != 0) return false;
    ForgetLocked(*e);
    return true;
  });
}

PartitionStoreStats PartitionStore::stats() const {
  std::lock_guard lock(mutex_);
  return {static_cast<int64_t>(entries_.size()), memory_bytes_, spilled_bytes_, spills_};
}

}  // namespace flotilla::distributed
