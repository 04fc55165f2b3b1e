// DuckDB's side of bench/formats_bench.cc: the same queries on the same Parquet file, and the
// generator of that file; run through bench/formats.sh.
//
//   node bench/formats_duckdb.mjs --generate FILE --rows N
//   node bench/formats_duckdb.mjs --query NAME --file FILE [--threads N] [--repeats N] [--out FILE]
//
// Output lines match formats_bench's: check NAME VALUE, seconds S1 ..., peak_rss_mib M.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { readFileSync, rmSync } from 'node:fs';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const options = { query: '', file: '', generate: '', rows: 6000000, threads: 2, repeats: 3, out: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [flag, value] = [argv[i], argv[i + 1]];
  if (flag === '--query') options.query = value;
  else if (flag === '--file') options.file = value;
  else if (flag === '--generate') options.generate = value;
  else if (flag === '--rows') options.rows = Number(value);
  else if (flag === '--threads') options.threads = Number(value);
  else if (flag === '--repeats') options.repeats = Number(value);
  else if (flag === '--out') options.out = value;
  else throw new Error(`unknown option '${flag}'`);
}

const instance = await DuckDBInstance.create(':memory:', { threads: String(options.threads) });
const con = await instance.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;

if (options.generate) {
  // Four lines per order, so l_orderkey ascends through the file and row-group statistics can
  // prune a range of it. hash() gives deterministic pseudo-random values.
  const h = (k) => `hash(i + ${k})`;
  const pick = (k, xs) => `[${xs.map(q).join(', ')}][(${h(k)} % ${xs.length} + 1)::BIGINT]`;
  const words = 'furiously regular deposits sleep carefully among the final pinto beans; quickly ironic accounts haggle blithely';
  await con.run(`COPY (SELECT
      (i // 4 + 1)::BIGINT AS l_orderkey,
      (${h(1)} % 200000 + 1)::BIGINT AS l_partkey,
      (${h(2)} % 10000 + 1)::BIGINT AS l_suppkey,
      (i % 4 + 1)::INTEGER AS l_linenumber,
      (${h(3)} % 50 + 1)::DECIMAL(15, 2) AS l_quantity,
      ((${h(4)} % 10000000) / 100)::DECIMAL(15, 2) AS l_extendedprice,
      ((${h(5)} % 11) / 100)::DECIMAL(15, 2) AS l_discount,
      ((${h(6)} % 9) / 100)::DECIMAL(15, 2) AS l_tax,
      ${pick(7, ['A', 'N', 'R'])} AS l_returnflag,
      ${pick(8, ['F', 'O'])} AS l_linestatus,
      DATE '1992-01-02' + (${h(9)} % 2500)::INTEGER AS l_shipdate,
      DATE '1992-01-31' + (${h(10)} % 2500)::INTEGER AS l_commitdate,
      DATE '1992-01-03' + (${h(11)} % 2500)::INTEGER AS l_receiptdate,
      ${pick(12, ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])} AS l_shipinstruct,
      ${pick(13, ['AIR', 'MAIL', 'SHIP', 'TRUCK', 'RAIL', 'FOB', 'REG AIR'])} AS l_shipmode,
      substr(${q(words)}, (${h(14)} % 60 + 1)::INTEGER, (10 + ${h(15)} % 34)::INTEGER) AS l_comment
    FROM range(${options.rows}) r(i))
    TO ${q(options.generate)} (FORMAT parquet, COMPRESSION zstd)`);
  process.exit(0);
}

const f = `read_parquet(${q(options.file)})`;
const columns = ['l_orderkey', 'l_partkey', 'l_suppkey', 'l_linenumber', 'l_quantity',
  'l_extendedprice', 'l_discount', 'l_tax', 'l_returnflag', 'l_linestatus', 'l_shipdate',
  'l_commitdate', 'l_receiptdate', 'l_shipinstruct', 'l_shipmode', 'l_comment'];
// Every column folded into an aggregate the footer's statistics cannot answer: sums of numbers,
// of string lengths and of date years.
const strings = new Set(['l_returnflag', 'l_linestatus', 'l_shipinstruct', 'l_shipmode', 'l_comment']);
const dates = new Set(['l_shipdate', 'l_commitdate', 'l_receiptdate']);
const fold = (c) => strings.has(c) ? `sum(length(${c})) AS s_${c}` : dates.has(c) ? `sum(year(${c})) AS s_${c}` : `sum(${c}) AS s_${c}`;
const four = ['l_orderkey', 'l_quantity', 'l_extendedprice', 'l_shipdate'];
const queries = {
  scan_all: `SELECT count(*) AS rows, ${columns.map(fold).join(', ')} FROM ${f}`,
  scan4: `SELECT count(*) AS rows, ${four.map(fold).join(', ')} FROM ${f}`,
  filter: `SELECT count(l_orderkey) AS rows, sum(l_quantity) AS sum_quantity FROM ${f} WHERE l_orderkey < 15000`,
};
const show = (v) => (v && typeof v === 'object' && 'toString' in v ? v.toString() : String(v));

const seconds = [];
if (options.query === 'write') {
  await con.run(`CREATE TABLE t AS SELECT * FROM ${f}`);
  const rows = (await con.runAndReadAll('SELECT count(*) FROM t')).getRows()[0][0];
  console.log(`check rows ${rows}`);
  const out = options.out || `${options.file}.duckdb-write.parquet`;
  for (let r = 0; r < options.repeats; ++r) {
    const start = performance.now();
    await con.run(`COPY t TO ${q(out)} (FORMAT parquet, COMPRESSION zstd)`);
    seconds.push((performance.now() - start) / 1000);
  }
  if (!options.out) rmSync(out, { force: true });
} else {
  const sql = queries[options.query];
  if (!sql) throw new Error(`unknown query '${options.query}'`);
  for (let r = 0; r < options.repeats; ++r) {
    const start = performance.now();
    const reader = await con.runAndReadAll(sql);
    seconds.push((performance.now() - start) / 1000);
    if (r === 0) {
      const names = reader.columnNames();
      const rows = reader.getRows();
      console.log(`check result_rows ${rows.length}`);
      if (rows.length === 1)
        names.forEach((name, k) => console.log(`check ${name} ${show(rows[0][k])}`));
    }
  }
}
console.log(`seconds ${seconds.map((s) => s.toFixed(4)).join(' ')}`);
const status = readFileSync('/proc/self/status', 'utf8');
const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
console.log(`peak_rss_mib ${(hwm / 1024).toFixed(1)}`);
