#include "flotilla/sql/source_error.h"

#include <algorithm>

namespace flotilla::sql {

namespace {

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Characters (not bytes) in s, so the caret lines up under non-ASCII text.
int64_t CountCharacters(std::string_view s) {
  return static_cast<int64_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return !IsContinuation(c); }));
}

constexpr int64_t kShownBefore = 60;  // characters of a long line shown before the position
constexpr int64_t kShownAfter = 40;

}  // namespace

SourcePosition PositionOf(std::string_view text, int64_t offset) {
  offset = std::clamp<int64_t>(offset, 0, static_cast<int64_t>(text.size()));
  SourcePosition p;
  p.offset = offset;
  const std::string_view before = text.substr(0, static_cast<size_t>(offset));
  p.line = 1 + static_cast<int64_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t newline = before.rfind('\n');
  const size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  p.column = 1 + CountCharacters(before.substr(line_start));
  return p;
}

Status ErrorAt(std::string_view text, int64_t offset, const std::string& message, StatusCode code) {
  const SourcePosition p = PositionOf(text, offset);
  const auto start = static_cast<size_t>(p.offset);
  const size_t newline = text.substr(0, start).rfind('\n');
  const size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  const size_t line_end = std::min(text.find('\n', start), text.size());
  std::string_view before = text.substr(line_start, start - line_start);
  std::string_view after = text.substr(start, line_end - start);
  // Long lines: a window around the position, with "..." where it is cut.
  std::string prefix, suffix;
  if (!after.empty() && after.back() == '\r') after.remove_suffix(1);
  for (int64_t excess = CountCharacters(before) - kShownBefore; excess > 0; --excess) {
    before.remove_prefix(1);
    while (!before.empty() && IsContinuation(before.front()))
      before.remove_prefix(1);
    prefix = "...";
  }
  size_t cut = 0;
  for (int64_t chars = 0; cut < after.size() && chars < kShownAfter; ++chars) {
    ++cut;
    while (cut < after.size() && IsContinuation(after[cut]))
      ++cut;
  }
  if (cut < after.size()) {
    after = after.substr(0, cut);
    suffix = "...";
  }
  std::string shown = prefix + std::string(before) + std::string(after) + suffix;
  std::replace(shown.begin(), shown.end(), '\t', ' ');
  const std::string caret(
      static_cast<size_t>(static_cast<int64_t>(prefix.size()) + CountCharacters(before)), ' ');
  return Status(code, message + " at line " + std::to_string(p.line) + ", column " +
                          std::to_string(p.column) + ":\n  " + shown + "\n  " + caret + "^");
}

}  // namespace flotilla::sql
