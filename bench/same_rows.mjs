// Whether two directories of (Hive-partitioned) Parquet files hold the same rows, as DuckDB reads
// them: the same row count and nothing in either EXCEPT ALL the other. Exits 1 when they differ.
//
//   node bench/same_rows.mjs DIR_A DIR_B
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/same_rows.mjs DIR_A DIR_B');
  process.exit(2);
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const read = (dir) => `read_parquet(${q(`${dir}/**/*.parquet`)}, hive_partitioning = true)`;
const con = await (await DuckDBInstance.create(':memory:')).connect();
const one = async (sql) => Number((await con.runAndReadAll(sql)).getRows()[0][0]);
const rowsA = await one(`SELECT count(*) FROM ${read(a)}`);
const rowsB = await one(`SELECT count(*) FROM ${read(b)}`);
const onlyA = await one(`SELECT count(*) FROM (SELECT * FROM ${read(a)} EXCEPT ALL SELECT * FROM ${read(b)})`);
const onlyB = await one(`SELECT count(*) FROM (SELECT * FROM ${read(b)} EXCEPT ALL SELECT * FROM ${read(a)})`);
const same = rowsA === rowsB && onlyA === 0 && onlyB === 0 && rowsA > 0;
console.log(`${same ? 'same rows' : 'DIFFERENT'}: ${rowsA} rows in ${a}, ${rowsB} in ${b}; ` +
            `${onlyA} only in the first, ${onlyB} only in the second`);
process.exit(same ? 0 : 1);
