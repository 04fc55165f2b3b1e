// Shared helpers of the arrow-js side of the interop checks: the LZ4_FRAME / ZSTD codecs that
// arrow-js needs registered before it can read or write compressed IPC bodies, and the canonical
// JSON dump of a set of record batches (the same format as tests/support/canonical_json.cc).
//
// Canonical JSON:
//   {"schema": [{"name", "type", "nullable"}], "batches": [{"num_rows", "columns": [[v, ...]]}]}
// Values: null; bool -> true/false; integers of any width, decimal128 (unscaled), date32 (days),
// timestamp, duration -> decimal strings; float32/float64 -> lowercase hex of the IEEE bits
// (8 / 16 digits); utf8 -> JSON string; binary, fixed_size_binary -> lowercase hex; list,
// fixed_size_list, struct (field values in order) -> JSON arrays; dictionary -> the decoded value.
// Values are read from the raw buffers of each Data (never Vector.get(), which turns int64 into
// numbers, timestamps into milliseconds and decimals into something else).
//
// Compatible with Node 18: ES modules, no newer APIs.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  Type, Precision, DateUnit, TimeUnit, CompressionType, compressionRegistry,
  RecordBatchReader, RecordBatchWriter,
} from 'apache-arrow';

// ---- Codecs: the reference command-line tools, called synchronously -----------------------------

function runCodec(cmd, args, data) {
  const out = execFileSync(cmd, args, {
    input: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    maxBuffer: 1 << 30,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A copy that owns its memory (Buffers may share a pool).
  return new Uint8Array(out);
}

// CompressionType values from Message.fbs: LZ4_FRAME = 0, ZSTD = 1.
if (CompressionType.LZ4_FRAME !== 0 || CompressionType.ZSTD !== 1) {
  throw new Error(`unexpected CompressionType enum: ${JSON.stringify(CompressionType)}`);
}

let codecsRegistered = false;
export function registerCodecs() {
  if (codecsRegistered) return;
  compressionRegistry.set(CompressionType.LZ4_FRAME, {
    encode: (d) => runCodec('lz4', ['-q', '-c'], d),
    decode: (d) => runCodec('lz4', ['-q', '-d', '-c'], d),
  });
  compressionRegistry.set(CompressionType.ZSTD, {
    encode: (d) => runCodec('zstd', ['-q', '-c'], d),
    decode: (d) => runCodec('zstd', ['-q', '-d', '-c'], d),
  });
  codecsRegistered = true;
}

export function compressionTypeOf(name) {
  switch (name) {
    case 'none': return null;
    case 'lz4': return CompressionType.LZ4_FRAME;
    case 'zstd': return CompressionType.ZSTD;
    default: throw new Error(`unknown compression ${name}`);
  }
}

// arrow-js 21.2.0 writes the *compressed* length into the 8-byte prefix of each compressed body
// buffer, where the format requires the *uncompressed* length (fixed upstream by apache/arrow-js
// PR #470, "fix(ipc): body prefix must be uncompressed length"). Readers that trust the prefix
// (Arrow C++, PyArrow, ours) rightly reject such files. This wraps the writer's private
// _compressBodyBuffers and rewrites each prefix that is not -1 to the uncompressed length,
// which is exactly what the upstream fix does. write_js.mjs applies it for its normal compressed
// cases and leaves it off for one case that records the unpatched behaviour.
const originalCompressBodyBuffers = RecordBatchWriter.prototype._compressBodyBuffers;
export function setCompressionPrefixFix(enabled) {
  if (typeof originalCompressBodyBuffers !== 'function') {
    throw new Error('arrow-js RecordBatchWriter._compressBodyBuffers not found: check the version');
  }
  RecordBatchWriter.prototype._compressBodyBuffers = !enabled ? originalCompressBodyBuffers
    : function fixedCompressBodyBuffers(buffers) {
      const out = originalCompressBodyBuffers.call(this, buffers);
      // out.buffers holds (prefix, data) pairs, one per input buffer, in order.
      for (let i = 0; i < buffers.length; ++i) {
        const prefix = out.buffers[2 * i];
        if (prefix.byteLength !== 8) continue;  // empty buffer: no prefix
        const view = new DataView(prefix.buffer, prefix.byteOffset, 8);
        if (view.getBigInt64(0, true) === -1n) continue;  // stored uncompressed
        view.setBigInt64(0, BigInt(buffers[i].byteLength), true);
      }
      return out;
    };
}

// ---- Canonical type strings ---------------------------------------------------------------------

const UNIT = { [TimeUnit.SECOND]: 's', [TimeUnit.MILLISECOND]: 'ms', [TimeUnit.MICROSECOND]: 'us',
  [TimeUnit.NANOSECOND]: 'ns' };

export function fieldString(f) {
  return `${f.name}: ${typeString(f.type)}${f.nullable ? '' : ' not null'}`;
}

export function typeString(t) {
  switch (t.typeId) {
    case Type.Null: return 'null';
    case Type.Bool: return 'bool';
    case Type.Int: return `${t.isSigned ? 'int' : 'uint'}${t.bitWidth}`;
    case Type.Float:
      if (t.precision === Precision.SINGLE) return 'float32';
      if (t.precision === Precision.DOUBLE) return 'float64';
      return 'float16';
    case Type.Decimal: return `decimal${t.bitWidth}(${t.precision}, ${t.scale})`;
    case Type.Date: return t.unit === DateUnit.DAY ? 'date32' : 'date64';
    case Type.Timestamp:
      return `timestamp[${UNIT[t.unit]}${t.timezone ? `, tz=${t.timezone}` : ''}]`;
    case Type.Duration: return `duration[${UNIT[t.unit]}]`;
    case Type.Utf8: return 'utf8';
    case Type.LargeUtf8: return 'large_utf8';
    case Type.Binary: return 'binary';
    case Type.LargeBinary: return 'large_binary';
    case Type.FixedSizeBinary: return `fixed_size_binary[${t.byteWidth}]`;
    case Type.List: return `list<${fieldString(t.children[0])}>`;
    case Type.FixedSizeList: return `fixed_size_list[${t.listSize}]<${fieldString(t.children[0])}>`;
    case Type.Struct: return `struct<${t.children.map(fieldString).join(', ')}>`;
    case Type.Dictionary:
      return `dictionary<${typeString(t.indices)}, ${typeString(t.dictionary)}` +
        `${t.isOrdered ? ', ordered' : ''}>`;
    default: throw new Error(`canonical JSON: unsupported arrow-js type ${t}`);
  }
}

// ---- Canonical values ---------------------------------------------------------------------------

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

function hex(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; ++i) s += bytes[i].toString(16).padStart(2, '0');
  return s;
}

function bit(bytes, i) { return (bytes[i >> 3] >> (i & 7)) & 1; }

function isValid(data, i) {
  if (data.typeId === Type.Null) return false;
  const bm = data.nullBitmap;
  if (!bm || bm.length === 0) return true;
  return bit(bm, data.offset + i) === 1;
}

// arrow-js conventions (see Data.slice): after a slice, `offset` applies to the validity bitmap
// and to boolean values (bit-addressed); the other buffers are already sliced (values, offsets)
// and struct / fixed_size_list children are sliced too. List children are not (offsets are
// absolute into them).
function offsetsOf(data, i) {
  const o = data.valueOffsets;
  return [Number(o[i]), Number(o[i + 1])];
}

function dictionaryValue(dict, index) {
  // `dict` is a Vector, possibly of several chunks (delta dictionaries).
  let k = Number(index);
  for (const chunk of dict.data) {
    if (k < chunk.length) return cell(chunk, k);
    k -= chunk.length;
  }
  throw new Error(`dictionary index ${index} out of range (${dict.length})`);
}

export function cell(data, i) {
  if (!isValid(data, i)) return null;
  const t = data.type;
  const v = data.values;
  switch (t.typeId) {
    case Type.Bool: return bit(v, data.offset + i) === 1;
    case Type.Int: return v[i].toString();
    case Type.Float:
      if (t.precision === Precision.SINGLE) {
        return new Uint32Array(v.buffer, v.byteOffset, v.length)[i].toString(16).padStart(8, '0');
      }
      if (t.precision === Precision.DOUBLE) {
        return new BigUint64Array(v.buffer, v.byteOffset, v.length)[i].toString(16).padStart(16, '0');
      }
      throw new Error('float16 is not a Flotilla type');
    case Type.Decimal: {
      const words = t.bitWidth / 32;  // Uint32Array, little-endian words
      let x = 0n;
      for (let w = words - 1; w >= 0; --w) x = (x << 32n) | BigInt(v[i * words + w]);
      if (x >> BigInt(t.bitWidth - 1)) x -= 1n << BigInt(t.bitWidth);
      return x.toString();
    }
    case Type.Date:
      if (t.unit !== DateUnit.DAY) throw new Error('date64 is not a Flotilla type');
      return v[i].toString();
    case Type.Timestamp:
    case Type.Duration:
      if (!(v instanceof BigInt64Array)) throw new Error(`${t}: expected BigInt64Array values`);
      return v[i].toString();
    case Type.Utf8:
    case Type.LargeUtf8: {
      const [b, e] = offsetsOf(data, i);
      return utf8Decoder.decode(v.subarray(b, e));
    }
    case Type.Binary:
    case Type.LargeBinary: {
      const [b, e] = offsetsOf(data, i);
      return hex(v.subarray(b, e));
    }
    case Type.FixedSizeBinary:
      return hex(v.subarray(i * t.byteWidth, (i + 1) * t.byteWidth));
    case Type.List: {
      const [b, e] = offsetsOf(data, i);
      const out = [];
      for (let j = b; j < e; ++j) out.push(cell(data.children[0], j));
      return out;
    }
    case Type.FixedSizeList: {
      const out = [];
      for (let j = i * t.listSize; j < (i + 1) * t.listSize; ++j) out.push(cell(data.children[0], j));
      return out;
    }
    case Type.Struct: return data.children.map((c) => cell(c, i));
    case Type.Dictionary: return dictionaryValue(data.dictionary, v[i]);
    default: throw new Error(`canonical JSON: unsupported arrow-js type ${t}`);
  }
}

// A column of a batch as canonical values. `data` is the column's Data.
function column(data) {
  const out = new Array(data.length);
  for (let i = 0; i < data.length; ++i) out[i] = cell(data, i);
  return out;
}

/// schema: an arrow-js Schema; batches: arrow-js RecordBatches.
export function canonical(schema, batches) {
  return {
    schema: schema.fields.map((f) => ({ name: f.name, type: typeString(f.type), nullable: f.nullable })),
    batches: batches.map((b) => {
      if (b.data.children.length !== schema.fields.length) throw new Error('batch/schema mismatch');
      return { num_rows: b.numRows, columns: b.data.children.map(column) };
    }),
  };
}

/// Reads an IPC stream or file (detected) and returns its canonical JSON object.
export function readIpcFile(path) {
  registerCodecs();
  const bytes = readFileSync(path);
  const reader = RecordBatchReader.from(bytes);
  reader.open();
  // Taken before iterating: the reader forgets its schema once it has been read to the end.
  const { schema } = reader;
  if (!schema) throw new Error(`${path}: no schema`);
  const batches = [];
  for (const batch of reader) {
    // With no record batch in the input, arrow-js yields one internal 0-row placeholder (a class
    // it does not export); it is not in the file.
    if (batch.constructor.name === '_InternalEmptyPlaceholderRecordBatch') continue;
    batches.push(batch);
  }
  return canonical(schema, batches);
}
