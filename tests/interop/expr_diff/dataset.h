#pragma once
// Random tables for the expression differential test (expr_diff_tool): one RecordBatch for our
// evaluator and the same rows as DuckDB SQL, so both engines see identical data.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::diff {

struct Dataset {
  std::string name;  // the DuckDB table name
  /// rid (int32, 0..n-1, the row order), g (int32, rid % 4, a group key), then one or two
  /// columns of each type the test covers: i8 i16 i32 i64 u8 u32 f32 f64 d1 d2 s1 s2 b1 b2 dt ts
  /// li ls st.
  RecordBatch batch;
  /// CREATE TABLE and INSERT statements for DuckDB.
  std::string sql;
};

/// A table of `rows` random rows: about one value in eight is null, and edge values (type
/// limits, NaN, -0.0, infinities, empty strings, non-ASCII text, leap days, month ends) appear
/// often enough to matter.
Dataset MakeDataset(std::string name, int64_t rows, std::mt19937_64* rng);

/// One random non-null value of `type`, as a one-row array (for literals); the same value
/// domains as the table's columns.
Array RandomValue(const TypePtr& type, std::mt19937_64* rng);

/// `s` as an SQL string literal ('it''s').
std::string SqlQuote(std::string_view s);

/// DuckDB's name for `type`: INTEGER, DECIMAL(9,2), VARCHAR[], STRUCT(a BIGINT, b VARCHAR)...
std::string DuckType(const DataType& type);

/// Row `i` of `array` as a DuckDB expression of exactly the array's type (a typed NULL for a
/// null), e.g. CAST(5 AS TINYINT), DATE '2024-02-29', CAST([1, NULL] AS BIGINT[]).
std::string SqlLiteral(const Array& array, int64_t i);

}  // namespace flotilla::diff
