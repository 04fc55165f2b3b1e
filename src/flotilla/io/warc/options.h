#pragma once
// Options of the WARC reader.

namespace flotilla::io::warc {

struct WarcReadOptions {
  /// Skips a record that cannot be read (a malformed header, a corrupt gzip member, a record cut
  /// short at the end of the file) and goes on with the next one it can find, instead of failing
  /// the scan.
  bool ignore_errors = false;
};

}  // namespace flotilla::io::warc
