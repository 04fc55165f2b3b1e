// DuckDB's half of the CSV and newline-delimited JSON interop check, in both directions.
//
//   node text_formats.mjs TOOL OUT_DIR [--verbose] [--only SUBSTRING]
//
// DuckDB writes, we read (cases csv_* and json_*): DuckDB (@duckdb/node-api) builds a table from
// range(n) with deterministic formulas and NULLs, and writes it with
// `COPY t TO 'FILE.csv' (HEADER, DELIMITER ',')` or `COPY t TO 'FILE.json' (FORMAT JSON)`
// (newline-delimited). Each case runs two checks:
//   explicit  `TOOL read-csv FILE SCHEMA` / `TOOL read-json FILE SCHEMA`, SCHEMA mapped from the
//             table's DuckDB types (BOOLEAN bool, TINYINT..BIGINT int8..int64, UTINYINT..UBIGINT
//             uint8..uint64, FLOAT float32, DOUBLE float64, DECIMAL(p,s) decimal128(p, s), DATE
//             date32, TIMESTAMP_S / TIMESTAMP_MS / TIMESTAMP / TIMESTAMP_NS timestamp[s] / [ms] /
//             [us] / [ns], TIMESTAMPTZ timestamp[us, tz=UTC], VARCHAR string (the DataType::ToString
//             spelling of utf8; "utf8" is not accepted), X[] list<x>). Our printed schema must be
//             the one asked for, and every cell must equal the original DuckDB table's value in
//             canonical form (timestamps as counts in the unit of our type, which is DuckDB's unit
//             by the mapping). format_tool's SCHEMA parser has no struct
//             type: struct columns (and lists of structs) are left out of SCHEMA (our JSON reader
//             reads the keys the schema names and ignores the others) and are checked by the
//             inferred check only.
//   inferred  `TOOL read-csv FILE` / `TOOL read-json FILE` (our inference) against DuckDB's own
//             inference of the same file (`read_csv(FILE, header = true, allow_quoted_nulls =
//             false)` / `read_json(FILE)`). Column names and row counts must be equal; every cell
//             is compared, by value in OUR inferred type: for a column we infer as a non-string
//             type, the reference is DuckDB's inferred value CAST (by DuckDB) to the DuckDB type
//             of ours (BIGINT -> BIGINT is a no-op, UBIGINT -> DOUBLE when we infer float64 for
//             integers beyond int64, VARCHAR -> TIMESTAMPTZ when DuckDB leaves a timestamp as text,
//             STRUCT(a HUGEINT, ...) -> STRUCT(a BIGINT, ...)...; a failing cast fails the check);
//             for a column we infer as string, the reference is the field's text as DuckDB reads
//             it without conversion (`read_csv(FILE, header = true, all_varchar = true,
//             allow_quoted_nulls = false)`, or for JSON `read_json(FILE, columns = {c: 'VARCHAR'})`,
//             which gives a JSON string's content and other JSON values as their text), since
//             DuckDB's typed value cast back to text is not the file's text. The types must be
//             the same (ours mapped to DuckDB's names, lists and struct fields compared element
//             by element) except for the pairs listed in ALLOWED_TYPE_DIFFERENCES, each with its
//             reason; any other difference fails the check. Our inference reads timestamps as timestamp[us]
//             whatever their digits, DuckDB as TIMESTAMP: both truncate nanosecond text to
//             microseconds, and that is what is compared. Our inference leaves dates and
//             timestamps with five-digit years ("12345-06-07") as strings where DuckDB's CSV
//             sniffer reads DATE / TIMESTAMP, so such values sit in columns of their own
//             (c_date_far, c_ts_far) and the other date and timestamp columns are inferred as such.
//
// We write, DuckDB reads (cases ours_csv, ours_json): `TOOL write-csv FILE` / `TOOL write-json
// FILE` writes a generated table with our writer and prints its schema and canonical rows (from
// memory). DuckDB reads FILE with explicit types mapped from our printed schema (int8 TINYINT, ...,
// float32 FLOAT, decimal128(p, s) DECIMAL(p,s), date32 DATE, timestamp[s] TIMESTAMP_S,
// timestamp[ms] TIMESTAMP_MS, timestamp[us] TIMESTAMP, timestamp[ns] TIMESTAMP_NS, timestamp[us,
// tz=UTC] TIMESTAMPTZ, string VARCHAR, list<x> X[], struct<a: x> STRUCT(a X)):
// `read_csv(FILE, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
// allow_quoted_nulls = false, columns = {...})` and `read_json(FILE, format =
// 'newline_delimited', columns = {...})`; every cell is compared with our printed rows. Then DuckDB
// must read FILE with its own inference and default options (`read_csv(FILE)`, `read_json(FILE)`)
// without error and count as many rows (values are not compared there: DuckDB's inference turns
// our timestamp[ns] text into microsecond TIMESTAMPs and, by default, reads "" as NULL). The
// tables format_tool generates hold dates of 1942..2052, timestamps of about 575..3365 and only
// finite floats: our writers' negative years and nan / inf spellings are not exercised here.
//
// Cases *_multi_chunk write files of about 35 MiB, more than our readers' 16 MiB scan tasks, with
// quoted newlines and quotes in every CSV row (the file sizes are printed).
//
// Cell canonical form: as in parquet_read.mjs (integers as decimal strings, floats as numbers
// compared with Object.is or "NaN" / "Infinity" / "-Infinity", decimals as strings with exactly
// `scale` fraction digits, dates "YYYY-MM-DD", timestamps "<count><unit>", strings as strings, lists
// as arrays, structs as objects with the fields in schema order).
//
// What DuckDB 1.5 does that shaped the data or the options (the data is adapted, nothing hidden):
//   - dates and timestamps before year 1 are written as "0045-03-15 (BC)" / "0045-03-15 (BC)
//     01:02:03", a DuckDB-only spelling that is not ISO 8601 and that our readers do not take
//     (they read "-0044-03-15"): the tables hold years 1 to 12345 only. Likewise no 'infinity'
//     dates or timestamps;
//   - in JSON, NaN and infinities are written as the bare tokens NaN / Infinity / -Infinity, which
//     is not JSON (our reader rejects the file): the JSON tables hold finite floats only (the CSV
//     tables have them: DuckDB writes nan / inf / -inf there);
//   - in CSV, NULL is written as an empty unquoted field and the empty string as "", so the two are
//     distinct in the file; but read_csv's default allow_quoted_nulls = true reads "" as NULL, so
//     DuckDB reads with allow_quoted_nulls = false (except the default-options row count check);
//     a NULL in a one-column table is written as an empty line (case csv_one_column);
//   - read_csv's sniffer cannot tell a header from data when every column is text, so header =
//     true is given;
//   - DECIMAL is written to JSON as a number with all its digits ("c":9999...9.9999999999);
//     DuckDB's own JSON reader reads such numbers through a double;
//   - TIMESTAMP_NS only holds about 1677-09-22 to 2262-04-11.
//
// Exits non-zero when any check differs, our tool fails on a file it should read or write, or
// DuckDB fails on a file our tool wrote.
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
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
  console.error('usage: node text_formats.mjs TOOL OUT_DIR [--verbose] [--only SUBSTRING]');
  process.exit(2);
}
const tool = positional[0].includes('/') ? resolve(positional[0]) : positional[0];
const outDir = resolve(positional[1]);
mkdirSync(outDir, { recursive: true });

const started = Date.now();
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await instance.connect();
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const ident = (s) => `"${s.replaceAll('"', '""')}"`;
const query = async (sql) => (await con.runAndReadAll(sql));

await con.run(`SET TimeZone = 'UTC'`);
// A decimal literal from its unscaled integer value and scale, exact at any width.
// (lpad truncates, so the digits are padded to at least s + 1, never cut.)
await con.run(`CREATE MACRO abs_digits(u, n) AS lpad(abs(u)::VARCHAR, greatest(n, length(abs(u)::VARCHAR))::INTEGER, '0')`);
await con.run(`CREATE MACRO dec_unscaled(u, s) AS
  (CASE WHEN u < 0 THEN '-' ELSE '' END) ||
  substr(abs_digits(u, s + 1), 1, length(abs_digits(u, s + 1)) - s) || '.' ||
  substr(abs_digits(u, s + 1), length(abs_digits(u, s + 1)) - s + 1)`);

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

// Strings that need quoting or escaping in CSV or JSON.
const trickyStrings = ["''", "'a,b'", `'say "hi"'`, "'two' || chr(10) || 'lines'",
  "'cr' || chr(13) || 'lf' || chr(13) || chr(10) || 'end'", "' padded '", "'  '",
  "'tab' || chr(9) || 'here'", "'back\\slash'", "'\\u0041 is not an escape'", "'日本語 🎉 héllo wörld'",
  "chr(1114111) || chr(65533)", `'"'`, `'""'`, `'"leading'`, `'trailing"'`, "'NULL'", "'null'",
  "','", "chr(1) || chr(31) || chr(127) || chr(8232)", "'#not a comment'", "'=1+1'", "'true'",
  `repeat('long, "quoted"' || chr(10), 300)`, "'/'"];

// Flat columns: every type both our schema and DuckDB's hold. `json` leaves out the values DuckDB
// writes as non-JSON (non-finite floats) and, see wideDecimalColumns, the widest decimals.
const flatColumns = (json) => {
  const c = (name, type, specials, formula, every) => col(name, type, specials, formula, every, name.length % every);
  const nonFinite = json ? [] : ["'NaN'", "'Infinity'", "'-Infinity'"];
  const dec38Max = json ? [] : ["'-9999999999999999999999999999.9999999999'", "'9999999999999999999999999999.9999999999'"];
  return [
    'i AS id',
    c('c_bool', 'BOOLEAN', ['true', 'false'], '(i * 7919) % 3 = 0', 5),
    c('c_int8', 'TINYINT', ['-128', '127', '0', '-1'], '(i * 37) % 256 - 128', 6),
    c('c_int16', 'SMALLINT', ['-32768', '32767', '0'], '(i * 7919) % 65536 - 32768', 7),
    c('c_int32', 'INTEGER', ['-2147483648', '2147483647', '0'], '(i * 2654435761) % 4294967296 - 2147483648', 8),
    c('c_int64', 'BIGINT', ['-9223372036854775808', '9223372036854775807', '0', '-1'], signed64(), 9),
    c('c_uint8', 'UTINYINT', ['0', '255', '128'], '(i * 37) % 256', 10),
    c('c_uint16', 'USMALLINT', ['0', '65535', '32768'], '(i * 7919) % 65536', 11),
    c('c_uint32', 'UINTEGER', ['0', '4294967295', '2147483648'], '(i * 2654435761) % 4294967296', 12),
    c('c_uint64', 'UBIGINT', ['0', '18446744073709551615', '9223372036854775808', '9223372036854775807'], H(), 13),
    c('c_float', 'FLOAT', [...nonFinite, "'-0.0'", '0.0', '3.4028235e38', '-3.4028235e38', '1.4e-45',
      '1.17549435e-38', '0.1', '16777217', '-1.5e-7'],
    '((i * 7919) % 20001 - 10000) / 7.0', 7),
    c('c_double', 'DOUBLE', [...nonFinite, "'-0.0'", '0.0', '1.7976931348623157e308', '-1.7976931348623157e308',
      '5e-324', '2.2250738585072014e-308', '0.1', '-1e100', '9007199254740993', '123456789012345680000', '1e-7'],
    'sin(i) * pow(10, (i % 41) - 20)', 6),
    c('c_dec15_2', 'DECIMAL(15,2)', ['-9999999999999.99', '9999999999999.99', '0', '-0.01', '0.10', '-1.50'],
      `dec_unscaled((${H()} % 1999999999999999)::HUGEINT - 999999999999999, 2)`, 5),
    c('c_dec38_10', 'DECIMAL(38,10)', [...dec38Max, '0', "'-0.0000000001'", "'12345678901234567890.0000000001'",
      "'-1.0000000000'", "'0.5'"],
    `dec_unscaled((CASE i % 3 WHEN 0 THEN (${H()} >> 2)::HUGEINT * (${H('i + 7')} >> 2)::HUGEINT
        WHEN 1 THEN ${H()}::HUGEINT ELSE (${H()} % 1000)::HUGEINT END) * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END), 10)`, 9),
    c('c_date', 'DATE', ["'1970-01-01'", "'1969-12-31'", "'0001-01-01'", "'1600-02-29'", "'1900-02-28'",
      "'2000-02-29'", "'9999-12-31'"],
    "DATE '1970-01-01' + ((i * 7919) % 200001 - 100000)::INTEGER", 8),
    // Years past 9999 (five digits): our inference leaves such text as a string, see the top comment.
    c('c_date_far', 'DATE', ["'12345-06-07'", "'9999-12-31'", "'10000-01-01'"],
      "DATE '9000-01-01' + ((i * 7919) % 800000)::INTEGER", 7),
    c('c_ts', 'TIMESTAMP', ["'1970-01-01 00:00:00'", "'1969-12-31 23:59:59.999999'", "'0001-01-01 00:00:00'",
      "'9999-12-31 23:59:59.999999'", "'1900-03-01 12:34:56.789012'", "'2000-01-01 00:00:00.1'"],
    `make_timestamp((${H()} % 20000000000000000)::BIGINT - 10000000000000000)`, 9),
    c('c_ts_far', 'TIMESTAMP', ["'12345-06-07 08:09:10.111213'", "'9999-12-31 23:59:59.999999'", "'10000-01-01 00:00:00'"],
      `TIMESTAMP '9000-01-01' + to_microseconds((${H()} % 60000000000000000)::BIGINT)`, 8),
    c('c_ts_ms', 'TIMESTAMP_MS', ["'1970-01-01 00:00:00'", "'1969-12-31 23:59:59.999'", "'0001-01-01 00:00:00'",
      "'9999-12-31 23:59:59.999'", "'2000-01-01 00:00:00.01'"],
    `make_timestamp(((${H()} % 20000000000000)::BIGINT - 10000000000000) * 1000)`, 7),
    c('c_ts_ns', 'TIMESTAMP_NS', ["'1970-01-01 00:00:00'", "'1969-12-31 23:59:59.999999999'",
      "'1677-09-22 00:00:00'", "'2262-04-11 23:47:16.854775'", "'2000-01-01 00:00:00.000000001'"],
    `make_timestamp_ns((${H()} >> 1)::BIGINT - 4611686018427387904)`, 8),
    c('c_ts_s', 'TIMESTAMP_S', ["'1970-01-01 00:00:00'", "'1969-12-31 23:59:59'", "'0001-01-01 00:00:00'",
      "'9999-12-31 23:59:59'"],
    `make_timestamp(((${H()} % 20000000000)::BIGINT - 10000000000) * 1000000)`, 6),
    c('c_tstz', 'TIMESTAMPTZ', ["'1970-01-01 00:00:00+00'", "'2000-01-01 00:00:00+05:30'",
      "'1969-12-31 23:59:59.999999+00'", "'0001-01-01 00:00:00+00'"],
    `make_timestamp((${H()} % 20000000000000000)::BIGINT - 10000000000000000)`, 5),
    c('c_str', 'VARCHAR', trickyStrings,
      `(['plain', 'a,b', 'say "hi"', 'two' || chr(10) || 'lines', ' padded ', '', 'ü'])[1 + i % 7] ||
       ((i * 7919) % 1000)::VARCHAR || repeat('x', (i % 13)::INTEGER)`, 6),
    c('c_str_low', 'VARCHAR', [], "(['alpha', 'beta', '', ' ', 'x,y'])[1 + i % 5]", 7),
    // Text that looks like numbers: kept as written with an explicit schema.
    c('c_str_digits', 'VARCHAR', ["'007'", "'-0'", "'1e5'", "'+3'"], "lpad(((i * 37) % 100000)::VARCHAR, 6, '0')", 9),
  ];
};

// Nested columns (JSON only).
const nestedColumns = () => [
  col('l_int', 'INTEGER[]', ['[]', '[NULL]', '[1, NULL, 3]', '[NULL, NULL]', '[-2147483648, 2147483647]'],
    `CASE WHEN i % 5 = 0 THEN [] ELSE list_transform(range(i % 7),
      x -> CASE WHEN (x + i) % 4 = 0 THEN NULL ELSE (x * i) % 2147483647 END) END`, 9, 4),
  col('l_str', 'VARCHAR[]', ['[]', '[NULL]', `['', NULL, 'héllo', 'a,b', 'say "hi"', 'two' || chr(10) || 'lines']`],
    "list_transform(range(i % 5), x -> 'v' || (x * i)::VARCHAR)", 7, 2),
  col('l_l_int', 'BIGINT[][]', ['[]', '[[]]', '[NULL]', '[[], NULL, [1], [NULL, 2]]', '[[-9223372036854775808]]'],
    `list_transform(range(i % 4), x -> CASE WHEN x = 2 THEN NULL ELSE
       list_transform(range(x + i % 2), y -> CASE WHEN y = 1 THEN NULL ELSE y + i END) END)`, 8, 3),
  col('l_double', 'DOUBLE[]', ["['-0.0'::DOUBLE, NULL, 1e300, 5e-324]"], 'list_transform(range(i % 3), x -> x / 3.0 - i)', 6, 1),
  col('l_bool', 'BOOLEAN[]', ['[true, NULL, false]'], 'list_transform(range(i % 3), x -> (x + i) % 2 = 0)', 11, 5),
  col('l_date', 'DATE[]', ["[DATE '1969-12-31', NULL, DATE '0001-01-01']"],
    "list_transform(range(i % 3), x -> DATE '2000-01-01' + (x * i)::INTEGER)", 10, 5),
  col('l_ts', 'TIMESTAMP[]', ["[TIMESTAMP '1969-12-31 23:59:59.999999', NULL]"],
    "list_transform(range(i % 3), x -> TIMESTAMP '2000-01-01' + to_microseconds(x * i * 1000003))", 10, 7),
  col('l_dec', 'DECIMAL(15,2)[]', ['[-0.01, NULL, 1234567890123.45]'],
    'list_transform(range(i % 3), x -> (x * i) / 8)', 10, 6),
  col('s_pair', 'STRUCT(a BIGINT, b VARCHAR, c BOOLEAN[])', ['NULL', "{'a': NULL, 'b': NULL, 'c': NULL}",
    "{'a': 1, 'b': '', 'c': []}", "{'a': NULL, 'b': 'a,b', 'c': [NULL, true]}"],
  "{'a': i, 'b': 'b' || i::VARCHAR, 'c': list_transform(range(i % 3), x -> x = 1)}", 7, 0),
  col('s_nested', 'STRUCT(x STRUCT(y BIGINT, z DOUBLE), w BOOLEAN)', ['NULL', "{'x': NULL, 'w': true}",
    "{'x': {'y': NULL, 'z': NULL}, 'w': NULL}"],
  `{'x': CASE WHEN i % 4 = 1 THEN NULL ELSE {'y': i * 3, 'z': i / 4.0} END, 'w': i % 2 = 0}`, 9, 7),
  col('l_struct', 'STRUCT(a BIGINT, b VARCHAR)[]', ['[]', '[NULL]', "[{'a': NULL, 'b': NULL}, NULL, {'a': 2, 'b': 'x'}]"],
    `list_transform(range(i % 4), x -> CASE WHEN x = 1 AND i % 3 = 0 THEN NULL
       ELSE {'a': x * i, 'b': 'e' || x::VARCHAR} END)`, 8, 1),
  col('s_list', 'STRUCT(id BIGINT, tags VARCHAR[])', ["{'id': 1, 'tags': []}", "{'id': NULL, 'tags': NULL}",
    "{'id': 2, 'tags': [NULL, 'a']}", 'NULL'],
  "{'id': i, 'tags': list_transform(range(i % 3), x -> 't' || x::VARCHAR)}", 11, 3),
];

// Decimals with more significant digits than a double holds, at the edges of their precision.
const wideDecimalColumns = () => [
  'i AS id',
  col('d38', 'DECIMAL(38,10)', ["'-9999999999999999999999999999.9999999999'", "'9999999999999999999999999999.9999999999'",
    "'1234567890123456789012345678.1234567891'"],
  `dec_unscaled((${H()} >> 2)::HUGEINT * (${H('i + 7')} >> 2)::HUGEINT, 10)`, 7, 3),
  col('d18', 'DECIMAL(18,4)', ["'99999999999999.9999'", "'-99999999999999.9999'", "'12345678901234.5678'"],
    `dec_unscaled((${H()} % 1999999999999999999)::HUGEINT - 999999999999999999, 4)`, 7, 5),
];

// Long rows with quoted newlines and quotes: a file larger than our readers' 16 MiB scan tasks.
const bigColumns = () => [
  'i AS id',
  col('s', 'VARCHAR', [], `'row ' || i::VARCHAR || chr(10) || '"quoted, ' || (i % 97)::VARCHAR || '"' ||
     chr(10) || repeat(CASE WHEN i % 3 = 0 THEN 'z,' ELSE 'q"' END, (i % 200)::INTEGER)`, 17, 3),
  col('d', 'DOUBLE', [], 'sin(i) * 1000', 19, 4),
  col('ts', 'TIMESTAMP', [], "TIMESTAMP '2020-01-01' + to_microseconds(i * 1234567)", 23, 5),
];

const cases = [];
const add = (name, format, sql, inferred = true) => cases.push({ name, format, sql, inferred });
add('csv_types', 'csv', select(3000, flatColumns(false)));
add('csv_one_row', 'csv', select(1, flatColumns(false)));
add('csv_zero_rows', 'csv', `SELECT * FROM (${select(10, flatColumns(false))}) WHERE false`);
add('csv_one_column', 'csv', select(500, [col('s', 'VARCHAR', ["''", 'NULL', "' '", "'a'", "'\"\"'"],
  "(['x', '', 'y,z'])[1 + i % 3]", 4, 1)]));
add('csv_multi_chunk', 'csv', select(150000, bigColumns()));
add('json_types', 'json', select(3000, [...flatColumns(true), ...nestedColumns()]));
add('json_one_row', 'json', select(1, [...flatColumns(true), ...nestedColumns()]));
// An empty file: nothing to infer from.
add('json_zero_rows', 'json', `SELECT * FROM (${select(10, flatColumns(true))}) WHERE false`, false);
add('json_decimal_wide', 'json', select(200, wideDecimalColumns()));
add('json_multi_chunk', 'json', select(150000, bigColumns()));

// ---- Types --------------------------------------------------------------------------------------

// Our type name (DataType::ToString spelling) of a DuckDB type; null when there is none.
function ourTypeOf(type) {
  switch (type.typeId) {
    case T.BOOLEAN: return 'bool';
    case T.TINYINT: return 'int8';
    case T.SMALLINT: return 'int16';
    case T.INTEGER: return 'int32';
    case T.BIGINT: return 'int64';
    case T.UTINYINT: return 'uint8';
    case T.USMALLINT: return 'uint16';
    case T.UINTEGER: return 'uint32';
    case T.UBIGINT: return 'uint64';
    case T.FLOAT: return 'float32';
    case T.DOUBLE: return 'float64';
    case T.DECIMAL: return `decimal128(${type.width}, ${type.scale})`;
    case T.DATE: return 'date32';
    case T.TIMESTAMP_S: return 'timestamp[s]';
    case T.TIMESTAMP_MS: return 'timestamp[ms]';
    case T.TIMESTAMP: return 'timestamp[us]';
    case T.TIMESTAMP_NS: return 'timestamp[ns]';
    case T.TIMESTAMP_TZ: return 'timestamp[us, tz=UTC]';
    case T.VARCHAR: return 'string';
    case T.LIST: {
      const v = ourTypeOf(type.valueType);
      return v === null ? null : `list<${v}>`;
    }
    case T.STRUCT: {
      const fields = type.entryNames.map((n, k) => [n, ourTypeOf(type.entryTypes[k])]);
      if (fields.some(([, t]) => t === null)) return null;
      return `struct<${fields.map(([n, t]) => `${n}: ${t}`).join(', ')}>`;
    }
    default: return null;
  }
}

// Parses one of our type names into {id, ...}: id is the name without parameters; decimal128 has
// precision, scale; timestamp unit, tz; list value; struct fields [{name, type}].
function parseOurType(text) {
  let pos = 0;
  const fail = (why) => { throw new Error(`cannot parse type '${text}' at ${pos}: ${why}`); };
  const expect = (s) => {
    if (!text.startsWith(s, pos)) fail(`expected '${s}'`);
    pos += s.length;
  };
  const parse = () => {
    const m = /^[a-z0-9_]+/.exec(text.slice(pos));
    if (!m) fail('expected a type name');
    const id = m[0];
    pos += id.length;
    if (id === 'decimal128') {
      const d = /^\((\d+), (\d+)\)/.exec(text.slice(pos));
      if (!d) fail('expected (precision, scale)');
      pos += d[0].length;
      return { id, precision: Number(d[1]), scale: Number(d[2]) };
    }
    if (id === 'timestamp') {
      const d = /^\[(s|ms|us|ns)(?:, tz=([^\]]+))?\]/.exec(text.slice(pos));
      if (!d) fail('expected [unit] or [unit, tz=...]');
      pos += d[0].length;
      return { id, unit: d[1], tz: d[2] ?? null };
    }
    if (id === 'list') {
      expect('<');
      const value = parse();
      expect('>');
      return { id, value };
    }
    if (id === 'struct') {
      expect('<');
      const fields = [];
      while (!text.startsWith('>', pos)) {
        if (fields.length > 0) expect(', ');
        const n = /^[^:]+/.exec(text.slice(pos));
        if (!n) fail('expected a field name');
        pos += n[0].length;
        expect(': ');
        fields.push({ name: n[0], type: parse() });
      }
      expect('>');
      return { id, fields };
    }
    return { id };
  };
  const t = parse();
  if (pos !== text.length) fail('trailing text');
  return t;
}

const duckScalar = {
  bool: 'BOOLEAN', int8: 'TINYINT', int16: 'SMALLINT', int32: 'INTEGER', int64: 'BIGINT',
  uint8: 'UTINYINT', uint16: 'USMALLINT', uint32: 'UINTEGER', uint64: 'UBIGINT',
  float32: 'FLOAT', float64: 'DOUBLE', date32: 'DATE', string: 'VARCHAR', utf8: 'VARCHAR',
};
const duckTimestamp = { s: 'TIMESTAMP_S', ms: 'TIMESTAMP_MS', us: 'TIMESTAMP', ns: 'TIMESTAMP_NS' };

// A struct field name as DuckDB spells it in a type (quoted only when needed).
const fieldName = (s) => (/^[a-z_][a-z0-9_]*$/.test(s) ? s : ident(s));

// DuckDB's SQL type for one of our parsed types.
function duckTypeOf(t) {
  if (duckScalar[t.id]) return duckScalar[t.id];
  switch (t.id) {
    case 'decimal128': return `DECIMAL(${t.precision},${t.scale})`;
    case 'timestamp':
      if (t.tz === null) return duckTimestamp[t.unit];
      if (t.tz !== 'UTC') throw new Error(`no DuckDB type for time zone ${t.tz}`);
      return 'TIMESTAMPTZ';
    case 'list': return `${duckTypeOf(t.value)}[]`;
    case 'struct': return `STRUCT(${t.fields.map((f) => `${fieldName(f.name)} ${duckTypeOf(f.type)}`).join(', ')})`;
    default: throw new Error(`no DuckDB type for our type ${t.id}`);
  }
}

// ---- Canonical form of DuckDB's values ----------------------------------------------------------

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

// A TIMESTAMPTZ's microseconds in our unit `unit` (exact, or an error).
function microsIn(unit, micros, where) {
  if (unit === 'ms') {
    if (micros % 1000n !== 0n) throw new Error(`${where}: ${micros} us is not a whole number of ms`);
    return `${micros / 1000n}ms`;
  }
  if (unit === 's') {
    if (micros % 1000000n !== 0n) throw new Error(`${where}: ${micros} us is not a whole number of s`);
    return `${micros / 1000000n}s`;
  }
  if (unit === 'ns') throw new Error(`${where}: DuckDB has no nanosecond TIMESTAMPTZ`);
  return `${micros}us`;
}

// `type` is DuckDB's type of the value, `ours` our parsed type of the column (or null: then
// TIMESTAMPTZ is in microseconds).
function canon(type, v, ours, where) {
  if (v === null || v === undefined) return null;
  switch (type.typeId) {
    case T.BOOLEAN: return v;
    case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
    case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT: case T.UHUGEINT:
      return String(v);
    case T.FLOAT: case T.DOUBLE: return floatCell(v);
    case T.DECIMAL: return decimalText(v.value, v.scale);
    case T.VARCHAR: return v;
    case T.DATE: return dateText(v.days);
    case T.TIMESTAMP: return `${v.micros}us`;
    case T.TIMESTAMP_TZ: return microsIn(ours?.unit ?? 'us', v.micros, where);
    case T.TIMESTAMP_MS: return `${v.millis}ms`;
    case T.TIMESTAMP_NS: return `${v.nanos}ns`;
    case T.TIMESTAMP_S: return `${v.seconds}s`;
    case T.LIST: return v.items.map((x) => canon(type.valueType, x, ours?.value ?? null, where));
    case T.STRUCT: {
      const out = {};
      type.entryNames.forEach((name, k) => {
        out[name] = canon(type.entryTypes[k], v.entries[name], ours?.fields?.[k]?.type ?? null, where);
      });
      return out;
    }
    default: throw new Error(`${where}: no canonical form for DuckDB type ${type}`);
  }
}

// Canonical rows of a DuckDB query; `oursTypes[c]` is our parsed type of column c (or null).
async function duckdbRows(sql, oursTypes = []) {
  const r = await query(sql);
  const names = r.columnNames();
  const types = r.columnTypes();
  const rows = r.getRows().map((row) => row.map((v, c) => canon(types[c], v, oursTypes[c] ?? null, names[c])));
  return { names, types: types.map(String), rows };
}

// ---- Our tool, comparison -----------------------------------------------------------------------

function same(a, b) {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, k) => same(x, b[k]));
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, j) => k === kb[j] && same(a[k], b[k]));
}

// JSON text of a canonical value, keeping -0 visible; long strings shortened unless verbose.
function show(v) {
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
  const line = lines.find((l) => /(^|[^A-Za-z])(error|Error|ERROR|Invalid)/.test(l)) ?? lines[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

// Runs `TOOL args...` and parses its output (the schema line and the canonical rows).
function runOurs(args) {
  const t0 = Date.now();
  const p = spawnSync(tool, args, { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 300000 });
  const ms = Date.now() - t0;
  if (p.error) return { ms, error: `could not run ${tool}: ${p.error.message}` };
  if (p.status !== 0) {
    const msg = firstLine(p.stderr) || firstLine(p.stdout) || '<no message>';
    return { ms, error: `exit ${p.status ?? p.signal}: ${msg}` };
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

// Compares our rows with the reference ({names, types, rows}); returns the problems found.
function compare(ours, ref) {
  const problems = [];
  const ourNames = ours.schema.map((f) => f?.name);
  if (ourNames.length !== ref.names.length || ourNames.some((n, k) => n !== ref.names[k])) {
    problems.push(`columns differ: ours ${JSON.stringify(ourNames)}, DuckDB ${JSON.stringify(ref.names)}`);
    return problems;
  }
  if (ours.rows.length !== ref.rows.length) {
    problems.push(`${ours.rows.length} rows here, ${ref.rows.length} in DuckDB`);
  }
  const limit = verbose ? 50 : 5;
  let shown = 0, differing = 0;
  const perColumn = new Map();
  const n = Math.min(ours.rows.length, ref.rows.length);
  for (let r = 0; r < n; ++r) {
    const a = ours.rows[r], b = ref.rows[r];
    if (a.length !== b.length) {
      differing++;
      if (shown++ < limit) problems.push(`row ${r}: ${a.length} cells here, ${b.length} in DuckDB`);
      continue;
    }
    let rowDiffers = false;
    for (let c = 0; c < b.length; ++c) {
      if (same(a[c], b[c])) continue;
      rowDiffers = true;
      perColumn.set(ref.names[c], (perColumn.get(ref.names[c]) ?? 0) + 1);
      if (shown++ < limit) {
        problems.push(`row ${r}, column ${ref.names[c]} (ours ${ours.schema[c].type}, DuckDB ${ref.types[c]}):\n` +
          `        ours   ${show(a[c])}\n        DuckDB ${show(b[c])}`);
      }
    }
    if (rowDiffers) differing++;
  }
  if (differing > 0) {
    problems.push(`${differing} of ${n} rows differ; differing cells by column: ` +
      [...perColumn].map(([name, count]) => `${name} ${count}`).join(', '));
  }
  return problems;
}

// ---- Checks -------------------------------------------------------------------------------------

let okCount = 0;
const failures = [];
const ok = (label, text) => {
  okCount++;
  console.log(`OK    ${label}: ${text}`);
};
const fail = (label, text) => {
  failures.push(label);
  console.log(`FAIL  ${label}: ${text}`);
};
const diff = (label, where, problems) => {
  failures.push(label);
  console.log(`DIFF  ${label} (${where})\n      ${problems.join('\n      ')}`);
};
const shape = (ref) => `${ref.rows.length} rows x ${ref.names.length} columns`;
const fileSize = (file) => {
  const n = statSync(file).size;
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
};

// Explicit schema: SCHEMA from the table's DuckDB types, compared with the table itself.
async function checkExplicit(c, tableTypes, tableNames) {
  const label = `${c.name}.explicit`;
  const fields = [];
  const left = [];
  tableNames.forEach((name, k) => {
    const t = ourTypeOf(tableTypes[k]);
    // format_tool's SCHEMA parser knows no struct (see the top comment).
    if (t === null || t.includes('struct<')) left.push(name);
    else fields.push({ name, type: t });
  });
  if (c.format === 'csv' && left.length > 0) {
    fail(label, `no SCHEMA type for CSV columns ${left.join(', ')}`);
    return;
  }
  const spec = fields.map((f) => `${f.name}:${f.type}`).join('|');
  const ours = runOurs([`read-${c.format}`, c.file, spec]);
  if (ours.error !== undefined) {
    fail(label, `our tool: ${ours.error}`);
    return;
  }
  const ref = await duckdbRows(`SELECT ${fields.map((f) => ident(f.name)).join(', ')} FROM ${c.table}`);
  const problems = [];
  const got = ours.schema.map((f) => `${f.name}:${f.type}`).join('|');
  if (got !== spec) problems.push(`schema printed ${got}\n      asked for      ${spec}`);
  problems.push(...compare(ours, ref));
  if (problems.length > 0) {
    diff(label, c.file, problems);
    return;
  }
  ok(label, `${shape(ref)}, ${fileSize(c.file)}` + (left.length > 0 ? ` (not in SCHEMA, struct: ${left.join(', ')})` : '') +
    (verbose ? ` (ours ${ours.ms} ms)` : ''));
  if (verbose) console.log(`      SCHEMA ${spec}`);
}

// DuckDB's type text ("BIGINT", "HUGEINT[][]", "STRUCT(id BIGINT, tags JSON[])") as a tree.
function parseDuckType(text) {
  let pos = 0;
  const parse = () => {
    let t;
    if (text.startsWith('STRUCT(', pos)) {
      pos += 'STRUCT('.length;
      const fields = [];
      while (text[pos] !== ')') {
        const m = /^("(?:[^"]|"")*"|[^ ]+) /.exec(text.slice(pos));
        if (!m) throw new Error(`cannot parse DuckDB type '${text}' at ${pos}`);
        pos += m[0].length;
        const name = m[1].startsWith('"') ? m[1].slice(1, -1).replace(/""/g, '"') : m[1];
        fields.push({ name, type: parse() });
        if (text.startsWith(', ', pos)) pos += 2;
      }
      ++pos;
      t = { id: 'STRUCT', fields };
    } else {
      const m = /^[A-Z][A-Z0-9_ ]*(\(\d+,\d+\))?/.exec(text.slice(pos));
      if (!m) throw new Error(`cannot parse DuckDB type '${text}' at ${pos}`);
      pos += m[0].length;
      t = { id: m[0].replace('TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ') };
    }
    while (text.startsWith('[]', pos)) {
      pos += 2;
      t = { id: 'LIST', value: t };
    }
    return t;
  };
  return parse();
}

// The inferred types that may differ from DuckDB's: [ours (as a DuckDB type), DuckDB's, the
// columns it applies to, why]. Every other difference fails the check. None of them lets a value
// change unnoticed: values compare in our type, after a CAST of DuckDB's value that fails on any
// value our type cannot hold.
const ALLOWED_TYPE_DIFFERENCES = [
  ['VARCHAR', 'DATE', /_far$/, 'our inference leaves five-digit years as text'],
  ['VARCHAR', 'TIMESTAMP', /_far$/, 'our inference leaves five-digit years as text'],
  ['BIGINT', 'HUGEINT', /./, "DuckDB's JSON reader widens integers it samples to HUGEINT; ours keeps int64 when every value fits"],
  ['UBIGINT', 'HUGEINT', /./, 'integers above int64, none negative: uint64 holds them exactly'],
  ['TIMESTAMP', 'VARCHAR', /./, "DuckDB's JSON reader leaves timestamp strings as text; ours parses them"],
  ['TIMESTAMPTZ', 'VARCHAR', /./, "DuckDB's JSON reader leaves timestamp strings as text; ours parses them"],
  ['VARCHAR', 'JSON', /./, 'never seen but as null or in empty lists: both fall back to text'],
];

// The differences between our type `ours` (parseOurType) and DuckDB's `theirs` (parseDuckType)
// of column `path`, each as text; [] when the types are the same or differ only as allowed.
function typeDifferences(path, ours, theirs) {
  if (ours.id === 'list' && theirs.id === 'LIST') return typeDifferences(`${path}[]`, ours.value, theirs.value);
  if (ours.id === 'struct' && theirs.id === 'STRUCT') {
    const names = (fs) => fs.map((f) => f.name).join(',');
    if (names(ours.fields) !== names(theirs.fields)) {
      return [`${path}: struct fields ${names(ours.fields)} here, ${names(theirs.fields)} in DuckDB`];
    }
    return ours.fields.flatMap((f, k) => typeDifferences(`${path}.${f.name}`, f.type, theirs.fields[k].type));
  }
  const mine = ours.id === 'list' || ours.id === 'struct' ? ours.id : duckTypeOf(ours);
  if (mine === theirs.id) return [];
  const column = path.split(/[.[]/)[0];
  const allowed = ALLOWED_TYPE_DIFFERENCES.find(([o, d, columns]) => o === mine && d === theirs.id && columns.test(column));
  return allowed ? [] : [`${path}: ours ${mine}, DuckDB ${theirs.id} (not an allowed difference)`];
}

// Our inference against DuckDB's inference, compared in our inferred types (see the top comment).
// `source` is DuckDB's inferring table function call, `rawText(names)` the one reading those
// columns' text unconverted.
async function checkInferred(label, file, format, source, rawText) {
  const ours = runOurs([`read-${format}`, file]);
  if (ours.error !== undefined) {
    fail(label, `our tool: ${ours.error}`);
    return;
  }
  let ref, theirTypes;
  try {
    const d = await query(`DESCRIBE SELECT * FROM ${source}`);
    const described = d.getRowObjectsJson();
    const names = described.map((row) => String(row.column_name));
    theirTypes = described.map((row) => String(row.column_type));
    const ourNames = ours.schema.map((f) => f.name);
    if (ourNames.length !== names.length || ourNames.some((n, k) => n !== names[k])) {
      diff(label, file, [`columns differ: ours ${JSON.stringify(ourNames)}, DuckDB ${JSON.stringify(names)}`]);
      return;
    }
    const parsed = ours.schema.map((f) => parseOurType(f.type));
    const textColumns = names.filter((n, k) => parsed[k].id === 'string' || parsed[k].id === 'utf8');
    const typed = names.filter((n, k) => !textColumns.includes(n));
    const typedRef = typed.length === 0 ? null : await duckdbRows(
      `SELECT ${typed.map((n) => `CAST(${ident(n)} AS ${duckTypeOf(parsed[names.indexOf(n)])}) AS ${ident(n)}`).join(', ')} FROM ${source}`,
      typed.map((n) => parsed[names.indexOf(n)]));
    const textRef = textColumns.length === 0 ? null : await duckdbRows(
      `SELECT ${textColumns.map(ident).join(', ')} FROM ${rawText(textColumns)}`);
    const count = typedRef?.rows.length ?? textRef.rows.length;
    if (typedRef && textRef && typedRef.rows.length !== textRef.rows.length) {
      fail(label, `DuckDB side: ${typedRef.rows.length} rows typed, ${textRef.rows.length} rows as text`);
      return;
    }
    ref = { names, types: [], rows: [] };
    names.forEach((n, k) => {
      const fromText = textColumns.includes(n);
      ref.types.push(fromText ? `${theirTypes[k]}, as text` : `${theirTypes[k]} cast to ${duckTypeOf(parsed[k])}`);
    });
    for (let r = 0; r < count; ++r) {
      ref.rows.push(names.map((n) => {
        const t = textColumns.indexOf(n);
        return t >= 0 ? textRef.rows[r][t] : typedRef.rows[r][typed.indexOf(n)];
      }));
    }
  } catch (e) {
    fail(label, `DuckDB side: ${e.message.split('\n')[0]}`);
    return;
  }
  const problems = compare(ours, ref);
  ours.schema.forEach((f, k) => problems.push(...typeDifferences(f.name, parseOurType(f.type), parseDuckType(theirTypes[k]))));
  if (problems.length > 0) {
    diff(label, file, problems);
    return;
  }
  const differ = ours.schema.map((f, k) => [f, theirTypes[k]])
    .filter(([f, t]) => duckTypeOf(parseOurType(f.type)) !== t.replace('TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ'));
  ok(label, `${shape(ref)}` + (verbose ? ` (ours ${ours.ms} ms)` : '') +
    (differ.length === 0 ? ', same types' : `, types differ: ${differ.map(([f, t]) => `${f.name} (ours ${f.type}, DuckDB ${t})`).join(', ')}`));
}

// ---- DuckDB writes, we read ---------------------------------------------------------------------

const selected = cases.filter((c) => only === null || c.name.includes(only));
const tWrite = Date.now();
for (const c of selected) {
  c.table = ident(c.name);
  c.file = join(outDir, `${c.name}.${c.format}`);
  await con.run(`CREATE TABLE ${c.table} AS ${c.sql}`);
  const opts = c.format === 'csv' ? 'HEADER, DELIMITER \',\'' : 'FORMAT JSON';
  await con.run(`COPY ${c.table} TO ${sqlString(c.file)} (${opts})`);
}
const writeMs = Date.now() - tWrite;

for (const c of selected) {
  const r = await query(`SELECT * FROM ${c.table} LIMIT 0`);
  await checkExplicit(c, r.columnTypes(), r.columnNames());
  if (!c.inferred) continue;
  const f = sqlString(c.file);
  if (c.format === 'csv') {
    await checkInferred(`${c.name}.inferred`, c.file, 'csv', `read_csv(${f}, header = true, allow_quoted_nulls = false)`,
      () => `read_csv(${f}, header = true, all_varchar = true, allow_quoted_nulls = false)`);
  } else {
    await checkInferred(`${c.name}.inferred`, c.file, 'json', `read_json(${f})`,
      (names) => `read_json(${f}, format = 'newline_delimited', columns = {${names.map((n) => `${sqlString(n)}: 'VARCHAR'`).join(', ')}})`);
  }
}

// ---- We write, DuckDB reads ---------------------------------------------------------------------

const oursCases = ['csv', 'json'].map((format) => ({ name: `ours_${format}`, format }))
  .filter((c) => only === null || c.name.includes(only));
for (const c of oursCases) {
  c.file = join(outDir, `${c.name}.${c.format}`);
  const ours = runOurs([`write-${c.format}`, c.file]);
  if (ours.error !== undefined) {
    fail(`${c.name}.explicit`, `our tool: ${ours.error}`);
    continue;
  }
  const f = sqlString(c.file);
  const label = `${c.name}.explicit`;
  let ref;
  try {
    const parsed = ours.schema.map((fl) => parseOurType(fl.type));
    const columns = `{${ours.schema.map((fl, k) => `${sqlString(fl.name)}: ${sqlString(duckTypeOf(parsed[k]))}`).join(', ')}}`;
    const source = c.format === 'csv'
      ? `read_csv(${f}, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, columns = ${columns})`
      : `read_json(${f}, format = 'newline_delimited', columns = ${columns})`;
    ref = await duckdbRows(`SELECT * FROM ${source}`, parsed);
  } catch (e) {
    fail(label, `DuckDB side: ${e.message.split('\n')[0]}`);
    continue;
  }
  const problems = compare(ours, ref);
  if (problems.length > 0) diff(label, c.file, problems);
  else {
    ok(label, `${shape(ref)}, ${fileSize(c.file)}` + (verbose ? ` (ours ${ours.ms} ms)` : ''));
    if (verbose) console.log(`      our types: ${ours.schema.map((fl) => `${fl.name}: ${fl.type}`).join(', ')}`);
  }
  // DuckDB's own inference, default options: reads without error, same row count.
  const inferLabel = `${c.name}.duckdb_inferred`;
  try {
    const source = c.format === 'csv' ? `read_csv(${f})` : `read_json(${f})`;
    const n = Number((await query(`SELECT count(*) FROM ${source}`)).getRows()[0][0]);
    const d = (await query(`DESCRIBE SELECT * FROM ${source}`)).getRowObjectsJson();
    if (n !== ours.rows.length) fail(inferLabel, `DuckDB counts ${n} rows, we wrote ${ours.rows.length}`);
    else if (d.length !== ours.schema.length) fail(inferLabel, `DuckDB sees ${d.length} columns, we wrote ${ours.schema.length}`);
    else {
      ok(inferLabel, `${n} rows x ${d.length} columns` +
        (verbose ? `; DuckDB types: ${d.map((row) => `${row.column_name}: ${row.column_type}`).join(', ')}` : ''));
    }
  } catch (e) {
    fail(inferLabel, `DuckDB side: ${e.message.split('\n')[0]}`);
  }
}

const total = okCount + failures.length;
console.log(`\n${selected.length} files DuckDB wrote, ${oursCases.length} files our tool wrote: ${total} checks, ` +
  `${okCount} OK, ${failures.length} failing${failures.length ? ` (${failures.join(', ')})` : ''}; ` +
  `DuckDB wrote its files in ${(writeMs / 1000).toFixed(1)} s, total ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failures.length === 0 && total > 0 ? 0 : 1);
