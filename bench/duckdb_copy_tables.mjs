// Copies TPC-H tables as DuckDB writes Parquet (COPY ... (FORMAT parquet, COMPRESSION zstd)),
// so benchmarks can read the files most users have, not only our writer's.
//
//   node bench/duckdb_copy_tables.mjs --from DIR --to DIR [--tables lineitem,orders]
import { mkdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const options = { from: '', to: '', tables: 'lineitem' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in options) || i + 1 >= argv.length) {
    console.error(`duckdb_copy_tables.mjs: bad option ${argv[i]}`);
    process.exit(2);
  }
  options[key] = argv[i + 1];
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
mkdirSync(options.to, { recursive: true });
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();
for (const table of options.tables.split(',')) {
  const out = join(options.to, `${table}.parquet`);
  if (existsSync(out)) continue;
  await con.run(`COPY (SELECT * FROM read_parquet(${q(join(options.from, `${table}.parquet`))}))
                 TO ${q(out)} (FORMAT parquet, COMPRESSION zstd)`);
  console.error(`duckdb wrote ${out}`);
}
