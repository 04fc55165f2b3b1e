// Records the expected results of the SQL test corpus (tests/sql/*.test) with DuckDB.
//
//   node tests/sql/record.mjs [FILE.test ...]      (default: every tests/sql/*.test)
//
// First (re)creates the data files in tests/sql/data/ (deterministic: range() and arithmetic,
// written by DuckDB with threads=1). Then runs each .test file's records in order in one fresh
// in-memory DuckDB database (threads=1) and rewrites the file in place, replacing the result
// block of every `query` record with DuckDB's output. `statement ok` must succeed and
// `statement error` must fail in DuckDB; anything else stops the run with FILE:LINE.
// The string __DATA__ in SQL stands for the absolute path of tests/sql/data.
//
// File format (parsed by the C++ runner too):
//   # comment
//   statement ok | statement error
//   SQL (one or more lines, no blank lines)
//
//   query rowsort | query nosort     (then ` empty` when no rows is the intended answer: a query
//   SQL                                without it must return rows, so a check never compares
//   ----                               nothing with nothing by accident)
//   value<TAB>value      (one line per row; rowsort blocks are written sorted)
//
// Records are separated by blank lines. Value rendering:
//   NULL -> NULL; BOOLEAN -> true/false; integer types -> decimal digits; DECIMAL -> DuckDB's exact
//   string (scale digits kept, e.g. 12.50); DOUBLE/FLOAT -> Number(v).toPrecision(12) with the
//   trailing zeros of the mantissa (and a bare '.') removed, exponent as JS prints it (1e+30,
//   1.5e-7); Infinity/-Infinity as JS prints them; VARCHAR -> as is, '' -> (empty) (strings with
//   tabs, newlines or leading / trailing white space are refused: the format could not hold them);
//   DATE -> YYYY-MM-DD; TIMESTAMP -> YYYY-MM-DD HH:MM:SS, plus .ffffff (6 digits) when the
//   fraction is non-zero. Other output types (lists, structs, intervals, ...) are refused.
//
// Compatible with Node 20: ES modules; DuckDB is resolved from tests/interop/node_modules.

import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, readdirSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'interop', 'package.json'));
const { DuckDBInstance, DuckDBTypeId } = require('@duckdb/node-api');

const dataDir = join(here, 'data');

// ---- Data files -------------------------------------------------------------------------------

const DATA_SQL = [
  // customers: keys 1..60 without the multiples of 13 (orders of customers 13, 26, 39, 52 have
  // no customer; customers 56..60 have no orders). Some NULL nations and balances.
  `COPY (
     SELECT i::BIGINT AS c_custkey,
            'Customer#' || lpad(i::VARCHAR, 3, '0') AS c_name,
            CASE WHEN i % 19 = 0 THEN NULL
                 ELSE ['FRANCE', 'GERMANY', 'BRAZIL', 'JAPAN', 'CHINA', 'CANADA', 'EGYPT', 'PERU'][1 + (i * 3) % 8]
            END AS c_nation,
            CASE WHEN i % 23 = 0 THEN NULL
                 ELSE ((((i * 4567) % 200000) - 50000)::DOUBLE / 100)::DECIMAL(12,2)
            END AS c_balance
     FROM range(1, 61) t(i)
     WHERE i % 13 <> 0
     ORDER BY i
   ) TO '__DATA__/customers.parquet' (FORMAT parquet)`,
  // orders: 600 rows, customers among 1..55 (unevenly), dates in 2023-2024.
  `COPY (
     SELECT i::BIGINT AS o_orderkey,
            (1 + ((i * i + 3 * i) % 101) % 55)::BIGINT AS o_custkey,
            CASE WHEN i % 7 < 3 THEN 'F' WHEN i % 7 < 6 THEN 'O' ELSE 'P' END AS o_status,
            CASE WHEN i % 53 = 0 THEN NULL
                 ELSE ((((i * 7919) % 100000) + 1000)::DOUBLE / 100)::DECIMAL(12,2)
            END AS o_total,
            (DATE '2023-01-01' + ((i * 13) % 730)::INTEGER) AS o_date,
            CASE WHEN i % 41 = 0 THEN NULL
                 ELSE ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'][1 + (i * 7) % 5]
            END AS o_priority
     FROM range(1, 601) t(i)
     ORDER BY i
   ) TO '__DATA__/orders.parquet' (FORMAT parquet)`,
  // lineitems: 1..3 lines per order (orders 1..600), plus lines of order 9999 that has no order.
  `COPY (
     SELECT o::BIGINT AS l_orderkey,
            l::INTEGER AS l_linenumber,
            (1 + (o * o * 3 + l * 11) % 50)::INTEGER AS l_qty,
            ((((o * 131 + l * 977) % 90000) + 100)::DOUBLE / 100)::DECIMAL(12,2) AS l_price,
            (((o + l) % 11)::DOUBLE / 100)::DECIMAL(4,2) AS l_discount,
            CASE WHEN (o * 7 + l) % 61 = 0 THEN NULL
                 ELSE DATE '2023-01-01' + ((o * 13) % 730 + l * 3 + o % 9)::INTEGER
            END AS l_shipdate,
            CASE WHEN (o * l) % 97 = 0 THEN NULL
                 ELSE ['A', 'N', 'R'][1 + (o + l) % 3]
            END AS l_flag
     FROM range(1, 601) a(o), range(1, 5) b(l)
     WHERE l <= 1 + ((o * o) % 7) % 4
     UNION ALL
     SELECT 9999, l::INTEGER, 5, 10.00, 0.00, DATE '2024-06-30', 'N'
     FROM range(1, 3) c(l)
     ORDER BY 1, 2
   ) TO '__DATA__/lineitems.parquet' (FORMAT parquet)`,
  // people.csv: 30 rows with a header; a few empty (NULL) ages and cities.
  `COPY (
     SELECT i AS id,
            ['Alice', 'Bob', 'Carol', 'Dave', 'Eve', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy',
             'Mallory', 'Niaj', 'Olivia', 'Peggy', 'Rupert'][1 + (i - 1) % 15] ||
              CASE WHEN i > 15 THEN ' Jr' ELSE '' END AS name,
            CASE WHEN i % 7 = 0 THEN NULL ELSE 18 + (i * 17) % 50 END AS age,
            CASE WHEN i % 9 = 4 THEN NULL
                 ELSE ['Paris', 'Berlin', 'Lima', 'Tokyo', 'Cairo'][1 + (i * 2) % 5]
            END AS city
     FROM range(1, 31) t(i)
     ORDER BY i
   ) TO '__DATA__/people.csv' (FORMAT csv, HEADER true)`,
  // events.json: newline-delimited objects; value is a double (quarters, exact), ts an ISO string.
  `COPY (
     SELECT i AS id,
            ['click', 'view', 'buy', 'scroll'][1 + (i * 5) % 4] AS kind,
            CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 29) % 400)::DOUBLE / 4 END AS value,
            strftime(TIMESTAMP '2024-03-01 00:00:00' + INTERVAL (i * 3671) SECOND, '%Y-%m-%dT%H:%M:%S') AS ts
     FROM range(1, 201) t(i)
     ORDER BY i
   ) TO '__DATA__/events.json' (FORMAT json)`,
  // sales/: hive-partitioned by region (region=east/..., the column is not in the files).
  `COPY (
     SELECT i AS sale_id,
            ['east', 'north', 'south', 'west'][1 + (i * 3 + i // 7) % 4] AS region,
            ['widget', 'gadget', 'gizmo', 'doohickey', 'thingamajig'][1 + (i * 7 + i // 9) % 5] AS product,
            (1 + (i * 13) % 20)::INTEGER AS units,
            ((((i * 2111) % 50000) + 500)::DOUBLE / 100)::DECIMAL(10,2) AS amount,
            DATE '2024-01-01' + ((i * 11) % 366)::INTEGER AS sale_date
     FROM range(1, 241) t(i)
     ORDER BY i
   ) TO '__DATA__/sales' (FORMAT parquet, PARTITION_BY (region))`,
  // tpch/: a tiny TPC-H database with the standard schema (keys bigint, money decimal(15,2),
  // dates date), consistent keys, and values that the 22 queries' parameters select.
  `COPY (
     SELECT i::BIGINT AS r_regionkey,
            ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'][i + 1] AS r_name,
            'region comment ' || i AS r_comment
     FROM range(0, 5) t(i)
   ) TO '__DATA__/tpch/region.parquet' (FORMAT parquet)`,
  `COPY (
     SELECT i::BIGINT AS n_nationkey,
            ['ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT', 'ETHIOPIA', 'FRANCE', 'GERMANY',
             'INDIA', 'INDONESIA', 'IRAN', 'IRAQ', 'JAPAN', 'JORDAN', 'KENYA', 'MOROCCO',
             'MOZAMBIQUE', 'PERU', 'CHINA', 'ROMANIA', 'SAUDI ARABIA', 'VIETNAM', 'RUSSIA',
             'UNITED KINGDOM', 'UNITED STATES'][i + 1] AS n_name,
            [0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1][i + 1]::BIGINT AS n_regionkey,
            'nation comment ' || i AS n_comment
     FROM range(0, 25) t(i)
   ) TO '__DATA__/tpch/nation.parquet' (FORMAT parquet)`,
  `COPY (
     SELECT i::BIGINT AS s_suppkey,
            'Supplier#' || lpad(i::VARCHAR, 9, '0') AS s_name,
            'addr' || (i * 7) % 100 AS s_address,
            ((i * 7) % 25)::BIGINT AS s_nationkey,
            (10 + (i * 7) % 25)::VARCHAR || '-' || lpad(((i * 37) % 1000)::VARCHAR, 3, '0') || '-555-0101' AS s_phone,
            (((i * 997) % 1100000 - 100000) / 100.0)::DECIMAL(15,2) AS s_acctbal,
            CASE WHEN i % 7 = 3 THEN 'wary Customer slyly Complaints ' || i ELSE 'supplier comment ' || i END AS s_comment
     FROM range(1, 31) t(i)
   ) TO '__DATA__/tpch/supplier.parquet' (FORMAT parquet)`,
  `COPY (
     SELECT i::BIGINT AS p_partkey,
            ['almond green', 'forest blue', 'green khaki', 'linen forest', 'navy puff', 'forest green', 'rose lace', 'dark green'][1 + i % 8] || ' part' AS p_name,
            'Manufacturer#' || (1 + i % 5) AS p_mfgr,
            'Brand#' || (1 + i % 5) || (1 + (i // 5) % 5) AS p_brand,
            CASE WHEN i % 10 = 4 THEN 'ECONOMY ANODIZED STEEL'  -- the type Q8 asks for
            ELSE ['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'][1 + i % 6] || ' ' ||
              ['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'][1 + (i // 6) % 5] || ' ' ||
              ['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'][1 + (i // 3) % 5] END AS p_type,
            (1 + (i * 7) % 50)::INTEGER AS p_size,
            ['SM CASE', 'SM BOX', 'SM PACK', 'SM PKG', 'MED BAG', 'MED BOX', 'MED PKG', 'MED PACK',
             'LG CASE', 'LG BOX', 'LG PACK', 'LG PKG'][1 + (i * 5) % 12] AS p_container,
            (900 + i / 10.0)::DECIMAL(15,2) AS p_retailprice,
            'part comment ' || i AS p_comment
     FROM range(1, 121) t(i)
   ) TO '__DATA__/tpch/part.parquet' (FORMAT parquet)`,
  `COPY (
     SELECT p::BIGINT AS ps_partkey,
            (1 + (p + k * 7) % 30)::BIGINT AS ps_suppkey,
            (1 + (p * 31 + k * 17) % 9999)::INTEGER AS ps_availqty,
            (1 + ((p * 13 + k * 29) % 100000) / 100.0)::DECIMAL(15,2) AS ps_supplycost,
            'partsupp comment ' || p || '-' || k AS ps_comment
     FROM range(1, 121) a(p), range(0, 4) b(k)
   ) TO '__DATA__/tpch/partsupp.parquet' (FORMAT parquet)`,
  `COPY (
     SELECT i::BIGINT AS c_custkey,
            'Customer#' || lpad(i::VARCHAR, 9, '0') AS c_name,
            'caddr' || i AS c_address,
            ((i * 7) % 25)::BIGINT AS c_nationkey,  -- as suppliers: Q5 and Q7 find pairs of one nation
            (10 + (i * 7) % 25)::VARCHAR || '-' || lpad(((i * 53) % 1000)::VARCHAR, 3, '0') || '-555-0199' AS c_phone,
            (((i * 7919) % 1100000 - 100000) / 100.0)::DECIMAL(15,2) AS c_acctbal,
            ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'][1 + i % 5] AS c_mktsegment,
            'customer comment ' || i AS c_comment
     FROM range(1, 91) t(i)
   ) TO '__DATA__/tpch/customer.parquet' (FORMAT parquet)`,
  // orders: customers whose key is a multiple of 3 place none (as in TPC-H).
  `COPY (
     SELECT i::BIGINT AS o_orderkey,
            (1 + 3 * ((i * 7) % 30) + (i % 2))::BIGINT AS o_custkey,
            ['F', 'O', 'P'][1 + (i * 5) % 3] AS o_orderstatus,
            (1000 + (i * 7907) % 400000 / 100.0)::DECIMAL(15,2) AS o_totalprice,
            DATE '1992-01-01' + ((i * 97) % 2400)::INTEGER AS o_orderdate,
            ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'][1 + (i * 3) % 5] AS o_orderpriority,
            'Clerk#' || lpad((i % 50)::VARCHAR, 9, '0') AS o_clerk,
            0::INTEGER AS o_shippriority,
            CASE WHEN i % 11 = 0 THEN 'pending special accounts requests ' || i ELSE 'order comment ' || i END AS o_comment
     FROM range(1, 401) t(i)
   ) TO '__DATA__/tpch/orders.parquet' (FORMAT parquet)`,
  // lineitem: 1..7 lines per order; each (part, supplier) pair is one of partsupp's.
  `COPY (
     SELECT o AS l_orderkey,
            (1 + (o * 13 + n * 7) % 120)::BIGINT AS l_partkey,
            (1 + ((1 + (o * 13 + n * 7) % 120) + ((o + n) % 4) * 7) % 30)::BIGINT AS l_suppkey,
            n::INTEGER AS l_linenumber,
            q::DECIMAL(15,2) AS l_quantity,
            (q * (900 + (1 + (o * 13 + n * 7) % 120) / 10.0))::DECIMAL(15,2) AS l_extendedprice,
            (((o + n * 3) % 11) / 100.0)::DECIMAL(15,2) AS l_discount,
            (((o * 3 + n) % 9) / 100.0)::DECIMAL(15,2) AS l_tax,
            CASE WHEN d + 30 <= DATE '1995-06-17' THEN ['R', 'A'][1 + (o + n) % 2] ELSE 'N' END AS l_returnflag,
            CASE WHEN d + 30 > DATE '1995-06-17' THEN 'O' ELSE 'F' END AS l_linestatus,
            d + (1 + (o * n) % 120)::INTEGER AS l_shipdate,
            d + (30 + (o + n * 5) % 60)::INTEGER AS l_commitdate,
            d + (1 + (o * n) % 120)::INTEGER + (1 + (o + n) % 30)::INTEGER AS l_receiptdate,
            ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'][1 + (o + n) % 4] AS l_shipinstruct,
            ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'][1 + (o * 3 + n) % 7] AS l_shipmode,
            'lineitem comment ' || o || '-' || n AS l_comment
     FROM (SELECT o, d, n,
                  -- every 50th order is large: 7 lines of 45..51, over Q18's 300 in all
                  CASE WHEN o % 50 = 0 THEN 44 + n ELSE 1 + (o * 7 + n * 11) % 50 END AS q
           FROM (SELECT o_orderkey AS o, o_orderdate AS d
                 FROM read_parquet('__DATA__/tpch/orders.parquet')) ord,
                range(1, 8) r(n)
           WHERE n <= CASE WHEN o % 50 = 0 THEN 7 ELSE 1 + (o * 5) % 7 END)
   ) TO '__DATA__/tpch/lineitem.parquet' (FORMAT parquet)`,
];

function withData(sql) {
  return sql.split('__DATA__').join(dataDir);
}

async function makeData() {
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(join(dataDir, 'tpch'), { recursive: true });
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await instance.connect();
  for (const sql of DATA_SQL) await con.run(withData(sql));
  con.closeSync?.();
}

// ---- Value rendering --------------------------------------------------------------------------

function renderDouble(v) {
  const x = Number(v);
  if (Number.isNaN(x)) throw new Error('NaN in the output');
  if (!Number.isFinite(x)) return String(x);
  let s = x.toPrecision(12);
  let exp = '';
  const e = s.indexOf('e');
  if (e >= 0) { exp = s.slice(e); s = s.slice(0, e); }
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  if (s === '-0') s = '0';
  return s + exp;
}

function renderTimestamp(v) {
  const s = v.toString();
  const m = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?:\.(\d+))?$/.exec(s);
  if (!m) throw new Error(`timestamp out of the supported range: ${s}`);
  if (m[2] === undefined || /^0+$/.test(m[2])) return m[1];
  return `${m[1]}.${m[2].padEnd(6, '0')}`;
}

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT',
  'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT']);

function renderValue(v, typeId) {
  if (v === null || v === undefined) return 'NULL';
  const t = DuckDBTypeId[typeId];
  if (t === 'BOOLEAN') return v ? 'true' : 'false';
  if (INTEGER_TYPES.has(t)) return v.toString();
  if (t === 'DECIMAL') return v.toString();
  if (t === 'DOUBLE' || t === 'FLOAT') return renderDouble(v);
  if (t === 'VARCHAR') {
    if (/[\t\n\r]/.test(v)) throw new Error(`string with a tab or newline in the output: ${JSON.stringify(v)}`);
    if (/^\s|\s$/.test(v)) throw new Error(`string with leading or trailing white space in the output: ${JSON.stringify(v)}`);
    return v === '' ? '(empty)' : v;
  }
  if (t === 'DATE') {
    const s = v.toString();
    if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) throw new Error(`date out of the supported range: ${s}`);
    return s;
  }
  if (t === 'TIMESTAMP') return renderTimestamp(v);
  throw new Error(`unsupported output type ${t}`);
}

function cmp(a, b) { return a < b ? -1 : (a > b ? 1 : 0); }

async function runQuery(con, sql) {
  const reader = await con.runAndReadAll(withData(sql));
  const n = reader.columnCount;
  const types = [];
  for (let i = 0; i < n; ++i) types.push(reader.columnTypeId(i));
  return reader.getRows().map((row) => row.map((v, i) => renderValue(v, types[i])).join('\t'));
}

// ---- Test files -------------------------------------------------------------------------------

class RecordError extends Error {}

async function recordFile(path) {
  const name = relative(process.cwd(), path) || path;
  const lines = readFileSync(path, 'utf8').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const out = [];
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await instance.connect();
  let queries = 0;
  let statements = 0;
  // Problems are collected (the run goes on, to report them all); a file with any is not rewritten.
  const problems = [];
  const fail = (lineNo, msg) => { problems.push(`${name}:${lineNo}: ${msg}`); };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '' || line.startsWith('#')) { out.push(line); ++i; continue; }
    const headerLine = i + 1;
    const header = line.trim().split(/\s+/);
    let kind;
    if (header[0] === 'statement' && header.length === 2 && (header[1] === 'ok' || header[1] === 'error')) {
      kind = header[1];
    } else if (header[0] === 'query' && (header.length === 2 || (header.length === 3 && header[2] === 'empty')) &&
               (header[1] === 'rowsort' || header[1] === 'nosort')) {
      kind = header[1];
    } else {
      throw new RecordError(`${name}:${headerLine}: expected 'statement ok|error' or 'query rowsort|nosort [empty]', got: ${line}`);
    }
    out.push(header.join(' '));
    ++i;
    const sqlLines = [];
    while (i < lines.length && lines[i].trim() !== '' && lines[i] !== '----') sqlLines.push(lines[i++]);
    if (sqlLines.length === 0) throw new RecordError(`${name}:${headerLine}: record without SQL`);
    out.push(...sqlLines);
    const sql = sqlLines.join('\n');
    if (kind === 'ok' || kind === 'error') {
      if (i < lines.length && lines[i] === '----') throw new RecordError(`${name}:${i + 1}: '----' after a statement record`);
      ++statements;
      let error = null;
      try { await con.run(withData(sql)); } catch (e) { error = e; }
      if (kind === 'ok' && error) fail(headerLine, `statement failed in DuckDB: ${error.message}`);
      if (kind === 'error' && !error) fail(headerLine, 'statement error succeeded in DuckDB');
      continue;
    }
    // A query: drop the old result block, if any, and write DuckDB's.
    if (i < lines.length && lines[i] === '----') {
      ++i;
      while (i < lines.length && lines[i].trim() !== '') ++i;
    }
    ++queries;
    let rows = [];
    try { rows = await runQuery(con, sql); } catch (e) { fail(headerLine, `query failed in DuckDB: ${e.message}`); }
    const empty = header[2] === 'empty';
    if (rows.length === 0 && !empty) fail(headerLine, 'no rows: change the query or data so it returns some, or mark it `empty`');
    if (rows.length > 0 && empty) fail(headerLine, `marked empty, but DuckDB returns ${rows.length} rows`);
    if (kind === 'rowsort') rows.sort(cmp);
    out.push('----', ...rows);
  }
  con.closeSync?.();
  if (problems.length) throw new RecordError(problems.join('\n'));
  // Records separated by exactly the blank lines that were there; end with one newline.
  while (out.length && out[out.length - 1].trim() === '') out.pop();
  writeFileSync(path, out.join('\n') + '\n');
  return { name, queries, statements };
}

// ---- Main -------------------------------------------------------------------------------------

const args = process.argv.slice(2);
const files = args.length
  ? args.map((f) => resolve(f))
  : readdirSync(here).filter((f) => f.endsWith('.test')).sort().map((f) => join(here, f));

await makeData();
let totalQ = 0;
let totalS = 0;
let failed = false;
for (const f of files) {
  try {
    const r = await recordFile(f);
    totalQ += r.queries;
    totalS += r.statements;
    console.log(`${r.name}: ${r.queries} queries, ${r.statements} statements`);
  } catch (e) {
    if (!(e instanceof RecordError)) throw e;
    console.error(e.message);
    failed = true;
  }
}
console.log(`total: ${totalQ} queries, ${totalS} statements in ${files.length} files`);
if (failed) process.exit(1);
