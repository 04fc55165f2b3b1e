// Random SQL queries, run by `flotilla sql` and by DuckDB on the same Parquet tables.
//
//   node sql_smith.mjs --flotilla PATH --out DIR [--seed N] [--seeds K] [--queries N]
//                      [--timeout-ms N] [--seconds S] [--min-compared F] [--only I] [--sql SQL]
//                      [--verbose]
//
// For each seed (--seed, and the K - 1 after it with --seeds K) DuckDB writes four deterministic
// tables into DIR/tables-SEED/ (NULLs, duplicate and negative keys, empty strings, an empty or
// tiny table), then --queries queries are generated from a grammar with a depth budget: typed
// expressions (arithmetic, comparisons, logic, CASE, COALESCE, CAST, IS NULL, BETWEEN, IN, LIKE,
// string, math and date functions), WHERE, GROUP BY with aggregates and HAVING, joins of every
// kind, IN / EXISTS / scalar subqueries (correlated or not), derived tables, CTEs, set
// operations, window functions and ORDER BY / LIMIT. Query I of seed S depends on (S, I) only, so
// `--seed S --only I` replays it; `--sql` runs given SQL on the seed's tables instead.
//
// A query whose result could depend on the engine's choices is never generated: LIMIT comes
// with an ORDER BY over every output column, and row_number, lag, lead, ntile, first/last value
// and ROWS frames order by a unique key of their input. Divisors are wrapped in NULLIF(x, 0):
// DuckDB gives NULL for x / 0 where we give IEEE infinities (docs/architecture.md). Doubles in
// the tables are multiples of 1/8, so sums of them are exact in any order.
//
// Outcomes: both engines succeed -> the rows are compared (as a multiset, or in order when the
// ORDER BY covers every column), doubles to 1e-9 relative, everything else exactly (except two
// documented differences, see fitDecimal and canonicalRow); we crash, are killed by a signal,
// print a sanitizer report, time out where DuckDB answers quickly, fail with an internal error
// (a plan node rejecting a column the planner named, a message of Status::Internal), lose a
// column DuckDB finds, fail on an expression while building the plan where DuckDB answers, or
// return other rows -> failure (written to DIR/failures.txt with both outputs); we fail where
// DuckDB succeeds otherwise -> "refused", counted by message (features not built yet are
// legitimate); DuckDB fails where we succeed -> counted with examples. Exits 1 on any failure,
// or when fewer than --min-compared (default 0.3) of the queries were compared.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, DuckDBTypeId } from '@duckdb/node-api';

const here = dirname(fileURLToPath(import.meta.url));

// ---- Options ----------------------------------------------------------------------------------

const USAGE = 'usage: node sql_smith.mjs --flotilla PATH --out DIR [--seed N] [--seeds K] ' +
  '[--queries N] [--timeout-ms N] [--seconds S] [--min-compared F] [--only I] [--sql SQL] [--verbose]';

function parseArgs(argv) {
  const o = {
    flotilla: null, out: null, seed: 1, seeds: 1, queries: 200, timeoutMs: 10000, seconds: 0,
    minCompared: 0.3, only: null, sql: [], verbose: false,
  };
  const fail = (msg) => { console.error(`sql_smith: ${msg}\n${USAGE}`); process.exit(2); };
  const int = (name, s) => {
    if (!/^\d+$/.test(s)) fail(`${name} takes a non-negative integer, got '${s}'`);
    return Number(s);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--flotilla': o.flotilla = resolve(value()); break;
      case '--out': o.out = resolve(value()); break;
      case '--seed': o.seed = int(a, value()); break;
      case '--seeds': o.seeds = Math.max(1, int(a, value())); break;
      case '--queries': o.queries = int(a, value()); break;
      case '--timeout-ms': o.timeoutMs = int(a, value()); break;
      case '--seconds': o.seconds = int(a, value()); break;
      case '--min-compared': o.minCompared = Number(value()); break;
      case '--only': o.only = int(a, value()); break;
      case '--sql': o.sql.push(value()); break;
      case '--verbose': o.verbose = true; break;
      default: fail(`unknown argument '${a}'`);
    }
  }
  if (!o.flotilla || !o.out) fail('--flotilla and --out are required');
  if (!existsSync(o.flotilla)) fail(`no such program: ${o.flotilla}`);
  return o;
}

// ---- Deterministic randomness -----------------------------------------------------------------

function mix32(x) {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

// sfc32, seeded from any number of integers.
class Rng {
  constructor(...seeds) {
    let h = 0x9e3779b9;
    for (const s of seeds) h = mix32((h ^ mix32((s >>> 0) + 0x632be5ab)) >>> 0);
    this.a = mix32(h + 1); this.b = mix32(h + 2); this.c = mix32(h + 3); this.d = mix32(h + 4);
    for (let i = 0; i < 12; i++) this.next();
  }
  next() {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }
  int(n) { return this.next() % n; }
  range(lo, hi) { return lo + this.int(hi - lo + 1); }
  chance(p) { return this.next() / 4294967296 < p; }
  pick(xs) { return xs[this.int(xs.length)]; }
  // pairs: [[weight, value], ...]; entries of weight 0 are never chosen.
  weighted(pairs) {
    let total = 0;
    for (const [w] of pairs) total += Math.max(0, w);
    let x = (this.next() / 4294967296) * total;
    for (const [w, v] of pairs) {
      if (w <= 0) continue;
      if (x < w) return v;
      x -= w;
    }
    return pairs.filter(([w]) => w > 0).at(-1)[1];
  }
  shuffle(xs) {
    const a = [...xs];
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }
}

// ---- Tables -----------------------------------------------------------------------------------

// Strings that exercise trimming, case mapping of non-ASCII letters, LIKE's wildcards as data,
// CSV quoting (comma, quote, line break) and text that looks like numbers, dates or NULL.
const STRINGS = ['', 'a', 'A', 'ab', 'abc', 'b', 'ba', 'abc%', 'x_y', 'hello world', ' lead',
  'trail ', 'Zoë', 'ÅNGSTRÖM', 'foo', 'FOO', 'bar', 'a-b-c', '42', '-7', '2020-01-01', 'NULL',
  'a,b', 'say "hi"', 'two\nlines', 'mañana'];

const sqlString = (s) => `'${s.replace(/'/g, "''")}'`;
const STRING_LIST = `[${STRINGS.map((s) => sqlString(s).replace(/\n/g, "' || chr(10) || '")).join(', ')}]`;

// Column types of the generator: 'int' and 'bigint' are integers, 'dec' is DECIMAL(12,2).
const SQL_TYPE = {
  int: 'INTEGER', bigint: 'BIGINT', double: 'DOUBLE', dec: 'DECIMAL(12,2)', text: 'VARCHAR',
  date: 'DATE', bool: 'BOOLEAN',
};
const NUMERIC = new Set(['int', 'bigint', 'double', 'dec']);
const family = (t) => (NUMERIC.has(t) ? 'num' : t);

function tableSpecs(seed) {
  const r = new Rng(seed, 0x7ab1e5);
  // h(n): a per-column pseudo-random value in [0, 1000003) for row i.
  const h = () => `((i * ${r.range(1000, 999000)} + ${r.range(0, 999999)}) % 1000003)`;
  const nullWhen = (mod) => `${h()} % ${mod} = 0`;
  const str = () => `${STRING_LIST}[1 + ${h()} % ${STRINGS.length}]`;
  const t4Rows = [0, 1, 3, 25][seed % 4];
  return [
    {
      name: 't1', rows: 1500, rowGroup: 500,
      cols: [
        ['id', 'int', 'i::INTEGER', 1500],
        ['k', 'int', `CASE WHEN ${nullWhen(13)} THEN NULL ELSE (${h()} % 41 - 8)::INTEGER END`, 41],
        ['g', 'int', `CASE WHEN ${nullWhen(17)} THEN NULL ELSE (${h()} % 5)::INTEGER END`, 5],
        ['big', 'bigint', `CASE WHEN ${nullWhen(11)} THEN NULL ELSE (${h()} - 500000)::BIGINT * 1000003 END`, 1500],
        ['x', 'double', `CASE WHEN ${nullWhen(9)} THEN NULL ELSE (${h()} % 4001 - 2000)::DOUBLE / 8 END`, 1500],
        ['s', 'text', `CASE WHEN ${nullWhen(10)} THEN NULL ELSE ${str()} END`, STRINGS.length],
        ['d', 'date', `CASE WHEN ${nullWhen(15)} THEN NULL ELSE DATE '2019-06-01' + (${h()} % 2200)::INTEGER END`, 1000],
        ['flag', 'bool', `CASE WHEN ${nullWhen(7)} THEN NULL ELSE ${h()} % 3 = 0 END`, 2],
        ['m', 'dec', `CASE WHEN ${nullWhen(12)} THEN NULL ELSE ((${h()} % 400001 - 200000)::DOUBLE / 100)::DECIMAL(12,2) END`, 1500],
      ],
    },
    {
      name: 't2', rows: 400, rowGroup: 150,
      cols: [
        ['id', 'int', '(i * 3)::INTEGER', 400],
        ['k', 'int', `CASE WHEN ${nullWhen(8)} THEN NULL ELSE (${h()} % 36 - 5)::INTEGER END`, 36],
        ['s', 'text', `CASE WHEN ${nullWhen(9)} THEN NULL ELSE ${str()} END`, STRINGS.length],
        ['x', 'double', `CASE WHEN ${nullWhen(10)} THEN NULL ELSE (${h()} % 801 - 400)::DOUBLE / 4 END`, 400],
        ['d', 'date', `CASE WHEN ${nullWhen(11)} THEN NULL ELSE DATE '2020-01-01' + (${h()} % 900)::INTEGER END`, 400],
        ['m', 'dec', `CASE WHEN ${nullWhen(7)} THEN NULL ELSE ((${h()} % 20001 - 10000)::DOUBLE / 100)::DECIMAL(12,2) END`, 400],
        ['big', 'bigint', `CASE WHEN ${nullWhen(6)} THEN NULL ELSE (${h()} % 101 - 50)::BIGINT END`, 101],
      ],
    },
    {
      name: 't3', rows: 60, rowGroup: 1000,
      cols: [
        ['id', 'int', 'i::INTEGER', 60],
        ['k', 'int', `CASE WHEN ${nullWhen(9)} THEN NULL ELSE (${h()} % 13)::INTEGER END`, 13],
        ['g', 'int', `(${h()} % 5)::INTEGER`, 5],
        ['s', 'text', `CASE WHEN ${nullWhen(7)} THEN NULL ELSE ${str()} END`, STRINGS.length],
        ['flag', 'bool', `CASE WHEN ${nullWhen(5)} THEN NULL ELSE ${h()} % 2 = 0 END`, 2],
        ['x', 'double', `CASE WHEN ${nullWhen(6)} THEN NULL ELSE (${h()} % 81 - 40)::DOUBLE / 2 END`, 60],
      ],
    },
    {
      name: 't4', rows: t4Rows, rowGroup: 1000,
      cols: [
        ['id', 'int', 'i::INTEGER', Math.max(1, t4Rows)],
        ['k', 'int', `CASE WHEN ${nullWhen(4)} THEN NULL ELSE (${h()} % 7 - 2)::INTEGER END`, 7],
        ['s', 'text', `CASE WHEN ${nullWhen(3)} THEN NULL ELSE ${str()} END`, STRINGS.length],
        ['d', 'date', `CASE WHEN ${nullWhen(5)} THEN NULL ELSE DATE '2021-01-01' + (${h()} % 400)::INTEGER END`, Math.max(1, t4Rows)],
        ['m', 'dec', `CASE WHEN ${nullWhen(4)} THEN NULL ELSE ((${h()} % 2001 - 1000)::DOUBLE / 100)::DECIMAL(12,2) END`, Math.max(1, t4Rows)],
      ],
    },
  ].map((t) => ({
    ...t,
    cols: t.cols.map(([name, type, expr, ndv]) => ({ name, type, expr, ndv })),
  }));
}

async function writeTables(con, specs, dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const t of specs) {
    const path = join(dir, `${t.name}.parquet`);
    const select = t.cols.map((c) => `${c.expr} AS ${c.name}`).join(',\n  ');
    await con.run(`COPY (SELECT ${select}\nFROM range(1, ${t.rows + 1}) r(i) ORDER BY i) ` +
      `TO ${sqlString(path)} (FORMAT parquet, ROW_GROUP_SIZE ${t.rowGroup})`);
    await con.run(`CREATE OR REPLACE VIEW ${t.name} AS SELECT * FROM read_parquet(${sqlString(path)})`);
    const n = Number((await con.runAndReadAll(`SELECT count(*) FROM ${t.name}`)).getRows()[0][0]);
    if (n !== t.rows) throw new Error(`table ${t.name}: ${n} rows written, ${t.rows} meant`);
  }
}

// ---- The query generator ----------------------------------------------------------------------

// Joins whose estimated size is above this are not generated (both engines must answer quickly).
const MAX_ROWS = 30000;
// Estimates can be wrong (a derived column may hold one value): results larger than this, or our
// output beyond MAX_OUTPUT_BYTES, are not compared but counted as too large.
const MAX_RESULT_ROWS = 200000;
const MAX_OUTPUT_BYTES = 64 << 20;

const TEXT_LITERALS = ['', 'a', 'A', 'ab', 'abc', 'b', 'foo', 'FOO', 'x_y', 'hello world', ' lead',
  'Zoë', '42', 'z', "it's"];
const LIKE_PATTERNS = ['a%', '%a', '%b%', '_', '__%', '%', '', 'A%', '%o%', '%\\_%', 'abc%', '_b%',
  '%c', 'f_o', '%,%'];
const DATE_LITERALS = ['2019-06-01', '2020-02-29', '2020-12-31', '2021-01-01', '2021-06-15',
  '2022-03-01', '2023-10-31', '2024-02-29', '2025-06-30'];

class Gen {
  constructor(rng, tables) {
    this.r = rng;
    this.tables = tables;
    this.ctes = [];
    this.names = 0;
  }

  alias(prefix) { return `${prefix}${this.names++}`; }

  // ---- Literals

  smallInt() { return this.r.pick(['0', '1', '2', '3', '5', '7', '10', '(-1)', '(-3)']); }

  literal(t) {
    const r = this.r;
    if (r.chance(0.06)) return `CAST(NULL AS ${SQL_TYPE[t]})`;
    switch (t) {
      case 'int': return r.pick(['0', '1', '2', '3', '5', '7', '10', '13', '42', '100', '(-1)', '(-3)', '(-8)', '1000']);
      case 'bigint': return r.pick(['CAST(0 AS BIGINT)', '12345678901', '(-1000003)', 'CAST(7 AS BIGINT)',
        '500000000000', '(-250000000000)']);
      case 'double': return r.pick(['0.0e0', '1.0e0', '2.5e0', '(-1.5e0)', '0.125e0', '100.0e0', '(-0.25e0)',
        '1e3', 'CAST(3 AS DOUBLE)', 'CAST(-7.75 AS DOUBLE)']);
      case 'dec': return r.pick(['0.00', '1.50', '12.34', '(-7.25)', '999.99', 'CAST(3 AS DECIMAL(12,2))',
        'CAST(-0.01 AS DECIMAL(12,2))', '100.00']);
      case 'text': return sqlString(r.pick(TEXT_LITERALS));
      case 'date': return `DATE '${r.pick(DATE_LITERALS)}'`;
      case 'bool': return r.pick(['TRUE', 'FALSE']);
      default: throw new Error(`literal of ${t}`);
    }
  }

  // ---- Expressions
  //
  // A context c: cols (row-level columns in scope: {sql, type, ndv, dy}), grouped (null in a
  // row-level context; else the GROUP BY expressions, the only columns usable outside an
  // aggregate), agg (aggregates allowed), depth (budget left), sub (subqueries allowed below),
  // exact (no values that depend on evaluation order, so they may be compared for equality:
  // no transcendental functions, no sum / avg over computed doubles).

  gen(t, c) {
    if (c.depth <= 0 || this.r.chance(0.22)) return this.leaf(t, c);
    const d = { ...c, depth: c.depth - 1 };
    switch (t) {
      case 'int': return this.genInt(d);
      case 'bigint': return this.genBigint(d);
      case 'double': return this.genDouble(d);
      case 'dec': return this.genDec(d);
      case 'text': return this.genText(d);
      case 'date': return this.genDate(d);
      case 'bool': return this.genBool(d);
      default: throw new Error(`type ${t}`);
    }
  }

  leaf(t, c) {
    const r = this.r;
    const accepts = (ct) => ct === t || (t === 'bigint' && ct === 'int');
    const options = [];
    if (c.grouped) {
      const keys = c.grouped.filter((k) => accepts(k.type));
      if (keys.length) options.push([6, () => r.pick(keys).ref]);
      if (c.agg) options.push([5, () => this.aggregate(t, c)]);
    } else {
      const cols = c.cols.filter((x) => accepts(x.type));
      if (cols.length) options.push([10, () => r.pick(cols).sql]);
    }
    options.push([2, () => this.literal(t)]);
    return r.weighted(options)();
  }

  // Any numeric type, integers most often.
  num(c) { return this.gen(this.r.weighted([[4, 'int'], [1, 'bigint'], [2, 'double'], [2, 'dec']]), c); }

  caseExpr(t, c) {
    const r = this.r;
    const n = r.range(1, 3);
    if (r.chance(0.3)) {
      const st = r.pick(['int', 'text', 'date']);
      const subject = this.gen(st, c);
      const whens = [];
      for (let i = 0; i < n; i++) whens.push(`WHEN ${this.literal(st)} THEN ${this.gen(t, c)}`);
      return `CASE ${subject} ${whens.join(' ')}${r.chance(0.7) ? ` ELSE ${this.gen(t, c)}` : ''} END`;
    }
    const whens = [];
    for (let i = 0; i < n; i++) whens.push(`WHEN ${this.gen('bool', c)} THEN ${this.gen(t, c)}`);
    return `CASE ${whens.join(' ')}${r.chance(0.7) ? ` ELSE ${this.gen(t, c)}` : ''} END`;
  }

  // Choices every type shares: CASE, COALESCE, NULLIF, aggregates, scalar subqueries.
  common(t, c) {
    const g = () => this.gen(t, c);
    return [
      [2, () => this.caseExpr(t, c)],
      [1.2, () => `COALESCE(${g()}, ${g()}${this.r.chance(0.3) ? `, ${g()}` : ''})`],
      [0.4, () => `NULLIF(${g()}, ${g()})`],
      [c.grouped && c.agg ? 4 : 0, () => this.aggregate(t, c)],
      [c.sub > 0 ? (c.grouped ? 0.15 : 0.8) : 0, () => this.subquery('scalar', t, c)],
    ];
  }

  genInt(c) {
    const r = this.r;
    const g = (t = 'int') => this.gen(t, c);
    return r.weighted([
      [3, () => `(${g()} + ${g()})`],
      [2, () => `(${g()} - ${g()})`],
      [2, () => `(${g()} * ${this.smallInt()})`],
      [0.7, () => `(${g()} * ${g()})`],
      [1, () => `(${g()} // NULLIF(${g()}, 0))`],
      [1, () => `(${g()} % NULLIF(${g()}, 0))`],
      [0.4, () => `(${g()} % ${g()})`],
      [0.4, () => `(${g()} // ${g()})`],
      [1, () => `abs(${g()})`],
      [0.7, () => `(- ${g()})`],
      [0.5, () => `sign(${g()})`],
      [2, () => `length(${g('text')})`],
      [0.8, () => `strpos(${g('text')}, ${this.literal('text')})`],
      [2, () => `${r.pick(['year', 'month', 'day', 'quarter', 'dayofweek', 'isodow', 'dayofyear', 'week'])}(${g('date')})`],
      [1, () => `EXTRACT(${r.pick(['YEAR', 'MONTH', 'DAY', 'QUARTER', 'DOW', 'DOY', 'ISODOW', 'WEEK'])} FROM ${g('date')})`],
      [1, () => `date_diff('${r.pick(['day', 'month', 'year', 'week', 'quarter'])}', ${g('date')}, ${g('date')})`],
      [0.8, () => `(${this.gen('date', { ...c, dateOnly: true })} - ${this.gen('date', { ...c, dateOnly: true })})`],
      [0.8, () => `CAST(${this.exactDouble(c)} AS INTEGER)`],
      [0.8, () => `CAST(${g('dec')} AS INTEGER)`],
      [0.3, () => `CAST(${g('bool')} AS INTEGER)`],
      [0.3, () => `CAST(${g('bigint')} AS INTEGER)`],
      [1, () => `${r.pick(['greatest', 'least'])}(${g()}, ${g()})`],
      ...this.common('int', c),
    ])();
  }

  genBigint(c) {
    const r = this.r;
    const g = (t = 'bigint') => this.gen(t, c);
    return r.weighted([
      [2, () => `(${g()} + ${g()})`],
      [2, () => `(${g()} - ${g('int')})`],
      [1, () => `(${g()} * ${this.smallInt()})`],
      [1, () => `(${g()} // NULLIF(${g()}, 0))`],
      [1, () => `(${g()} % NULLIF(${g('int')}, 0))`],
      [1, () => `abs(${g()})`],
      [2, () => `CAST(${g('int')} AS BIGINT)`],
      [0.5, () => `CAST(${g('dec')} AS BIGINT)`],
      [0.5, () => `CAST(${this.exactDouble(c)} AS BIGINT)`],
      [1, () => `${r.pick(['greatest', 'least'])}(${g()}, ${g()})`],
      ...this.common('bigint', c),
    ])();
  }

  // An operand of / in a DOUBLE context. DuckDB divides decimals as doubles, we keep a decimal
  // rounded to a few places (register_arithmetic.cc), so a decimal operand would make the
  // quotient differ past the comparison's tolerance wherever it flows on.
  dividend(c) {
    const t = this.r.weighted([[4, 'int'], [1, 'bigint'], [2, 'double'], [1.5, 'dec']]);
    return t === 'dec' ? `CAST(${this.gen('dec', c)} AS DOUBLE)` : this.gen(t, c);
  }

  // A double that goes through a step (round, floor, a cast to an exact type or to text): an
  // error in the last bit of an order-dependent sum could move it across a step, so it is made
  // exactly, the same in both engines.
  exactDouble(c) { return this.gen('double', { ...c, exact: true }); }

  genDouble(c) {
    const r = this.r;
    const g = (t = 'double') => this.gen(t, c);
    const free = c.exact ? 0 : 1;
    return r.weighted([
      [2, () => `(${g()} + ${g()})`],
      [2, () => `(${g()} - ${this.num(c)})`],
      [1.5, () => `(${g()} * ${g()})`],
      [2, () => `(${this.dividend(c)} / NULLIF(${this.dividend(c)}, 0))`],
      [1, () => `sqrt(abs(${g()}))`],
      [free, () => `ln(abs(${g()}) + 1)`],
      [free * 0.5, () => `exp(least(${g()}, 5.0e0))`],
      [free * 0.5, () => `power(${g()}, ${r.pick(['2', '3'])})`],
      [free * 0.3, () => `power(abs(${g()}), 0.5e0)`],
      [free * 0.5, () => `${r.pick(['sin', 'cos'])}(${g()})`],
      [1, () => `round(${this.exactDouble(c)}, ${r.range(-1, 3)})`],
      [0.5, () => `round(${this.exactDouble(c)})`],
      [1, () => `${r.pick(['floor', 'ceil', 'trunc'])}(${this.exactDouble(c)})`],
      [0.3, () => `abs(${g()})`],
      [0.5, () => `(- ${g()})`],
      [1.5, () => `CAST(${g('int')} AS DOUBLE)`],
      [1, () => `CAST(${g('dec')} AS DOUBLE)`],
      [0.5, () => `CAST(${g('bigint')} AS DOUBLE)`],
      [1, () => `${r.pick(['greatest', 'least'])}(${g()}, ${g()})`],
      ...this.common('double', c),
    ])();
  }

  // Decimals of another scale back to scale 2. When DuckDB's common type of two decimals would
  // need more than 38 digits it drops digits of scale (DECIMAL(4,2) and DECIMAL(38,1) meet at
  // DECIMAL(38,1), so 12.34 becomes 12.3) where we keep them (DECIMAL(38,2), as documented for
  // CASE and greatest / least); sums are DECIMAL(38, s) in both, so mixing scales would make
  // the engines differ by design.
  scale2(e) { return `CAST(${e} AS DECIMAL(18,2))`; }

  genDec(c) {
    const r = this.r;
    const g = (t = 'dec') => this.gen(t, c);
    return r.weighted([
      [2, () => `(${g()} + ${g()})`],
      [2, () => `(${g()} - ${g()})`],
      [1, () => `(${g()} * ${this.smallInt()})`],
      [0.6, () => this.scale2(`(${g()} * ${this.literal('dec')})`)],
      [0.5, () => `(${g()} + ${g('int')})`],
      [1, () => `abs(${g()})`],
      [0.5, () => `(- ${g()})`],
      [1, () => this.scale2(`round(${g()}, ${r.range(0, 2)})`)],
      [0.6, () => this.scale2(`${r.pick(['floor', 'ceil', 'round', 'trunc'])}(${g()})`)],
      [1.5, () => `CAST(${g('int')} AS DECIMAL(12,2))`],
      [0.6, () => `CAST(${this.exactDouble(c)} AS DECIMAL(12,2))`],
      [1, () => `${r.pick(['greatest', 'least'])}(${g()}, ${g()})`],
      ...this.common('dec', c),
    ])();
  }

  genText(c) {
    const r = this.r;
    const g = (t = 'text') => this.gen(t, c);
    const lit = () => this.literal('text');
    return r.weighted([
      [2, () => `${r.pick(['lower', 'upper'])}(${g()})`],
      [2, () => `(${g()} || ${g()})`],
      [1, () => `concat(${g()}, ${g()})`],
      [0.5, () => `concat_ws(${sqlString(r.pick([',', '-', '']))}, ${g()}, ${g()})`],
      [2, () => `substr(${g()}, ${r.range(-3, 6)}, ${r.range(0, 5)})`],
      [0.7, () => `substring(${g()}, ${r.range(0, 4)})`],
      [1, () => `replace(${g()}, ${lit()}, ${lit()})`],
      [1.5, () => `${r.pick(['trim', 'ltrim', 'rtrim'])}(${g()})`],
      [1, () => `${r.pick(['lpad', 'rpad'])}(${g()}, ${r.range(0, 8)}, ${sqlString(r.pick(['*', 'ab', '0']))})`],
      [0.7, () => `reverse(${g()})`],
      [0.5, () => `repeat(${g()}, ${r.range(0, 3)})`],
      [0.7, () => `${r.pick(['left', 'right'])}(${g()}, ${r.range(0, 4)})`],
      [1.5, () => `CAST(${g('int')} AS VARCHAR)`],
      [1, () => `CAST(${this.gen('date', { ...c, dateOnly: true })} AS VARCHAR)`],
      [0.7, () => `CAST(${g('dec')} AS VARCHAR)`],
      [0.4, () => `CAST(${g('bool')} AS VARCHAR)`],
      [0.3, () => `CAST(${this.exactDouble(c)} AS VARCHAR)`],
      [0.8, () => `split_part(${g()}, ${sqlString(r.pick([' ', '-', ',', 'b']))}, ${r.range(1, 3)})`],
      [0.6, () => `regexp_replace(${g()}, ${sqlString(r.pick(['[aeiou]', 'a+', '^.', '[0-9]', '\\s']))}, ${sqlString(r.pick(['_', '', 'X']))}${r.chance(0.4) ? ", 'g'" : ''})`],
      [0.8, () => `strftime(${g('date')}, ${sqlString(r.pick(['%Y-%m', '%d/%m/%Y', '%j', '%Y%m%d', '%b %Y']))})`],
      ...this.common('text', c),
    ])();
  }

  // DuckDB types date + INTERVAL and date_trunc of a date as TIMESTAMP (we keep DATE), and a
  // TIMESTAMP cannot take date + n, date - date or a cast to text that reads as a date, so those
  // only take dates that cannot be timestamps there (c.dateOnly).
  genDate(c) {
    const r = this.r;
    const g = (t = 'date') => this.gen(t, c);
    const strict = () => this.gen('date', { ...c, dateOnly: true });
    const ts = c.dateOnly ? 0 : 1;
    return r.weighted([
      [2, () => `(${strict()} + ${r.range(-40, 400)})`],
      [1, () => `(${strict()} - ${r.range(0, 100)})`],
      [1.5 * ts, () => `(${g()} + INTERVAL ${r.range(1, 14)} ${r.pick(['DAY', 'MONTH', 'YEAR'])})`],
      [0.7 * ts, () => `(${g()} - INTERVAL ${r.range(1, 14)} ${r.pick(['DAY', 'MONTH', 'YEAR'])})`],
      [1.5 * ts, () => `date_trunc('${r.pick(['year', 'quarter', 'month', 'week', 'day'])}', ${g()})`],
      [0.6 * (1 - ts), () => `CAST(${g()} + INTERVAL ${r.range(1, 14)} ${r.pick(['DAY', 'MONTH', 'YEAR'])} AS DATE)`],
      [0.6 * (1 - ts), () => `CAST(date_trunc('${r.pick(['year', 'quarter', 'month', 'week'])}', ${g()}) AS DATE)`],
      [1, () => `last_day(${g()})`],
      [0.7, () => `make_date(year(${g()}), month(${g()}), ${r.range(1, 28)})`],
      [0.5, () => `CAST(CAST(${strict()} AS VARCHAR) AS DATE)`],
      [0.5, () => `CAST((${g()} + INTERVAL 1 MONTH) AS DATE)`],
      [1, () => `${r.pick(['greatest', 'least'])}(${g()}, ${g()})`],
      ...this.common('date', c),
    ])();
  }

  comparable(c) {
    const f = this.r.weighted([[5, 'num'], [2, 'text'], [2, 'date'], [0.5, 'bool']]);
    if (f === 'num') return [this.num(c), this.num(c)];
    return [this.gen(f, c), this.gen(f, c)];
  }

  genBool(c) {
    const r = this.r;
    const g = () => this.gen('bool', c);
    const anyType = () => r.pick(['int', 'int', 'bigint', 'double', 'dec', 'text', 'text', 'date', 'bool']);
    return r.weighted([
      [6, () => { const [a, b] = this.comparable(c); return `(${a} ${r.pick(['=', '<>', '<', '<=', '>', '>=', '!='])} ${b})`; }],
      [0.6, () => { const [a, b] = this.comparable(c); return `(${a} IS ${r.chance(0.5) ? 'NOT ' : ''}DISTINCT FROM ${b})`; }],
      [2, () => `(${this.gen(anyType(), c)} IS ${r.chance(0.4) ? 'NOT ' : ''}NULL)`],
      [1.5, () => {
        const t = r.pick(['int', 'double', 'dec', 'text', 'date']);
        return `(${this.gen(t, c)} ${r.chance(0.25) ? 'NOT ' : ''}BETWEEN ${this.gen(t, c)} AND ${this.gen(t, c)})`;
      }],
      [1.5, () => {
        const t = r.pick(['int', 'int', 'text', 'date', 'dec', 'double']);
        const n = r.chance(0.15) ? r.range(8, 12) : r.range(1, 4);
        const items = [];
        for (let i = 0; i < n; i++) items.push(r.chance(0.07) ? 'NULL' : this.literal(t));
        return `(${this.gen(t, c)} ${r.chance(0.3) ? 'NOT ' : ''}IN (${items.join(', ')}))`;
      }],
      [1.5, () => `(${this.gen('text', c)} ${r.chance(0.25) ? 'NOT ' : ''}${r.chance(0.2) ? 'ILIKE' : 'LIKE'} ${sqlString(r.pick(LIKE_PATTERNS))})`],
      [0.6, () => `${r.pick(['starts_with', 'contains'])}(${this.gen('text', c)}, ${this.literal('text')})`],
      [0.4, () => `regexp_matches(${this.gen('text', c)}, ${sqlString(r.pick(['^a', 'b$', '[0-9]+', 'o{2}', '^$']))})`],
      [2, () => `(${g()} AND ${g()})`],
      [2, () => `(${g()} OR ${g()})`],
      [1.2, () => `(NOT ${g()})`],
      [0.4, () => `(${g()} IS ${r.chance(0.5) ? 'NOT ' : ''}${r.pick(['TRUE', 'FALSE'])})`],
      [c.grouped && c.agg ? 1.5 : 0, () => this.aggregate('bool', c)],
      [c.sub > 0 ? (c.grouped ? 0.3 : 1.5) : 0, () => this.subquery('exists', 'bool', c)],
      [c.sub > 0 ? (c.grouped ? 0.3 : 1.5) : 0, () => {
        const t = r.pick(['int', 'int', 'text', 'date', 'dec']);
        return `(${this.gen(t, { ...c, sub: 0 })} ${r.chance(0.3) ? 'NOT ' : ''}IN ${this.subquery('in', t, c)})`;
      }],
      [c.sub > 0 && !c.grouped ? 0.4 : 0, () => {
        const t = r.pick(['int', 'dec']);
        return `(${this.gen(t, { ...c, sub: 0 })} ${r.pick(['=', '<', '>', '<>'])} ${r.pick(['ANY', 'ALL'])} ${this.subquery('in', t, c)})`;
      }],
      [0.5, () => `(${this.literal('bool')})`],
      [1, () => this.caseExpr('bool', c)],
      [0.4, () => `COALESCE(${g()}, ${g()})`],
      [c.sub > 0 && !c.grouped ? 0.5 : 0, () => this.subquery('scalar', 'bool', c)],
    ])();
  }

  // An aggregate call whose arguments are row-level expressions of c's columns.
  aggregate(t, c) {
    const r = this.r;
    const rc = { ...c, grouped: null, agg: false, depth: Math.min(c.depth, 2), sub: 0 };
    const arg = (at) => this.gen(at, rc);
    // Inside sum / avg, only the table's doubles (multiples of 1/8) when exactness matters.
    const dbl = () => {
      if (!c.exact) return arg('double');
      const cols = rc.cols.filter((x) => x.type === 'double' && x.dy);
      return cols.length ? r.pick(cols).sql : arg('int');
    };
    const filter = () => (r.chance(0.12) ? ` FILTER (WHERE ${arg('bool')})` : '');
    const anyT = () => r.pick(['int', 'text', 'date', 'dec', 'double', 'bool']);
    let call;
    switch (t) {
      case 'int':
      case 'bigint':
        call = r.weighted([
          [3, () => 'count(*)'],
          [2, () => `count(${arg(anyT())})`],
          [1.5, () => `count(DISTINCT ${arg(r.pick(['int', 'text', 'date', 'dec']))})`],
          [2.5, () => `sum(${arg('int')})`],
          [0.5, () => `sum(DISTINCT ${arg('int')})`],
          [2, () => `${r.pick(['min', 'max'])}(${arg(t)})`],
        ])();
        break;
      case 'double':
        call = r.weighted([
          [3, () => `avg(${r.chance(0.5) ? arg(r.pick(['int', 'dec'])) : dbl()})`],
          [0.4, () => `avg(DISTINCT ${arg('int')})`],
          [2, () => `sum(${dbl()})`],
          [2, () => `${r.pick(['min', 'max'])}(${arg('double')})`],
          [c.exact ? 0 : 0.8, () => `${r.pick(['stddev_samp', 'stddev_pop', 'var_samp', 'var_pop'])}(${arg(r.pick(['int', 'double']))})`],
        ])();
        break;
      case 'dec':
        call = r.weighted([
          [3, () => `sum(${arg('dec')})`],
          [0.4, () => `sum(DISTINCT ${arg('dec')})`],
          [2, () => `${r.pick(['min', 'max'])}(${arg('dec')})`],
        ])();
        break;
      case 'text':
        call = r.weighted([
          [5, () => `${r.pick(['min', 'max'])}(${r.chance(0.1) ? 'DISTINCT ' : ''}${arg(t)})`],
          // Ordered by the values themselves: rows whose keys tie give the same text, so the
          // answer does not depend on how either engine orders ties.
          [c.exact ? 0 : 0.15, () => {
            const v = arg('text');
            return `string_agg(${v}, ',' ORDER BY ${v})`;
          }],
        ])();
        break;
      case 'date':
        call = `${r.pick(['min', 'max'])}(${r.chance(0.1) ? 'DISTINCT ' : ''}${arg(t)})`;
        break;
      case 'bool':
        call = `${r.pick(['bool_and', 'bool_or'])}(${arg('bool')})`;
        break;
      default: throw new Error(`aggregate of ${t}`);
    }
    return call + filter();
  }

  // A subquery over one table (or CTE), correlated with c's columns or not.
  // kind: 'scalar' (one value of type t), 'exists', 'in' (one column of type t, parenthesized).
  subquery(kind, t, c) {
    const r = this.r;
    const rel = this.fromItem({ ...c, depth: 0 }, { noDerived: true });
    const inner = rel.cols;
    const ic = { cols: inner, grouped: null, agg: false, depth: 2, sub: c.sub - 1, exact: true, dateOnly: c.dateOnly };
    const conds = [];
    // Outer columns usable here: in a grouped context only the grouping columns.
    const outer = c.grouped ? c.grouped.filter((k) => k.col) : c.cols;
    if (outer.length && r.chance(kind === 'in' ? 0.35 : 0.65)) {
      const oc = r.pick(outer);
      const same = inner.filter((x) => family(x.type) === family(oc.type));
      if (same.length) {
        const ic2 = r.pick(same);
        const op = r.chance(0.93) ? '=' : r.pick(['<', '>', '<>', '<=']);
        conds.push(`${ic2.sql} ${op} ${oc.ref ?? oc.sql}`);
      }
    }
    if (r.chance(0.5)) conds.push(this.gen('bool', ic));
    const where = conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
    if (kind === 'exists') {
      return `(${r.chance(0.3) ? 'NOT ' : ''}EXISTS (SELECT ${r.chance(0.5) ? '1' : '*'} FROM ${rel.sql}${where}))`;
    }
    if (kind === 'in') return `(SELECT ${this.gen(t, ic)} FROM ${rel.sql}${where})`;
    if (r.chance(0.15) && !conds.some((x) => !x.includes(' = '))) {
      // One value picked by ORDER BY ... LIMIT 1 over the single column: ties are equal values.
      return `(SELECT ${this.gen(t, ic)} AS v FROM ${rel.sql}${where} ORDER BY 1${r.chance(0.5) ? ' DESC' : ''} NULLS LAST LIMIT 1)`;
    }
    return `(SELECT ${this.aggregate(t, { ...ic, grouped: [], agg: true })} FROM ${rel.sql}${where})`;
  }

  // A window function call of type t. total: expressions that order the rows of the select
  // (a unique key), or null when none is known.
  window(t, c, total) {
    const r = this.r;
    const wc = { ...c, depth: Math.min(c.depth, 1), sub: 0 };
    const arg = (at) => this.gen(at, wc);
    const orderFree = [], ordered = [], needsTotal = [];
    switch (t) {
      case 'int':
      case 'bigint':
        ordered.push(() => 'rank()', () => 'dense_rank()');
        needsTotal.push(() => 'row_number()', () => `ntile(${r.range(1, 5)})`);
        orderFree.push(() => 'count(*)', () => `count(${arg(r.pick(['int', 'text']))})`, () => `sum(${arg('int')})`,
          () => `${r.pick(['min', 'max'])}(${arg('int')})`);
        break;
      case 'double':
        ordered.push(() => 'percent_rank()', () => 'cume_dist()');
        orderFree.push(() => `avg(${arg(r.pick(['int', 'double']))})`, () => `sum(${arg('double')})`,
          () => `${r.pick(['min', 'max'])}(${arg('double')})`);
        break;
      case 'dec':
        orderFree.push(() => `sum(${arg('dec')})`, () => `${r.pick(['min', 'max'])}(${arg('dec')})`);
        break;
      case 'text':
      case 'date':
        orderFree.push(() => `${r.pick(['min', 'max'])}(${arg(t)})`);
        break;
      default:
        break;
    }
    if (t !== 'bool') {
      needsTotal.push(() => `${r.pick(['lag', 'lead'])}(${arg(t)}${r.chance(0.5) ? `, ${r.range(1, 3)}${r.chance(0.4) ? `, ${this.literal(t)}` : ''}` : ''})`);
      needsTotal.push(() => `${r.pick(['first_value', 'last_value'])}(${arg(t)})`);
    } else {
      needsTotal.push(() => `${r.pick(['lag', 'lead'])}(${arg('bool')})`);
    }
    const kind = r.weighted([
      [total ? 4 : 0, 'total'], [ordered.length ? 2 : 0, 'ordered'], [orderFree.length ? 3 : 0, 'free'],
    ]);
    if (kind === undefined) return this.gen(t, c);
    // Columns (or grouping expressions) to partition and order by; literals would be refused.
    const pool = c.grouped ? c.grouped.map((k) => ({ sql: k.ref, type: k.type })) : c.cols;
    const column = (notBool) => {
      const xs = pool.filter((x) => !notBool || (x.type !== 'bool' && x.type !== 'double'));
      return xs.length ? r.pick(xs).sql : null;
    };
    const partition = [];
    if (r.chance(0.6)) {
      const n = r.range(1, 2);
      for (let i = 0; i < n; i++) {
        const e = column(false);
        if (e !== null && !partition.includes(e)) partition.push(e);
      }
    }
    const order = [];
    const dir = () => `${r.chance(0.3) ? ' DESC' : ''}${r.chance(0.2) ? r.pick([' NULLS FIRST', ' NULLS LAST']) : ''}`;
    const someOrder = () => {
      const n = r.range(1, 2);
      for (let i = 0; i < n; i++) {
        const e = column(true);
        if (e !== null) order.push(e + dir());
      }
    };
    let fn;
    let frame = '';
    if (kind === 'total') {
      const useAgg = orderFree.length && r.chance(0.3);
      fn = useAgg ? r.pick(orderFree)() : r.pick(needsTotal)();
      if (r.chance(0.5)) someOrder();
      for (const e of total) order.push(e + dir());
      if (useAgg || /^(first_value|last_value)/.test(fn)) {
        if (r.chance(0.6)) {
          frame = ' ' + r.pick([
            'ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
            'ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING',
            'ROWS BETWEEN 2 PRECEDING AND CURRENT ROW',
            'ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING',
            'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING',
            'ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING',
            'ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING',
          ]);
        }
      }
    } else if (kind === 'ordered') {
      fn = r.pick(ordered)();
      someOrder();
      if (!order.length) return this.gen(t, c);
    } else {
      fn = r.pick(orderFree)();
      if (r.chance(0.5)) someOrder();
    }
    const parts = [];
    if (partition.length) parts.push(`PARTITION BY ${partition.join(', ')}`);
    if (order.length) parts.push(`ORDER BY ${order.join(', ')}`);
    return `${fn} OVER (${parts.join(' ')}${frame})`;
  }

  // ---- FROM

  // One FROM item: a table, a CTE or a derived table, under a fresh alias. Its columns carry
  // their qualified sql, type, ndv (distinct values, for size estimates) and dy (a table's
  // double, a multiple of 1/8).
  fromItem(c, opts = {}) {
    const r = this.r;
    const kind = r.weighted([
      [6, 'table'], [this.ctes.length ? 3 : 0, 'cte'],
      [!opts.noDerived && c.depth > 1 ? 1.5 : 0, 'derived'],
    ]);
    if (kind === 'table') {
      const t = opts.small
        ? r.weighted([[3, this.tables[2]], [2, this.tables[3]]])
        : r.weighted([[3, this.tables[0]], [3, this.tables[1]], [2, this.tables[2]], [1, this.tables[3]]]);
      const a = this.alias('a');
      return {
        sql: `${t.name} AS ${a}`, rows: t.rows, key: [`${a}.id`],
        cols: t.cols.map((col) => ({ sql: `${a}.${col.name}`, type: col.type, ndv: col.ndv, dy: col.type === 'double', col: true })),
      };
    }
    if (kind === 'cte') {
      const cte = r.pick(this.ctes);
      const a = this.alias('a');
      return {
        sql: `${cte.name} AS ${a}`, rows: cte.rows, key: cte.key ? cte.key.map((k) => `${a}.${k}`) : null,
        cols: cte.cols.map((col) => ({ ...col, sql: `${a}.${col.name}`, col: true })),
      };
    }
    const q = this.select({ depth: c.depth - 1, exact: true, limitOk: true });
    const a = this.alias('d');
    return {
      sql: `(${q.sql}) AS ${a}`, rows: q.rows, key: q.key ? q.key.map((k) => `${a}.${k}`) : null,
      cols: q.cols.map((col) => ({ ...col, sql: `${a}.${col.name}`, col: true })),
    };
  }

  // FROM with joins: {sql, cols, rows, key, where (join conditions of comma joins)}.
  fromClause(c) {
    const r = this.r;
    const first = this.fromItem(c);
    let sql = first.sql, cols = [...first.cols], rows = first.rows, key = first.key;
    const where = [];
    const joins = r.weighted([[5, 0], [5, 1], [2, 2], [0.6, 3]]);
    for (let j = 0; j < joins; j++) {
      const it = this.fromItem(c, { small: rows > 2000 && r.chance(0.5) });
      let kind = r.weighted([[6, 'JOIN'], [1, 'INNER JOIN'], [3, 'LEFT JOIN'], [1.5, 'RIGHT JOIN'], [1.5, 'FULL JOIN'],
        [1, 'CROSS JOIN'], [joins === 1 ? 1.5 : 0, ',']]);
      const pairs = [];
      for (const a of cols) {
        for (const b of it.cols) {
          if (family(a.type) !== family(b.type) || a.type === 'bool' || a.type === 'double') continue;
          const est = (rows * it.rows) / Math.max(a.ndv, b.ndv, 1);
          // Columns of one name hold values of one domain: such joins find partners.
          const same = a.sql.split('.')[1] === b.sql.split('.')[1] && a.type === b.type;
          if (est <= MAX_ROWS) for (let w = same ? 4 : 1; w > 0; w--) pairs.push({ a, b, est });
        }
      }
      const product = rows * it.rows;
      const both = { cols: [...cols, ...it.cols], grouped: null, agg: false, depth: 2, sub: 0, exact: true };
      let on = null, est;
      if (kind === 'CROSS JOIN' || kind === ',') {
        if (product <= MAX_ROWS && !(kind === ',' && r.chance(0.6) && pairs.length)) {
          est = product;
        } else if (pairs.length) {
          const p = r.pick(pairs);
          if (kind === ',') {
            where.push(`${p.a.sql} = ${p.b.sql}`);
          } else {
            kind = 'JOIN';
            on = `${p.a.sql} = ${p.b.sql}`;
          }
          est = p.est;
        } else {
          continue;
        }
      } else if (pairs.length && !(product <= MAX_ROWS && r.chance(0.08))) {
        const p = r.pick(pairs);
        on = `${p.a.sql} = ${p.b.sql}`;
        if (r.chance(0.2)) {
          const more = pairs.filter((q) => q.a !== p.a && q.b !== p.b);
          if (more.length) { const q = r.pick(more); on += ` AND ${q.a.sql} = ${q.b.sql}`; }
        }
        if (r.chance(0.3)) on += ` AND ${this.gen('bool', both)}`;
        est = p.est;
      } else if (product <= MAX_ROWS) {
        on = this.gen('bool', both);
        est = product;
      } else {
        continue;
      }
      sql += kind === ',' ? `, ${it.sql}` : ` ${kind} ${it.sql}${on ? ` ON ${on}` : ''}`;
      if (kind.startsWith('LEFT') || kind.startsWith('FULL')) est = Math.max(est, rows);
      if (kind.startsWith('RIGHT') || kind.startsWith('FULL')) est = Math.max(est, it.rows);
      cols = [...cols, ...it.cols];
      rows = Math.max(1, Math.round(est));
      key = key && it.key ? [...key, ...it.key] : null;
    }
    return { sql, cols, rows, key, where };
  }

  // ---- SELECT

  randomTypes(n) {
    const out = [];
    for (let i = 0; i < n; i++) {
      out.push(this.r.weighted([[4, 'int'], [1, 'bigint'], [2, 'double'], [2, 'dec'], [3, 'text'], [2, 'date'], [1.5, 'bool']]));
    }
    return out;
  }

  // A SELECT: {sql, cols: [{name, type, ndv, dy}], rows, key (output names forming a unique key,
  // or null), ordered (the ORDER BY covers every column), orderFloats (it sorts on doubles)}.
  // o: depth, exact, types (forced output types), top (ORDER BY without LIMIT is useful),
  // limitOk (ORDER BY over every column + LIMIT allowed), noOrder (set operation side).
  select(o) {
    const r = this.r;
    const from = this.fromClause({ depth: o.depth, exact: o.exact });
    const base = {
      cols: from.cols, grouped: null, agg: false, depth: Math.max(1, Math.min(o.depth + 1, 3)),
      sub: o.depth > 0 ? 1 : 0, exact: o.exact, dateOnly: !o.top && !o.noOrder,
    };
    const where = [...from.where];
    if (r.chance(0.45)) where.push(this.gen('bool', base));
    const mode = r.weighted([[6, 'plain'], [3.5, 'group'], [1, 'global']]);
    let keys = [];
    if (mode === 'group') {
      const n = r.weighted([[5, 1], [3, 2], [1, 3]]);
      const seen = new Set();
      for (let i = 0; i < n; i++) {
        let k;
        const keyCols = from.cols.filter((x) => x.type !== 'double' || !o.exact);
        if (keyCols.length && r.chance(0.75)) {
          const col = r.pick(keyCols);
          k = { sql: col.sql, ref: col.sql, type: col.type, ndv: col.ndv, dy: col.dy, col: true };
        } else {
          const t = r.pick(['int', 'text', 'date', 'bool', 'dec']);
          const e = this.gen(t, { ...base, depth: 1, sub: 0, exact: true });
          k = { sql: e, ref: `(${e})`, type: t, ndv: 50, dy: false, col: from.cols.some((x) => x.sql === e) };
        }
        if (!seen.has(k.sql)) { seen.add(k.sql); keys.push(k); }
      }
    }
    const sc = mode === 'plain' ? base : { ...base, grouped: keys, agg: true };
    // Expressions that order the rows totally (for row_number and the like).
    const total = mode === 'plain' ? from.key : (mode === 'group' ? keys.map((k) => k.ref) : null);
    const items = [];
    let keysOut = false;
    if (mode === 'group' && !o.types && r.chance(0.7)) {
      for (const k of keys) items.push({ sql: k.sql, type: k.type, ndv: k.ndv, dy: k.dy });
      keysOut = true;
    }
    const types = o.types ?? this.randomTypes(r.weighted([[3, 1], [4, 2], [3, 3], [2, 4]]));
    let hasWindow = false;
    for (const t of types) {
      let e;
      if (!o.noWindow && r.chance(0.1) && t !== 'bool') {
        e = this.window(t, sc, total);
        hasWindow = true;
      } else {
        e = this.gen(t, sc);
      }
      const plainCol = from.cols.find((x) => x.sql === e);
      // A computed column may hold few values (a constant, a flag): joins on it are estimated
      // as if it held ten.
      items.push({ sql: e, type: t, ndv: plainCol ? plainCol.ndv : 10, dy: !!(plainCol && plainCol.dy) });
    }
    const cols = items.map((it, i) => ({ name: `c${i}`, type: it.type, ndv: it.ndv, dy: it.dy }));
    const distinct = r.chance(0.1);
    let sql = `SELECT ${distinct ? 'DISTINCT ' : ''}${items.map((it, i) => `${it.sql} AS c${i}`).join(', ')} FROM ${from.sql}`;
    if (where.length) sql += ` WHERE ${where.join(' AND ')}`;
    if (mode === 'group') {
      if (keysOut && r.chance(0.25)) sql += ` GROUP BY ${keys.map((_, i) => i + 1).join(', ')}`;
      else sql += ` GROUP BY ${keys.map((k) => k.sql).join(', ')}`;
    }
    if (mode !== 'plain' && r.chance(0.3)) sql += ` HAVING ${this.gen('bool', sc)}`;
    if (total && !o.noWindow && r.chance(0.04)) {
      sql += ` QUALIFY ${this.window('int', sc, total)} <= ${r.range(1, 3)}`;
      hasWindow = true;
    }
    let rows = from.rows;
    if (mode === 'group') rows = Math.min(rows, keys.reduce((p, k) => p * k.ndv, 1));
    if (mode === 'global') rows = 1;
    let key = null;
    if (distinct) key = cols.map((x) => x.name);
    else if (keysOut) key = keys.map((_, i) => `c${i}`);
    else if (mode === 'global') key = [];
    let ordered = false;
    let orderFloats = false;
    if (!o.noOrder && (o.top || o.limitOk) && r.chance(o.top ? 0.55 : 0.2)) {
      const whole = !o.top || r.chance(0.8);
      const positions = whole ? r.shuffle(cols.map((_, i) => i)) : r.shuffle(cols.map((_, i) => i)).slice(0, r.range(1, cols.length));
      const dir = () => `${r.chance(0.35) ? ' DESC' : ''}${r.chance(0.25) ? r.pick([' NULLS FIRST', ' NULLS LAST']) : ''}`;
      if (whole && r.chance(0.1)) {
        sql += ` ORDER BY ALL${r.chance(0.3) ? ' DESC' : ''}`;
      } else {
        sql += ` ORDER BY ${positions.map((p) => (r.chance(0.5) ? `${p + 1}` : `c${p}`) + dir()).join(', ')}`;
      }
      ordered = whole;
      orderFloats = positions.some((p) => cols[p].type === 'double');
      if (whole && (!o.top || r.chance(0.5)) && !(orderFloats && !o.exact)) {
        const n = r.pick([1, 2, 3, 5, 10, 50]);
        sql += ` LIMIT ${n}${r.chance(0.2) ? ` OFFSET ${r.range(1, 5)}` : ''}`;
        rows = Math.min(rows, n);
      }
    }
    return { sql, cols, rows: Math.max(1, rows), key, ordered, orderFloats, hasWindow };
  }

  setOperation(o) {
    const r = this.r;
    const types = this.randomTypes(r.range(1, 3)).map((t) => (t === 'double' ? 'int' : t));
    const side = () => this.select({ depth: o.depth, exact: true, types, noOrder: true });
    const parts = [side()];
    const n = r.weighted([[5, 1], [1, 2]]);
    let sql = parts[0].sql;
    let rows = parts[0].rows;
    for (let i = 0; i < n; i++) {
      const op = r.weighted([[3, 'UNION ALL'], [3, 'UNION'], [1.5, 'INTERSECT'], [1.5, 'EXCEPT'],
        [0.7, 'INTERSECT ALL'], [0.7, 'EXCEPT ALL']]);
      const s = side();
      sql += ` ${op} ${s.sql}`;
      rows += s.rows;
    }
    const cols = parts[0].cols;
    let ordered = false;
    if (o.top && r.chance(0.5)) {
      const positions = r.shuffle(cols.map((_, i) => i));
      sql += ` ORDER BY ${positions.map((p) => `${p + 1}${r.chance(0.3) ? ' DESC' : ''}`).join(', ')}`;
      ordered = true;
      if (r.chance(0.4)) sql += ` LIMIT ${r.pick([1, 3, 10])}`;
    }
    return { sql, cols, rows, key: null, ordered, orderFloats: false };
  }

  query() {
    const r = this.r;
    const withs = [];
    const nCtes = r.weighted([[7, 0], [2, 1], [1, 2]]);
    for (let i = 0; i < nCtes; i++) {
      const q = this.select({ depth: 1, exact: true, limitOk: true });
      const name = `cte${i}`;
      withs.push(`${name} AS (${q.sql})`);
      this.ctes.push({ name, cols: q.cols, rows: q.rows, key: q.key });
    }
    const q = r.chance(0.15) ? this.setOperation({ depth: 1, top: true }) : this.select({ depth: 2, exact: false, top: true });
    const sql = (withs.length ? `WITH ${withs.join(', ')} ` : '') + q.sql;
    return { sql, ordered: q.ordered, orderFloats: q.orderFloats };
  }
}

// ---- Running --------------------------------------------------------------------------------

function runFlotilla(bin, tablesDir, sql, timeoutMs) {
  return new Promise((done) => {
    const t0 = Date.now();
    const child = spawn(bin, ['sql', sql, '--format', 'csv', '--tables', tablesDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FLOTILLA_PROGRESS: '0' },
    });
    const out = [], err = [];
    let bytes = 0, tooLarge = false;
    child.stdout.on('data', (d) => {
      bytes += d.length;
      if (bytes > MAX_OUTPUT_BYTES) {
        if (!tooLarge) child.kill('SIGKILL');
        tooLarge = true;
        return;
      }
      out.push(d);
    });
    child.stderr.on('data', (d) => err.push(d));
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      done({ code: -1, signal: null, timedOut: false, tooLarge: false, stdout: '', stderr: String(e), ms: 0 });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({
        code, signal, timedOut, tooLarge, ms: Date.now() - t0,
        stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

async function runDuck(con, sql, timeoutMs) {
  const t0 = Date.now();
  const timer = setTimeout(() => con.interrupt(), timeoutMs);
  try {
    const reader = await con.runAndReadUntil(sql, MAX_RESULT_ROWS + 1);
    if (reader.currentRowCount > MAX_RESULT_ROWS) return { ok: false, tooLarge: true, error: 'too large', ms: Date.now() - t0 };
    const kinds = [], types = [];
    for (let i = 0; i < reader.columnCount; i++) {
      const name = DuckDBTypeId[reader.columnTypeId(i)];
      types.push(reader.columnType(i).toString());
      kinds.push(kindOf(name));
    }
    return { ok: true, kinds, types, rows: reader.getRows(), ms: Date.now() - t0 };
  } catch (e) {
    return { ok: false, error: e.message.split('\n')[0], ms: Date.now() - t0 };
  } finally {
    clearTimeout(timer);
  }
}

// ---- Comparing ------------------------------------------------------------------------------

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT',
  'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT']);

function kindOf(duckType) {
  if (INTEGER_TYPES.has(duckType)) return 'exact';
  if (duckType === 'DECIMAL') return 'exact';
  if (duckType === 'DOUBLE' || duckType === 'FLOAT') return 'float';
  if (duckType === 'BOOLEAN') return 'bool';
  if (duckType === 'VARCHAR') return 'text';
  if (duckType === 'DATE' || duckType.startsWith('TIMESTAMP')) return 'time';
  return 'other';
}

// A decimal number's text without insignificant zeros ("12.50" -> "12.5", "-0.00" -> "0"), or
// null when it is not one.
function canonicalDecimal(s) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m || (m[2] === '' && !m[3])) return null;
  const whole = m[2].replace(/^0+/, '') || '0';
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const negative = m[1] === '-' && (whole !== '0' || frac !== '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

// DuckDB gives TIMESTAMP where we keep DATE (date + INTERVAL, date_trunc of a date: a date32
// only moves by whole days, docs/temporal_math_functions.md): a midnight timestamp equals its
// date. Fractions lose trailing zeros.
function canonicalTime(s) {
  const m = /^(-?\d{4,}-\d\d-\d\d)(?:[ T](\d\d:\d\d:\d\d)(?:\.(\d+))?)?$/.exec(s);
  if (!m) return s;
  if (!m[2]) return m[1];
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (m[2] === '00:00:00' && !frac) return m[1];
  return `${m[1]} ${m[2]}${frac ? `.${frac}` : ''}`;
}

function floatOf(s) {
  switch (s.toLowerCase()) {
    case 'nan': return NaN;
    case 'inf': case 'infinity': case '+inf': return Infinity;
    case '-inf': case '-infinity': return -Infinity;
    default: return s.trim() === '' ? NaN : Number(s);
  }
}

// One cell as [exact text, number or null]: approximate cells put a marker in the exact text
// and their value in the number.
function canonicalCell(kind, v, fromText) {
  if (v === null || v === undefined) return ['null', null];
  switch (kind) {
    case 'exact': {
      const s = fromText ? v.trim() : v.toString();
      return [canonicalDecimal(s) ?? `?${s}`, null];
    }
    case 'float': {
      const x = fromText ? floatOf(v) : Number(v);
      if (Number.isNaN(x)) return ['nan', null];
      if (!Number.isFinite(x)) return [x > 0 ? 'inf' : '-inf', null];
      return ['~', x];
    }
    case 'bool': return [fromText ? v.toLowerCase() : (v ? 'true' : 'false'), null];
    case 'text': return [fromText ? v : String(v), null];
    case 'time': return [canonicalTime(fromText ? v : v.toString()), null];
    default: return [fromText ? v : String(v?.toString?.() ?? v), null];
  }
}

// Where DuckDB answers DECIMAL(38, s) it may have dropped digits of scale that we keep (see
// Gen.scale2), rounding half away from zero: ours is rounded the same way before comparing.
function fitDecimal(text, duckType) {
  const m = /^DECIMAL\(38,(\d+)\)$/.exec(duckType ?? '');
  const c = canonicalDecimal(text);
  if (!m || c === null) return text;
  const scale = Number(m[1]);
  const negative = c.startsWith('-');
  const [whole, frac = ''] = c.replace('-', '').split('.');
  if (frac.length <= scale) return text;
  let digits = BigInt(whole + frac.slice(0, scale));
  if (Number(frac[scale]) >= 5) digits += 1n;
  const s = digits.toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${scale ? `${s.slice(0, -scale)}.${s.slice(-scale)}` : s}`;
}

function canonicalRow(kinds, cells, fromText, duckTypes) {
  const exact = [], approx = [], ulps = [];
  cells.forEach((v, i) => {
    const [e, x] = canonicalCell(kinds[i], fromText && kinds[i] === 'exact' && v !== null ? fitDecimal(v.trim(), duckTypes[i]) : v, fromText);
    exact.push(e);
    if (x !== null) {
      approx.push(x);
      // Our decimal quotients are rounded to their scale (at least 6 places) where DuckDB divides
      // as doubles: such a value is right within half a unit of its last place.
      const frac = fromText ? /^-?\d*\.(\d{6,})$/.exec(v.trim()) : null;
      ulps.push(frac ? 0.5 * 10 ** -frac[1].length : 0);
    }
  });
  return { exact: JSON.stringify(exact), approx, ulps, shown: cells };
}

function close(x, y, ulp = 0) {
  const d = Math.abs(x - y);
  return x === y || d <= 1e-9 * Math.max(Math.abs(x), Math.abs(y), 1) || d <= ulp * (1 + 1e-9);
}
// a: our row, b: DuckDB's.
const sameRow = (a, b) => a.exact === b.exact && a.approx.length === b.approx.length &&
  a.approx.every((x, i) => close(x, b.approx[i], a.ulps[i]));

function byRow(a, b) {
  if (a.exact !== b.exact) return a.exact < b.exact ? -1 : 1;
  for (let i = 0; i < a.approx.length && i < b.approx.length; i++) {
    if (a.approx[i] !== b.approx[i]) return a.approx[i] < b.approx[i] ? -1 : 1;
  }
  return a.approx.length - b.approx.length;
}

// RFC 4180 as our CSV writer writes it: a header line, then rows; an unquoted empty field is
// NULL and a quoted one the empty string.
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false, inQuotes = false, i = 0;
  const endField = () => { row.push(!quoted && field === '' ? null : field); field = ''; quoted = false; };
  while (i < text.length) {
    const ch = text[i];
    if (inQuotes) {
      if (ch === '"') {
        if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
        inQuotes = false; i++; continue;
      }
      field += ch; i++; continue;
    }
    if (ch === '"') { inQuotes = true; quoted = true; i++; continue; }
    if (ch === ',') { endField(); i++; continue; }
    if (ch === '\n' || ch === '\r') {
      endField();
      rows.push(row);
      row = [];
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    field += ch; i++;
  }
  if (field !== '' || quoted || row.length) { endField(); rows.push(row); }
  return rows;
}

const shown = (cells) => JSON.stringify(cells, (_, v) => (typeof v === 'bigint' ? v.toString() : (v && typeof v === 'object' && !Array.isArray(v) ? v.toString() : v)));

// null when the results agree, else a description of the difference.
function compareResults(duck, csvRows, ordered, orderFloats) {
  const header = csvRows[0] ?? [];
  const body = csvRows.slice(1);
  if (header.length !== duck.kinds.length) {
    return `${header.length} columns here, ${duck.kinds.length} in DuckDB (${duck.types.join(', ')})`;
  }
  const ours = body.map((r) => canonicalRow(duck.kinds, r, true, duck.types));
  const theirs = duck.rows.map((r) => canonicalRow(duck.kinds, r, false));
  const bad = ours.findIndex((r) => r.shown.length !== duck.kinds.length);
  if (bad >= 0) return `row ${bad} of ours has ${ours[bad].shown.length} fields: ${shown(ours[bad].shown)}`;
  const diff = (a, b, how) => {
    let i = 0;
    while (i < a.length && i < b.length && sameRow(a[i], b[i])) i++;
    if (i === a.length && i === b.length) return null;
    const lines = [`${a.length} rows here, ${b.length} in DuckDB; first difference at ${how} row ${i}:`];
    for (let k = i; k < i + 3 && (k < a.length || k < b.length); k++) {
      lines.push(`  ours   [${k}] ${k < a.length ? shown(a[k].shown) : '(none)'}`);
      lines.push(`  DuckDB [${k}] ${k < b.length ? shown(b[k].shown) : '(none)'}`);
    }
    return lines.join('\n');
  };
  if (ordered) {
    const d = diff(ours, theirs, '');
    if (d === null) return null;
    const s = diff([...ours].sort(byRow), [...theirs].sort(byRow), 'sorted');
    // Doubles equal within the tolerance may sort either way.
    if (s === null && orderFloats) return null;
    return s === null ? `same rows in another order (ORDER BY covers every column)\n${d}` : s;
  }
  return diff(ours.sort(byRow), theirs.sort(byRow), 'sorted');
}

// ---- Classifying our failures ---------------------------------------------------------------

// The CLI prints a Status's message without its code, so internal errors are recognised by
// their wording and by the messages of Status::Internal in the sources (when they are there).
function internalMessages() {
  const out = [];
  const root = join(here, '..', '..', 'src');
  if (!existsSync(root)) return out;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.cc') || e.name.endsWith('.h')) {
        for (const m of readFileSync(p, 'utf8').matchAll(/Status::Internal\(\s*"([^"\\]{10,})/g)) out.push(m[1]);
      }
    }
  };
  walk(root);
  return [...new Set(out)];
}

const INTERNAL_WORDS = /internal error|assert|unreachable|bad_alloc|std::|invariant|should not happen|not reached|logic_error|out_of_range|segmentation|terminate called|fatal:/i;
const SANITIZER = /AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|runtime error:|MemorySanitizer/;

function errorMessage(stderr) {
  const line = stderr.split('\n').find((l) => l.startsWith('Error: ')) ?? stderr.split('\n').find((l) => l.trim()) ?? '';
  return line.replace(/^Error: /, '');
}

// Groups refusals: quoted names and numbers out, the position of the error cut.
function messageKey(msg) {
  return msg.replace(/ at line \d+, column \d+.*$/, '').replace(/'[^']*'/g, "'…'").replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N').slice(0, 160);
}

// ---- Main -----------------------------------------------------------------------------------

const opts = parseArgs(process.argv.slice(2));
mkdirSync(opts.out, { recursive: true });
const failuresPath = join(opts.out, 'failures.txt');
writeFileSync(failuresPath, '');
const internal = internalMessages();
// A plan node that its builder rejects for a column the planner itself named, or a type error
// about a call the planner made up (list_sum(list_distinct(__a1))), is a planner bug whatever
// the SQL. Values that cannot be cast or types that do not meet are the user's errors, even
// when they are shown through the planner's names.
const PLANNER_BUG = /^building \w+: .*column '[^']*' not found/;
const MADE_UP_NAME = /[`'(]__[a-z]+\d+/;
const looksInternal = (msg) => INTERNAL_WORDS.test(msg) || PLANNER_BUG.test(msg) ||
  (MADE_UP_NAME.test(msg) && !/cannot (apply|cast)/.test(msg)) || internal.some((m) => msg.includes(m));

const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();

const stats = {
  queries: 0, compared: 0, agreed: 0, rows: 0, nonEmpty: 0, bothFailed: 0, slow: 0, tooLarge: 0,
  failures: [], refused: new Map(), duckOnly: new Map(), flotillaMs: 0, duckMs: 0,
};
const started = Date.now();
const outOfTime = () => opts.seconds > 0 && Date.now() - started > opts.seconds * 1000;

function record(map, key, sql) {
  const e = map.get(key) ?? { count: 0, example: sql };
  e.count++;
  if (sql.length < e.example.length) e.example = sql;
  map.set(key, e);
}

function fail(kind, seed, index, sql, fl, duck, detail) {
  const f = { kind, seed, index, sql, key: ['internal error', 'column lost', 'eager error'].includes(kind) ? `${kind}: ${messageKey(detail)}` : kind };
  stats.failures.push(f);
  const lines = [
    `=== ${kind} (seed ${seed}, query ${index}; replay: --seed ${seed} --only ${index})`,
    sql,
    `--- ours: ${fl.timedOut ? 'timed out' : fl.signal ? `killed by ${fl.signal}` : `exit code ${fl.code}`}, ${fl.ms} ms`,
    fl.stdout.length > 4000 ? `${fl.stdout.slice(0, 4000)}\n[... ${fl.stdout.length} bytes]` : fl.stdout,
    fl.stderr ? `--- our stderr\n${fl.stderr.slice(0, 4000)}` : '',
    `--- DuckDB: ${duck.ok ? `${duck.rows.length} rows (${duck.types.join(', ')}), ${duck.ms} ms` : `error: ${duck.error}`}`,
    duck.ok ? duck.rows.slice(0, 30).map(shown).join('\n') + (duck.rows.length > 30 ? '\n[...]' : '') : '',
    detail ? `--- difference\n${detail}` : '',
    '',
  ];
  writeFileSync(failuresPath, lines.filter((l) => l !== '').join('\n') + '\n\n', { flag: 'a' });
  console.log(`FAIL  ${kind} (seed ${seed}, query ${index}): ${sql.length > 300 ? `${sql.slice(0, 300)}...` : sql}`);
  if (detail) console.log(`      ${detail.split('\n').slice(0, 8).join('\n      ')}`);
}

async function runOne(seed, index, q, tablesDir) {
  const { sql, ordered, orderFloats } = q;
  stats.queries++;
  const [duck, fl] = await Promise.all([runDuck(con, sql, opts.timeoutMs), runFlotilla(opts.flotilla, tablesDir, sql, opts.timeoutMs)]);
  stats.flotillaMs += fl.ms;
  stats.duckMs += duck.ms;
  if (opts.verbose) {
    console.log(`--- seed ${seed} query ${index} (ours ${fl.ms} ms, DuckDB ${duck.ms} ms)\n${sql}`);
  }
  if (fl.tooLarge || duck.tooLarge) {
    stats.tooLarge++;
    return;
  }
  if (fl.timedOut) {
    if (duck.ok && duck.ms < opts.timeoutMs / 4) return fail('timeout', seed, index, sql, fl, duck, `no answer in ${opts.timeoutMs} ms; DuckDB took ${duck.ms} ms`);
    stats.slow++;
    return;
  }
  if (fl.signal || SANITIZER.test(fl.stderr) || (fl.code !== 0 && fl.code !== 1)) {
    return fail('crash', seed, index, sql, fl, duck, null);
  }
  if (fl.code !== 0) {
    const msg = errorMessage(fl.stderr);
    if (looksInternal(msg)) return fail('internal error', seed, index, sql, fl, duck, msg);
    // The generator only names columns in scope: one we cannot find in a query DuckDB runs is
    // lost by our planner.
    if (duck.ok && /^column '[^']*' not found/.test(msg)) return fail('column lost', seed, index, sql, fl, duck, msg);
    // An expression that failed while a plan node was built (constant folding) where DuckDB,
    // evaluating it only on the rows that reach it, answers: e.g. a CASE branch no row takes.
    if (duck.ok && /^building \w+: in `/.test(msg)) return fail('eager error', seed, index, sql, fl, duck, msg);
    if (duck.ok) record(stats.refused, messageKey(msg), sql);
    else stats.bothFailed++;
    if (opts.verbose) console.log(`      ours: ${msg}${duck.ok ? '' : `\n      DuckDB: ${duck.error}`}`);
    return;
  }
  if (!duck.ok) {
    if (/interrupt/i.test(duck.error)) { stats.slow++; return; }
    record(stats.duckOnly, messageKey(duck.error), sql);
    if (opts.verbose) console.log(`      DuckDB: ${duck.error}`);
    return;
  }
  stats.compared++;
  stats.rows += duck.rows.length;
  if (duck.rows.length > 0) stats.nonEmpty++;
  const d = compareResults(duck, parseCsv(fl.stdout), ordered, orderFloats);
  if (d !== null) return fail('wrong result', seed, index, sql, fl, duck, d);
  stats.agreed++;
  if (opts.verbose) console.log(`      agree: ${duck.rows.length} rows`);
}

const lastSeed = opts.seed + opts.seeds - 1;
for (let seed = opts.seed; seed <= lastSeed && !outOfTime(); seed++) {
  const specs = tableSpecs(seed);
  const tablesDir = join(opts.out, `tables-${seed}`);
  await writeTables(con, specs, tablesDir);
  const tables = specs.map((t) => ({ name: t.name, rows: t.rows, cols: t.cols }));
  if (opts.sql.length) {
    for (const [i, sql] of opts.sql.entries()) {
      const before = stats.failures.length;
      await runOne(seed, i, { sql, ordered: /\border\s+by\b/i.test(sql) && opts.only === null, orderFloats: true }, tablesDir);
      if (stats.failures.length === before && !opts.verbose) console.log(`ok    ${sql}`);
    }
    continue;
  }
  const indices = opts.only !== null ? [opts.only] : Array.from({ length: opts.queries }, (_, i) => i);
  for (const i of indices) {
    if (outOfTime()) break;
    const q = new Gen(new Rng(seed, i), tables).query();
    await runOne(seed, i, q, tablesDir);
  }
  if (opts.seeds > 1) {
    console.log(`seed ${seed}: ${stats.queries} queries so far, ${stats.compared} compared, ${stats.failures.length} failures ` +
      `(${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}

// ---- Summary --------------------------------------------------------------------------------

function countBy(xs, f) {
  const m = new Map();
  for (const x of xs) m.set(f(x), (m.get(f(x)) ?? 0) + 1);
  return m;
}
const pct = (n) => (stats.queries ? `${((100 * n) / stats.queries).toFixed(1)}%` : '-');
const refusedTotal = [...stats.refused.values()].reduce((s, e) => s + e.count, 0);
const duckOnlyTotal = [...stats.duckOnly.values()].reduce((s, e) => s + e.count, 0);
const lines = [];
lines.push(`seeds ${opts.seed}..${opts.seed + opts.seeds - 1}: ${stats.queries} queries in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
  `(ours ${(stats.flotillaMs / 1000).toFixed(1)} s, DuckDB ${(stats.duckMs / 1000).toFixed(1)} s)`);
lines.push(`  compared (both engines answered): ${stats.compared} (${pct(stats.compared)}), ${stats.nonEmpty} with rows, ${stats.rows} rows in all; ${stats.agreed} agree`);
lines.push(`  refused by us, answered by DuckDB: ${refusedTotal} (${pct(refusedTotal)})`);
lines.push(`  failed in DuckDB, answered by us: ${duckOnlyTotal} (${pct(duckOnlyTotal)})`);
lines.push(`  failed in both: ${stats.bothFailed} (${pct(stats.bothFailed)}); too slow in both: ${stats.slow}; ` +
  `results too large to compare: ${stats.tooLarge}`);
lines.push(`  failures: ${stats.failures.length}` + (stats.failures.length ? ` (see ${failuresPath})` : ''));
for (const [key, n] of [...countBy(stats.failures, (f) => f.key)].sort((a, b) => b[1] - a[1])) {
  const shortest = stats.failures.filter((f) => f.key === key).sort((a, b) => a.sql.length - b.sql.length)[0];
  lines.push(`  ${String(n).padStart(5)}  ${key}  (shortest: seed ${shortest.seed}, query ${shortest.index})`);
}
const listing = (title, map) => {
  if (map.size === 0) return;
  lines.push(title);
  for (const [key, e] of [...map].sort((a, b) => b[1].count - a[1].count)) {
    lines.push(`  ${String(e.count).padStart(5)}  ${key}`);
    if (opts.verbose || map === stats.duckOnly) lines.push(`         e.g. ${e.example.length > 400 ? `${e.example.slice(0, 400)}...` : e.example}`);
  }
};
listing('refused by us (message: count):', stats.refused);
listing('failed in DuckDB only (message: count):', stats.duckOnly);
const report = lines.join('\n');
console.log(report);
writeFileSync(join(opts.out, 'summary.txt'), report + '\n' +
  [...stats.refused].map(([k, e]) => `refused: ${k}\n  e.g. ${e.example}`).join('\n') + '\n');

let failed = stats.failures.length > 0;
if (!opts.sql.length && opts.only === null) {
  const share = stats.queries ? stats.compared / stats.queries : 0;
  if (stats.queries === 0 || share < opts.minCompared) {
    console.log(`only ${(100 * share).toFixed(1)}% of the queries were compared (at least ${(100 * opts.minCompared).toFixed(0)}% expected): ` +
      'the generator or the engine has drifted');
    failed = true;
  }
}
console.log(`sql_smith: ${stats.agreed} passed, ${stats.failures.length} failed`);
process.exit(failed ? 1 : 0);
