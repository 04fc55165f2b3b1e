// Writes arrow-js's own interop cases into OUT_DIR: for each case NAME, the IPC bytes
// (NAME.arrows for the stream format, NAME.arrow for the file format) and NAME.json, the
// canonical JSON of the batches as arrow-js holds them in memory (see common.mjs). Optionally
// NAME.expect, which tells run.sh what else than equality is acceptable.
//
//   node write_js.mjs OUT_DIR
//
// The columns cover every Flotilla type that arrow-js can build: null, bool, int8-64, uint8-64,
// float32/64, decimal128, date32 (DateDay), timestamp s/ms/us/ns with and without a time zone,
// duration s/ms/us/ns, utf8, large_utf8, binary, large_binary, fixed_size_binary, list,
// fixed_size_list, struct and dictionary<int32, utf8>. Nothing of Flotilla's type set is missing
// from arrow-js 21; arrow-js types Flotilla lacks (float16, date64, time, interval, union, map,
// large_list, views) are left out.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Field, Schema, RecordBatch, Struct, Vector, makeData, vectorFromArray,
  RecordBatchStreamWriter, RecordBatchFileWriter,
  Null, Bool, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Float32, Float64,
  Decimal, DateDay, TimestampSecond, TimestampMillisecond, TimestampMicrosecond,
  TimestampNanosecond, DurationSecond, DurationMillisecond, DurationMicrosecond,
  DurationNanosecond, Utf8, LargeUtf8, Binary, LargeBinary, FixedSizeBinary, List, FixedSizeList,
  Dictionary,
} from 'apache-arrow';
import {
  canonical, compressionTypeOf, registerCodecs, setCompressionPrefixFix,
} from './common.mjs';

// ---- Deterministic random values ----------------------------------------------------------------

class Rng {
  constructor(seed) { this.s = (seed >>> 0) ^ 0x9e3779b9; }
  u32() {  // mulberry32
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  below(n) { return this.u32() % n; }
  chance(p) { return this.u32() / 4294967296 < p; }
  u64() { return (BigInt(this.u32()) << 32n) | BigInt(this.u32()); }
  i64() { return BigInt.asIntN(64, this.u64()); }
  pick(xs) { return xs[this.below(xs.length)]; }
}

const PIECES = ['a', 'b', 'flotilla', ' ', 'é', 'ß', '日本', '🚀', 'x', '0', '"', '\\', '\n'];
const WORDS = ['red', 'green', 'blue', '', 'Zürich', '東京', 'a longer value'];
const SPECIAL_F64 = [NaN, -0, 0, Infinity, -Infinity, 5e-324, 1.7976931348623157e308, -1.5];
const SPECIAL_F32 = [NaN, -0, Infinity, -Infinity, 1.401298464324817e-45, 3.4028234663852886e38];

function text(r) {
  let s = '';
  for (let n = r.below(9); n > 0; --n) s += r.pick(PIECES);
  return s;
}
function bytes(r, n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; ++i) b[i] = r.below(256);
  return b;
}
function decimalWords(x) {  // BigInt -> 128-bit two's complement, 4 little-endian uint32 words
  const u = BigInt.asUintN(128, x);
  return new Uint32Array([0, 1, 2, 3].map((w) => Number((u >> BigInt(32 * w)) & 0xffffffffn)));
}
function randomDecimal(r, precision) {
  let x = 0n;
  for (let i = 0; i < precision; ++i) x = x * 10n + BigInt(r.below(10));
  return r.chance(0.5) ? -x : x;
}

const item = (type) => new Field('item', type, true);

// One entry per column: name, type, value generator (null handled by the caller), and how the
// arrow-js data is made: 'builder' (vectorFromArray) or 'int64data' (makeData over a
// BigInt64Array; arrow-js timestamp builders take milliseconds as numbers and would lose
// precision).
const COLUMNS = [
  { name: 'null', type: () => new Null(), gen: () => null },
  { name: 'bool', type: () => new Bool(), gen: (r) => r.chance(0.5) },
  { name: 'int8', type: () => new Int8(), gen: (r) => (r.u32() << 24) >> 24 },
  { name: 'int16', type: () => new Int16(), gen: (r) => (r.u32() << 16) >> 16 },
  { name: 'int32', type: () => new Int32(), gen: (r) => r.u32() | 0 },
  { name: 'int64', type: () => new Int64(), gen: (r) => r.i64() },
  { name: 'uint8', type: () => new Uint8(), gen: (r) => r.below(256) },
  { name: 'uint16', type: () => new Uint16(), gen: (r) => r.below(65536) },
  { name: 'uint32', type: () => new Uint32(), gen: (r) => r.u32() },
  { name: 'uint64', type: () => new Uint64(), gen: (r) => r.u64() },
  { name: 'float32', type: () => new Float32(),
    gen: (r) => Math.fround(r.chance(0.2) ? r.pick(SPECIAL_F32) : ((r.u32() | 0) / 4096)) },
  { name: 'float64', type: () => new Float64(),
    gen: (r) => (r.chance(0.2) ? r.pick(SPECIAL_F64) : (r.u32() | 0) / 1024 + r.u32() / 1e12) },
  { name: 'decimal128_15_2', type: () => new Decimal(2, 15, 128),
    gen: (r) => decimalWords(randomDecimal(r, 15)) },
  { name: 'decimal128_38_10', type: () => new Decimal(10, 38, 128),
    gen: (r) => decimalWords(randomDecimal(r, 38)) },
  { name: 'date32', type: () => new DateDay(),
    gen: (r) => new Date((r.below(60000) - 20000) * 86400000) },
  { name: 'ts_s', type: () => new TimestampSecond(), gen: (r) => r.i64() >> 20n, make: 'int64data' },
  { name: 'ts_ms_utc', type: () => new TimestampMillisecond('UTC'), gen: (r) => r.i64() >> 12n,
    make: 'int64data' },
  { name: 'ts_us_ny', type: () => new TimestampMicrosecond('America/New_York'),
    gen: (r) => r.i64() >> 4n, make: 'int64data' },
  { name: 'ts_ns', type: () => new TimestampNanosecond(), gen: (r) => r.i64(), make: 'int64data' },
  { name: 'ts_ns_offset', type: () => new TimestampNanosecond('+05:30'), gen: (r) => r.i64(),
    make: 'int64data' },
  { name: 'dur_s', type: () => new DurationSecond(), gen: (r) => r.i64() },
  { name: 'dur_ms', type: () => new DurationMillisecond(), gen: (r) => r.i64() },
  { name: 'dur_us', type: () => new DurationMicrosecond(), gen: (r) => r.i64() },
  { name: 'dur_ns', type: () => new DurationNanosecond(), gen: (r) => r.i64() },
  { name: 'utf8', type: () => new Utf8(), gen: text },
  { name: 'large_utf8', type: () => new LargeUtf8(), gen: text },
  { name: 'binary', type: () => new Binary(), gen: (r) => bytes(r, r.below(10)) },
  { name: 'large_binary', type: () => new LargeBinary(), gen: (r) => bytes(r, r.below(10)) },
  { name: 'fixed_size_binary_5', type: () => new FixedSizeBinary(5), gen: (r) => bytes(r, 5) },
  { name: 'list_int32', type: () => new List(item(new Int32())),
    gen: (r) => Array.from({ length: r.below(5) }, () => (r.chance(0.1) ? null : r.u32() | 0)) },
  { name: 'list_utf8', type: () => new List(item(new Utf8())),
    gen: (r) => Array.from({ length: r.below(5) }, () => (r.chance(0.1) ? null : text(r))) },
  { name: 'list_list_int16', type: () => new List(item(new List(item(new Int16())))),
    gen: (r) => Array.from({ length: r.below(4) }, () => (r.chance(0.1) ? null
      : Array.from({ length: r.below(4) }, () => (r.chance(0.1) ? null : (r.u32() << 16) >> 16)))) },
  { name: 'fixed_size_list_float32_4', type: () => new FixedSizeList(4, item(new Float32())),
    gen: (r) => Array.from({ length: 4 }, () => (r.chance(0.1) ? null : Math.fround(r.u32() / 7))) },
  { name: 'struct', type: () => new Struct([new Field('a', new Int64(), true),
    new Field('b', new Utf8(), true), new Field('c', new List(item(new Bool())), true)]),
  gen: (r) => ({
    a: r.chance(0.1) ? null : r.i64(),
    b: r.chance(0.1) ? null : text(r),
    c: r.chance(0.1) ? null : Array.from({ length: r.below(4) }, () => (r.chance(0.1) ? null : r.chance(0.5))),
  }) },
  { name: 'dictionary_utf8', type: () => new Dictionary(new Utf8(), new Int32()),
    gen: (r) => r.pick(WORDS) },
  { name: 'int32_not_null', type: () => new Int32(), gen: (r) => r.u32() | 0, nullable: false },
];

function validityBitmap(values) {
  const bm = new Uint8Array(((values.length + 63) >> 6) << 3);
  let nulls = 0;
  values.forEach((v, i) => { if (v === null) ++nulls; else bm[i >> 3] |= 1 << (i & 7); });
  return { bm, nulls };
}

// Data of `length` random values of column `col`.
function makeColumn(col, length, seed, nullProbability) {
  const r = new Rng(seed);
  const type = col.type();
  const p = col.nullable === false ? 0 : nullProbability;
  const values = Array.from({ length }, () => (r.chance(p) ? null : col.gen(r)));
  if (col.make === 'int64data') {
    const { bm, nulls } = validityBitmap(values);
    const data = new BigInt64Array(values.map((v) => (v === null ? 0n : v)));
    return makeData({ type, length, nullCount: nulls, nullBitmap: nulls ? bm : null, data });
  }
  const vec = vectorFromArray(values, type);
  if (vec.data.length !== 1) throw new Error(`${col.name}: expected one chunk`);
  return vec.data[0];
}

function schemaOf(columns) {
  return new Schema(columns.map((c) => new Field(c.name, c.type(), c.nullable !== false)));
}

function batchOf(schema, columnData) {
  const length = columnData.length ? columnData[0].length : 0;
  columnData.forEach((d) => { if (d.length !== length) throw new Error('ragged batch'); });
  const data = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: columnData });
  return new RecordBatch(schema, data);
}

// All columns of `length` rows.
function bigBatchData(length, seed, nullProbability = 0.15) {
  return COLUMNS.map((c, i) => makeColumn(c, length, seed * 1000 + i, nullProbability));
}

// ---- Writing ------------------------------------------------------------------------------------

let outDir;
const written = [];

function writeCase(name, format, compression, schema, batches, expect) {
  const compressionType = compressionTypeOf(compression);
  const options = compressionType === null ? {} : { compressionType };
  const writer = format === 'file' ? new RecordBatchFileWriter(options)
    : new RecordBatchStreamWriter(options);
  writer.reset(undefined, schema);
  for (const b of batches) writer.write(b);
  writer.finish();
  const bytes = writer.toUint8Array(true);
  const ext = format === 'file' ? 'arrow' : 'arrows';
  writeFileSync(join(outDir, `${name}.${ext}`), bytes);
  writeFileSync(join(outDir, `${name}.json`), JSON.stringify(canonical(schema, batches)));
  if (expect) writeFileSync(join(outDir, `${name}.expect`), expect);
  written.push(name);
}

function main() {
  outDir = process.argv[2];
  if (!outDir) {
    process.stderr.write('usage: node write_js.mjs OUT_DIR\n');
    process.exit(2);
  }
  mkdirSync(outDir, { recursive: true });
  registerCodecs();
  setCompressionPrefixFix(true);

  const schema = schemaOf(COLUMNS);

  // Slices of one big batch: shared dictionaries (so the file format can hold them), offsets
  // 0, 100 (empty), 137 and 261 (odd, not multiples of 8).
  const big = bigBatchData(400, 1);
  const sliced = [[0, 100], [100, 0], [137, 123], [261, 1]].map(
    ([off, len]) => batchOf(schema, big.map((d) => d.slice(off, len))));
  for (const format of ['stream', 'file']) {
    for (const compression of ['none', 'lz4', 'zstd']) {
      writeCase(`js_all_types_${format}_${compression}`, format, compression, schema, sliced);
    }
  }

  // Independently built batches: each has its own dictionary, so the stream carries
  // replacement dictionaries (not allowed in the file format).
  const fresh = [batchOf(schema, bigBatchData(50, 2)), batchOf(schema, bigBatchData(0, 3)),
    batchOf(schema, bigBatchData(200, 4).map((d) => d.slice(77, 99))),
    batchOf(schema, bigBatchData(31, 5))];
  writeCase('js_all_types_fresh_stream_none', 'stream', 'none', schema, fresh);
  writeCase('js_all_types_fresh_stream_lz4', 'stream', 'lz4', schema, fresh);

  // Every column at its own odd offset within the same batch.
  const mixed = bigBatchData(300, 6);
  const mixedBatch = batchOf(schema, mixed.map((d, i) => d.slice(2 * i + 1, 57)));
  writeCase('js_mixed_offsets_stream', 'stream', 'none', schema, [mixedBatch]);
  writeCase('js_mixed_offsets_file_zstd', 'file', 'zstd', schema, [mixedBatch]);

  // No nulls at all (no validity bitmaps), and nothing but nulls.
  const noNulls = batchOf(schema, bigBatchData(70, 7, 0));
  writeCase('js_no_nulls_file', 'file', 'none', schema, [noNulls]);
  const allNulls = batchOf(schema, COLUMNS.map((c, i) => makeColumn(c, 19, 8000 + i, 1)));
  writeCase('js_all_nulls_stream_lz4', 'stream', 'lz4', schema, [allNulls]);

  // Schema only; and nothing but empty batches (compressed: empty buffers have no prefix).
  writeCase('js_empty_stream', 'stream', 'none', schema, []);
  writeCase('js_empty_file', 'file', 'none', schema, []);
  const emptyFresh = [batchOf(schema, bigBatchData(0, 9)), batchOf(schema, bigBatchData(0, 10))];
  writeCase('js_empty_batches_stream_zstd', 'stream', 'zstd', schema, emptyFresh);
  const emptySlices = [batchOf(schema, big.map((d) => d.slice(399, 0))),
    batchOf(schema, big.map((d) => d.slice(5, 0)))];
  writeCase('js_empty_batches_file_lz4', 'file', 'lz4', schema, emptySlices);

  // A larger, compressible batch (long runs).
  const large = batchOf(schema, COLUMNS.map((c, i) => makeColumn(c, 5000, 10000 + i, 0.05)));
  writeCase('js_large_file_zstd', 'file', 'zstd', schema, [large]);

  // Dictionary deltas: the second batch's dictionary extends the first's (same first chunk),
  // so arrow-js writes an isDelta dictionary batch; the third batch's dictionary is new (stream
  // only: a replacement).
  const dictType = () => new Dictionary(new Utf8(), new Int32());
  const dictSchema = new Schema([new Field('d', dictType(), true), new Field('n', new Int32(), true)]);
  const dict1 = vectorFromArray(['alpha', 'beta', null, 'gamma'], new Utf8());
  const dict2 = dict1.concat(vectorFromArray(['delta', 'epsilon'], new Utf8()));
  const dict3 = vectorFromArray(['omega', 'psi'], new Utf8());
  const dictBatch = (dict, indices, seed) => {
    const { bm, nulls } = validityBitmap(indices);
    const d = makeData({ type: dictType(), length: indices.length, nullCount: nulls,
      nullBitmap: nulls ? bm : null, data: new Int32Array(indices.map((x) => x ?? 0)),
      dictionary: dict });
    return batchOf(dictSchema, [d, makeColumn(COLUMNS[4], indices.length, seed, 0.2)]);
  };
  const b1 = dictBatch(dict1, [0, 1, null, 3, 2, 0, 0], 11);
  const b2 = dictBatch(dict2, [5, 4, null, 0, 1, 2, 3, 4, 5, 5, 1], 12);
  const b3 = dictBatch(dict3, [1, 0, null, 1], 13);
  writeCase('js_dict_delta_stream', 'stream', 'none', dictSchema, [b1, b2, b3]);
  writeCase('js_dict_delta_stream_zstd', 'stream', 'zstd', dictSchema, [b1, b2, b3]);
  writeCase('js_dict_delta_file', 'file', 'none', dictSchema, [b1, b2]);
  // Sliced dictionary batches (offset into the indices; dictionary kept whole).
  const b2s = batchOf(dictSchema, b2.data.children.map((d) => d.slice(3, 7)));
  writeCase('js_dict_sliced_file', 'file', 'none', dictSchema, [b2s]);

  // arrow-js 21.2.0's own compressed output, with the wrong (compressed) length prefix: a
  // reader that trusts the prefix must reject it cleanly, or (if it recovers the real size from
  // the frame) read it exactly; it must never return other values.
  setCompressionPrefixFix(false);
  writeCase('js_unpatched_prefix_stream_zstd', 'stream', 'zstd', schema, sliced, 'reject-or-equal');
  writeCase('js_unpatched_prefix_file_lz4', 'file', 'lz4', schema, [noNulls], 'reject-or-equal');
  setCompressionPrefixFix(true);

  process.stdout.write(`${written.length} arrow-js cases written\n`);
}

main();
