#pragma once
// UTF-8 decoding for the string kernels.
//
// Invalid UTF-8 policy (all character-based string functions): a byte that does not start a
// valid sequence counts as one character of its own and is copied through unchanged (length,
// substr, left/right, reverse, lpad/rpad, trim, lower/upper, like). Nothing reads past the end of
// a value. normalize() is the exception: Unicode normalisation is undefined on invalid input, so
// it returns an Invalid error naming the row; normalize_text() drops the invalid bytes.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flotilla::expr::functions {

/// One decoded character: its code point (or kInvalidCodePoint) and its byte length (>= 1).
struct Utf8Char {
  int32_t code_point;
  int32_t length;
};
inline constexpr int32_t kInvalidCodePoint = -1;

/// Decodes the character starting at `pos` (< s.size()).
Utf8Char DecodeAt(std::string_view s, size_t pos);

/// True when every byte of [p, p + n) is ASCII (below 0x80).
bool IsAscii(const char* p, int64_t n);

/// Number of characters in `s` under the policy above.
int64_t CountChars(std::string_view s);

/// Byte offsets of the start of each character, plus s.size() at the end (size = chars + 1).
void CharBoundaries(std::string_view s, std::vector<size_t>* out);

/// Appends the UTF-8 encoding of a valid code point.
void AppendCodePoint(int32_t code_point, std::string* out);

/// Unicode white space (category Zs plus tab, line feed, vertical tab, form feed, carriage
/// return, U+0085, U+2028, U+2029).
bool IsUnicodeWhitespace(int32_t code_point);

/// The words of `s`: maximal runs of non-white-space characters.
std::vector<std::string_view> SplitWords(std::string_view s);

}  // namespace flotilla::expr::functions
