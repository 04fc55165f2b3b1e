// Runs bench/sql_queries.sql through `flotilla sql --timer` and through DuckDB on the same file,
// compares the results and prints the times; see bench/sql.sh.
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const options = { flotilla: '', file: '', queries: '', threads: 2, repeats: 3 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) options[argv[i].replace(/^--/, '')] = argv[i + 1];
options.threads = Number(options.threads);
options.repeats = Number(options.repeats);

// "-- name: X" headers split the file into named queries.
const queries = [];
for (const block of readFileSync(options.queries, 'utf8').split(/^-- name: /m).slice(1)) {
  const [name, ...rest] = block.split('\n');
  queries.push({ name: name.trim(), sql: rest.join('\n').trim() });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// Values as text with numbers rounded to 6 significant digits, so 1.50 and 1.5 agree.
const canon = (v) => {
  if (v === null || v === undefined || v === 'null' || v === 'NULL') return 'NULL';
  const n = Number(v);
  if (String(v).trim() !== '' && Number.isFinite(n)) return Number(n.toPrecision(6)).toString();
  return String(v);
};

const instance = await DuckDBInstance.create(':memory:', { threads: String(options.threads) });
const con = await instance.connect();
const path = `'${options.file.replaceAll("'", "''")}'`;
await con.run(`CREATE VIEW lineitem AS SELECT * FROM read_parquet(${path})`);

let failed = false;
const ratios = [];
console.log(`file: ${options.file}, threads ${options.threads}, median of ${options.repeats}`);
console.log(`${'query'.padEnd(10)} ${'ours_s'.padStart(9)} ${'duckdb_s'.padStart(9)} ${'ratio'.padStart(7)}`);
for (const q of queries) {
  const duck = [];
  let duckRows = [];
  for (let r = 0; r < options.repeats; ++r) {
    const t0 = performance.now();
    const reader = await con.runAndReadAll(q.sql);
    duckRows = reader.getRows().map((row) => row.map((v) => canon(v === null ? null : String(v))));
    duck.push((performance.now() - t0) / 1000);
  }
  const script = `CREATE VIEW lineitem AS SELECT * FROM read_parquet(${path});\n` +
                 Array(options.repeats).fill(q.sql).join(';\n') + ';';
  // The last statement's rows go to stdout (csv) and "time: S s" per statement to stderr.
  const run = spawnSync(options.flotilla,
                        ['sql', '--timer', '--threads', String(options.threads), '--format', 'csv', script],
                        { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`${q.name}: flotilla failed: ${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  const oursRows = lines.slice(1).map((line) => line.split(',').map(canon));  // after the header
  const times = [...run.stderr.matchAll(/time: ([0-9.]+) s/g)].map((m) => Number(m[1]));
  const same = JSON.stringify(oursRows) === JSON.stringify(duckRows);
  if (!same) {
    failed = true;
    console.log(`${q.name}: results differ\n  ours:   ${JSON.stringify(oursRows)}\n  duckdb: ${JSON.stringify(duckRows)}`);
  }
  const ours = median(times.slice(1));  // the first statement is the CREATE VIEW
  const duckdb = median(duck);
  ratios.push(ours / duckdb);
  console.log(`${q.name.padEnd(10)} ${ours.toFixed(3).padStart(9)} ${duckdb.toFixed(3).padStart(9)} ${(ours / duckdb).toFixed(2).padStart(7)}`);
}
const geo = Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / ratios.length);
console.log(`geometric mean ratio ${geo.toFixed(2)}`);
process.exit(failed ? 1 : 0);
