#pragma once
// Places in a text file for error messages: "line 12 of 'a.csv'". Counting newlines costs a pass
// over the file, so it happens only when an error is reported.
#include <cstdint>
#include <string>
#include <string_view>

#include "flotilla/io/fs/file.h"

namespace flotilla::io::text {

class LineLocator {
 public:
  /// `chunk` holds the file's bytes from offset `base` on.
  LineLocator(io::RandomAccessFile* file, int64_t base, std::string_view chunk)
      : file_(file), base_(base), chunk_(chunk) {}
  /// "line N (byte B) of 'name'" for offset `offset` within the chunk.
  std::string Describe(int64_t offset) const;

 private:
  io::RandomAccessFile* file_;
  int64_t base_;
  std::string_view chunk_;
};

}  // namespace flotilla::io::text
