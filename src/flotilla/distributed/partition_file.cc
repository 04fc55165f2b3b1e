#include "flotilla/distributed/partition_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/io/stream.h"

namespace flotilla::distributed {

int64_t PartitionIndex::StreamBytes(int i) const {
  int64_t n = schema_message->size() + end_marker->size();
  for (const ByteRange& r : chunks[static_cast<size_t>(i)])
    n += r.length;
  return n;
}

int64_t PartitionIndex::FileBytes() const {
  int64_t n = 0;
  for (const auto& ranges : chunks)
    for (const ByteRange& r : ranges)
      n += r.length;
  return n;
}

/// The file as the IPC writer sees it: what it writes while `passing` goes to the file, the rest
/// (each chunk's schema message and end marker) is dropped. Schema messages are padded to a
/// multiple of 8 bytes, so the batches keep their alignment in the file.
class PartitionFileWriter::Sink final : public io::OutputStream {
 public:
  explicit Sink(io::FileOutputStream* file) : file_(file) {}
  Status Write(const void* data, int64_t size) override {
    if (passing) return file_->Write(data, size);
    dropped_ += size;
    return Status::OK();
  }
  int64_t Tell() const override { return file_->Tell() + dropped_; }
  Status Close() override { return Status::OK(); }
  bool passing = false;

 private:
  io::FileOutputStream* file_;
  int64_t dropped_ = 0;
};

Result<std::unique_ptr<PartitionFileWriter>> PartitionFileWriter::Open(
    const std::string& path, SchemaPtr schema, int count, ipc::Compression compression) {
  std::unique_ptr<PartitionFileWriter> w(new PartitionFileWriter());
  w->path_ = path;
  w->options_.compression = compression;
  w->options_.min_compress_bytes = kMinCompressBytes;
  // The messages every partition's stream starts and ends with, kept apart from the file.
  io::BufferOutputStream framing;
  FLOTILLA_ASSIGN_OR_RETURN(auto writer, ipc::StreamWriter::Open(&framing, schema, w->options_));
  const int64_t schema_end = framing.Tell();
  FLOTILLA_RETURN_NOT_OK(writer->Close());
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr both, framing.Finish());
  w->index_.schema = std::move(schema);
  w->index_.schema_message = Buffer::SliceOf(both, 0, schema_end);
  w->index_.end_marker = Buffer::SliceOf(both, schema_end, both->size() - schema_end);
  w->index_.chunks.resize(static_cast<size_t>(count));
  w->index_.rows.assign(static_cast<size_t>(count), 0);
  w->index_.decoded_bytes.assign(static_cast<size_t>(count), 0);
  FLOTILLA_ASSIGN_OR_RETURN(w->file_, io::FileOutputStream::Open(path));
  w->sink_ = std::make_unique<Sink>(w->file_.get());
  return w;
}

PartitionFileWriter::~PartitionFileWriter() = default;

Status PartitionFileWriter::Append(int i, const std::vector<RecordBatch>& batches) {
  if (i < 0 || i >= index_.count()) {
    return Status::IndexError("partition " + std::to_string(i) + " of a file of " +
                              std::to_string(index_.count()));
  }
  int64_t rows = 0;
  for (const RecordBatch& b : batches)
    rows += b.num_rows();
  if (rows == 0) return Status::OK();
  sink_->passing = false;
  FLOTILLA_ASSIGN_OR_RETURN(auto writer,
                            ipc::StreamWriter::Open(sink_.get(), index_.schema, options_));
  sink_->passing = true;
  const int64_t start = file_->Tell();
  for (const RecordBatch& b : batches) {
    if (b.num_rows() > 0) FLOTILLA_RETURN_NOT_OK(writer->WriteBatch(b));
  }
  const int64_t end = file_->Tell();
  sink_->passing = false;
  FLOTILLA_RETURN_NOT_OK(writer->Close());
  const auto p = static_cast<size_t>(i);
  index_.chunks[p].push_back({start, end - start});
  index_.rows[p] += rows;
  for (const RecordBatch& b : batches)
    index_.decoded_bytes[p] += exec::SliceBytes(b);
  return Status::OK();
}

Result<PartitionIndex> PartitionFileWriter::Finish() {
  FLOTILLA_RETURN_NOT_OK(file_->Close());
  return std::move(index_);
}

Result<std::shared_ptr<const OpenPartitionFile>> OpenPartitionFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("cannot open '" + path + "': " + std::strerror(errno));
  return std::shared_ptr<const OpenPartitionFile>(new OpenPartitionFile(path, fd));
}

OpenPartitionFile::~OpenPartitionFile() {
  ::close(fd_);
}

Result<BufferPtr> OpenPartitionFile::ReadStream(const PartitionIndex& index, int i) const {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(index.StreamBytes(i)));
  uint8_t* at = out->mutable_data();
  std::memcpy(at, index.schema_message->data(), static_cast<size_t>(index.schema_message->size()));
  at += index.schema_message->size();
  for (const ByteRange& r : index.chunks[static_cast<size_t>(i)]) {
    for (int64_t done = 0; done < r.length;) {
      ssize_t n = ::pread(fd_, at + done, static_cast<size_t>(r.length - done), r.offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        return Status::IOError("cannot read " + std::to_string(r.length) + " bytes at " +
                               std::to_string(r.offset) + " of '" + path_ +
                               "': " + (n < 0 ? std::strerror(errno) : "the file is shorter"));
      }
      done += n;
    }
    at += r.length;
  }
  std::memcpy(at, index.end_marker->data(), static_cast<size_t>(index.end_marker->size()));
  return out;
}

Result<BufferPtr> ReadPartitionStream(const std::string& path, const PartitionIndex& index, int i) {
  FLOTILLA_ASSIGN_OR_RETURN(auto file, OpenPartitionFile::Open(path));
  return file->ReadStream(index, i);
}

Result<std::vector<RecordBatch>> DecodePartition(const BufferPtr& stream) {
  return ipc::ReadStream(stream);
}

}  // namespace flotilla::distributed
