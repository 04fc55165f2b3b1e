// DuckDB's side of bench/expr_q1_bench.cc: the same generated lineitem rows, the same TPC-H Q1
// filter and projections, materialised into a temp table; run through bench/expr_q1.sh.
//
//   node bench/expr_q1_duckdb.mjs [--rows N] [--threads 1,2] [--repeats N]
//
// Needs tests/interop/node_modules (`npm ci` there; expr_q1.sh does it through
// tests/interop/npm_deps.sh). The package is resolved from that folder, so the script runs from
// anywhere. Output lines match expr_q1_bench's: checksum NAME VALUE, seconds THREADS S1 S2 ...,
// sum_charge VALUE, charge_type TYPE. Also `seconds_eval THREADS ...`: the same filter and
// projections consumed by sum() instead of a table, because most of the CREATE TABLE time is
// DuckDB appending to its table storage rather than evaluating expressions.

import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

function parseArgs(argv) {
  const options = { rows: 6000000, threads: [1, 2], repeats: 5 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const positive = (text) => {
      if (!/^[1-9][0-9]*$/.test(text ?? '')) {
        throw new Error(`${flag} expects a positive integer, got '${text}'`);
      }
      return Number(text);
    };
    if (flag === '--rows') options.rows = positive(value);
    else if (flag === '--repeats') options.repeats = positive(value);
    else if (flag === '--threads') options.threads = (value ?? '').split(',').map(positive);
    else throw new Error(`unknown option '${flag}'`);
  }
  return options;
}

// The generator of expr_q1_bench.cc (see the formulas there), in SQL. Decimals are built from
// integer cents by an exact decimal multiply; `//` is integer division.
function generateSql(rows) {
  return `
    CREATE TABLE lineitem AS
    WITH hashed AS (
      SELECT range AS i, (range * 2654435761 + 12345) % 4294967291 AS h FROM range(${rows})
    ), dated AS (
      SELECT i, h, DATE '1992-01-02' + CAST((h // 14850) % 2526 AS INTEGER) AS shipdate
      FROM hashed
    )
    SELECT
      CAST(h % 50 + 1 AS DECIMAL(15, 2)) AS l_quantity,
      CAST(CAST((h % 50 + 1) * (90000 + (i * 7919 + 13) % 110000) AS DECIMAL(15, 0)) * 0.01
           AS DECIMAL(15, 2)) AS l_extendedprice,
      CAST(CAST((h // 50) % 11 AS DECIMAL(15, 0)) * 0.01 AS DECIMAL(15, 2)) AS l_discount,
      CAST(CAST((h // 550) % 9 AS DECIMAL(15, 0)) * 0.01 AS DECIMAL(15, 2)) AS l_tax,
      ['A', 'N', 'R'][(h // 4950) % 3 + 1] AS l_returnflag,
      CASE WHEN shipdate > DATE '1995-06-17' THEN 'O' ELSE 'F' END AS l_linestatus,
      shipdate AS l_shipdate
    FROM dated
    ORDER BY i`;
}

// Same names and formats as expr_q1_bench's checksums.
const checksumSql = `
  SELECT
    count(*) AS rows,
    sum(l_quantity)::VARCHAR AS sum_quantity,
    sum(l_extendedprice)::VARCHAR AS sum_extendedprice,
    sum(l_discount)::VARCHAR AS sum_discount,
    sum(l_tax)::VARCHAR AS sum_tax,
    sum(l_shipdate - DATE '1970-01-01') AS sum_shipdate_days,
    count(*) FILTER (WHERE l_shipdate <= DATE '1998-09-02') AS count_shipdate_le_1998_09_02,
    count(*) FILTER (WHERE l_returnflag = 'A') AS count_returnflag_a,
    count(*) FILTER (WHERE l_returnflag = 'R') AS count_returnflag_r,
    count(*) FILTER (WHERE l_linestatus = 'O') AS count_linestatus_o
  FROM lineitem`;

const querySql = `
  CREATE OR REPLACE TEMP TABLE r AS
  SELECT
    l_returnflag,
    l_linestatus,
    l_quantity,
    l_extendedprice,
    l_extendedprice * (1 - l_discount) AS disc_price,
    l_extendedprice * (1 - l_discount) * (1 + l_tax) AS charge,
    l_discount
  FROM lineitem
  WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL 90 DAY`;

const evalOnlySql = `
  SELECT
    sum(length(l_returnflag) + length(l_linestatus)),
    sum(l_quantity),
    sum(l_extendedprice),
    sum(l_extendedprice * (1 - l_discount)),
    sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
    sum(l_discount)
  FROM lineitem
  WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL 90 DAY`;

async function timeRuns(con, sql, repeats) {
  const times = [];
  for (let r = 0; r < repeats; ++r) {
    const start = performance.now();
    await con.run(sql);
    times.push(((performance.now() - start) / 1000).toFixed(6));
  }
  return times.join(' ');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  await con.run(generateSql(options.rows));

  const checksums = (await con.runAndReadAll(checksumSql)).getRowObjectsJson()[0];
  for (const [name, value] of Object.entries(checksums)) console.log(`checksum ${name} ${value}`);

  for (const threads of options.threads) {
    await con.run(`SET threads = ${threads}`);
    console.log(`seconds ${threads} ${await timeRuns(con, querySql, options.repeats)}`);
    console.log(`seconds_eval ${threads} ${await timeRuns(con, evalOnlySql, options.repeats)}`);
  }

  const charge = (
    await con.runAndReadAll('SELECT sum(charge)::VARCHAR AS s, typeof(any_value(charge)) AS t FROM r')
  ).getRowObjectsJson()[0];
  console.log(`sum_charge ${charge.s}`);
  console.log(`charge_type ${charge.t}`);
}

main().catch((error) => {
  console.error(`expr_q1_duckdb: ${error.message}`);
  process.exit(1);
});
