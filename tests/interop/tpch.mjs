// The 22 TPC-H queries on one set of tables: DuckDB's results against ours through SQL
// (`flotilla sql`) and through the Python DataFrame programs (tpch/dataframe/run.py); see
// tpch.sh.
//
//   node tpch.mjs --flotilla BIN --data DIR --queries DIR [--python RUN_PY] [--threads N]
import { spawnSync } from 'node:child_process';
import {
  compareResults, connectDuckDb, duckResult, oursResult, queryName, querySql,
} from './tpch_compare.mjs';

const options = { flotilla: '', data: '', queries: '', python: '', threads: '2' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) options[argv[i].replace(/^--/, '')] = argv[i + 1];

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, ...env } });
  if (r.status !== 0) return { error: `${cmd} exited with ${r.status}: ${(r.stderr || '').trim().slice(0, 2000)}` };
  return { stdout: r.stdout };
}

const { con } = await connectDuckDb(options.data, options.threads);
let passed = 0;
let failed = 0;
const check = (label, duck, outcome) => {
  const problem = outcome.error ?? compareResults(duck, oursResult(outcome.stdout));
  if (problem) {
    ++failed;
    console.log(`${label} FAILED: ${problem}`);
  } else {
    ++passed;
    console.log(`${label} ok (${duck.rows.length} rows)`);
  }
};
for (let q = 1; q <= 22; ++q) {
  const name = queryName(q);
  const duck = duckResult(await con.runAndReadAll(querySql(options.queries, q)));
  check(`${name} sql`, duck, run(options.flotilla, ['sql', '--threads', options.threads, '--tables',
                                                   options.data, '--format', 'csv', '-f',
                                                   `${options.queries}/${name}.sql`]));
  if (options.python) {
    check(`${name} dataframe`, duck,
          run('/usr/bin/python3', [options.python, '--tables', options.data, '--query', String(q),
                                   '--format', 'csv', '--threads', options.threads]));
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
