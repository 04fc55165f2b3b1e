// Compares two canonical JSON files exactly. Exit 0 when equal; otherwise prints the first
// differing path with both values and exits 1.
//
//   node compare.mjs EXPECTED.json ACTUAL.json

import { readFileSync } from 'node:fs';

function show(v) {
  const s = JSON.stringify(v);
  return s === undefined ? '<missing>' : (s.length > 200 ? `${s.slice(0, 200)}...` : s);
}

function kind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

// Path of the first difference, or null. Paths name batches and columns for readability.
function diff(a, b, path) {
  const ka = kind(a);
  const kb = kind(b);
  if (ka !== kb) return path;
  if (ka === 'array') {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; ++i) {
      const d = diff(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return a.length === b.length ? null : `${path}.length`;
  }
  if (ka === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const d = diff(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : path;
}

function get(v, path) {
  // Walks a path produced by diff().
  const re = /\.([A-Za-z_]+)|\[(\d+)\]/g;
  let m;
  let cur = v;
  while ((m = re.exec(path)) !== null && cur !== undefined && cur !== null) {
    if (m[1] === 'length') { cur = Array.isArray(cur) ? cur.length : cur[m[1]]; continue; }
    cur = m[1] !== undefined ? cur[m[1]] : cur[Number(m[2])];
  }
  return cur;
}

function describe(path, expected) {
  // "$.batches[2].columns[5][17]" -> add the column name from the schema.
  const m = /^\$\.batches\[(\d+)\]\.columns\[(\d+)\](?:\[(\d+)\])?/.exec(path);
  if (!m || !expected.schema || !expected.schema[Number(m[2])]) return path;
  const f = expected.schema[Number(m[2])];
  return `${path} (batch ${m[1]}, column '${f.name}' ${f.type}${m[3] !== undefined ? `, row ${m[3]}` : ''})`;
}

const [expectedPath, actualPath] = process.argv.slice(2);
if (!expectedPath || !actualPath) {
  process.stderr.write('usage: node compare.mjs EXPECTED.json ACTUAL.json\n');
  process.exit(2);
}
const expected = JSON.parse(readFileSync(expectedPath, 'utf8'));
const actual = JSON.parse(readFileSync(actualPath, 'utf8'));
const d = diff(expected, actual, '$');
if (d === null) process.exit(0);
process.stdout.write(`first difference at ${describe(d, expected)}: expected ${show(get(expected, d))}, ` +
  `got ${show(get(actual, d))}\n`);
process.exit(1);
