// DuckDB's half of the Parquet interop check, in both directions.
//
// Read: DuckDB (@duckdb/node-api) writes a set of Parquet files covering the types, nesting, null
// patterns, codecs, row group layouts and encodings it can produce; our tool reads each file
// (`TOOL read FILE`) and every cell is compared with what DuckDB reads back from the same file.
//
// Write: for each codec, our tool writes a file with our writer (`TOOL write FILE CODEC`, cases
// ours_<codec>); DuckDB reads it and every cell is compared with the rows our tool printed.
//
//   node parquet_read.mjs TOOL OUT_DIR [--verbose] [--only SUBSTRING]
//
// Output contract of `TOOL read FILE` (stdout, one line each, '\n' separated):
//   schema<TAB>[{"name": ..., "type": ...}, ...]     top-level columns in file order (the names are
//                                                   compared, the type names are informational)
//   [cell, cell, ...]                               one JSON array per row, in file order
// Cells (canonical form):
//   null -> null; boolean -> true / false;
//   integers of any width -> decimal string ("-12", "18446744073709551615");
//   float / double -> JSON number with 17 significant digits (compared by value, -0 != 0), except
//     NaN -> "NaN", infinities -> "Infinity" / "-Infinity";
//   decimal -> string with exactly `scale` fraction digits ("-1.50", "0.000"; no point if scale 0);
//   date -> "YYYY-MM-DD", proleptic Gregorian, astronomical year numbering (year 0 = 1 BC), at
//     least 4 year digits, negative years as "-YYYY";
//   timestamp (with or without isAdjustedToUTC) -> count since 1970-01-01T00:00:00 UTC in the unit
//     the file stores, plus the unit: "1577836800000000us" ("s", "ms", "us", "ns");
//   time -> count since midnight in the stored unit plus the unit ("3600000000us", "...ns");
//   string, enum, json -> JSON string; binary and fixed-size binary -> lowercase hex; uuid ->
//     lowercase hex of the 16 bytes, no dashes;
//   list (and fixed-size list) -> JSON array; struct -> JSON object (field names in schema order);
//   map -> JSON array of {"key": k, "value": v} in stored order.
//
// Output contract of `TOOL write FILE CODEC`: writes FILE with our writer using CODEC (none,
// snappy, gzip, brotli, zstd, lz4 = LZ4_RAW, lz4_hadoop = LZ4) and prints exactly what
// `TOOL read FILE` would print for it (same schema line, same canonical rows, file order), but
// from the table it wrote, not by reading FILE back; on failure it exits non-zero with a message
// on stderr. The rows are compared with DuckDB's reading of FILE, the codec of every column chunk
// with the one asked for. How DuckDB 1.5 reads such files:
//   - codec LZ4 (id 5, Hadoop framing) is rejected ("Unsupported compression codec"), so lz4_hadoop
//     is not among the codecs checked;
//   - unsigned integers are read as unsigned only with the converted type UINT_8..UINT_64: the
//     INTEGER(bitWidth, isSigned=false) logical type alone reads as a signed integer;
//   - TIMESTAMP(MILLIS) is read as a microsecond timestamp: millisecond values (timestamp[s] stored
//     as milliseconds included) must stay within DuckDB's range once multiplied by 1000 (about
//     290000 BC to 294000 AD), or reading the file, and its statistics, fails with "Could not
//     convert Timestamp(MS) to Timestamp(US)"; the canonical form keeps the stored unit ("<ms>ms");
//   - TIMESTAMP(NANOS, isAdjustedToUTC=true) is read as TIMESTAMP WITH TIME ZONE, truncated toward
//     zero to microseconds (DuckDB has no nanosecond type with time zone): those cells are
//     compared at microsecond precision, our "<ns>ns" against DuckDB's microseconds;
//   - an INT32 column with the UNKNOWN (null) logical type is read as INTEGER, all null;
//   - FIXED_LEN_BYTE_ARRAY without annotation is read as BLOB (hex), decimals of any precision as
//     DECIMAL, fixed-size lists (stored as LIST) as lists;
//   - column names are matched case-insensitively: of two names differing only in case, DuckDB
//     renames the second ("a", "A" -> "a", "A_1"), which shows up as a column name difference.
//
// Files named time_* hold time-of-day columns: when our tool fails on them with a message
// containing "not supported" they are reported as known unsupported, not as failures.
// Ends with coverage summaries (physical types, encodings, codecs, page kinds and schema
// annotations actually present in the files, from the footers and the page headers), one for the
// files DuckDB wrote and one for the files our tool wrote.
// Exits non-zero when any file differs, our tool fails on a file it should read or write, or
// DuckDB fails on a file our tool wrote.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance, DuckDBTypeId as T } from '@duckdb/node-api';

const args = process.argv.slice(2);
const positional = [];
let verbose = false;
let only = null;
for (let k = 0; k < args.length; ++k) {
  if (args[k] === '--verbose') verbose = true;
  else if (args[k] === '--only') only = args[++k];
  else positional.push(args[k]);
}
if (positional.length !== 2) {
  console.error('usage: node parquet_read.mjs TOOL OUT_DIR [--verbose] [--only SUBSTRING]');
  process.exit(2);
}
const tool = positional[0].includes('/') ? resolve(positional[0]) : positional[0];
const outDir = resolve(positional[1]);
mkdirSync(outDir, { recursive: true });

const started = Date.now();
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await instance.connect();
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const query = async (sql) => (await con.runAndReadAll(sql));

await con.run(`SET TimeZone = 'UTC'`);
// A decimal literal from its unscaled integer value and scale, exact at any width.
// (lpad truncates, so the digits are padded to at least s + 1, never cut.)
await con.run(`CREATE MACRO abs_digits(u, n) AS lpad(abs(u)::VARCHAR, greatest(n, length(abs(u)::VARCHAR))::INTEGER, '0')`);
await con.run(`CREATE MACRO dec_unscaled(u, s) AS
  (CASE WHEN u < 0 THEN '-' ELSE '' END) ||
  substr(abs_digits(u, s + 1), 1, length(abs_digits(u, s + 1)) - s) || '.' ||
  substr(abs_digits(u, s + 1), length(abs_digits(u, s + 1)) - s + 1)`);
await con.run(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'ünïcödé')`);

let haveJson = false;
try {
  const r = await query(`SELECT count(*) FROM duckdb_extensions() WHERE extension_name = 'json' AND loaded`);
  haveJson = Number(r.getRows()[0][0]) === 1;
  if (!haveJson) {
    await con.run('LOAD json');
    haveJson = true;
  }
} catch {
  haveJson = false;
}

// ---- Data ---------------------------------------------------------------------------------------

// One column over `range(n) r(i)`: row k < specials.length holds specials[k], then rows with
// i % nullEvery == nullAt are NULL, the rest hold `formula` (an expression of i). Every branch is
// cast to `type`.
function col(name, type, specials, formula, nullEvery = 0, nullAt = 0) {
  const whens = specials.map((s, k) => `WHEN i = ${k} THEN (${s})::${type}`);
  if (nullEvery > 0) whens.push(`WHEN i % ${nullEvery} = ${nullAt} THEN NULL::${type}`);
  if (whens.length === 0) return `(${formula})::${type} AS ${name}`;
  return `CASE ${whens.join(' ')} ELSE (${formula})::${type} END AS ${name}`;
}
const select = (n, cols) => `SELECT ${cols.join(',\n  ')}\nFROM range(${n}) r(i)`;

// hash() is a fixed function of its argument: deterministic pseudo-random 64-bit values.
const H = (x = 'i') => `hash(${x})`;
const signed64 = (x = 'i') => `(${H(x)}::HUGEINT - 9223372036854775808)`;

const scalarColumns = (m0 = 0) => {
  const c = (name, type, specials, formula, every) =>
    col(name, type, specials, formula, every, (m0 + name.length) % every);
  const cols = [
    c('c_bool', 'BOOLEAN', ['true', 'false'], '(i * 7919) % 3 = 0', 5),
    c('c_int8', 'TINYINT', ['-128', '127', '0', '-1'], '(i * 37) % 256 - 128', 6),
    c('c_int16', 'SMALLINT', ['-32768', '32767', '0'], '(i * 7919) % 65536 - 32768', 7),
    c('c_int32', 'INTEGER', ['-2147483648', '2147483647', '0'], '(i * 2654435761) % 4294967296 - 2147483648', 8),
    c('c_int64', 'BIGINT', ['-9223372036854775808', '9223372036854775807', '0', '-1'], signed64(), 9),
    c('c_uint8', 'UTINYINT', ['0', '255', '128'], '(i * 37) % 256', 10),
    c('c_uint16', 'USMALLINT', ['0', '65535', '32768'], '(i * 7919) % 65536', 11),
    c('c_uint32', 'UINTEGER', ['0', '4294967295', '2147483648'], '(i * 2654435761) % 4294967296', 12),
    c('c_uint64', 'UBIGINT', ['0', '18446744073709551615', '9223372036854775808'], H(), 13),
    c('c_float', 'FLOAT', ["'NaN'", "'Infinity'", "'-Infinity'", "'-0.0'", '0.0', '3.4028235e38',
      '-3.4028235e38', '1.4e-45', '1.17549435e-38', '0.1', '16777217'],
    '((i * 7919) % 20001 - 10000) / 7.0', 7),
    c('c_double', 'DOUBLE', ["'NaN'", "'Infinity'", "'-Infinity'", "'-0.0'", '0.0',
      '1.7976931348623157e308', '-1.7976931348623157e308', '5e-324', '2.2250738585072014e-308', '0.1',
      '-1e100', '9007199254740993'],
    'sin(i) * pow(10, (i % 41) - 20)', 6),
    c('c_dec4_2', 'DECIMAL(4,2)', ['-99.99', '99.99', '0', '-0.01', '-1.5', '0.01'],
      'dec_unscaled((i * 37) % 19999 - 9999, 2)', 5),
    c('c_dec9_3', 'DECIMAL(9,3)', ['-999999.999', '999999.999', '0', '-0.001'],
      'dec_unscaled((i * 2654435761) % 1999999999 - 999999999, 3)', 7),
    c('c_dec18_4', 'DECIMAL(18,4)', ['-99999999999999.9999', '99999999999999.9999', '0', '-0.0001'],
      `dec_unscaled((${H()} % 1999999999999999999)::HUGEINT - 999999999999999999, 4)`, 8),
    c('c_dec38_10', 'DECIMAL(38,10)', ["'-9999999999999999999999999999.9999999999'",
      "'9999999999999999999999999999.9999999999'", '0', "'-0.0000000001'",
      "'12345678901234567890.0000000001'", "'-1.0000000000'"],
    `dec_unscaled((CASE i % 3 WHEN 0 THEN (${H()} >> 1)::HUGEINT * (${H('i + 7')} >> 1)::HUGEINT
        WHEN 1 THEN ${H()}::HUGEINT ELSE (${H()} % 1000)::HUGEINT END) * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END), 10)`, 9),
    c('c_str', 'VARCHAR', ["''", "'a'", "'héllo wörld ✓ 日本語 🎉'", "repeat('abcdefghij', 1000)",
      `chr(1) || '"\\' || chr(10) || chr(9) || chr(13) || chr(127) || '/' || chr(8232)`,
      "' padded '", "chr(1114111) || chr(65533)"],
    "'s' || ((i * 7919) % 1000)::VARCHAR || repeat('x', (i % 13)::INTEGER)", 6),
    c('c_blob', 'BLOB', ["''", "'\\x00'", "'\\x00\\xFF\\x10'", "unhex(repeat('ab', 5000))", "'abc'"],
      'unhex(left(md5(i::VARCHAR), (2 * (i % 17))::INTEGER))', 7),
    c('c_date', 'DATE', ["'1970-01-01'", "'1969-12-31'", "'0001-01-01'", "'0000-03-01'",
      "'-0044-03-15'", "'1600-02-29'", "'1900-02-28'", "'2000-02-29'", "'9999-12-31'", "'12345-06-07'",
      "'-1000-01-01'"],
    "DATE '1970-01-01' + ((i * 7919) % 200001 - 100000)::INTEGER", 8),
    c('c_ts', 'TIMESTAMP', ["'1970-01-01 00:00:00'", "'1969-12-31 23:59:59.999999'",
      "'0001-01-01 00:00:00'", "'9999-12-31 23:59:59.999999'", "'1900-03-01 12:34:56.789012'",
      "'2262-04-11 23:47:16.854775'"],
    `make_timestamp((${H()} % 20000000000000000)::BIGINT - 10000000000000000)`, 9),
    c('c_ts_ms', 'TIMESTAMP_MS', ["'1970-01-01 00:00:00'", "'1969-12-31 23:59:59.999'",
      "'0001-01-01 00:00:00'", "'9999-12-31 23:59:59.999'"],
    `make_timestamp(((${H()} % 20000000000000)::BIGINT - 10000000000000) * 1000)`, 7),
    c('c_ts_ns', 'TIMESTAMP_NS', ["'1970-01-01 00:00:00'", "'1969-12-31 23:59:59.999999999'",
      "'1677-09-22 00:00:00'", "'2262-04-11 23:47:16.854775'", "'2000-01-01 00:00:00.000000001'"],
    `make_timestamp_ns((${H()} >> 1)::BIGINT - 4611686018427387904)`, 8),
    c('c_ts_s', 'TIMESTAMP_S', ["'1970-01-01 00:00:00'", "'1969-12-31 23:59:59'",
      "'0001-01-01 00:00:00'", "'9999-12-31 23:59:59'"],
    `make_timestamp(((${H()} % 20000000000)::BIGINT - 10000000000) * 1000000)`, 6),
    c('c_tstz', 'TIMESTAMPTZ', ["'1970-01-01 00:00:00+00'", "'2000-01-01 00:00:00+05:30'",
      "'1969-12-31 23:59:59.999999+00'"],
    `make_timestamp((${H()} % 20000000000000000)::BIGINT - 10000000000000000)`, 5),
    c('c_uuid', 'UUID', ["'00000000-0000-0000-0000-000000000000'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
      "'80000000-0000-0000-0000-000000000000'", "'7fffffff-ffff-ffff-ffff-ffffffffffff'",
      "'550e8400-e29b-41d4-a716-446655440000'"],
    'md5(i::VARCHAR)::UUID', 9),
    c('c_enum', 'mood', ["'sad'", "'ünïcödé'"], "(['sad', 'ok', 'happy'])[1 + i % 3]", 7),
  ];
  if (haveJson) {
    cols.push(c('c_json', 'JSON', [`'{"a": 1, "b": [true, null]}'`, "'[]'", "'null'", `'"text"'`, "'3.5'"],
      "json_object('i', i, 's', 's' || i)", 6));
  }
  return cols;
};

const nestedColumns = () => [
  col('l_int', 'INTEGER[]', ['[]', 'NULL', '[NULL]', '[1, NULL, 3]', '[NULL, NULL]',
    '[-2147483648, 2147483647]'],
  `CASE WHEN i % 5 = 0 THEN [] ELSE list_transform(range(i % 7),
      x -> CASE WHEN (x + i) % 4 = 0 THEN NULL ELSE (x * i) % 2147483647 END) END`, 9, 4),
  col('l_str', 'VARCHAR[]', ['[]', '[NULL]', "['', NULL, 'héllo']", `[repeat('z', 3000)]`],
    "list_transform(range(i % 5), x -> 'v' || (x * i)::VARCHAR)", 7, 2),
  col('l_l_int', 'INTEGER[][]', ['[]', '[[]]', '[NULL]', '[[], NULL, [1], [NULL, 2]]'],
    `list_transform(range(i % 4), x -> CASE WHEN x = 2 THEN NULL ELSE
       list_transform(range(x + i % 2), y -> CASE WHEN y = 1 THEN NULL ELSE y + i END) END)`, 8, 3),
  col('l_double', 'DOUBLE[]', ["['NaN'::DOUBLE, '-0.0'::DOUBLE, 'Infinity'::DOUBLE, '-Infinity'::DOUBLE, NULL]"],
    'list_transform(range(i % 3), x -> x / 3.0 - i)', 6, 1),
  col('l_date', 'DATE[]', ["[DATE '1969-12-31', NULL, DATE '-0001-06-30']"],
    "list_transform(range(i % 3), x -> DATE '2000-01-01' + (x * i)::INTEGER)", 10, 5),
  col('l_dec', 'DECIMAL(18,4)[]', ["[-0.0001, NULL, 12345678901234.5678]"],
    'list_transform(range(i % 3), x -> (x * i) / 8)', 10, 6),
  col('s_pair', 'STRUCT(a INTEGER, b VARCHAR)', ['NULL', "{'a': NULL, 'b': NULL}", "{'a': 1, 'b': NULL}",
    "{'a': NULL, 'b': ''}"],
  "{'a': i, 'b': 'b' || i::VARCHAR}", 7, 0),
  col('s_nested', 'STRUCT(x STRUCT(y INTEGER, z DOUBLE), w BOOLEAN)', ['NULL', "{'x': NULL, 'w': true}",
    "{'x': {'y': NULL, 'z': NULL}, 'w': NULL}"],
  `{'x': CASE WHEN i % 4 = 1 THEN NULL ELSE {'y': i * 3, 'z': i / 4.0} END, 'w': i % 2 = 0}`, 9, 7),
  col('l_struct', 'STRUCT(a INTEGER, b VARCHAR)[]', ['[]', '[NULL]',
    "[{'a': NULL, 'b': NULL}, NULL, {'a': 2, 'b': 'x'}]"],
  `list_transform(range(i % 4), x -> CASE WHEN x = 1 AND i % 3 = 0 THEN NULL
       ELSE {'a': x * i, 'b': 'e' || x::VARCHAR} END)`, 8, 1),
  col('s_list', 'STRUCT(id INTEGER, tags VARCHAR[])', ["{'id': 1, 'tags': []}", "{'id': NULL, 'tags': NULL}",
    "{'id': 2, 'tags': [NULL, 'a']}", 'NULL'],
  "{'id': i, 'tags': list_transform(range(i % 3), x -> 't' || x::VARCHAR)}", 11, 3),
  col('m_str_int', 'MAP(VARCHAR, INTEGER)', ['MAP {}', "MAP {'a': NULL}", "MAP {'k1': 1, 'k2': 2, 'k3': NULL}",
    'NULL', "MAP {'': -1}"],
  `MAP(list_transform(range(i % 4), x -> 'k' || x::VARCHAR),
         list_transform(range(i % 4), x -> CASE WHEN x = 2 THEN NULL ELSE x * i END))`, 7, 6),
  col('m_int_list', 'MAP(INTEGER, VARCHAR[])', ["MAP {1: [], 2: NULL, 3: ['x', NULL]}"],
    `MAP(list_transform(range(i % 3), x -> x - i), list_transform(range(i % 3), x -> ['m' || x::VARCHAR]))`, 6, 2),
];

// A mixed table: low- and high-cardinality columns of the common types, a list and a struct.
const mixedColumns = () => [
  'i AS id',
  col('small_int', 'INTEGER', [], 'i % 100', 7, 3),
  col('big_int', 'BIGINT', [], signed64(), 11, 5),
  col('str_low', 'VARCHAR', [], "(['alpha', 'beta', 'gamma', 'delta', ''])[1 + i % 5]", 6, 1),
  col('str_high', 'VARCHAR', [], "md5(i::VARCHAR) || repeat('-', (i % 20)::INTEGER)", 9, 4),
  col('dbl', 'DOUBLE', [], 'sqrt(i) * 1000.5 - 20000', 8, 2),
  col('flt', 'FLOAT', [], '(i % 1000) / 8.0', 10, 3),
  col('dec', 'DECIMAL(18,4)', [], 'dec_unscaled(i * 12345 - 1000000, 4)', 12, 7),
  col('day', 'DATE', [], "DATE '2020-01-01' + (i % 1000)::INTEGER", 13, 2),
  col('ts', 'TIMESTAMP', [], "TIMESTAMP '2020-01-01' + to_microseconds(i * 1234567)", 14, 9),
  col('flag', 'BOOLEAN', [], 'i % 3 = 0', 5, 4),
  col('ints', 'INTEGER[]', [], 'list_transform(range(i % 4), x -> CASE WHEN x = 2 THEN NULL ELSE x + i END)', 9, 8),
  col('pair', 'STRUCT(a INTEGER, b VARCHAR)', [], "{'a': i % 50, 'b': 'p' || (i % 7)::VARCHAR}", 10, 9),
];

// Integers, strings and floats shaped for the V2 encodings (delta runs, constant, small ranges,
// negative deltas, long strings, byte-stream-split floats), with NULLs.
const v2Columns = () => [
  'i AS id',
  col('seq_desc', 'BIGINT', [], '1000000 - i * 3', 17, 4),
  col('const_int', 'INTEGER', [], '42', 0),
  col('wide_int64', 'BIGINT', ['-9223372036854775808', '9223372036854775807'], signed64(), 7, 3),
  col('wide_int32', 'INTEGER', ['-2147483648', '2147483647'], '(i * 2654435761) % 4294967296 - 2147483648', 9, 1),
  col('u64', 'UBIGINT', ['18446744073709551615', '0'], H(), 10, 6),
  col('small_range', 'SMALLINT', [], '(i * 7919) % 200 - 100', 8, 5),
  col('jumps', 'BIGINT', [], 'CASE WHEN i % 100 = 0 THEN i * 1000000007 ELSE i END', 0),
  col('str_high', 'VARCHAR', ["''", "'héllo ✓'"], "'key_' || md5(i::VARCHAR) || repeat('y', (i % 37)::INTEGER)", 6, 2),
  col('str_prefix', 'VARCHAR', [], "'common/prefix/path/' || lpad(i::VARCHAR, 8, '0')", 11, 0),
  col('bin_high', 'BLOB', ["''"], 'unhex(md5(i::VARCHAR))', 12, 7),
  col('dbl', 'DOUBLE', ["'NaN'", "'-0.0'", "'Infinity'", "'-Infinity'"], 'sin(i) * 1e6', 7, 6),
  col('flt', 'FLOAT', ["'NaN'", "'-0.0'", "'Infinity'"], 'cos(i) * 1e3', 8, 0),
  col('dec9', 'DECIMAL(9,3)', [], 'dec_unscaled((i * 2654435761) % 1999999999 - 999999999, 3)', 9, 2),
  col('dec18', 'DECIMAL(18,4)', [], `dec_unscaled((${H()} % 1999999999999999999)::HUGEINT - 999999999999999999, 4)`, 10, 1),
  col('dec38', 'DECIMAL(38,10)', [], `dec_unscaled((${H()} >> 1)::HUGEINT * (${H('i + 3')} >> 1)::HUGEINT, 10)`, 11, 4),
  col('day', 'DATE', [], "DATE '1970-01-01' + ((i * 7919) % 200001 - 100000)::INTEGER", 12, 3),
  col('ts', 'TIMESTAMP', [], 'make_timestamp(1600000000000000 + i * 1000003)', 13, 5),
  col('flag', 'BOOLEAN', [], '(i * 7919) % 7 < 3', 6, 5),
  col('str_low', 'VARCHAR', [], "(['x', 'y', 'z'])[1 + i % 3]", 5, 2),
];

const lowHighColumns = () => [
  'i AS id',
  col('int_low', 'INTEGER', [], 'i % 10', 7, 3),
  col('int_high', 'BIGINT', [], signed64(), 9, 2),
  col('str_low', 'VARCHAR', [], "(['red', 'green', 'blue', 'cyan', 'magenta'])[1 + i % 5]", 6, 0),
  col('str_high', 'VARCHAR', [], "'id-' || md5(i::VARCHAR)", 8, 5),
  col('dbl_low', 'DOUBLE', [], '(i % 4) * 0.25', 10, 1),
  col('dbl_high', 'DOUBLE', [], 'sqrt(i) * pi()', 11, 7),
  // Dictionary-friendly in the first row group only.
  col('card_shift', 'BIGINT', [], `CASE WHEN i < 2048 THEN i % 5 ELSE ${signed64()} END`, 12, 4),
  col('str_shift', 'VARCHAR', [], "CASE WHEN i < 4096 THEN 'v' || (i % 3)::VARCHAR ELSE md5(i::VARCHAR) END", 13, 6),
  col('flag', 'BOOLEAN', [], 'i % 3 = 0', 5, 2),
];

const allNullColumns = () => [
  'i::INTEGER AS id',
  'NULL::BOOLEAN AS n_bool', 'NULL::INTEGER AS n_int', 'NULL::BIGINT AS n_bigint', 'NULL::DOUBLE AS n_double',
  'NULL::FLOAT AS n_float', 'NULL::VARCHAR AS n_str', 'NULL::BLOB AS n_blob', 'NULL::DECIMAL(9,3) AS n_dec9',
  'NULL::DECIMAL(38,10) AS n_dec38', 'NULL::DATE AS n_date', 'NULL::TIMESTAMP AS n_ts', 'NULL::UUID AS n_uuid',
  'NULL::INTEGER[] AS n_list', 'NULL::STRUCT(a INTEGER, b VARCHAR) AS n_struct',
  'NULL::MAP(VARCHAR, INTEGER) AS n_map', 'NULL::INTEGER[][] AS n_list_list',
];

const noNullColumns = () => [
  'i AS id',
  '(i % 3 = 0) AS b', '(i * 7)::INTEGER AS i32', `${signed64()}::BIGINT AS i64`, '(i / 3.0)::DOUBLE AS d',
  '(i / 4.0)::FLOAT AS f', "'s' || i::VARCHAR AS s", "(['a', 'b'])[1 + i % 2] AS s_low",
  'dec_unscaled(i * 7 - 5000, 2)::DECIMAL(9,2) AS dec', "DATE '2000-01-01' + i::INTEGER AS day",
  'make_timestamp(i * 1000000) AS ts', 'list_transform(range(i % 3), x -> x + i) AS l',
  "{'a': i::INTEGER, 'b': 'x'} AS st", "MAP(['k'], [i::INTEGER]) AS m", '(i % 5)::INTEGER AS "odd name, ü ""q"""',
];

// The cases. Notes on what DuckDB 1.5 writes (see the coverage summary for the details):
// ROW_GROUP_SIZE is rounded up to a multiple of 2048 rows; a column chunk holds one data page
// unless it passes 100 MB, so no case has several data pages per chunk; PARQUET_VERSION V2 picks
// the V2 encodings (DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT,
// RLE_DICTIONARY) but still writes DATA_PAGE (v1) page headers; COMPRESSION LZ4 writes LZ4_RAW.
const cases = [];
const add = (name, sql, options = '') => cases.push({ name, sql, options });

add('types_all', select(600, scalarColumns()));
add('types_all_v2', select(600, scalarColumns(3)), 'PARQUET_VERSION V2');
add('nested', select(400, nestedColumns()));
add('nested_v2', select(400, nestedColumns()), 'PARQUET_VERSION V2');
add('nested_v2_zstd', select(3000, nestedColumns()), 'PARQUET_VERSION V2, COMPRESSION ZSTD, ROW_GROUP_SIZE 1000');
add('nulls_all', select(3000, allNullColumns()), 'ROW_GROUP_SIZE 2048');
add('nulls_none', select(3000, noNullColumns()));
add('one_row', select(1, [...mixedColumns().slice(1), ...scalarColumns()]));
add('one_row_nested', select(1, nestedColumns()));
add('zero_rows', `SELECT * FROM (${select(10, [...mixedColumns(), ...nestedColumns()])}) WHERE false`);
for (const codec of ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'ZSTD', 'LZ4', 'BROTLI']) {
  add(`codec_${codec.toLowerCase()}`, select(3000, mixedColumns()), `COMPRESSION ${codec}, ROW_GROUP_SIZE 2048`);
}
add('rowgroups_dict', select(10000, lowHighColumns()), 'ROW_GROUP_SIZE 1000');
add('rowgroups_dict_v2', select(10000, lowHighColumns()), 'ROW_GROUP_SIZE 1000, PARQUET_VERSION V2');
add('v2_encodings', select(10000, v2Columns()), 'PARQUET_VERSION V2, ROW_GROUP_SIZE 4096');
add('v2_uncompressed', select(3000, v2Columns()), 'PARQUET_VERSION V2, COMPRESSION UNCOMPRESSED');
add('v2_gzip_mixed', select(3000, mixedColumns()), 'PARQUET_VERSION V2, COMPRESSION GZIP');
add('large_row_group', select(60000, [
  'i AS id', col('s', 'VARCHAR', [], "md5(i::VARCHAR) || md5((i + 1)::VARCHAR)", 17, 3),
  col('d', 'DOUBLE', [], 'sin(i)', 19, 4), col('l', 'BIGINT[]', [], 'range(i % 5)', 23, 5)]), 'ROW_GROUP_SIZE 100000');
add('time_micros', select(300, ['i AS id', col('t', 'TIME', ["'00:00:00'", "'23:59:59.999999'",
  "'12:34:56.789'", "'24:00:00'"], "TIME '00:00:00' + to_microseconds((i * 2654435761) % 86400000000)", 7, 4)]));
add('time_nanos', select(300, ['i AS id', col('t', 'TIME_NS', ["'00:00:00'", "'23:59:59.999999999'",
  "'00:00:00.000000001'"], "(TIME '00:00:00' + to_microseconds((i * 2654435761) % 86400000000))::TIME_NS", 7, 4)]));
add('time_utc', select(300, ['i AS id', col('t', 'TIMETZ', ["'00:00:00+00'", "'01:02:03+02'",
  "'23:59:59.999999-05:30'"], "(TIME '00:00:00' + to_microseconds((i * 2654435761) % 86400000000))::TIMETZ", 7, 4)]));

// ---- Canonical form of DuckDB's values ----------------------------------------------------------

// Parquet schema tree of a file (from parquet_schema, flattened depth-first with num_children).
async function schemaTree(file) {
  const r = await query(`SELECT name, type, type_length, repetition_type, num_children, converted_type,
      scale, precision, logical_type FROM parquet_schema(${sqlString(file)})`);
  const rows = r.getRowObjectsJson();
  let k = 0;
  const build = () => {
    const row = rows[k++];
    const node = { ...row, children: [] };
    const n = Number(row.num_children ?? 0);
    for (let c = 0; c < n; ++c) node.children.push(build());
    return node;
  };
  return { root: build(), rows };
}

function storedUnit(node) {
  const lt = node?.logical_type ?? '';
  if (lt.includes('MILLIS=MilliSeconds()')) return 'ms';
  if (lt.includes('MICROS=MicroSeconds()')) return 'us';
  if (lt.includes('NANOS=NanoSeconds()')) return 'ns';
  const ct = node?.converted_type ?? '';
  if (ct.endsWith('_MILLIS')) return 'ms';
  if (ct.endsWith('_MICROS')) return 'us';
  return null;
}

// Element node of a LIST group (3-level form, or the 2-level form where the repeated field is the
// element itself).
function listElement(node) {
  const rep = node?.children?.[0];
  if (rep && rep.children.length === 1 && rep.type === null) return rep.children[0];
  return rep;
}

function hex(bytes) {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

function decimalText(unscaled, scale) {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const body = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return neg ? `-${body}` : body;
}

// Days since 1970-01-01 -> "YYYY-MM-DD" (proleptic Gregorian, astronomical years).
function dateText(days) {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const year = y < 0 ? `-${String(-y).padStart(4, '0')}` : String(y).padStart(4, '0');
  return `${year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function floatCell(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return v;
}

function microsIn(unit, micros, where) {
  if (unit === 'ms') {
    if (micros % 1000n !== 0n) throw new Error(`${where}: ${micros} us is not a whole number of ms`);
    return `${micros / 1000n}ms`;
  }
  if (unit === 's') {
    if (micros % 1000000n !== 0n) throw new Error(`${where}: ${micros} us is not a whole number of s`);
    return `${micros / 1000000n}s`;
  }
  return `${micros}us`;
}

// DuckDB reads TIMESTAMP(NANOS, isAdjustedToUTC=true) as TIMESTAMP WITH TIME ZONE, truncated
// toward zero to microseconds: such a cell matches a canonical "<ns>ns" at that precision.
class MicrosOfNanos {
  constructor(micros) { this.micros = micros; }
  matches(cell) {
    return typeof cell === 'string' && /^-?[0-9]+ns$/.test(cell) && BigInt(cell.slice(0, -2)) / 1000n === this.micros;
  }
}
let microsOfNanosCells = 0;

// `type` is DuckDB's type of the value, `node` the Parquet schema node it was read from.
function canon(type, v, node, where) {
  if (v === null || v === undefined) return null;
  switch (type.typeId) {
    case T.BOOLEAN: return v;
    case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
    case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT: case T.UHUGEINT:
      return String(v);
    case T.FLOAT: case T.DOUBLE: return floatCell(v);
    case T.DECIMAL: return decimalText(v.value, v.scale);
    case T.VARCHAR: case T.ENUM: return v;
    case T.BLOB: return hex(v.bytes);
    case T.UUID: return v.toUint128().toString(16).padStart(32, '0');
    case T.DATE: return dateText(v.days);
    case T.TIMESTAMP: case T.TIMESTAMP_TZ: {
      const unit = storedUnit(node) ?? 'us';
      if (unit !== 'ns') return microsIn(unit, v.micros, where);
      microsOfNanosCells++;
      return new MicrosOfNanos(v.micros);
    }
    case T.TIMESTAMP_MS: return `${v.millis}ms`;
    case T.TIMESTAMP_NS: return `${v.nanos}ns`;
    case T.TIMESTAMP_S: return `${v.seconds}s`;
    case T.TIME: return microsIn(storedUnit(node) ?? 'us', v.micros, where);
    case T.TIME_NS: return `${v.nanos}ns`;
    case T.TIME_TZ: {
      const day = 86400000000n;
      return `${(((v.micros - BigInt(v.offset) * 1000000n) % day) + day) % day}us`;
    }
    case T.LIST: {
      const el = listElement(node);
      return v.items.map((x) => canon(type.valueType, x, el, where));
    }
    case T.STRUCT: {
      const out = {};
      type.entryNames.forEach((name, k) => {
        out[name] = canon(type.entryTypes[k], v.entries[name], node?.children?.[k], where);
      });
      return out;
    }
    case T.MAP: {
      const kv = node?.children?.[0];
      return v.entries.map((e) => ({
        key: canon(type.keyType, e.key, kv?.children?.[0], where),
        value: canon(type.valueType, e.value, kv?.children?.[1], where),
      }));
    }
    default: throw new Error(`${where}: no canonical form for DuckDB type ${type}`);
  }
}

// DuckDB's rows of `file` in file order. DuckDB refuses file_row_number on a file that has a column
// of that name; the single-threaded scan keeps file order without it.
async function duckdbRows(file, tree) {
  const rowNumber = !tree.root.children.some((c) => String(c.name).toLowerCase() === 'file_row_number');
  const r = await query(rowNumber
    ? `SELECT * FROM read_parquet(${sqlString(file)}, file_row_number = true) ORDER BY file_row_number`
    : `SELECT * FROM read_parquet(${sqlString(file)})`);
  const names = r.columnNames();
  const types = r.columnTypes();
  if (rowNumber && names[names.length - 1] !== 'file_row_number') throw new Error('file_row_number column missing');
  const n = names.length - (rowNumber ? 1 : 0);
  const rows = r.getRows().map((row) => {
    const out = new Array(n);
    for (let c = 0; c < n; ++c) out[c] = canon(types[c], row[c], tree.root.children[c], names[c]);
    return out;
  });
  return { names: names.slice(0, n), types: types.slice(0, n).map(String), rows };
}

// ---- Comparison ---------------------------------------------------------------------------------

function same(a, b) {
  if (b instanceof MicrosOfNanos) return b.matches(a);
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, k) => same(x, b[k]));
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, j) => k === kb[j] && same(a[k], b[k]));
}

// JSON text of a canonical value, keeping -0 visible; long strings shortened unless verbose.
function show(v) {
  if (v instanceof MicrosOfNanos) return `${v.micros}us (read from ns at us precision)`;
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'string') {
    const s = !verbose && v.length > 80 ? `${v.slice(0, 60)}...(${v.length} chars)` : v;
    return JSON.stringify(s);
  }
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(show).join(',')}]`;
  return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${show(x)}`).join(',')}}`;
}

// The most telling line of an error output: the first one mentioning an error, else the first.
function firstLine(s) {
  const lines = (s || '').split('\n').filter((l) => l.trim() !== '');
  const line = lines.find((l) => /(^|[^A-Za-z])(error|Error|ERROR)/.test(l)) ?? lines[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

// Runs `TOOL args...` and parses its output (the schema line and the canonical rows).
function runOurs(args) {
  const t0 = Date.now();
  const p = spawnSync(tool, args, { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 120000 });
  const ms = Date.now() - t0;
  if (p.error) return { ms, error: `could not run ${tool}: ${p.error.message}` };
  if (p.status !== 0) {
    const msg = firstLine(p.stderr) || firstLine(p.stdout) || '<no message>';
    return { ms, error: `exit ${p.status ?? p.signal}: ${msg}`, text: `${p.stderr}\n${p.stdout}` };
  }
  const lines = p.stdout.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0 || !lines[0].startsWith('schema\t')) {
    return { ms, error: `output does not start with a "schema<TAB>" line: ${firstLine(p.stdout)}` };
  }
  let schema;
  try {
    schema = JSON.parse(lines[0].slice('schema\t'.length));
  } catch (e) {
    return { ms, error: `schema line is not JSON: ${e.message}` };
  }
  const rows = [];
  for (let k = 1; k < lines.length; ++k) {
    try {
      rows.push(JSON.parse(lines[k]));
    } catch (e) {
      return { ms, error: `row ${k - 1} is not JSON (${e.message}): ${lines[k].slice(0, 200)}` };
    }
    if (!Array.isArray(rows[rows.length - 1])) return { ms, error: `row ${k - 1} is not a JSON array` };
  }
  return { ms, schema, rows };
}

function compare(ours, theirs) {
  const problems = [];
  const ourNames = ours.schema.map((f) => f?.name);
  if (ourNames.length !== theirs.names.length || ourNames.some((n, k) => n !== theirs.names[k])) {
    problems.push(`columns differ: ours ${JSON.stringify(ourNames)}, DuckDB ${JSON.stringify(theirs.names)}`);
    return problems;
  }
  if (ours.rows.length !== theirs.rows.length) {
    problems.push(`${ours.rows.length} rows here, ${theirs.rows.length} in DuckDB`);
  }
  const limit = verbose ? 50 : 5;
  let shown = 0, differing = 0;
  const n = Math.min(ours.rows.length, theirs.rows.length);
  for (let r = 0; r < n; ++r) {
    const a = ours.rows[r], b = theirs.rows[r];
    if (a.length !== b.length) {
      differing++;
      if (shown++ < limit) problems.push(`row ${r}: ${a.length} cells here, ${b.length} in DuckDB`);
      continue;
    }
    let rowDiffers = false;
    for (let c = 0; c < b.length; ++c) {
      if (same(a[c], b[c])) continue;
      rowDiffers = true;
      if (shown++ < limit) {
        problems.push(`row ${r}, column ${theirs.names[c]} (${theirs.types[c]}):\n` +
          `        ours   ${show(a[c])}\n        DuckDB ${show(b[c])}`);
      }
    }
    if (rowDiffers) differing++;
  }
  if (differing > 0) problems.push(`${differing} of ${n} rows differ`);
  return problems;
}

// ---- Coverage: footers and page headers ---------------------------------------------------------

const ENCODING = ['PLAIN', 'GROUP_VAR_INT', 'PLAIN_DICTIONARY', 'RLE', 'BIT_PACKED', 'DELTA_BINARY_PACKED',
  'DELTA_LENGTH_BYTE_ARRAY', 'DELTA_BYTE_ARRAY', 'RLE_DICTIONARY', 'BYTE_STREAM_SPLIT'];
const PAGE_TYPE = ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2'];

// Minimal Thrift compact protocol reader, enough to walk PageHeader structs.
class Compact {
  constructor(buf, pos) { this.buf = buf; this.pos = pos; }
  byte() {
    if (this.pos >= this.buf.length) throw new Error('page header runs past the end of the file');
    return this.buf[this.pos++];
  }
  varint() {
    let result = 0, mul = 1, b;
    do {
      b = this.byte();
      result += (b & 0x7f) * mul;
      mul *= 128;
    } while (b & 0x80);
    return result;  // exact up to 2^53, enough for the fields read here
  }
  zigzag() {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }
  skip(type) {
    switch (type) {
      case 1: case 2: return;
      case 3: this.pos += 1; return;
      case 4: case 5: case 6: this.varint(); return;
      case 7: this.pos += 8; return;
      case 8: this.pos += this.varint(); return;
      case 9: case 10: {
        const h = this.byte();
        let size = h >> 4;
        if (size === 15) size = this.varint();
        const et = h & 15;
        for (let k = 0; k < size; ++k) {
          if (et === 1 || et === 2) this.pos += 1;
          else this.skip(et);
        }
        return;
      }
      case 11: {
        const size = this.varint();
        if (size === 0) return;
        const kv = this.byte();
        for (let k = 0; k < size; ++k) {
          this.skip(kv >> 4);
          this.skip(kv & 15);
        }
        return;
      }
      case 12: this.struct(() => false); return;
      default: throw new Error(`bad thrift compact type ${type}`);
    }
  }
  // Calls onField(id, type) for each field; it returns true when it consumed the value.
  struct(onField) {
    let last = 0;
    for (;;) {
      const h = this.byte();
      if (h === 0) return;
      const type = h & 15;
      const delta = h >> 4;
      const id = delta === 0 ? this.zigzag() : last + delta;
      last = id;
      if (!onField(id, type)) this.skip(type);
    }
  }
  // Integer fields of a struct, by id; nested structs listed in `nested` are read the same way.
  ints(nested = {}) {
    const out = {};
    this.struct((id, type) => {
      if (type === 1 || type === 2) { out[id] = type === 1; return true; }
      if (type >= 3 && type <= 6) { out[id] = type === 3 ? this.byte() : this.zigzag(); return true; }
      if (type === 12 && nested[id]) { out[id] = this.ints(nested[id]); return true; }
      return false;
    });
    return out;
  }
}

const newCoverage = () => ({
  chunks: new Map(),   // "physical | encodings | codec" -> {chunks, files:Set}
  pages: new Map(),    // "physical | page type | encoding" -> count
  annotations: new Map(),  // "physical | converted | logical | repetition" -> Set of files
  codecs: new Set(),
  encodings: new Set(),
  pageTypes: new Set(),
  maxPages: { n: 0, where: '' },
  v2Uncompressed: 0,
  errors: [],
});

function bump(map, key, file) {
  const e = map.get(key) ?? { count: 0, files: new Set() };
  e.count++;
  e.files.add(file);
  map.set(key, e);
}

async function recordCoverage(coverage, name, file, tree) {
  for (const row of tree.rows.slice(1)) {
    if (row.type === null) continue;
    const lt = row.logical_type ? row.logical_type.replace(/\(.*$/, '') : '-';
    const ann = row.converted_type ?? '-';
    bump(coverage.annotations, `${row.type}${row.type_length ? `(${row.type_length})` : ''} | ${ann} | ${lt} | ` +
      `${row.repetition_type}`, name);
  }
  const r = await query(`SELECT path_in_schema, type, encodings, compression, dictionary_page_offset,
      data_page_offset, total_compressed_size FROM parquet_metadata(${sqlString(file)})`);
  const bytes = readFileSync(file);
  for (const m of r.getRowObjectsJson()) {
    bump(coverage.chunks, `${m.type} | ${m.encodings || '(none listed)'} | ${m.compression}`, name);
    coverage.codecs.add(m.compression);
    const dict = m.dictionary_page_offset === null ? null : Number(m.dictionary_page_offset);
    const start = dict !== null && dict > 0 ? dict : Number(m.data_page_offset);
    const end = start + Number(m.total_compressed_size);
    let pos = start, dataPages = 0;
    try {
      while (pos < end) {
        const c = new Compact(bytes, pos);
        const h = c.ints({ 5: {}, 7: {}, 8: {} });
        const type = PAGE_TYPE[h[1]] ?? `PAGE_TYPE_${h[1]}`;
        const sub = h[5] ?? h[7] ?? h[8] ?? {};
        const enc = h[8] ? sub[4] : sub[2];
        let key = `${m.type} | ${type} | ${ENCODING[enc] ?? `ENCODING_${enc}`}`;
        if (h[5]) key += ` (levels ${ENCODING[sub[3]]}/${ENCODING[sub[4]]})`;
        bump(coverage.pages, key, name);
        coverage.encodings.add(ENCODING[enc] ?? `ENCODING_${enc}`);
        coverage.pageTypes.add(type);
        if (h[8] && h[8][7] === false) coverage.v2Uncompressed++;
        if (h[1] === 0 || h[1] === 3) dataPages++;
        if (!(h[3] >= 0)) throw new Error('page header without compressed_page_size');
        pos = c.pos + h[3];
      }
      if (pos !== end) throw new Error(`pages end at ${pos}, chunk at ${end}`);
    } catch (e) {
      coverage.errors.push(`${name} ${m.path_in_schema}: ${e.message}`);
    }
    if (dataPages > coverage.maxPages.n) {
      coverage.maxPages = { n: dataPages, where: `${name} ${m.path_in_schema}` };
    }
  }
}

function printTable(title, map) {
  console.log(title);
  const keys = [...map.keys()].sort();
  const parts = keys.map((k) => k.split(' | '));
  const widths = [];
  for (const p of parts) p.forEach((s, k) => { widths[k] = Math.max(widths[k] ?? 0, s.length); });
  keys.forEach((k, j) => {
    const e = map.get(k);
    const cells = parts[j].map((s, c) => s.padEnd(widths[c])).join('  ');
    const files = [...e.files];
    const fileText = files.length <= 3 ? files.join(', ') : `${files.slice(0, 3).join(', ')} +${files.length - 3}`;
    console.log(`  ${cells}  ${String(e.count).padStart(5)}  (${fileText})`);
  });
}

// ---- Run ----------------------------------------------------------------------------------------

const selected = cases.filter((c) => only === null || c.name.includes(only));
const tWrite = Date.now();
for (const c of selected) {
  c.file = join(outDir, `${c.name}.parquet`);
  const opts = ['FORMAT parquet', c.options].filter((s) => s !== '').join(', ');
  await con.run(`COPY (${c.sql}) TO ${sqlString(c.file)} (${opts})`);
}
const writeMs = Date.now() - tWrite;

const duckdbCoverage = newCoverage();
let okCount = 0, unsupported = 0;
const failures = [];
for (const c of selected) {
  const tree = await schemaTree(c.file);
  await recordCoverage(duckdbCoverage, c.name, c.file, tree);
  const known = c.name.startsWith('time_');
  const t0 = Date.now();
  let theirs;
  try {
    theirs = await duckdbRows(c.file, tree);
  } catch (e) {
    failures.push(c.name);
    console.log(`FAIL  ${c.name}: DuckDB side: ${e.message.split('\n')[0]}`);
    continue;
  }
  const duckMs = Date.now() - t0;
  const ours = runOurs(['read', c.file]);
  if (ours.error !== undefined) {
    if (known && ours.text !== undefined && /not supported/i.test(ours.text)) {
      unsupported++;
      console.log(`SKIP  ${c.name}: known unsupported (${ours.error})`);
    } else {
      failures.push(c.name);
      console.log(`FAIL  ${c.name}: our tool: ${ours.error}`);
    }
    continue;
  }
  const problems = compare(ours, theirs);
  if (problems.length === 0) {
    okCount++;
    const groups = Number((await query(`SELECT num_row_groups FROM parquet_file_metadata(${sqlString(c.file)})`))
      .getRows()[0][0]);
    console.log(`OK    ${c.name}: ${theirs.rows.length} rows x ${theirs.names.length} columns, ${groups} row group${groups === 1 ? '' : 's'}` +
      (verbose ? ` (ours ${ours.ms} ms, DuckDB ${duckMs} ms; options: ${c.options || 'defaults'})` : ''));
    if (verbose) {
      console.log(`      our types: ${ours.schema.map((f) => `${f.name}: ${f.type}`).join(', ')}`);
    }
  } else {
    failures.push(c.name);
    console.log(`DIFF  ${c.name} (${c.file}; options: ${c.options || 'defaults'})\n      ${problems.join('\n      ')}`);
  }
}

// ---- Files our tool writes, DuckDB reads -------------------------------------------------------

// Codec names of `TOOL write` and the codec DuckDB's parquet_metadata reports for them. Not here:
// lz4_hadoop (codec LZ4, id 5, Hadoop framing), which DuckDB 1.5 rejects as unsupported.
const writeCodecs = { none: 'UNCOMPRESSED', snappy: 'SNAPPY', gzip: 'GZIP', brotli: 'BROTLI', zstd: 'ZSTD', lz4: 'LZ4_RAW' };
const oursCases = Object.keys(writeCodecs).map((codec) => ({ name: `ours_${codec}`, codec }))
  .filter((c) => only === null || c.name.includes(only));
const oursCoverage = newCoverage();
let oursOk = 0;

// Top-level columns DuckDB fails to read on their own (to point at the culprit of a failed read).
async function columnsDuckdbFailsOn(file, tree) {
  const bad = [];
  for (const c of tree?.root?.children ?? []) {
    try {
      await query(`SELECT "${String(c.name).replaceAll('"', '""')}" FROM read_parquet(${sqlString(file)})`);
    } catch {
      bad.push(c.name);
    }
  }
  return bad;
}

for (const c of oursCases) {
  c.file = join(outDir, `${c.name}.parquet`);
  const ours = runOurs(['write', c.file, c.codec]);
  if (ours.error !== undefined) {
    failures.push(c.name);
    console.log(`FAIL  ${c.name}: our tool: ${ours.error}`);
    continue;
  }
  const t0 = Date.now();
  const coarse0 = microsOfNanosCells;
  let tree, theirs, groups, codecs;
  try {
    tree = await schemaTree(c.file);
    theirs = await duckdbRows(c.file, tree);
  } catch (e) {
    failures.push(c.name);
    const bad = await columnsDuckdbFailsOn(c.file, tree);
    console.log(`FAIL  ${c.name}: DuckDB side: ${e.message.split('\n')[0]}` +
      (bad.length > 0 ? ` (columns failing on their own: ${bad.join(', ')})` : ''));
    continue;
  }
  const duckMs = Date.now() - t0;
  try {
    groups = Number((await query(`SELECT num_row_groups FROM parquet_file_metadata(${sqlString(c.file)})`))
      .getRows()[0][0]);
    codecs = (await query(`SELECT DISTINCT compression FROM parquet_metadata(${sqlString(c.file)}) ORDER BY 1`))
      .getRows().map((row) => String(row[0]));
    await recordCoverage(oursCoverage, c.name, c.file, tree);
  } catch (e) {
    failures.push(c.name);
    console.log(`FAIL  ${c.name}: DuckDB side, footer metadata: ${e.message.split('\n')[0]}`);
    continue;
  }
  const problems = compare(ours, theirs);
  const want = writeCodecs[c.codec];
  if (codecs.length > 0 && (codecs.length !== 1 || codecs[0] !== want)) {
    problems.push(`column chunk codecs ${codecs.join(', ')}, asked for ${c.codec} (${want})`);
  }
  if (problems.length === 0) {
    oursOk++;
    const coarse = microsOfNanosCells - coarse0;
    console.log(`OK    ${c.name}: ${theirs.rows.length} rows x ${theirs.names.length} columns, ${groups} row group${groups === 1 ? '' : 's'}, ${want}` +
      (coarse > 0 ? ` (${coarse} ns timestamps with UTC compared at us precision)` : '') +
      (verbose ? ` (ours ${ours.ms} ms, DuckDB ${duckMs} ms)` : ''));
    if (verbose) {
      console.log(`      our types: ${ours.schema.map((f) => `${f.name}: ${f.type}`).join(', ')}`);
      console.log(`      DuckDB types: ${theirs.names.map((n, k) => `${n}: ${theirs.types[k]}`).join(', ')}`);
    }
  } else {
    failures.push(c.name);
    console.log(`DIFF  ${c.name} (${c.file})\n      ${problems.join('\n      ')}`);
  }
}

// The chunks table without its codec column (for files that differ only in their codec).
function withoutCodec(chunks) {
  const out = new Map();
  for (const [key, e] of chunks) {
    const k = key.split(' | ').slice(0, -1).join(' | ');
    const m = out.get(k) ?? { count: 0, files: new Set() };
    m.count += e.count;
    for (const f of e.files) m.files.add(f);
    out.set(k, m);
  }
  return out;
}

function printCoverage(title, coverage, byCodec) {
  console.log(`\n${title}`);
  if (byCodec) printTable('column chunks: physical type | encodings (footer) | codec, count, files', coverage.chunks);
  else printTable('column chunks: physical type | encodings (footer), count, files', withoutCodec(coverage.chunks));
  printTable('pages: physical type | page type | encoding (from the page headers), count, files', coverage.pages);
  printTable('leaf columns: physical | converted type | logical type | repetition, count, files', coverage.annotations);
  console.log(`codecs: ${[...coverage.codecs].sort().join(', ')}\n` +
    `value encodings (page headers): ${[...coverage.encodings].sort().join(', ')}\n` +
    `page types: ${[...coverage.pageTypes].sort().join(', ')}`);
  console.log(`most data pages in one column chunk: ${coverage.maxPages.n} (${coverage.maxPages.where}); ` +
    `v2 data pages stored uncompressed: ${coverage.v2Uncompressed}`);
  for (const e of coverage.errors) console.log(`page walk problem: ${e}`);
}
if (selected.length > 0) {
  printCoverage('coverage of the files DuckDB wrote', duckdbCoverage, true);
  console.log(`json column: ${haveJson ? 'yes' : 'no (no json extension)'}`);
}
if (oursCoverage.chunks.size > 0) printCoverage('coverage of the files our tool wrote (all codecs)', oursCoverage, false);

console.log(`\n${selected.length} files DuckDB wrote: ${okCount} OK, ${unsupported} known unsupported; ` +
  `${oursCases.length} files our tool wrote: ${oursOk} OK; ${failures.length} failing` +
  `${failures.length ? ` (${failures.join(', ')})` : ''}; ` +
  `DuckDB wrote its files in ${(writeMs / 1000).toFixed(1)} s, total ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failures.length === 0 && selected.length + oursCases.length > 0 ? 0 : 1);
