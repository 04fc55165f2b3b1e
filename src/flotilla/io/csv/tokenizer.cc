#include "flotilla/io/csv/tokenizer.h"

#include <array>
#include <cstring>

namespace flotilla::io::csv {

namespace {

constexpr int64_t kIncomplete = -1;

// The state machine shared by tokenizing and splitting: one row at a time, each field handed to
// a sink as (begin, end, quoted, escaped) offsets into the data.
class RowScanner {
 public:
  RowScanner(std::string_view data, const CsvParseOptions& options, bool truncated,
             const text::LineLocator& where)
      : data_(data.data()),
        n_(static_cast<int64_t>(data.size())),
        options_(options),
        truncated_(truncated),
        where_(where) {
    special_.fill(false);
    special_[static_cast<unsigned char>(options.delimiter)] = true;
    special_['\n'] = special_['\r'] = true;
    quoting_ = options.quote != '\0';
    escape_ = options.escape != options.quote ? options.escape : '\0';
  }

  int64_t size() const { return n_; }

  /// Skips blank lines from `pos`; returns the next row's start (n_ at the end).
  int64_t SkipBlank(int64_t pos) const {
    while (pos < n_ && (data_[pos] == '\n' || data_[pos] == '\r'))
      ++pos;
    return pos;
  }

  /// Parses the row at `pos` (not blank): the offset after it, or kIncomplete when the data ends
  /// inside a quote in truncated mode.
  template <typename Sink>
  Result<int64_t> Row(int64_t pos, Sink& sink) const {
    const int64_t row_start = pos;
    while (true) {
      if (quoting_ && pos < n_ && data_[pos] == options_.quote) {
        const int64_t start = ++pos;
        bool escaped = false;
        while (true) {
          pos = FindQuoteOrEscape(pos);
          if (pos >= n_) {
            if (truncated_) return kIncomplete;
            return Status::Invalid("unterminated quoted field starting at " +
                                   where_.Describe(start - 1));
          }
          if (escape_ != '\0' && data_[pos] == escape_) {
            escaped = true;
            pos += 2;
            continue;
          }
          if (pos + 1 < n_ && data_[pos + 1] == options_.quote) {
            escaped = true;
            pos += 2;
            continue;
          }
          break;
        }
        FLOTILLA_RETURN_NOT_OK(sink.Field(start, pos, true, escaped));
        ++pos;
        if (pos < n_ && !special_[static_cast<unsigned char>(data_[pos])]) {
          return Status::Invalid("unexpected '" + std::string(1, data_[pos]) +
                                 "' after a closing quote at " + where_.Describe(pos) +
                                 " (a quote inside a quoted field is written twice)");
        }
      } else {
        const int64_t start = pos;
        while (pos < n_ && !special_[static_cast<unsigned char>(data_[pos])])
          ++pos;
        FLOTILLA_RETURN_NOT_OK(sink.Field(start, pos, false, false));
      }
      if (pos >= n_) break;
      const char c = data_[pos];
      if (c == options_.delimiter) {
        ++pos;
        continue;
      }
      ++pos;  // '\n' or '\r'
      if (c == '\r' && pos < n_ && data_[pos] == '\n') ++pos;
      break;
    }
    FLOTILLA_RETURN_NOT_OK(sink.EndRow(row_start));
    return pos;
  }

  /// Copies a quoted field's content without its escapes.
  void Unescape(int64_t begin, int64_t end, std::string* out) const {
    for (int64_t i = begin; i < end; ++i) {
      const char c = data_[i];
      if ((escape_ != '\0' && c == escape_) || c == options_.quote) ++i;  // keep the next byte
      if (i < end) out->push_back(data_[i]);
    }
  }

 private:
  int64_t FindQuoteOrEscape(int64_t pos) const {
    if (escape_ == '\0') {
      const void* hit = std::memchr(data_ + pos, options_.quote, static_cast<size_t>(n_ - pos));
      return hit ? static_cast<const char*>(hit) - data_ : n_;
    }
    while (pos < n_ && data_[pos] != options_.quote && data_[pos] != escape_)
      ++pos;
    return pos;
  }

  const char* data_;
  int64_t n_;
  const CsvParseOptions& options_;
  bool truncated_;
  const text::LineLocator& where_;
  std::array<bool, 256> special_;
  bool quoting_;
  char escape_;
};

struct CountingSink {
  Status Field(int64_t, int64_t, bool, bool) { return Status::OK(); }
  Status EndRow(int64_t) { return Status::OK(); }
};

}  // namespace

class RowCollector {
 public:
  RowCollector(const RowScanner& scanner, const char* data, int expected_columns, CsvRows* out,
               const text::LineLocator& where)
      : scanner_(scanner), out_(out), where_(where) {
    *out = CsvRows();
    out->data_ = data;
    out->num_columns_ = expected_columns;
  }
  int64_t rows() const { return out_->num_rows_; }
  void Finish() {
    if (out_->num_columns_ < 0) out_->num_columns_ = 0;
  }

  Status Field(int64_t begin, int64_t end, bool quoted, bool escaped) {
    if (end - begin > UINT32_MAX) return Status::Invalid("a CSV field over 4 GiB");
    CsvRows::Field f{static_cast<uint64_t>(begin), static_cast<uint32_t>(end - begin),
                     quoted ? CsvRows::kQuoted : 0u};
    if (escaped) {
      f.offset = out_->unescaped_.size();
      scanner_.Unescape(begin, end, &out_->unescaped_);
      f.size = static_cast<uint32_t>(out_->unescaped_.size() - f.offset);
      f.flags |= CsvRows::kUnescaped;
    }
    out_->fields_.push_back(f);
    ++fields_in_row_;
    return Status::OK();
  }

  Status EndRow(int64_t row_start) {
    if (out_->num_columns_ < 0) out_->num_columns_ = fields_in_row_;
    if (fields_in_row_ != out_->num_columns_) {
      return Status::Invalid("expected " + std::to_string(out_->num_columns_) + " fields, found " +
                             std::to_string(fields_in_row_) + " at " + where_.Describe(row_start));
    }
    fields_in_row_ = 0;
    out_->row_offsets_.push_back(row_start);
    ++out_->num_rows_;
    return Status::OK();
  }

  /// Forgets the last row (a possibly cut one at the end of a prefix).
  void DropLastRow() {
    if (out_->num_rows_ == 0) return;
    --out_->num_rows_;
    out_->row_offsets_.pop_back();
    out_->fields_.resize(static_cast<size_t>(out_->num_rows_ * out_->num_columns_));
  }
  void DropPartialRow() {
    out_->fields_.resize(out_->fields_.size() - static_cast<size_t>(fields_in_row_));
    fields_in_row_ = 0;
  }

 private:
  const RowScanner& scanner_;
  CsvRows* out_;
  const text::LineLocator& where_;
  int fields_in_row_ = 0;
};

Status Tokenize(std::string_view data, const CsvParseOptions& options, const TokenizeOptions& how,
                const text::LineLocator& where, CsvRows* out) {
  RowScanner scanner(data, options, how.truncated, where);
  RowCollector collector(scanner, data.data(), how.expected_columns, out, where);
  // With one column a blank line is a row holding one empty field (a null, as written); with
  // more it is skipped.
  const bool blank_is_row = how.expected_columns == 1;
  auto next_row = [&](int64_t pos) { return blank_is_row ? pos : scanner.SkipBlank(pos); };
  int64_t pos = next_row(0);
  while (pos < scanner.size() && collector.rows() < how.max_rows) {
    FLOTILLA_ASSIGN_OR_RETURN(int64_t next, scanner.Row(pos, collector));
    if (next == kIncomplete) {
      collector.DropPartialRow();
      break;
    }
    pos = next_row(next);
  }
  if (how.truncated && pos >= scanner.size()) collector.DropLastRow();
  collector.Finish();
  return Status::OK();
}

Result<int64_t> SkipRows(std::string_view data, const CsvParseOptions& options, int64_t rows,
                         const text::LineLocator& where) {
  RowScanner scanner(data, options, false, where);
  CountingSink sink;
  int64_t pos = 0;
  for (int64_t r = 0; r < rows; ++r) {
    pos = scanner.SkipBlank(pos);
    if (pos >= scanner.size()) break;
    FLOTILLA_ASSIGN_OR_RETURN(pos, scanner.Row(pos, sink));
  }
  return pos;
}

Result<std::vector<int64_t>> SplitRows(std::string_view data, int64_t begin,
                                       const CsvParseOptions& options, int64_t target,
                                       const text::LineLocator& where) {
  RowScanner scanner(data, options, false, where);
  CountingSink sink;
  std::vector<int64_t> starts = {begin};
  int64_t pos = begin;
  while (pos < scanner.size()) {
    FLOTILLA_ASSIGN_OR_RETURN(pos, scanner.Row(pos, sink));
    if (pos - starts.back() >= target && pos < scanner.size()) starts.push_back(pos);
  }
  starts.push_back(scanner.size());
  return starts;
}

}  // namespace flotilla::io::csv
