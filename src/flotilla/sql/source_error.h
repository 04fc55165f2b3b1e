#pragma once
// Errors that point into SQL text: "line L, column C" and the offending line with a caret
// under the position, the form every parse and bind error takes.
#include <cstdint>
#include <string>
#include <string_view>

#include "flotilla/common/status.h"

namespace flotilla::sql {

/// A position in SQL text: byte offset, 1-based line, and 1-based column in characters.
struct SourcePosition {
  int64_t offset = 0;
  int64_t line = 1;
  int64_t column = 1;
};

/// The line and column of byte `offset` of `text` (columns count UTF-8 characters, a tab as
/// one).
SourcePosition PositionOf(std::string_view text, int64_t offset);

/// "<message> at line L, column C:\n<the line>\n<spaces>^" (long lines are shown around the
/// position). `code` picks the Status kind (Invalid for syntax, KeyError/TypeError for binding).
Status ErrorAt(std::string_view text, int64_t offset, const std::string& message,
               StatusCode code = StatusCode::kInvalid);

}  // namespace flotilla::sql
