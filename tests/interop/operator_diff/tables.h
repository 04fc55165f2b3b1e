#pragma once
// Deterministic tables for the operator differential test (operator_diff_tool): one RecordBatch
// for our engine and the same rows as a CSV file DuckDB loads with explicit column types, so
// both engines see identical values (a CSV of millions of rows loads in a second where the
// INSERT statements expr_diff uses would take minutes).

#include <cstdint>
#include <string>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::opdiff {

/// How the key column k is drawn.
enum class KeyShape {
  kUniform,   // 0 .. cardinality - 1
  kSkewed,    // 0 for half of the rows, the others uniform over 1 .. cardinality
  kSingle,    // 7 for every row, never null: one huge group
  kDistinct,  // a different value per row (a shuffled 3 * i - rows), 1% null
};

struct TableSpec {
  std::string name;    // the DuckDB table name
  std::string prefix;  // put before every column name ("r": rid, rk, ...), so joins never rename
  int64_t rows = 0;
  KeyShape shape = KeyShape::kUniform;
  int64_t cardinality = 1;
  bool lists = false;   // adds li (list<int64>)
  bool narrow = false;  // only id, k, v, d
  uint64_t seed = 0;
};

/// Columns, each with the prefix:
///   id  int64 0 .. rows - 1, the input position (a unique tie breaker)
///   k   int64 key shaped by `shape`, 5% null (kSingle: none; kDistinct: 1%)
///   k2  utf8 key of six values ("", non-ASCII, a comma, a quote), 5% null
///   v   int64 in [-1000, 1000], 10% null
///   d   float64 multiples of 1/64 below 2^14 in magnitude (sums are exact in any order),
///       10% null
///   s   utf8 words and "w<n>" (many duplicates, non-ASCII, quotes, commas, empty), 10% null
///   li  list<int64> of 0..3 elements in [-5, 5] (elements 10% null), 10% null
RecordBatch MakeTable(const TableSpec& spec);

/// Writes `batch` as CSV (header, strings always quoted, null as an unquoted empty field, lists
/// as their DuckDB text "[1, NULL]") and returns the DuckDB statement that creates `name` from
/// it with the same column types.
Result<std::string> WriteCsvForDuckDb(const RecordBatch& batch, const std::string& name,
                                      const std::string& path);

}  // namespace flotilla::opdiff
