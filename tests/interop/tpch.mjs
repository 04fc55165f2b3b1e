// The 22 TPC-H queries on one or more sets of tables: DuckDB's results against ours through SQL
// (`flotilla sql`) and through the Python DataFrame programs (tpch/dataframe/run.py); the rules
// are in tpch_compare.mjs. See tpch.sh.
//
//   node tpch.mjs --flotilla BIN --queries DIR --data DIR [--data DIR ...] [--python RUN_PY]
//                 [--threads N] [--only "1 6 9"]
//
// Prints one line per query and program (`q01 ok 4 rows`, `q01 dataframe ok 4 rows`, or the
// first difference with both values), then `N passed, M failed`; exits 1 when any failed.
import { spawnSync } from 'node:child_process';
import {
  compareResults, connectDuckDb, orderByColumns, createViews, duckResult, oursResult, oursTypes, queryName,
  querySql,
} from './tpch_compare.mjs';

const options = { flotilla: '', data: [], queries: '', python: '', threads: '2', only: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in options) || i + 1 >= argv.length) {
    console.error(`tpch.mjs: bad option ${argv[i]}`);
    process.exit(2);
  }
  if (Array.isArray(options[key])) options[key].push(argv[i + 1]); else options[key] = argv[i + 1];
}
const numbers = options.only ? options.only.split(/[ ,]+/).filter(Boolean).map(Number)
                             : Array.from({ length: 22 }, (_, i) => i + 1);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) return { error: `${cmd}: ${r.error.message}` };
  if (r.status !== 0) {
    return { error: `${cmd} exited with ${r.status ?? r.signal}: ${(r.stderr || '').trim().slice(0, 2000)}` };
  }
  return { stdout: r.stdout };
}

let passed = 0;
let failed = 0;
function check(label, duck, outcome, types, orderBy) {
  const problem = outcome.error ?? compareResults(duck, oursResult(outcome.stdout, types), orderBy);
  if (problem) {
    ++failed;
    console.log(`${label} FAILED: ${problem}`);
  } else {
    ++passed;
    console.log(`${label} ok ${duck.rows.length} rows`);
  }
}

const { con } = await connectDuckDb(options.data[0], options.threads);
for (const data of options.data) {
  if (options.data.length > 1) console.log(`== ${data}`);
  await createViews(con, data);
  for (const q of numbers) {
    const name = queryName(q);
    const sql = querySql(options.queries, q);
    let duck;
    try {
      duck = duckResult(await con.runAndReadAll(sql));
    } catch (e) {
      ++failed;
      console.log(`${name} FAILED: DuckDB: ${e.message}`);
      continue;
    }
    check(name, duck,
          run(options.flotilla, ['sql', '--threads', options.threads, '--tables', data, '--format',
                                 'csv', '-f', `${options.queries}/${name}.sql`]),
          oursTypes(options.flotilla, data, sql), orderByColumns(sql));
    if (options.python) {
      // No types: a column of ours is a decimal when all its values have the same digits.
      check(`${name} dataframe`, duck,
            run('/usr/bin/python3', [options.python, '--tables', data, '--query', String(q),
                                     '--format', 'csv', '--threads', options.threads]),
            undefined, orderByColumns(sql));
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
