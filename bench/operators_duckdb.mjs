// DuckDB's side of bench/operators_bench.cc: the same generated tables and queries (see the
// formulas there), each result materialized into a temp table; run through bench/operators.sh.
//
//   node bench/operators_duckdb.mjs --query NAME [--rows N] [--threads N] [--repeats N]
//                                   [--memory-limit 1GiB]
//
// Output lines match operators_bench's: check NAME VALUE, seconds S1 ..., peak_rss_mib M.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const options = { query: '', rows: 10000000, threads: 2, repeats: 3, memoryLimit: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [flag, value] = [argv[i], argv[i + 1]];
  if (flag === '--query') options.query = value;
  else if (flag === '--rows') options.rows = Number(value);
  else if (flag === '--threads') options.threads = Number(value);
  else if (flag === '--repeats') options.repeats = Number(value);
  else if (flag === '--memory-limit') options.memoryLimit = value;
  else throw new Error(`unknown option '${flag}'`);
}

const n = options.rows;
const hash = (i) => `((${i}) * 2654435761 + 12345) % 4294967291`;
const setup = {
  group_sum: [`CREATE TABLE t AS SELECT (range * 2654435761) % 1000000 AS k, range % 1000 AS v FROM range(${n})`],
  join: [
    `CREATE TABLE probe AS SELECT (range * 2654435761) % 1000000 AS k, range % 1000 AS v FROM range(${n})`,
    `CREATE TABLE build AS SELECT range AS bk, range * 3 % 1000 AS w FROM range(1000000)`,
  ],
  sort: [`CREATE TABLE t AS SELECT ${hash('range')} AS x FROM range(${n})`],
  top100: [`CREATE TABLE t AS SELECT ${hash('range')} AS x FROM range(${n})`],
  row_number: [`CREATE TABLE t AS SELECT range % 1000 AS p, ${hash('range')} AS o FROM range(${n})`],
};
const queries = {
  group_sum: 'SELECT k, sum(v) AS s FROM t GROUP BY k',
  join: 'SELECT v, w FROM probe JOIN build ON k = bk',
  sort: 'SELECT x FROM t ORDER BY x',
  top100: 'SELECT x FROM t ORDER BY x DESC LIMIT 100',
  row_number: 'SELECT p, o, row_number() OVER (PARTITION BY p ORDER BY o) AS rn FROM t',
};
// The checks of operators_bench.cc, over the materialized result r (ordered results carry
// their position as rowid order of the temp table).
const checks = {
  group_sum: ['SELECT count(*), sum(s), sum(k * s) FROM r', ['rows', 'sum', 'weighted']],
  join: ['SELECT count(*), sum(v + w) FROM r', ['rows', 'sum']],
  sort: ['SELECT count(*), sum(x), sum(((rowid) % 1000) * (x % 1000)) FROM r', ['rows', 'sum', 'positional']],
  top100: ['SELECT count(*), sum(x), sum(((rowid) % 1000) * (x % 1000)) FROM r', ['rows', 'sum', 'positional']],
  row_number: ['SELECT count(*), sum(rn * (o % 1000)) FROM r', ['rows', 'weighted']],
};
if (!queries[options.query]) throw new Error(`unknown query '${options.query}'`);

const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
await db.run(`SET threads = ${options.threads}`);
await db.run('SET preserve_insertion_order = true');
if (options.memoryLimit) await db.run(`SET memory_limit = '${options.memoryLimit}'`);
for (const sql of setup[options.query]) await db.run(sql);

const seconds = [];
for (let r = 0; r < options.repeats; ++r) {
  await db.run('DROP TABLE IF EXISTS r');
  const start = performance.now();
  await db.run(`CREATE TEMP TABLE r AS ${queries[options.query]}`);
  seconds.push((performance.now() - start) / 1000);
  if (r === 0) {
    const [sql, names] = checks[options.query];
    const rows = (await db.runAndReadAll(sql)).getRows();
    names.forEach((name, i) => console.log(`check ${name} ${rows[0][i]}`));
  }
}
console.log(`seconds ${seconds.map((s) => s.toFixed(4)).join(' ')}`);
const hwm = readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+) kB/);
console.log(`peak_rss_mib ${(Number(hwm[1]) / 1024).toFixed(1)}`);
