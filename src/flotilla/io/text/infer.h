#pragma once
// Schema inference for the text formats (CSV and newline-delimited JSON). Values are first
// classified into a small lattice of kinds; kinds met in the same column are joined; the joined
// kind becomes an Arrow type once every sampled row of every file has been seen. A join widens
// only where no value changes meaning (integer -> float, date -> timestamp, nothing -> anything);
// kinds that came from text fall back to string; other meetings (a number and an object in
// JSON) are conflicts the caller reports with the column and the places involved.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/common/result.h"
#include "flotilla/types/schema.h"

namespace flotilla::io::text {

enum class Kind : uint8_t {
  kNull,  // only nulls seen: becomes string
  kBool,
  kInt,      // int64
  kUInt,     // uint64: JSON integers above int64's range, no negative one seen
  kWideInt,  // decimal128(38, 0): JSON integers above int64's range and negative ones
  kFloat,    // float64
  kString,
  kDate,         // text "YYYY-MM-DD"
  kTimestamp,    // text date and time of day, no offset
  kTimestampTz,  // text date and time of day with "Z" or an offset
  kFloatWord,    // JSON strings "NaN", "Infinity", "-Infinity": floats JSON cannot spell
  kTime,         // text "HH:MM:SS[.fraction]"
  kList,
  kStruct,
};

struct Inferred {
  Kind kind = Kind::kNull;
  /// True when the kind was read out of text (every CSV value, JSON strings): such kinds meet
  /// other text kinds as string rather than as a conflict.
  bool from_text = false;
  /// kInt: a negative value was seen (an int64 column that also holds values above its range
  /// is then wider than uint64).
  bool negative = false;
  /// List: one child (the element); struct: one per field, named by `names`.
  std::vector<Inferred> children;
  std::vector<std::string> names;

  static Inferred Of(Kind kind, bool from_text);
};

/// The kind of one text value (not a null string): bool for true/false (any case), int for
/// integers within int64, float, date, timestamp (with or without offset), time of day, else
/// string.
Inferred InferText(std::string_view text);

/// The kind of a JSON string: date, timestamp (with or without offset), time, float for "NaN",
/// "Infinity" and "-Infinity", else string.
Inferred InferJsonString(std::string_view text);

/// Widens `into` to hold `other` as well. A conflict is an error naming both kinds and the column
/// by `path` ("a", "a.b", "a[]"; "" for the top level of a JSON row).
Status Join(Inferred* into, const Inferred& other, const std::string& path);

/// The Arrow type for an inferred kind (a column that was only ever null becomes string).
TypePtr ToType(const Inferred& inferred);
/// "int64", "struct<a: float64>", ... for messages.
std::string KindName(const Inferred& inferred);

/// One file's inferred columns, in order.
struct InferredSchema {
  std::string file;
  std::vector<std::string> names;
  std::vector<Inferred> columns;
};

/// Joins the schemas inferred from several files into one. With `same_columns` (CSV), every file
/// must have the first's column names in the same order; otherwise (JSON) columns are matched by
/// name and the result has every name, in order of first appearance. Errors name the files.
Result<SchemaPtr> UnifySchemas(const std::vector<InferredSchema>& files, bool same_columns);

}  // namespace flotilla::io::text
