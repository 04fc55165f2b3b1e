#include "flotilla/io/warc/record_reader.h"

#include <charconv>

#include "flotilla/common/ascii.h"
#include "flotilla/common/utf8.h"

namespace flotilla::io::warc {
namespace {

// A header block longer than this is not a WARC header (or is hostile).
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Up to 40 bytes of `s` for a message, non-printable bytes as \xNN.
std::string Excerpt(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The end of the header block (the index just past its empty line) in `s`, or npos. Lines end
// in CRLF as the standard says; a bare LF is accepted too.
size_t HeaderEnd(std::string_view s) {
  for (size_t at = s.find('\n'); at != std::string_view::npos; at = s.find('\n', at + 1)) {
    const size_t next = at + 1;
    if (next < s.size() && s[next] == '\n') return next + 1;
    if (next + 1 < s.size() && s[next] == '\r' && s[next + 1] == '\n') return next + 2;
  }
  return std::string_view::npos;
}

}  // namespace

const std::string* WarcRecord::Find(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (AsciiEqualsIgnoreCase(key, name)) return &value;
  }
  return nullptr;
}

Status WarcRecordReader::Error(int64_t offset, const std::string& what) const {
  return Status::Invalid("WARC record at offset " + std::to_string(offset) + ": " + what);
}

Result<bool> WarcRecordReader::Next(WarcRecord* record) {
  for (;;) {
    Result<bool> next = TryNext(record);
    if (next.ok() || !ignore_errors_) return next;
    ++skipped_;
    if (!input_->Resync()) return false;
  }
}

Result<bool> WarcRecordReader::TryNext(WarcRecord* record) {
  // Records end in CRLF CRLF; tolerate more or fewer line breaks between them.
  for (;;) {
    FLOTILLA_RETURN_NOT_OK(input_->Fill(1));
    const std::string_view b = input_->buffered();
    if (b.empty()) {
      if (!input_->error().ok()) return input_->error();
      return false;
    }
    if (b.front() != '\r' && b.front() != '\n') break;
    input_->Skip(1);
  }
  const int64_t offset = input_->record_offset();
  size_t header_end;
  for (size_t want = 4096;; want *= 2) {
    FLOTILLA_RETURN_NOT_OK(input_->Fill(want));
    const std::string_view b = input_->buffered();
    if (b.size() >= 5 && b.substr(0, 5) != "WARC/") {
      return Error(offset, "expected a version line such as WARC/1.1, found '" + Excerpt(b) + "'");
    }
    header_end = HeaderEnd(b.substr(0, kMaxHeaderBytes));
    if (header_end != std::string_view::npos) break;
    if (b.size() >= kMaxHeaderBytes)
      return Error(offset, "the header is longer than 1 MiB (not a WARC file?)");
    if (b.size() < want) {
      if (!input_->error().ok()) return input_->error();
      return Error(offset, "the file ends inside the record's header (truncated)");
    }
  }
  const std::string_view header = input_->buffered().substr(0, header_end);
  record->headers.clear();
  record->offset = offset;
  size_t line_start = 0;
  bool first = true;
  while (line_start < header.size()) {
    size_t line_end = header.find('\n', line_start);
    std::string_view line = header.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    if (first) {
      record->version = ToValidUtf8(Trim(line));
      first = false;
    } else if (line.front() == ' ' || line.front() == '\t') {
      // A folded line continues the previous field's value.
      if (record->headers.empty()) return Error(offset, "a continuation line before any field");
      record->headers.back().second += ' ';
      record->headers.back().second += ToValidUtf8(Trim(line));
    } else {
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos || colon == 0) {
        return Error(offset, "header line '" + Excerpt(line) + "' is not 'Name: value'");
      }
      // The standard asks for UTF-8 here; other bytes become U+FFFD rather than bad strings.
      record->headers.emplace_back(ToValidUtf8(Trim(line.substr(0, colon))),
                                   ToValidUtf8(Trim(line.substr(colon + 1))));
    }
  }
  const std::string* length_text = record->Find("Content-Length");
  if (length_text == nullptr) return Error(offset, "the header has no Content-Length");
  int64_t length = -1;
  const auto [end, ec] =
      std::from_chars(length_text->data(), length_text->data() + length_text->size(), length);
  if (ec != std::errc() || end != length_text->data() + length_text->size() || length < 0) {
    return Error(offset, "Content-Length '" + Excerpt(*length_text) + "' is not a byte count");
  }
  // A record's block becomes one value of a binary column, whose offsets are 32-bit.
  if (length > (int64_t{1} << 31) - 1) {
    return Error(offset, "Content-Length " + *length_text + " is larger than 2 GiB");
  }
  input_->Skip(header_end);
  FLOTILLA_RETURN_NOT_OK(input_->Fill(static_cast<size_t>(length)));
  const std::string_view rest = input_->buffered();
  if (rest.size() < static_cast<size_t>(length)) {
    if (!input_->error().ok()) return input_->error();
    return Error(offset, "Content-Length is " + *length_text + " but the file ends after " +
                             std::to_string(rest.size()) + " bytes of the block (truncated)");
  }
  record->block = rest.substr(0, static_cast<size_t>(length));
  input_->Skip(static_cast<size_t>(length));
  return true;
}

}  // namespace flotilla::io::warc
