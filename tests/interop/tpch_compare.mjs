// What the TPC-H checks share: DuckDB's results as text, CSV parsing of ours, and the comparison
// of the two under the rules of the specification's answer validation, tightened: keys,
// counts, strings and dates exactly, decimal sums exactly, averages and ratios within the
// precision either side printed.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('./package.json', import.meta.url));
export const { DuckDBInstance } = require('@duckdb/node-api');

export const TABLES = ['region', 'nation', 'supplier', 'part', 'partsupp', 'customer', 'orders',
                       'lineitem'];

export function queryName(q) { return `q${String(q).padStart(2, '0')}`; }

export function querySql(dir, q) { return readFileSync(`${dir}/${queryName(q)}.sql`, 'utf8'); }

/// A DuckDB connection with one view per table: DIR/NAME.parquet or every file of DIR/NAME/.
export async function connectDuckDb(dataDir, threads, memoryLimit) {
  const options = { threads: String(threads) };
  if (memoryLimit) options.memory_limit = memoryLimit;
  const instance = await DuckDBInstance.create(':memory:', options);
  const con = await instance.connect();
  const { existsSync } = await import('node:fs');
  for (const t of TABLES) {
    const path = existsSync(`${dataDir}/${t}.parquet`) ? `${dataDir}/${t}.parquet` : `${dataDir}/${t}/*.parquet`;
    await con.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet('${path.replaceAll("'", "''")}')`);
  }
  return { instance, con };
}

/// A DuckDB result as { names, types, rows } with every value as text (null as null).
export function duckResult(reader) {
  const types = reader.columnTypes().map((t) => t.toString());
  const rows = reader.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
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
  if (field !== '' || wasQuoted || row.length) { row.push(field === '' && !wasQuoted ? null : field); rows.push(row); }
  return rows;
}

/// Our CSV output as { names, rows }.
export function oursResult(csv) {
  const rows = parseCsv(csv);
  return { names: rows[0] ?? [], rows: rows.slice(1) };
}

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

function fractionDigits(text) {
  const dot = text.indexOf('.');
  return dot < 0 || /[eE]/.test(text) ? 0 : text.length - dot - 1;
}

/// Whether our value `ours` stands for DuckDB's `duck` of type `type`; null when it does, else
/// why not.
function sameValue(duck, ours, type) {
  if (duck === null || ours === null) return duck === ours ? null : 'null on one side only';
  if (type.startsWith('DECIMAL') && NUMBER.test(ours) && fractionDigits(ours) === fractionDigits(duck)) {
    return duck === ours ? null : 'decimals differ';  // exact: sums of money
  }
  if (NUMBER.test(duck) && NUMBER.test(ours)) {
    const a = Number(duck);
    const b = Number(ours);
    if (!/[.eE]/.test(duck) && !/[.eE]/.test(ours)) return duck === ours ? null : 'integers differ';
    // A double of DuckDB's against our decimal of k digits (decimal division keeps scale 6):
    // within half a unit of our last digit, or a relative 1e-9.
    const half = fractionDigits(ours) > 0 ? 0.5 * 10 ** -fractionDigits(ours) : 0;
    const tolerance = Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), half * (1 + 1e-9));
    return Math.abs(a - b) <= tolerance ? null : 'numbers differ';
  }
  return duck === ours ? null : 'values differ';
}

/// null when `ours` equals `duck` (same columns, same rows in the same order), else the first
/// difference.
export function compareResults(duck, ours) {
  if (duck.names.length !== ours.names.length) {
    return `columns: DuckDB has ${duck.names.length} (${duck.names}), ours ${ours.names.length} (${ours.names})`;
  }
  if (duck.rows.length !== ours.rows.length) {
    return `rows: DuckDB has ${duck.rows.length}, ours ${ours.rows.length}`;
  }
  for (let r = 0; r < duck.rows.length; ++r) {
    for (let c = 0; c < duck.names.length; ++c) {
      const why = sameValue(duck.rows[r][c], ours.rows[r][c], duck.types[c]);
      if (why) {
        return `row ${r + 1}, column ${duck.names[c]} (${duck.types[c]}): ${why}: DuckDB ` +
               `${JSON.stringify(duck.rows[r][c])}, ours ${JSON.stringify(ours.rows[r][c])}`;
      }
    }
  }
  return null;
}
