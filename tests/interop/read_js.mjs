// Reads an Arrow IPC stream or file (format detected) with arrow-js and writes its canonical
// JSON (see common.mjs).
//
//   node read_js.mjs FILE OUT.json

import { writeFileSync } from 'node:fs';
import { readIpcFile } from './common.mjs';

const [file, out] = process.argv.slice(2);
if (!file || !out) {
  process.stderr.write('usage: node read_js.mjs FILE OUT.json\n');
  process.exit(2);
}
writeFileSync(out, JSON.stringify(readIpcFile(file)));
