#pragma once
// Text to typed values for the text formats: a CSV field or a JSON string appended to a builder of
// the column's type, with the same rules as a CAST from string (compute/parse.h).
#include <string_view>

#include "flotilla/columnar/builder.h"

namespace flotilla::io::text {

/// True for the types a text value can be parsed into: bool, integers, floats, decimals, date32,
/// timestamps, durations (a count of the unit), strings, binaries and dictionaries of strings.
bool IsTextParsable(const DataType& type);

/// Appends `text` parsed as a value of `builder`'s type. Returns false (appending nothing) when
/// the text is not such a value; builder errors (out of memory) come back as a status.
Result<bool> AppendParsed(ArrayBuilder* builder, std::string_view text);

}  // namespace flotilla::io::text
