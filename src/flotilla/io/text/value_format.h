#pragma once
// Typed values to text for the text writers, a column at a time: numbers in their shortest
// round-trip form, dates "YYYY-MM-DD", timestamps "YYYY-MM-DD HH:MM:SS[.fraction]" ("Z" when
// the column has a time zone), decimals with their scale's digits.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/array.h"

namespace flotilla::io::text {

enum class TextStyle : uint8_t {
  /// Bare text; strings as they are (the CSV writer quotes what needs it); nulls empty; lists
  /// and structs as DuckDB writes them ([1, 2, NULL], {'a': 1}). Non-finite floats as "nan",
  /// "inf", "-inf".
  kCsv,
  /// JSON values: strings, dates and timestamps quoted and escaped, lists as arrays, structs as
  /// objects, nulls as null; non-finite floats as the strings "NaN", "Infinity", "-Infinity";
  /// decimals of more than 15 digits as strings (a double would round them).
  kJson,
};

/// The text of every row of a column: row i is bytes[offsets[i], offsets[i + 1]).
struct ColumnText {
  std::string bytes;
  std::vector<int64_t> offsets;
  std::string_view at(int64_t i) const {
    return std::string_view(bytes).substr(static_cast<size_t>(offsets[i]),
                                          static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
};

/// Formats every row of `column`. Types with no text form in `style` (binary) are a TypeError
/// naming `name`.
Status FormatColumn(const Array& column, TextStyle style, const std::string& name, ColumnText* out);

/// Appends `s` as a JSON string literal (quoted, escaped).
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace flotilla::io::text
