// The 22 TPC-H queries through `flotilla sql --timer` and through DuckDB on the same Parquet
// files: results compared, median seconds, ratios and their geometric mean; see bench/tpch.sh.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import {
  compareResults, connectDuckDb, duckResult, oursResult, queryName, querySql,
} from '../tests/interop/tpch_compare.mjs';

const options = { flotilla: '', data: '', queries: '', threads: '2', repeats: '3', only: '',
                  memory: '', python: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) options[argv[i].replace(/^--/, '')] = argv[i + 1];
const repeats = Number(options.repeats);
const numbers = options.only ? options.only.split(/[ ,]+/).filter(Boolean).map(Number)
                             : Array.from({ length: 22 }, (_, i) => i + 1);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function runOurs(q) {
  // One process: the query REPEATS times, each statement timed from parsing to its last row.
  const sql = querySql(options.queries, q).trim().replace(/;\s*$/, '');
  const args = ['sql', '--timer', '--threads', options.threads, '--tables', options.data,
                '--format', 'csv'];
  if (options.memory) args.push('--memory-limit', options.memory);
  args.push(Array(repeats).fill(sql).join(';\n') + ';');
  const run = spawnSync(options.flotilla, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) return { error: `flotilla exited with ${run.status}: ${run.stderr.trim().slice(0, 1000)}` };
  const times = [...run.stderr.matchAll(/time: ([0-9.]+) s/g)].map((m) => Number(m[1]));
  return { stdout: run.stdout, seconds: median(times) };
}

function runPython(q) {
  const run = spawnSync('/usr/bin/python3', [options.python, '--tables', options.data, '--query',
                                             String(q), '--format', 'csv', '--threads',
                                             options.threads, '--timer', '--repeats',
                                             String(repeats)],
                        { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) return { error: `run.py exited with ${run.status}: ${run.stderr.trim().slice(0, 1000)}` };
  const times = [...run.stderr.matchAll(/q\d+: ([0-9.]+) s/g)].map((m) => Number(m[1]));
  return { stdout: run.stdout, seconds: median(times) };
}

const { con } = await connectDuckDb(options.data, options.threads, options.memory);
console.log(`data: ${options.data}, threads ${options.threads}, median of ${repeats}`);
const header = ['query', 'ours_s', 'duckdb_s', 'ratio'].concat(options.python ? ['python_s'] : []);
console.log(header.map((h, i) => (i ? h.padStart(9) : h.padEnd(6))).join(' '));
let failed = false;
const ratios = [];
for (const q of numbers) {
  const sql = querySql(options.queries, q);
  const duckTimes = [];
  let duck;
  for (let r = 0; r < repeats; ++r) {
    const t0 = performance.now();
    duck = duckResult(await con.runAndReadAll(sql));
    duckTimes.push((performance.now() - t0) / 1000);
  }
  const ours = runOurs(q);
  const problem = ours.error ?? compareResults(duck, oursResult(ours.stdout));
  const line = [queryName(q).padEnd(6)];
  if (problem) {
    failed = true;
    console.log(`${queryName(q)}: ${problem}`);
    continue;
  }
  const duckdb = median(duckTimes);
  ratios.push(ours.seconds / duckdb);
  line.push(ours.seconds.toFixed(3).padStart(9), duckdb.toFixed(3).padStart(9),
            (ours.seconds / duckdb).toFixed(2).padStart(9));
  if (options.python) {
    const py = runPython(q);
    const pyProblem = py.error ?? compareResults(duck, oursResult(py.stdout));
    if (pyProblem) {
      failed = true;
      line.push('   failed');
      console.log(`${queryName(q)} python: ${pyProblem}`);
    } else {
      line.push(py.seconds.toFixed(3).padStart(9));
    }
  }
  console.log(line.join(' '));
}
const geo = Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / Math.max(ratios.length, 1));
console.log(`geometric mean ratio ${geo.toFixed(2)} over ${ratios.length} queries`);
process.exit(failed ? 1 : 0);
