// What the TPC-H checks share (tests/interop/tpch.mjs, bench/tpch_duckdb.mjs): DuckDB views over
// the tables, DuckDB's results as exact text, our results (CSV) and column types (DESCRIBE), and
// the comparison of the two under the specification's answer validation rules, tightened:
// same columns, same rows in the same order; keys, counts, strings and dates exactly; a decimal
// of ours against a decimal of DuckDB's exactly (sums of money), or within half a unit of our
// last digit when ours has fewer fractional digits; a decimal of ours against a double of
// DuckDB's (our decimal division keeps scale 6 where DuckDB divides in doubles) within half a unit
// of our last digit or a relative 1e-9; doubles within a relative 1e-9.
//
// What @duckdb/node-api 1.5 returns, and how it is rendered here:
//   DECIMAL(p,s)     DuckDBDecimalValue { width, scale, value: bigint } -> the unscaled integer
//                    with s fractional digits ("-0.05", "1.10"), exact
//   DATE             DuckDBDateValue { days }        -> YYYY-MM-DD (days since 1970-01-01)
//   BIGINT, HUGEINT  bigint                          -> its decimal digits
//   INTEGER          number                          -> its decimal digits
//   DOUBLE           number                          -> JavaScript's shortest round trip text
//                                                       ("0.1", "1e+21", "1.5e-7")
//   VARCHAR          string; SQL NULL is null
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(new URL('./package.json', import.meta.url));
export const { DuckDBInstance } = require('@duckdb/node-api');

export const TABLES = ['region', 'nation', 'supplier', 'part', 'partsupp', 'customer', 'orders',
                       'lineitem'];

export function queryName(q) { return `q${String(q).padStart(2, '0')}`; }

/// The text of tpch/queries/qNN.sql without its final semicolon.
export function querySql(dir, q) {
  return readFileSync(`${dir}/${queryName(q)}.sql`, 'utf8').trim().replace(/;\s*$/, '');
}

/// Where a table's files are: DIR/NAME.parquet, else every Parquet file of DIR/NAME/.
export function tablePath(dataDir, table) {
  return existsSync(`${dataDir}/${table}.parquet`) ? `${dataDir}/${table}.parquet`
                                                   : `${dataDir}/${table}/*.parquet`;
}

/// A DuckDB connection with one view per table over `dataDir`.
export async function connectDuckDb(dataDir, threads, memoryLimit) {
  const options = { threads: String(threads) };
  if (memoryLimit) options.memory_limit = memoryLimit;
  const instance = await DuckDBInstance.create(':memory:', options);
  const con = await instance.connect();
  await createViews(con, dataDir);
  return { instance, con };
}

/// (Re)creates the eight views of `con` over the tables of `dataDir`.
export async function createViews(con, dataDir) {
  for (const t of TABLES) {
    const path = tablePath(dataDir, t).replaceAll("'", "''");
    await con.run(`CREATE OR REPLACE VIEW ${t} AS SELECT * FROM read_parquet('${path}')`);
  }
}

function pad(n, width) { return String(n).padStart(width, '0'); }

/// A DATE (days since 1970-01-01) as YYYY-MM-DD.
export function dateText(days) {
  const d = new Date(Number(days) * 86400000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

/// An unscaled integer and a scale as exact decimal text: (-5n, 2) -> "-0.05".
export function decimalText(unscaled, scale) {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return negative ? `-${digits}` : digits;
}

/// One DuckDB value as text (see the table at the top); null stays null.
export function duckValueText(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'string') return String(v);
  if (typeof v === 'number') return String(v);
  const kind = v.constructor?.name;
  if (kind === 'DuckDBDecimalValue') return decimalText(BigInt(v.value), v.scale);
  if (kind === 'DuckDBDateValue') return dateText(v.days);
  return v.toString();
}

/// A DuckDB result (a reader from runAndReadAll) as { names, types, rows } of text.
export function duckResult(reader) {
  const types = reader.columnTypes().map((t) => t.toString());
  const rows = reader.getRows().map((row) => row.map(duckValueText));
  return { names: reader.columnNames(), types, rows };
}

/// RFC 4180 CSV (our `--format csv`: a header, quoted fields where needed, empty unquoted = null).
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { field += '"'; ++i; } else { quoted = false; }
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (c === ',' || c === '\n') {
      row.push(field === '' && !wasQuoted ? null : field);
      field = '';
      wasQuoted = false;
      if (c === '\n') { rows.push(row); row = []; }
    } else if (c !== '\r') {
      field += c;
    }
  }
  if (field !== '' || wasQuoted || row.length) {
    row.push(field === '' && !wasQuoted ? null : field);
    rows.push(row);
  }
  return rows;
}

/// Our CSV output as { names, rows }, with `types` (our type names, from oursTypes) when known.
export function oursResult(csv, types = null) {
  const rows = parseCsv(csv);
  return { names: rows[0] ?? [], rows: rows.slice(1), types };
}

/// Our column types for a query: `flotilla sql --tables DIR "DESCRIBE <query>"` (plans only);
/// null when that fails.
export function oursTypes(flotilla, dataDir, sql) {
  const run = spawnSync(flotilla, ['sql', '--tables', dataDir, '--format', 'csv', `DESCRIBE ${sql}`],
                        { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (run.status !== 0) return null;
  return parseCsv(run.stdout).slice(1).map((row) => row[1]);
}

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;
const INTEGER_TYPE = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;

function fractionDigits(text) {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/// Plain decimal text as a BigInt scaled to `scale` digits (scale >= its own digits).
function scaled(text, scale) {
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const n = BigInt(whole + fraction.padEnd(scale, '0'));
  return negative ? -n : n;
}

/// The scale of our column `c` when it is a decimal, else null: from our type when known
/// (decimal128(38, 6) -> 6), else from the text: a column whose every value has the same k >= 1
/// fractional digits is taken as a decimal of scale k (a double prints its shortest round trip).
function oursScales(ours, columns) {
  return Array.from({ length: columns }, (_, c) => {
    const type = ours.types?.[c];
    if (type) {
      const m = /^decimal\d*\(\s*\d+\s*,\s*(\d+)\s*\)$/i.exec(type);
      return m ? Number(m[1]) : null;
    }
    let k = null;
    for (const row of ours.rows) {
      const v = row[c];
      if (v === null) continue;
      if (!PLAIN_DECIMAL.test(v) || fractionDigits(v) === 0) return null;
      if (k !== null && fractionDigits(v) !== k) return null;
      k = fractionDigits(v);
    }
    return k;
  });
}

/// Whether our value `ours` stands for DuckDB's `duck` of type `type`; null when it does, else
/// why not. `scale`: our column's decimal scale, null when ours is not a decimal.
function sameValue(duck, ours, type, scale) {
  if (duck === null || ours === null) return duck === ours ? null : 'null on one side only';
  if (INTEGER_TYPE.test(type)) return duck === ours ? null : 'integers differ';
  const duckDecimal = /^DECIMAL/.test(type);
  const duckDouble = /^(DOUBLE|FLOAT|REAL)$/.test(type);
  if (!duckDecimal && !duckDouble) return duck === ours ? null : 'values differ';  // text, dates
  if (!NUMBER.test(ours)) return 'not a number';
  if (scale !== null && PLAIN_DECIMAL.test(ours) && fractionDigits(ours) === scale) {
    if (duckDecimal) {
      // Exact, or within half a unit of our last digit when DuckDB keeps more digits.
      const s = Math.max(scale, fractionDigits(duck));
      const diff = scaled(duck, s) - scaled(ours, s);
      if (s === scale) return diff === 0n ? null : 'decimals differ';
      const half = 5n * 10n ** BigInt(s - scale - 1);  // in units of DuckDB's last digit
      return (diff < 0n ? -diff : diff) <= half ? null : 'decimals differ (beyond half a unit of ours)';
    }
    const a = Number(duck);
    const b = Number(ours);
    const tolerance = Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), 0.5 * 10 ** -scale * (1 + 1e-9));
    return Math.abs(a - b) <= tolerance ? null : 'numbers differ (beyond half a unit of ours)';
  }
  if (scale !== null && fractionDigits(ours) !== scale) return `ours not printed with its scale ${scale}`;
  const a = Number(duck);
  const b = Number(ours);
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) ? null
                                                                       : 'numbers differ (relative 1e-9)';
}

/// The output columns a query's ORDER BY names (its last one, as written), [] without one.
export function orderByColumns(sql) {
  const clauses = [...sql.matchAll(/\border\s+by\s+([\s\S]*?)(?=\blimit\b|;|$)/gi)];
  if (clauses.length === 0) return [];
  return clauses[clauses.length - 1][1].split(',').map((item) => item.trim().split(/\s+/)[0])
    .filter(Boolean);
}

/// null when our row `o` stands for DuckDB's row `d`, else the first difference.
function rowDifference(duck, d, o, scales, ours) {
  if (o.length !== duck.names.length) return `ours has ${o.length} fields, not ${duck.names.length}`;
  for (let c = 0; c < duck.names.length; ++c) {
    const why = sameValue(d[c], o[c], duck.types[c], scales[c]);
    if (why) {
      return `column ${duck.names[c]} (${duck.types[c]}` +
             `${ours.types?.[c] ? `, ours ${ours.types[c]}` : ''}): ${why}: DuckDB ` +
             `${JSON.stringify(d[c])}, ours ${JSON.stringify(o[c])}`;
    }
  }
  return null;
}

/// null when `ours` equals `duck` (same columns, same rows in the same order, at least one), else
/// the first difference with both values. `orderBy`: the output columns the query orders by;
/// rows DuckDB gives equal values there are a tie, which the specification lets come in any
/// order, so within such a run ours must hold the same rows in some order.
export function compareResults(duck, ours, orderBy = []) {
  if (duck.names.length !== ours.names.length) {
    return `columns: DuckDB has ${duck.names.length} (${duck.names}), ours ${ours.names.length} (${ours.names})`;
  }
  if (duck.rows.length !== ours.rows.length) {
    return `rows: DuckDB has ${duck.rows.length}, ours ${ours.rows.length}`;
  }
  if (duck.rows.length === 0) {
    return 'DuckDB returns no rows here: the check would compare nothing with nothing (every ' +
           'TPC-H query must return rows on the data it is checked on)';
  }
  const scales = oursScales(ours, duck.names.length);
  const keys = orderBy.map((name) => duck.names.indexOf(name));
  const tiesKnown = keys.length > 0 && keys.every((k) => k >= 0);
  const n = duck.rows.length;
  for (let r = 0; r < n;) {
    let end = r + 1;
    while (tiesKnown && end < n && keys.every((k) => duck.rows[end][k] === duck.rows[r][k])) ++end;
    const used = new Array(end - r).fill(false);
    for (let i = r; i < end; ++i) {
      // Row i of ours first, then any other unmatched row of the tie.
      let match = -1;
      for (let j = i; j < i + (end - r) && match < 0; ++j) {
        const k = r + ((j - r) % (end - r));
        if (!used[k - r] && rowDifference(duck, duck.rows[i], ours.rows[k], scales, ours) === null) {
          match = k;
        }
      }
      if (match < 0) {
        return `row ${i + 1}, ` +
               (rowDifference(duck, duck.rows[i], ours.rows[i], scales, ours) ?? 'no row of ours matches it') +
               (end - r > 1 ? ` (nor any other of the ${end - r} rows tied with it)` : '');
      }
      used[match - r] = true;
    }
    r = end;
  }
  return null;
}
