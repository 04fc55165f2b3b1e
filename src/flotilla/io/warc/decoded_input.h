#pragma once
// The bytes of a WARC file as the record parser sees them: the file itself, or, for gzip files,
// their decompressed content, produced as the parser asks for it. Common Crawl compresses each
// record as its own gzip member so that a record can be fetched by offset; the input remembers
// where every member starts, which is the offset a record is known by in such files.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "flotilla/columnar/buffer.h"
#include "flotilla/common/result.h"
#include "flotilla/io/fs/file.h"

namespace flotilla::io::warc {

class DecodedInput {
 public:
  /// Reads `file` whole (a zero-copy view for local files); gzip is recognised by its magic bytes.
  static Result<std::unique_ptr<DecodedInput>> Open(io::RandomAccessFile* file);
  ~DecodedInput();

  bool gzip() const { return stream_ != nullptr; }
  /// The decoded bytes from the current position that are at hand (at least `n` after Fill(n),
  /// unless the input ends first). Valid until the next Fill.
  std::string_view buffered() const {
    return gzip() ? std::string_view(decoded_).substr(pos_) : raw_view_.substr(pos_);
  }
  /// Decodes until `n` bytes are buffered or the input ends. A decoding error (a corrupt or
  /// truncated gzip member) fails Fill only when nothing is buffered: the records before the
  /// damage stay readable, and the error waits in error().
  Status Fill(size_t n);
  /// The decoding error that ended the input early, if any.
  const Status& error() const { return error_; }
  void Skip(size_t n) { pos_ += n; }
  /// The offset in the file of the record that starts at the current position: the position
  /// itself in a plain file, the start of the gzip member holding it in a compressed one.
  int64_t record_offset() const;
  /// After a damaged record: drops what is buffered and moves to the next place a record may
  /// start (the next gzip member; in a plain file, the next line that starts with "WARC/").
  /// False when there is none.
  bool Resync();

 private:
  DecodedInput() = default;
  Status DecodeMore();
  void StartMember(int64_t compressed_offset);

  BufferPtr raw_;
  std::string_view raw_view_;
  size_t pos_ = 0;  // into raw_view_ (plain) or decoded_ (gzip)

  // gzip only.
  struct Stream;
  std::unique_ptr<Stream> stream_;
  std::string decoded_;
  int64_t decoded_base_ = 0;  // decoded bytes dropped from the front of decoded_
  size_t compressed_pos_ = 0;
  bool input_done_ = false;
  Status error_;
  // (decoded position, compressed offset) of the members that may still hold buffered bytes.
  std::deque<std::pair<int64_t, int64_t>> members_;
};

}  // namespace flotilla::io::warc
