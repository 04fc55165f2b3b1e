// Writes the table bench/shuffle_scale.py repartitions, as DuckDB writes Parquet: `rows` rows of
// id BIGINT, k BIGINT (a scrambled id), v DOUBLE, s VARCHAR (32 hex characters), in row groups
// of `row_group` rows (each one map task), zstd.
//
//   node bench/duckdb_shuffle_table.mjs --rows 100000000 --row_group 50000 --out FILE
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const options = { rows: '100000000', row_group: '50000', out: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in options) || i + 1 >= argv.length) {
    console.error(`duckdb_shuffle_table.mjs: bad option ${argv[i]}`);
    process.exit(2);
  }
  options[key] = argv[i + 1];
}
if (!options.out) {
  console.error('duckdb_shuffle_table.mjs: --out FILE is required');
  process.exit(2);
}
if (!existsSync(options.out)) {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const con = await instance.connect();
  const rows = BigInt(options.rows);
  const group = BigInt(options.row_group);
  await con.run(`COPY (SELECT range AS id, (range * 2654435761) % 1000000007 AS k,
                              range * 0.5 AS v, md5(range::VARCHAR) AS s
                       FROM range(${rows}))
                 TO '${options.out.replaceAll("'", "''")}'
                 (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${group})`);
  console.error(`duckdb wrote ${options.out}`);
}
