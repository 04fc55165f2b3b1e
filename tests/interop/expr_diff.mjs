// DuckDB's half of the expression differential test: runs each case's SQL over the same tables
// expr_diff_tool built and compares with our values, row by row.
//
//   node expr_diff.mjs CASES.json [--verbose]
//
// A case agrees when both engines return equal values for every row, or when both reject it
// (an error on each side: overflow, invalid input). Numbers compare by value: integers exactly,
// decimals exactly when DuckDB's has our scale and the expression has no decimal division
// (DuckDB divides and averages decimals as DOUBLE; those compare to 1e-9 relative), floats to
// 1e-9 relative (NaN equals NaN). Prints
// per-family counts and the first disagreements; exits non-zero when any case disagrees.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const [file, flag] = process.argv.slice(2);
const verbose = flag === '--verbose';
const doc = JSON.parse(readFileSync(file, 'utf8'));

const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await instance.connect();
for (const d of doc.datasets) await con.run(d.sql);

const DECIMAL = /^-?\d+(\.\d+)?$/;

function toNumber(v) {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return Number(v);
}

function closeNumbers(a, b) {
  const x = toNumber(a), y = toNumber(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  if (x === y) return true;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  return Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)) || Math.abs(x - y) < 1e-300;
}

const scaleOf = (s) => (s.includes('.') ? s.length - s.indexOf('.') - 1 : 0);

// Exact comparison of two decimal strings of the same scale ("-0.50" equals "-0.50", "0.00"
// equals "-0.00").
const sameDecimal = (a, b) => BigInt(a.replace('.', '')) === BigInt(b.replace('.', ''));

function sameValue(type, ours, theirs, inexact) {
  if (ours === null || theirs === null) return ours === theirs;
  switch (type.t) {
    case 'int': {
      const t = String(theirs);
      if (/^-?\d+$/.test(t)) return BigInt(ours) === BigInt(t);
      return closeNumbers(ours, theirs);
    }
    case 'float':
      return closeNumbers(ours, theirs);
    case 'decimal':
      // Exact when DuckDB kept a decimal of our scale; DuckDB divides decimals as DOUBLE (and
      // we then carry more digits), so other forms compare as numbers.
      if (!inexact && typeof theirs === 'string' && DECIMAL.test(theirs) &&
          scaleOf(theirs) === scaleOf(ours)) {
        return sameDecimal(ours, theirs);
      }
      return closeNumbers(ours, theirs);
    case 'timestamp':
      return BigInt(ours) === BigInt(String(theirs));
    case 'list':
      if (!Array.isArray(theirs) || theirs.length !== ours.length) return false;
      return ours.every((v, i) => sameValue(type.item, v, theirs[i], inexact));
    default:
      return ours === theirs;
  }
}

const families = new Map();
const failures = [];
let agree = 0, bothErrors = 0;
for (const c of doc.cases) {
  const f = families.get(c.family) ?? { cases: 0, agree: 0, bothErrors: 0 };
  families.set(c.family, f);
  f.cases++;
  let rows = null, duckError = null;
  try {
    const reader = await con.runAndReadAll(c.sql);
    rows = reader.getRowsJson().map((r) => r[0]);
  } catch (e) {
    duckError = e.message.split('\n')[0];
  }
  let problem = null;
  if (!c.ok && duckError !== null) {
    f.bothErrors++;
    bothErrors++;
  } else if (!c.ok) {
    problem = `we fail (${c.error}), DuckDB returns ${JSON.stringify(rows).slice(0, 200)}`;
  } else if (duckError !== null) {
    problem = `DuckDB fails (${duckError}), we return ${JSON.stringify(c.values).slice(0, 200)}`;
  } else if (rows.length !== c.values.length) {
    problem = `${c.values.length} rows here, ${rows.length} in DuckDB`;
  } else {
    for (let i = 0; i < rows.length; i++) {
      if (!sameValue(c.type, c.values[i], rows[i], c.inexact)) {
        problem = `row ${i}: ours ${JSON.stringify(c.values[i])}, DuckDB ${JSON.stringify(rows[i])}`;
        break;
      }
    }
  }
  if (problem === null) {
    f.agree++;
    agree++;
    if (verbose) console.log(`ok    #${c.id} ${c.family}: ${c.expr}`);
  } else {
    failures.push({ c, problem });
  }
}

for (const { c, problem } of failures.slice(0, verbose ? failures.length : 40)) {
  console.log(`DIFF  #${c.id} ${c.family} on ${c.dataset}: ${c.expr}\n      sql: ${c.sql}\n      ${problem}`);
}
for (const [name, f] of families) {
  console.log(`${name.padEnd(12)} ${String(f.agree).padStart(4)}/${f.cases} agree (${f.bothErrors} rejected by both)`);
}
console.log(`${doc.cases.length} cases: ${agree} agree (${bothErrors} rejected by both), ${failures.length} differ`);
process.exit(failures.length === 0 && doc.cases.length > 0 ? 0 : 1);
