#pragma once
// Canonical JSON of record batches: an exact, library-independent text form of a schema and its
// values, used to compare our data with another Arrow implementation's (tests/interop/). The
// arrow-js twin is tests/interop/common.mjs; keep the two in step.
//
//   {"schema": [{"name": ..., "type": canonical type, "nullable": bool}],
//    "batches": [{"num_rows": n, "columns": [[value per row], ...]}]}
//
// Values: null -> null; bool -> true/false; integers of any width, decimal128 (the unscaled
// integer), date32 (days), timestamp and duration (int64) -> decimal strings; float32/float64
// -> lowercase hex of the IEEE bit pattern (8 / 16 digits, so NaN and -0 compare exactly);
// string -> JSON string; binary and fixed_size_binary -> lowercase hex; list, fixed_size_list
// and struct (field values in order) -> JSON arrays; dictionary -> the decoded value.
//
// Canonical types: "int32", "uint64", "float32", "decimal128(15, 2)", "date32", "timestamp[ms]",
// "timestamp[us, tz=UTC]", "duration[ns]", "utf8", "large_utf8", "binary", "large_binary",
// "fixed_size_binary[5]", "list<item: int32>", "fixed_size_list[4]<item: float32>",
// "struct<a: int64, b: utf8 not null>", "dictionary<int32, utf8>".

#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::testing {

/// `s` as a JSON string literal (quotes, escapes; UTF-8 passes through) appended to `out`.
void AppendJsonString(std::string_view s, std::string* out);

std::string CanonicalTypeString(const DataType& type);
std::string CanonicalFieldString(const Field& field);

/// Canonical JSON of `batches` (all of `schema`).
std::string CanonicalJson(const Schema& schema, const std::vector<RecordBatch>& batches);

/// Each row of `batch` as a JSON array of its canonical values: "[1,null,\"a\"]".
std::vector<std::string> CanonicalRows(const RecordBatch& batch);

}  // namespace flotilla::testing
