#pragma once
// ASCII case folding for names that are case-insensitive (SQL keywords and identifiers, function
// names, units, options). Locale-free on purpose: a name means the same thing on every machine.

#include <string>
#include <string_view>

namespace flotilla {

inline char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
inline char AsciiUpper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = AsciiLower(c);
  return out;
}
inline std::string AsciiUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = AsciiUpper(c);
  return out;
}

/// True when `a` and `b` are equal ignoring ASCII case.
inline bool AsciiEqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

/// True when `text` ends with `suffix`, ignoring ASCII case.
inline bool AsciiEndsWithIgnoreCase(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         AsciiEqualsIgnoreCase(text.substr(text.size() - suffix.size()), suffix);
}

}  // namespace flotilla
