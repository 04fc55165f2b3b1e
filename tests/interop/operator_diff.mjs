// DuckDB's half of the operator differential test: loads the tables operator_diff_tool wrote
// (CSV, explicit column types), runs each case's SQL and compares with our rows.
//
//   node operator_diff.mjs OUT_DIR [--verbose]
//
// Rows compare as multisets, or in order when the case's ORDER BY fixes the order (sorts end on
// a unique id). Values compare exactly (integers as decimal text, floats by value, strings,
// lists element by element) except the columns the case marks approximate (mean / avg), which
// compare to 1e-9 relative. A case also fails when our own runs (thread counts, morsel sizes,
// the small memory budget) disagreed, when a case meant to spill under the budget did not, or
// when exactly one engine fails. Exits non-zero on any difference,
// printing the case, its SQL and the first differing rows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [dir, flag] = process.argv.slice(2);
const verbose = flag === '--verbose';
const doc = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));

const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();
for (const t of doc.tables) await con.run(t.sql);
for (const t of doc.tables) {
  const n = Number((await con.runAndReadAll(`SELECT count(*) FROM ${t.name}`)).getRowsJson()[0][0]);
  if (n !== t.rows) throw new Error(`table ${t.name}: DuckDB loaded ${n} rows, we wrote ${t.rows}`);
}

function toNumber(v) {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity' || v === 'inf') return Infinity;
  if (v === '-Infinity' || v === '-inf') return -Infinity;
  return Number(v);
}

function normalize(kind, v) {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'int': return String(v);
    case 'float': return toNumber(v);
    case 'list': return v.map((x) => (x === null ? null : String(x)));
    default: return v;
  }
}

// A row as {exact, approx, shown}: exact is the text of every exactly compared cell, approx the
// numbers of the approximate ones (NaN for null).
function canonical(c, cells) {
  const exact = [], approx = [];
  cells.forEach((v, i) => {
    const n = normalize(c.kinds[i], v);
    if (c.approxSet.has(i)) {
      exact.push(n === null ? 'null' : 'value');
      approx.push(n === null ? NaN : n);
    } else {
      exact.push(typeof n === 'number' ? (Number.isNaN(n) ? 'NaN' : String(n)) : n);
    }
  });
  return { exact: JSON.stringify(exact), approx, shown: cells };
}

function close(x, y) {
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  return x === y || Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y));
}
const sameRow = (a, b) =>
  a.exact === b.exact && a.approx.length === b.approx.length && a.approx.every((x, i) => close(x, b.approx[i]));

function byRow(a, b) {
  if (a.exact !== b.exact) return a.exact < b.exact ? -1 : 1;
  for (let i = 0; i < a.approx.length; i++) {
    const x = a.approx[i], y = b.approx[i];
    if (x === y || (Number.isNaN(x) && Number.isNaN(y))) continue;
    if (Number.isNaN(x)) return -1;
    if (Number.isNaN(y)) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

const show = (r) => JSON.stringify(r.shown);

// Rows on one side only (multisets; approximate cells rounded for the listing).
function oneSided(ours, theirs, limit) {
  const key = (r) => r.exact + '|' + r.approx.map((x) => (Number.isNaN(x) ? 'n' : x.toPrecision(8))).join(',');
  const counts = new Map();
  for (const r of theirs) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
  const onlyOurs = [];
  for (const r of ours) {
    const k = key(r), n = counts.get(k) ?? 0;
    if (n > 0) counts.set(k, n - 1);
    else if (onlyOurs.length < limit) onlyOurs.push(r);
  }
  const onlyTheirs = [];
  const left = new Map();
  for (const r of ours) left.set(key(r), (left.get(key(r)) ?? 0) + 1);
  for (const r of theirs) {
    const k = key(r), n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else if (onlyTheirs.length < limit) onlyTheirs.push(r);
  }
  return { onlyOurs, onlyTheirs };
}

function compare(c, ours, theirs) {
  if (!c.ordered) {
    ours.sort(byRow);
    theirs.sort(byRow);
  }
  let i = 0;
  while (i < ours.length && i < theirs.length && sameRow(ours[i], theirs[i])) i++;
  if (i === ours.length && i === theirs.length) return null;
  const lines = [`${ours.length} rows here, ${theirs.length} in DuckDB; first difference at ` +
    `${c.ordered ? 'row' : 'sorted row'} ${i}:`];
  for (let k = i; k < i + 3 && (k < ours.length || k < theirs.length); k++) {
    lines.push(`  ours   [${k}] ${k < ours.length ? show(ours[k]) : '(none)'}`);
    lines.push(`  DuckDB [${k}] ${k < theirs.length ? show(theirs[k]) : '(none)'}`);
  }
  const { onlyOurs, onlyTheirs } = oneSided(ours, theirs, 5);
  if (onlyOurs.length + onlyTheirs.length > 0) {
    lines.push('  rows only in ours:   ' + (onlyOurs.map(show).join('\n                       ') || '-'));
    lines.push('  rows only in DuckDB: ' + (onlyTheirs.map(show).join('\n                       ') || '-'));
  }
  return lines.join('\n');
}

const failures = [];
const families = new Map();
let agree = 0;
const started = Date.now();
for (const c of doc.cases) {
  const family = c.name.split('/')[0];
  const f = families.get(family) ?? { cases: 0, agree: 0 };
  families.set(family, f);
  f.cases++;
  const problems = c.mode_differences.map((d) => `our runs disagree: ${d}`);
  let theirs = null, duckError = null;
  const t0 = Date.now();
  try {
    theirs = (await con.runAndReadAll(c.sql)).getRowsJson();
  } catch (e) {
    duckError = e.message.split('\n')[0];
  }
  const duckMs = Date.now() - t0;
  if (c.error !== undefined) {
    if (duckError === null) problems.push(`we fail (${c.error}), DuckDB returns ${theirs.length} rows`);
  } else if (duckError !== null) {
    problems.push(`DuckDB fails (${duckError}), we return ${c.num_rows} rows`);
  } else {
    c.approxSet = new Set(c.approx);
    if (theirs.length > 0 && theirs[0].length !== c.kinds.length) {
      problems.push(`${c.kinds.length} columns here (${c.columns.join(', ')}), ${theirs[0].length} in DuckDB`);
    } else {
      const ours = JSON.parse(readFileSync(join(dir, c.rows_file), 'utf8')).map((r) => canonical(c, r));
      const difference = compare(c, ours, theirs.map((r) => canonical(c, r)));
      if (difference !== null) problems.push(difference);
    }
  }
  if (problems.length === 0) {
    f.agree++;
    agree++;
    if (verbose) {
      console.log(`ok    ${c.name}: ${c.num_rows} rows, ours ${c.ms} ms (${c.runs} runs` +
        `${c.budget ? `, ${c.spilled_bytes} bytes spilled` : ''}), DuckDB ${duckMs} ms, ` +
        `compared in ${Date.now() - t0 - duckMs} ms`);
    }
  } else {
    failures.push({ c, problems });
  }
}

for (const { c, problems } of failures.slice(0, verbose ? failures.length : 30)) {
  console.log(`DIFF  ${c.name}\n      sql: ${c.sql}\n      ${problems.join('\n      ')}`);
}
for (const [name, f] of families) {
  console.log(`${name.padEnd(16)} ${String(f.agree).padStart(4)}/${f.cases} agree`);
}
const budgeted = doc.cases.filter((c) => c.budget).length;
const meant = doc.cases.filter((c) => c.must_spill).length;
const spilling = doc.cases.filter((c) => c.spilled_bytes > 0).length;
console.log(`${doc.cases.length} cases: ${agree} agree, ${failures.length} differ ` +
  `(${budgeted} also ran under the small budget, ${spilling} of them spilled, ${meant} had to; ` +
  `DuckDB side ${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(failures.length === 0 && doc.cases.length > 0 ? 0 : 1);
