#include "flotilla/distributed/shuffle_writer.h"

#include <filesystem>

#include "flotilla/exec/memory/batch_size.h"

namespace flotilla::distributed {

ShuffleWriter::ShuffleWriter(PartitionStore* store, SchemaPtr schema, int partitions,
                             ipc::Compression compression, int64_t flush_bytes)
    : store_(store),
      schema_(std::move(schema)),
      compression_(compression),
      flush_bytes_(flush_bytes),
      held_(static_cast<size_t>(partitions)),
      rows_(static_cast<size_t>(partitions), 0),
      bytes_(static_cast<size_t>(partitions), 0) {}

ShuffleWriter::~ShuffleWriter() {
  store_->Release(reserved_);
  if (file_ != nullptr) {
    std::error_code ec;
    std::filesystem::remove(file_->path(), ec);
  }
}

Status ShuffleWriter::Write(std::vector<std::vector<RecordBatch>> pieces) {
  if (pieces.size() != held_.size()) {
    return Status::Invalid("shuffle writer: " + std::to_string(pieces.size()) +
                           " partitions written to a writer of " + std::to_string(held_.size()));
  }
  int64_t size = 0;
  std::lock_guard lock(mutex_);
  for (size_t p = 0; p < pieces.size(); ++p) {
    for (RecordBatch& b : pieces[p]) {
      rows_[p] += b.num_rows();
      bytes_[p] += exec::SliceBytes(b);
      size += HeldBytes(b);
      held_[p].push_back(std::move(b));
    }
  }
  const bool spent = !store_->TryReserve(size);
  // Past a spent budget, hold a little more, so that chunks are not a few rows each, then write
  // out everything held.
  if (spent) store_->ForceReserve(size);
  reserved_ += size;
  peak_ = std::max(peak_, reserved_);
  return spent && reserved_ >= flush_bytes_ ? FlushLocked() : Status::OK();
}

Status ShuffleWriter::FlushLocked() {
  if (file_ == nullptr) {
    FLOTILLA_ASSIGN_OR_RETURN(std::string path, store_->NewFilePath());
    FLOTILLA_ASSIGN_OR_RETURN(
        file_,
        PartitionFileWriter::Open(path, schema_, static_cast<int>(held_.size()), compression_));
  }
  for (size_t p = 0; p < held_.size(); ++p) {
    FLOTILLA_RETURN_NOT_OK(file_->Append(static_cast<int>(p), held_[p]));
    held_[p].clear();
  }
  store_->Release(reserved_);
  reserved_ = 0;
  ++flushes_;
  return Status::OK();
}

Status ShuffleWriter::Finish(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (file_ == nullptr) {
    // It all stayed in memory: the store takes over what was reserved for it.
    store_->Release(reserved_);
    reserved_ = 0;
    return store_->PutGroup(key, schema_, std::move(held_), compression_);
  }
  FLOTILLA_RETURN_NOT_OK(FlushLocked());
  std::string path = file_->path();
  FLOTILLA_ASSIGN_OR_RETURN(PartitionIndex index, file_->Finish());
  file_bytes_ = index.FileBytes();
  file_.reset();  // the store owns the file now, whatever PutFile returns
  return store_->PutFile(key, std::move(index), std::move(path), compression_);
}

}  // namespace flotilla::distributed
