#include "flotilla/io/warc/decoded_input.h"

#include <zlib.h>

#include <algorithm>

namespace flotilla::io::warc {
namespace {

constexpr size_t kDecodeChunk = size_t{1} << 20;

bool IsGzipMagic(std::string_view bytes, size_t at) {
  return at + 3 <= bytes.size() && static_cast<unsigned char>(bytes[at]) == 0x1f &&
         static_cast<unsigned char>(bytes[at + 1]) == 0x8b && bytes[at + 2] == 8;
}

}  // namespace

struct DecodedInput::Stream {
  z_stream z{};
  bool initialized = false;
  ~Stream() {
    if (initialized) inflateEnd(&z);
  }
};

DecodedInput::~DecodedInput() = default;

Result<std::unique_ptr<DecodedInput>> DecodedInput::Open(io::RandomAccessFile* file) {
  std::unique_ptr<DecodedInput> input(new DecodedInput());
  FLOTILLA_ASSIGN_OR_RETURN(input->raw_, file->ReadAt(0, file->size()));
  input->raw_view_ = input->raw_->view();
  if (IsGzipMagic(input->raw_view_, 0)) {
    input->stream_ = std::make_unique<Stream>();
    // 15 + 32: zlib or gzip headers, detected; each member is reset explicitly at its end.
    if (inflateInit2(&input->stream_->z, 15 + 32) != Z_OK)
      return Status::OutOfMemory("cannot start gzip decompression");
    input->stream_->initialized = true;
    input->StartMember(0);
  }
  return input;
}

void DecodedInput::StartMember(int64_t compressed_offset) {
  members_.emplace_back(decoded_base_ + static_cast<int64_t>(decoded_.size()), compressed_offset);
}

int64_t DecodedInput::record_offset() const {
  if (!gzip()) return static_cast<int64_t>(pos_);
  const int64_t at = decoded_base_ + static_cast<int64_t>(pos_);
  int64_t offset = members_.empty() ? 0 : members_.front().second;
  for (const auto& [decoded, compressed] : members_) {
    if (decoded > at) break;
    offset = compressed;
  }
  return offset;
}

Status DecodedInput::Fill(size_t n) {
  if (!gzip()) return Status::OK();
  while (decoded_.size() - pos_ < n && !input_done_) {
    Status decoded = DecodeMore();
    if (!decoded.ok()) {
      input_done_ = true;
      error_ = decoded;
      if (decoded_.size() == pos_) return decoded;
    }
  }
  return Status::OK();
}

Status DecodedInput::DecodeMore() {
  // Drop what the parser has moved past, keeping the member starts that still matter.
  if (pos_ > 0 && pos_ >= decoded_.size() / 2) {
    decoded_.erase(0, pos_);
    decoded_base_ += static_cast<int64_t>(pos_);
    pos_ = 0;
    while (members_.size() > 1 && members_[1].first <= decoded_base_)
      members_.pop_front();
  }
  z_stream& z = stream_->z;
  const size_t old_size = decoded_.size();
  decoded_.resize(old_size + kDecodeChunk);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw_view_.data() + compressed_pos_));
  z.avail_in = static_cast<uInt>(std::min<size_t>(raw_view_.size() - compressed_pos_, 1u << 30));
  z.next_out = reinterpret_cast<Bytef*>(decoded_.data() + old_size);
  z.avail_out = static_cast<uInt>(kDecodeChunk);
  const int rc = inflate(&z, Z_NO_FLUSH);
  const size_t consumed =
      static_cast<size_t>(z.next_in - reinterpret_cast<const Bytef*>(raw_view_.data())) -
      compressed_pos_;
  compressed_pos_ += consumed;
  decoded_.resize(old_size + (kDecodeChunk - z.avail_out));
  const int64_t member = members_.back().second;
  if (rc == Z_STREAM_END) {
    if (compressed_pos_ >= raw_view_.size()) {
      input_done_ = true;
      return Status::OK();
    }
    if (!IsGzipMagic(raw_view_, compressed_pos_)) {
      // Some writers pad the file; zeros after the last member are not data.
      if (std::all_of(raw_view_.begin() + static_cast<ptrdiff_t>(compressed_pos_), raw_view_.end(),
                      [](char c) { return c == 0; })) {
        input_done_ = true;
        return Status::OK();
      }
      return Status::Invalid("bytes at offset " + std::to_string(compressed_pos_) +
                             " after a gzip member are not another gzip member");
    }
    inflateReset(&z);
    StartMember(static_cast<int64_t>(compressed_pos_));
    return Status::OK();
  }
  if (rc == Z_OK) return Status::OK();
  if (rc == Z_BUF_ERROR && compressed_pos_ >= raw_view_.size()) {
    return Status::Invalid("the gzip member at offset " + std::to_string(member) +
                           " is truncated (the file ends inside it)");
  }
  return Status::Invalid("corrupt gzip data in the member at offset " + std::to_string(member) +
                         ": " + (z.msg != nullptr ? z.msg : "inflate failed"));
}

bool DecodedInput::Resync() {
  if (!gzip()) {
    // The next "WARC/" at a line start after the current position.
    const size_t at = raw_view_.find("\nWARC/", pos_);
    pos_ = at == std::string_view::npos ? raw_view_.size() : at + 1;
    return at != std::string_view::npos;
  }
  // The next gzip member after the one the damaged record started in.
  const int64_t damaged = record_offset();
  size_t at = static_cast<size_t>(std::max<int64_t>(damaged + 1, 0));
  for (; at + 3 <= raw_view_.size(); ++at) {
    at = raw_view_.find('\x1f', at);
    if (at == std::string_view::npos) break;
    if (IsGzipMagic(raw_view_, at)) break;
  }
  decoded_base_ += static_cast<int64_t>(decoded_.size());
  decoded_.clear();
  pos_ = 0;
  members_.clear();
  if (at == std::string_view::npos || at + 3 > raw_view_.size()) {
    input_done_ = true;
    error_ = Status::OK();
    StartMember(static_cast<int64_t>(raw_view_.size()));
    return false;
  }
  inflateReset(&stream_->z);
  compressed_pos_ = at;
  input_done_ = false;
  error_ = Status::OK();
  StartMember(static_cast<int64_t>(at));
  return true;
}

}  // namespace flotilla::io::warc
