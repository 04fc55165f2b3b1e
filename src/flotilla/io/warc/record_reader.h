#pragma once
// WARC 1.0/1.1 records (ISO 28500) one after another: a version line, named header fields up to
// an empty line, a block of exactly Content-Length bytes, and CRLF CRLF.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flotilla/io/warc/decoded_input.h"

namespace flotilla::io::warc {

struct WarcRecord {
  std::string version;                                       // "WARC/1.1"
  std::vector<std::pair<std::string, std::string>> headers;  // in file order, names as written
  std::string_view block;  // valid until the next WarcRecordReader::Next
  int64_t offset = 0;      // see DecodedInput::record_offset

  /// The value of the first header named `name` (any case), or null.
  const std::string* Find(std::string_view name) const;
};

class WarcRecordReader {
 public:
  WarcRecordReader(std::unique_ptr<DecodedInput> input, bool ignore_errors)
      : input_(std::move(input)), ignore_errors_(ignore_errors) {}

  /// The next record into `record`; false at the end of the file. Errors name the record's
  /// offset (the scan adds the file's name); with ignore_errors a damaged record is skipped
  /// (counted in skipped()).
  Result<bool> Next(WarcRecord* record);
  int64_t skipped() const { return skipped_; }

 private:
  Result<bool> TryNext(WarcRecord* record);
  Status Error(int64_t offset, const std::string& what) const;

  std::unique_ptr<DecodedInput> input_;
  bool ignore_errors_;
  int64_t skipped_ = 0;
};

}  // namespace flotilla::io::warc
