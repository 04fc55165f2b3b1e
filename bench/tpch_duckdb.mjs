// The 22 TPC-H queries through `flotilla sql --timer` and through DuckDB on the same Parquet
// files: results compared (tests/interop/tpch_compare.mjs, the rules of the TPC-H test), median
// seconds, the ratio ours/DuckDB and the geometric mean of the ratios; see bench/tpch.sh.
//
//   node bench/tpch_duckdb.mjs --flotilla BIN --data DIR --queries DIR [--threads N]
//        [--repeats R] [--only "1 6 9"] [--memory 8GiB] [--python RUN_PY] [--sf SF]
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import {
  compareResults, connectDuckDb, orderByColumns, duckResult, oursResult, oursTypes, queryName, querySql,
} from '../tests/interop/tpch_compare.mjs';

const options = { flotilla: '', data: '', queries: '', threads: '2', repeats: '3', only: '', sf: '1',
                  memory: '', python: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in options) || i + 1 >= argv.length) {
    console.error(`tpch_duckdb.mjs: bad option ${argv[i]}`);
    process.exit(2);
  }
  options[key] = argv[i + 1];
}
const repeats = Math.max(1, Number(options.repeats));
const numbers = options.only ? options.only.split(/[ ,]+/).filter(Boolean).map(Number)
                             : Array.from({ length: 22 }, (_, i) => i + 1);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function failure(what, run) {
  if (run.error) return `${what}: ${run.error.message}`;
  return `${what} exited with ${run.status ?? run.signal}: ${(run.stderr || '').trim().slice(0, 1000)}`;
}

// One process: the query REPEATS times; `--timer` prints `time: S s` on stderr per statement,
// from parsing to its last row; the last statement's rows go to stdout.
function runOurs(sql) {
  const args = ['sql', '--timer', '--threads', options.threads, '--tables', options.data,
                '--format', 'csv'];
  if (options.memory) args.push('--memory-limit', options.memory);
  args.push(Array(repeats).fill(sql).join(';\n') + ';');
  const run = spawnSync(options.flotilla, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) return { error: failure('flotilla', run) };
  const times = [...run.stderr.matchAll(/time: ([0-9.]+) s/g)].map((m) => Number(m[1]));
  if (times.length !== repeats) return { error: `flotilla printed ${times.length} times, not ${repeats}` };
  return { stdout: run.stdout, seconds: median(times) };
}

// The DataFrame program, REPEATS runs in one process (`qNN: S s` per run on stderr).
function runPython(q) {
  const run = spawnSync('/usr/bin/python3', [options.python, '--tables', options.data, '--query',
                                             String(q), '--format', 'csv', '--threads',
                                             options.threads, '--timer', '--repeats',
                                             String(repeats)],
                        { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) return { error: failure('run.py', run) };
  const times = [...run.stderr.matchAll(/q\d+: ([0-9.]+) s/g)].map((m) => Number(m[1]));
  if (!times.length) return { error: 'run.py printed no times' };
  return { stdout: run.stdout, seconds: median(times) };
}

const { con } = await connectDuckDb(options.data, options.threads, options.memory);
console.log(`data: ${options.data}, threads ${options.threads}, median of ${repeats}` +
            `${options.memory ? `, memory limit ${options.memory}` : ''}`);
const header = ['query', 'ours_s', 'duckdb_s', 'ratio'].concat(options.python ? ['python_s'] : []);
console.log(header.map((h, i) => (i ? h.padStart(9) : h.padEnd(6))).join(' '));
let failed = 0;
const ratios = [];
const seconds = (s) => (s === undefined ? '-' : s.toFixed(3)).padStart(9);
for (const q of numbers) {
  const name = queryName(q);
  // Q11's FRACTION is 0.0001 / SF (TPC-H 2.4.11.3); the query file holds SF 1's.
  const fraction = (0.0001 / Number(options.sf)).toFixed(12).replace(/0+$/, '');
  const sql = q === 11 ? querySql(options.queries, q).replace('* 0.0001', `* ${fraction}`)
                       : querySql(options.queries, q);
  const duckTimes = [];
  let reader;
  for (let r = 0; r < repeats; ++r) {
    const t0 = performance.now();
    reader = await con.runAndReadAll(sql);  // every row fetched
    duckTimes.push((performance.now() - t0) / 1000);
  }
  const duck = duckResult(reader);
  const duckdb = median(duckTimes);
  const ours = runOurs(sql);
  const problems = [];
  const oursProblem = ours.error ??
      compareResults(duck, oursResult(ours.stdout, oursTypes(options.flotilla, options.data, sql)),
                     orderByColumns(sql));
  if (oursProblem) problems.push(`${name}: ${oursProblem}`);
  const line = [name.padEnd(6), seconds(ours.seconds), seconds(duckdb)];
  if (ours.seconds !== undefined) {
    if (!oursProblem) ratios.push(ours.seconds / duckdb);  // a wrong result's time is no measure
    line.push((ours.seconds / duckdb).toFixed(2).padStart(9));
  } else {
    line.push('-'.padStart(9));
  }
  if (options.python) {
    const py = runPython(q);
    const pyProblem = py.error ?? compareResults(duck, oursResult(py.stdout), orderByColumns(sql));
    if (pyProblem) problems.push(`${name} dataframe: ${pyProblem}`);
    line.push(seconds(py.seconds));
  }
  if (problems.length) {
    ++failed;
    line.push(' WRONG');
  }
  console.log(line.join(' '));
  for (const p of problems) console.log(`  ${p}`);
}
const geo = Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / Math.max(ratios.length, 1));
console.log(`geometric mean ratio ${geo.toFixed(2)} over ${ratios.length} queries with a right result`);
if (failed) console.log(`${failed} queries with a wrong result`);
process.exit(failed ? 1 : 0);
