#pragma once
// CSV tokenizing: bytes into rows of fields, quote- and escape-aware (quoted fields may hold
// delimiters and newlines), and the split of a file into row-aligned chunks that can be parsed in
// parallel. Rows end at "\n", "\r\n" or "\r"; blank lines are
// skipped, except in files of one column, where they are rows with an empty field.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/io/csv/options.h"
#include "flotilla/io/text/line_locator.h"

namespace flotilla::io::csv {

/// The fields of some rows, row-major; quoted fields that held escapes are stored unescaped.
class CsvRows {
 public:
  int num_columns() const { return num_columns_; }
  int64_t num_rows() const { return num_rows_; }
  std::string_view field(int64_t row, int col) const {
    const Field& f = fields_[static_cast<size_t>(row * num_columns_ + col)];
    const char* base = (f.flags & kUnescaped) ? unescaped_.data() : data_;
    return {base + f.offset, f.size};
  }
  bool quoted(int64_t row, int col) const {
    return fields_[static_cast<size_t>(row * num_columns_ + col)].flags & kQuoted;
  }
  /// Offset of the row's first byte in the tokenized bytes.
  int64_t row_offset(int64_t row) const { return row_offsets_[static_cast<size_t>(row)]; }

 private:
  friend class RowCollector;
  static constexpr uint32_t kQuoted = 1, kUnescaped = 2;
  struct Field {
    uint64_t offset;
    uint32_t size;
    uint32_t flags;
  };
  const char* data_ = nullptr;
  int num_columns_ = 0;
  int64_t num_rows_ = 0;
  std::vector<Field> fields_;
  std::vector<int64_t> row_offsets_;
  std::string unescaped_;
};

struct TokenizeOptions {
  /// Fields every row must have; -1: as many as the first row.
  int expected_columns = -1;
  /// Stop after this many rows.
  int64_t max_rows = INT64_MAX;
  /// `data` is a prefix of the file: the last row, possibly cut, is dropped, and a quote still
  /// open at the end is not an error.
  bool truncated = false;
};

/// Tokenizes `data` into `out`. Errors (a row with the wrong number of fields, an unterminated
/// quote, text after a closing quote) name the place through `where`.
Status Tokenize(std::string_view data, const CsvParseOptions& options, const TokenizeOptions& how,
                const text::LineLocator& where, CsvRows* out);

/// Offset just past `lines` rows from the start of `data` (skip_rows and the header).
Result<int64_t> SkipRows(std::string_view data, const CsvParseOptions& options, int64_t rows,
                         const text::LineLocator& where);

/// Row starts splitting data[begin, size) into chunks of about `target` bytes:
/// {begin, ..., data.size()}.
Result<std::vector<int64_t>> SplitRows(std::string_view data, int64_t begin,
                                       const CsvParseOptions& options, int64_t target,
                                       const text::LineLocator& where);

}  // namespace flotilla::io::csv
