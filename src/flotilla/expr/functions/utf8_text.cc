#include "flotilla/expr/functions/utf8_text.h"

#include <utf8proc.h>

#include <cstring>

namespace flotilla::expr::functions {

Utf8Char DecodeAt(std::string_view s, size_t pos) {
  utf8proc_int32_t cp = 0;
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data() + pos);
  utf8proc_ssize_t n = utf8proc_iterate(p, static_cast<utf8proc_ssize_t>(s.size() - pos), &cp);
  // utf8proc also rejects surrogates and overlong forms, so "valid" here is strict UTF-8.
  if (n <= 0) return {kInvalidCodePoint, 1};
  return {cp, static_cast<int32_t>(n)};
}

bool IsAscii(const char* p, int64_t n) {
  // OR-ing whole words keeps the loop branch-free, so the compiler vectorises it.
  uint64_t any = 0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    any |= word;
  }
  for (; i < n; ++i)
    any |= static_cast<unsigned char>(p[i]);
  return (any & 0x8080808080808080ULL) == 0;
}

int64_t CountChars(std::string_view s) {
  int64_t count = 0;
  size_t pos = 0;
  // Eight ASCII bytes at a time.
  while (pos + 8 <= s.size()) {
    uint64_t word;
    std::memcpy(&word, s.data() + pos, 8);
    if (word & 0x8080808080808080ULL) break;
    pos += 8;
    count += 8;
  }
  while (pos < s.size()) {
    // ASCII fast path: most text is mostly ASCII.
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      ++pos;
    } else {
      pos += static_cast<size_t>(DecodeAt(s, pos).length);
    }
    ++count;
  }
  return count;
}

void CharBoundaries(std::string_view s, std::vector<size_t>* out) {
  out->clear();
  size_t pos = 0;
  while (pos < s.size()) {
    out->push_back(pos);
    pos += static_cast<unsigned char>(s[pos]) < 0x80 ? 1
                                                     : static_cast<size_t>(DecodeAt(s, pos).length);
  }
  out->push_back(s.size());
}

void AppendCodePoint(int32_t code_point, std::string* out) {
  utf8proc_uint8_t buf[4];
  utf8proc_ssize_t n = utf8proc_encode_char(code_point, buf);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

bool IsUnicodeWhitespace(int32_t cp) {
  if (cp < 0) return false;
  if ((cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0x2028 || cp == 0x2029) {
    return true;
  }
  return cp > 0x7F && utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

std::vector<std::string_view> SplitWords(std::string_view s) {
  std::vector<std::string_view> words;
  size_t pos = 0;
  size_t start = std::string_view::npos;
  while (pos < s.size()) {
    Utf8Char c = DecodeAt(s, pos);
    if (IsUnicodeWhitespace(c.code_point)) {
      if (start != std::string_view::npos) words.push_back(s.substr(start, pos - start));
      start = std::string_view::npos;
    } else if (start == std::string_view::npos) {
      start = pos;
    }
    pos += static_cast<size_t>(c.length);
  }
  if (start != std::string_view::npos) words.push_back(s.substr(start));
  return words;
}

}  // namespace flotilla::expr::functions
