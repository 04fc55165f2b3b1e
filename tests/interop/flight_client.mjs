// A worker's Arrow Flight service against an independent Flight client: gRPC from @grpc/grpc-js,
// the protocol messages loaded from flight.proto by @grpc/proto-loader, the Arrow IPC data decoded
// by apache-arrow (all pinned in package-lock.json). Nothing of ours runs on the client side: the
// FlightData messages are framed into an IPC stream here and read by apache-arrow.
//
//   node flight_client.mjs PATH/TO/flight_serve_tool [--verbose] [--proto PATH/TO/flight.proto]
//
// For each configuration (ROWS, PARTITIONS, COMPRESSION[, TOKEN]) it starts
// `flight_serve_tool ROWS PARTITIONS COMPRESSION [TOKEN]`, which stores one map task's output: a
// table of ROWS rows split by id % PARTITIONS, with
//   id     int64          0 .. ROWS-1
//   name   utf8           null when id % 7 == 3, else "row-<id>"
//   value  float64        id * 0.5
//   tags   list<int32>    null when id % 11 == 5, else [id % 3, id % 5]
// and prints one JSON line {"address", "token", "partitions": [{"ticket", "rows"}, ...]}; it
// serves until its stdin is closed. Checks, every call with `authorization: Bearer <token>`
// unless said otherwise:
//   printed       PARTITIONS entries, distinct tickets, each partition's row count equal to the
//                 number of ids in 0 .. ROWS-1 with id % PARTITIONS == index;
//   proto         the field numbers and types of the messages used are the Flight specification's;
//   list          ListFlights with the prefixes "", the first ticket, the first ticket's folder
//                 and one that matches nothing: one FlightInfo per stored partition whose ticket
//                 starts with the prefix, with descriptor PATH [ticket], one endpoint (that ticket,
//                 location grpc+tcp://ADDRESS), total_records as printed, total_bytes >= -1, and a
//                 schema (encapsulated IPC message with continuation marker) that apache-arrow reads
//                 as id: int64, name: utf8, value: float64, tags: list<int32>;
//   doget         each partition's ticket: a Schema message first (no body), then record batches
//                 (dictionary batches allowed) whose message bodyLength equals data_body's length,
//                 each carrying app_metadata "0"; BodyCompression present exactly when the tool
//                 was asked to compress, with the codec asked for; apache-arrow decodes the framed
//                 stream (compressed buffers through the reference lz4 / zstd command-line tools,
//                 each checked against its int64 uncompressed-length prefix) to the printed number
//                 of rows, ids increasing, every id % PARTITIONS == index and every value and
//                 null as the rules above say (and each column's null count);
//   union         the ids over all partitions are 0 .. ROWS-1, each once;
//   multi         a ticket naming two partitions ("A\nB", in ticket order and reversed): one
//                 Schema message, batches with app_metadata "0" holding A's rows and "1" B's,
//                 or, where small partitions travel together, "i:rows,i:rows,..." naming, in
//                 order, the partition of each run of the batch's rows (the rows add up to the
//                 batch's); A's rows then B's, each as in doget;
//   auth          DoGet without metadata, with a wrong token and with the token but no "Bearer"
//                 scheme, and ListFlights without metadata and with a wrong token: UNAUTHENTICATED
//                 (16) and no message;
//   unknown       DoGet of a ticket that names nothing: NOT_FOUND (5);
//   exit          the tool exits 0 once its stdin is closed.
// Every RPC has a deadline and every configuration a time limit; on failure the tool is killed
// and its stderr shown. Exits 1 when any configuration fails.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import {
  CompressionType, Message, MessageHeader, Precision, RecordBatchReader, Type, compressionRegistry,
} from 'apache-arrow';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const positional = [];
let verbose = false;
let protoPath = resolve(here, '../../src/flotilla/distributed/flight/flight.proto');
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--verbose') verbose = true;
  else if (args[i] === '--proto' && i + 1 < args.length) protoPath = resolve(args[++i]);
  else positional.push(args[i]);
}
if (positional.length !== 1) {
  console.error('usage: node flight_client.mjs PATH/TO/flight_serve_tool [--verbose] [--proto FILE]');
  process.exit(2);
}
const tool = resolve(positional[0]);
if (!existsSync(tool)) {
  console.error(`flight_client: ${tool} does not exist`);
  process.exit(2);
}

const CONFIGS = [
  { rows: 10000, partitions: 4, compression: 'none' },
  { rows: 5, partitions: 8, compression: 'none' },                // some partitions empty
  { rows: 0, partitions: 2, compression: 'none' },                // every partition empty
  { rows: 200000, partitions: 3, compression: 'none', multiBatch: true },
  { rows: 50000, partitions: 4, compression: 'lz4', token: 'lz4-token/with:odd=chars' },
  { rows: 200000, partitions: 3, compression: 'zstd', multiBatch: true },
];
const DEFAULT_TOKEN = 'interop-token';
const START_TIMEOUT_MS = 30_000;     // until the tool prints its line
const RPC_DEADLINE_MS = 60_000;      // each call
const CONFIG_TIMEOUT_MS = 240_000;   // one configuration, all calls included
const EXIT_TIMEOUT_MS = 15_000;      // from closing stdin to the tool's exit

class Mismatch extends Error {}
function check(cond, message) {
  if (!cond) throw new Mismatch(message);
}

// ---- The Flight protocol, from the project's flight.proto, checked against the specification ----

// Field numbers and types of format/Flight.proto in the Arrow project (the specification).
const SPEC = {
  Ticket: { ticket: [1, 'TYPE_BYTES'] },
  Criteria: { expression: [1, 'TYPE_BYTES'] },
  Location: { uri: [1, 'TYPE_STRING'] },
  FlightDescriptor: { type: [1, 'TYPE_ENUM'], cmd: [2, 'TYPE_BYTES'], path: [3, 'TYPE_STRING'] },
  FlightEndpoint: { ticket: [1, 'TYPE_MESSAGE'], location: [2, 'TYPE_MESSAGE'] },
  FlightInfo: {
    schema: [1, 'TYPE_BYTES'], flight_descriptor: [2, 'TYPE_MESSAGE'], endpoint: [3, 'TYPE_MESSAGE'],
    total_records: [4, 'TYPE_INT64'], total_bytes: [5, 'TYPE_INT64'],
  },
  FlightData: {
    flight_descriptor: [1, 'TYPE_MESSAGE'], data_header: [2, 'TYPE_BYTES'],
    app_metadata: [3, 'TYPE_BYTES'], data_body: [1000, 'TYPE_BYTES'],
  },
};

function loadFlightService() {
  const definition = protoLoader.loadSync(protoPath, {
    keepCase: true, longs: String, enums: String, defaults: true, bytes: Buffer,
  });
  const problems = [];
  for (const [message, fields] of Object.entries(SPEC)) {
    const entry = definition[`arrow.flight.protocol.${message}`];
    if (!entry) {
      problems.push(`message ${message} is missing`);
      continue;
    }
    for (const [name, [number, type]] of Object.entries(fields)) {
      const f = entry.type.field.find((x) => x.name === name);
      if (!f) problems.push(`${message}.${name} is missing`);
      else if (f.number !== number || f.type !== type) {
        problems.push(`${message}.${name} is ${f.type} = ${f.number}, the specification has ${type} = ${number}`);
      }
    }
  }
  const service = definition['arrow.flight.protocol.FlightService'];
  const rpc = (name, req, res) => {
    const m = service?.[name];
    if (!m) problems.push(`rpc ${name} is missing from FlightService`);
    else if (m.requestType.type.name !== req || m.responseType.type.name !== res ||
             m.requestStream || !m.responseStream) {
      problems.push(`rpc ${name} is not (${req}) returns (stream ${res})`);
    }
  };
  rpc('DoGet', 'Ticket', 'FlightData');
  rpc('ListFlights', 'Criteria', 'FlightInfo');
  if (problems.length) {
    throw new Mismatch(`${protoPath} does not match the Flight specification:\n      ` +
      problems.join('\n      '));
  }
  return grpc.loadPackageDefinition(definition).arrow.flight.protocol.FlightService;
}

// ---- Codecs: the reference lz4 / zstd command-line tools, through apache-arrow's registry --------

const codecStats = { compressed: 0 };
function registerCodec(type, command) {
  compressionRegistry.set(type, {
    decode(bytes) {
      // apache-arrow hands over the bytes after the buffer's 8-byte prefix (a view into the body):
      // the prefix holds the uncompressed length, which the output must have.
      check(bytes.byteOffset >= 8, 'compressed buffer without its length prefix in view');
      const expected = new DataView(bytes.buffer, bytes.byteOffset - 8, 8).getBigInt64(0, true);
      let out;
      try {
        out = execFileSync(command, ['-q', '-d', '-c'], {
          input: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'],
        });
      } catch (e) {
        throw new Mismatch(`${command} -d failed on a ${bytes.byteLength}-byte buffer: ` +
          `${String(e.stderr || e.message).trim()}`);
      }
      check(BigInt(out.length) === expected,
        `${command}: a buffer decompresses to ${out.length} bytes, its prefix says ${expected}`);
      ++codecStats.compressed;
      return new Uint8Array(out);  // owns its memory
    },
  });
}
for (const cmd of ['lz4', 'zstd']) {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
  } catch {
    console.error(`flight_client: '${cmd}' is not installed (see scripts/install-deps.sh)`);
    process.exit(2);
  }
}
registerCodec(CompressionType.LZ4_FRAME, 'lz4');
registerCodec(CompressionType.ZSTD, 'zstd');
const CODEC_OF = { none: null, lz4: CompressionType.LZ4_FRAME, zstd: CompressionType.ZSTD };

// ---- The table the tool stores, computed here ---------------------------------------------------

function expectedName(id) { return id % 7 === 3 ? null : `row-${id}`; }
function expectedTags(id) { return id % 11 === 5 ? null : [id % 3, id % 5]; }
function rowsOfPartition(rows, partitions, p) {
  return rows > p ? Math.floor((rows - 1 - p) / partitions) + 1 : 0;
}

// ---- gRPC calls -------------------------------------------------------------------------------

function bearer(token) {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${token}`);
  return md;
}

// Runs a server-streaming call to its end; resolves to { messages, error } (error null on OK).
function collect(start) {
  return new Promise((resolveCall) => {
    const messages = [];
    let done = false;
    const finish = (error) => {
      if (!done) {
        done = true;
        resolveCall({ messages, error });
      }
    };
    const call = start({ deadline: Date.now() + RPC_DEADLINE_MS });
    call.on('data', (m) => messages.push(m));
    call.on('error', (e) => finish(e));
    call.on('end', () => finish(null));
  });
}

const STATUS_NAME = Object.fromEntries(Object.entries(grpc.status).map(([k, v]) => [v, k]));
function statusText(error) {
  return error ? `${STATUS_NAME[error.code] ?? error.code} (${error.code}): ${error.details}` : 'OK';
}

// ---- Arrow IPC ----------------------------------------------------------------------------------

const CONTINUATION = 0xffffffff;
const END_OF_STREAM = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

// One encapsulated IPC message: continuation marker, int32 metadata length (the flatbuffer padded
// so the body starts on an 8-byte boundary), the flatbuffer, the padding, the body.
function frame(header, body) {
  const padded = (header.length + 7) & ~7;
  const out = Buffer.alloc(8 + padded + body.length);
  out.writeUInt32LE(CONTINUATION, 0);
  out.writeInt32LE(padded, 4);
  header.copy(out, 8);
  body.copy(out, 8 + padded);
  return out;
}

const HEADER_NAME = Object.fromEntries(Object.entries(MessageHeader).map(([k, v]) => [v, k]));

function typeText(t) {
  switch (t.typeId) {
    case Type.Int: return `${t.isSigned ? '' : 'u'}int${t.bitWidth}`;
    case Type.Float: return ['float16', 'float32', 'float64'][t.precision] ?? 'float?';
    case Type.Utf8: return 'utf8';
    case Type.LargeUtf8: return 'large_utf8';
    case Type.List: return `list<${typeText(t.children[0].type)}>`;
    case Type.LargeList: return `large_list<${typeText(t.children[0].type)}>`;
    default: return `${Type[t.typeId] ?? t.typeId}`;
  }
}

function checkSchema(schema, where) {
  const got = schema.fields.map((f) => `${f.name}: ${typeText(f.type)}`).join(', ');
  const want = 'id: int64, name: utf8, value: float64, tags: list<int32>';
  check(got === want, `${where}: schema is {${got}}, expected {${want}}`);
  const [id, name, value, tags] = schema.fields;
  check(id.type.typeId === Type.Int && id.type.bitWidth === 64 && id.type.isSigned, `${where}: id type`);
  check(value.type.precision === Precision.DOUBLE, `${where}: value type`);
  check(name.nullable && tags.nullable, `${where}: name and tags must be nullable (they hold nulls)`);
}

// The schema of a FlightInfo: one encapsulated Schema message (with continuation marker).
function readInfoSchema(bytes, where) {
  check(bytes.length >= 8, `${where}: schema is ${bytes.length} bytes`);
  check(bytes.readUInt32LE(0) === CONTINUATION,
    `${where}: schema does not start with the continuation marker 0xFFFFFFFF`);
  const len = bytes.readInt32LE(4);
  check(len > 0 && 8 + len <= bytes.length,
    `${where}: schema metadata length ${len} does not fit in ${bytes.length} bytes`);
  const message = Message.decode(bytes.subarray(8, 8 + len));
  check(message.headerType === MessageHeader.Schema,
    `${where}: schema message is ${HEADER_NAME[message.headerType]}, not Schema`);
  check(Number(message.bodyLength) === 0, `${where}: schema message has a body`);
  const reader = RecordBatchReader.from(Buffer.concat([bytes.subarray(0, 8 + len), END_OF_STREAM]));
  reader.open();
  const schema = reader.schema;
  check(schema, `${where}: apache-arrow read no schema`);
  checkSchema(schema, where);
  return schema;
}

// Decodes the FlightData messages of one DoGet. Returns the record batches, each with the
// app_metadata of the FlightData that carried it.
function decodeFlightData(messages, compression, where) {
  check(messages.length > 0, `${where}: no FlightData`);
  const pieces = [];
  const batchMetadata = [];
  let schemas = 0;
  messages.forEach((m, i) => {
    const header = m.data_header;
    const body = m.data_body ?? Buffer.alloc(0);
    check(header && header.length > 0, `${where}: FlightData #${i} has no data_header`);
    let message;
    try {
      message = Message.decode(header);
    } catch (e) {
      throw new Mismatch(`${where}: FlightData #${i}: data_header is not a Message: ${e.message}`);
    }
    const kind = HEADER_NAME[message.headerType] ?? message.headerType;
    check(Number(message.bodyLength) === body.length,
      `${where}: FlightData #${i} (${kind}): Message.bodyLength ${message.bodyLength}, data_body ${body.length} bytes`);
    if (i === 0) {
      check(message.headerType === MessageHeader.Schema, `${where}: the first FlightData is ${kind}, not Schema`);
    }
    switch (message.headerType) {
      case MessageHeader.Schema:
        ++schemas;
        check(body.length === 0, `${where}: the Schema message has a ${body.length}-byte body`);
        break;
      case MessageHeader.RecordBatch: {
        const c = message.header().compression;
        const want = CODEC_OF[compression];
        if (want === null) {
          check(c == null, `${where}: FlightData #${i} is compressed (${CompressionType[c?.type]}), none was asked for`);
        } else {
          check(c != null, `${where}: FlightData #${i} is not compressed, ${compression} was asked for`);
          check(c.type === want,
            `${where}: FlightData #${i} compressed with ${CompressionType[c.type]}, ${compression} was asked for`);
        }
        batchMetadata.push(m.app_metadata ? m.app_metadata.toString('utf8') : '');
        break;
      }
      case MessageHeader.DictionaryBatch:
        break;
      default:
        throw new Mismatch(`${where}: FlightData #${i} holds a ${kind} message`);
    }
    pieces.push(frame(header, body));
  });
  check(schemas === 1, `${where}: ${schemas} Schema messages, expected one`);
  pieces.push(END_OF_STREAM);

  let schema;
  let batches = [];
  try {
    const reader = RecordBatchReader.from(Buffer.concat(pieces));
    reader.open();
    schema = reader.schema;
    for (const batch of reader) batches.push(batch);
  } catch (e) {
    if (e instanceof Mismatch) throw new Mismatch(`${where}: ${e.message}`);  // from a codec
    throw new Mismatch(`${where}: apache-arrow cannot read the stream: ${e.message}`);
  }
  check(schema, `${where}: apache-arrow read no schema`);
  // A stream of a schema alone comes out of apache-arrow as one placeholder batch of no rows.
  if (batchMetadata.length === 0 && batches.length === 1 && batches[0].numRows === 0) batches = [];
  check(batches.length === batchMetadata.length,
    `${where}: apache-arrow read ${batches.length} batches from ${batchMetadata.length} RecordBatch messages`);
  checkSchema(schema, where);
  return { schema, batches: batches.map((batch, i) => ({ batch, appMetadata: batchMetadata[i] })) };
}

// Checks every value of a batch against the rules; returns its ids.
function checkBatch(batch, partition, partitions, where) {
  const ids = batch.getChild('id');
  const names = batch.getChild('name');
  const values = batch.getChild('value');
  const tags = batch.getChild('tags');
  const out = new Array(batch.numRows);
  let nameNulls = 0;
  let tagNulls = 0;
  for (let r = 0; r < batch.numRows; ++r) {
    const raw = ids.get(r);
    check(raw !== null, `${where}: row ${r}: id is null`);
    const id = Number(raw);
    check(Number.isSafeInteger(id) && id >= 0, `${where}: row ${r}: id ${raw}`);
    check(id % partitions === partition,
      `${where}: row ${r}: id ${id} is in partition ${partition}, but ${id} % ${partitions} = ${id % partitions}`);
    const name = names.get(r);
    const wantName = expectedName(id);
    check(name === wantName, `${where}: id ${id}: name ${JSON.stringify(name)}, expected ${JSON.stringify(wantName)}`);
    if (wantName === null) ++nameNulls;
    const value = values.get(r);
    check(value === id * 0.5, `${where}: id ${id}: value ${value}, expected ${id * 0.5}`);
    const list = tags.get(r);
    const wantTags = expectedTags(id);
    if (wantTags === null) {
      ++tagNulls;
      check(list === null, `${where}: id ${id}: tags ${JSON.stringify(list && [...list])}, expected null`);
    } else {
      check(list !== null, `${where}: id ${id}: tags null, expected ${JSON.stringify(wantTags)}`);
      const got = [...list];
      check(got.length === 2 && got[0] === wantTags[0] && got[1] === wantTags[1],
        `${where}: id ${id}: tags ${JSON.stringify(got)}, expected ${JSON.stringify(wantTags)}`);
    }
    out[r] = id;
  }
  check(ids.nullCount === 0 && values.nullCount === 0, `${where}: id or value has nulls`);
  check(names.nullCount === nameNulls, `${where}: name null count ${names.nullCount}, expected ${nameNulls}`);
  check(tags.nullCount === tagNulls, `${where}: tags null count ${tags.nullCount}, expected ${tagNulls}`);
  return out;
}

// A batch's runs of rows and the partition each belongs to: the whole batch under its label,
// or, for a label "i:rows,i:rows,...", each run cut out of it in order.
function labelledRuns(batch, appMetadata, where) {
  if (!appMetadata.includes(':')) return [{ label: appMetadata, rows: batch }];
  const runs = [];
  let offset = 0;
  for (const item of appMetadata.split(',')) {
    const [label, count] = item.split(':');
    const n = Number(count);
    check(Number.isSafeInteger(n) && n >= 0, `${where}: app_metadata item ${JSON.stringify(item)} has no row count`);
    runs.push({ label, rows: batch.slice(offset, offset + n) });
    offset += n;
  }
  check(offset === batch.numRows, `${where}: app_metadata ${JSON.stringify(appMetadata)} counts ${offset} rows, the batch has ${batch.numRows}`);
  return runs;
}

function checkIncreasing(ids, where) {
  for (let i = 1; i < ids.length; ++i) {
    check(ids[i] > ids[i - 1], `${where}: ids not increasing: ${ids[i - 1]} then ${ids[i]}`);
  }
}

// ---- The tool ----------------------------------------------------------------------------------

function startTool(cfg) {
  const argv = [String(cfg.rows), String(cfg.partitions), cfg.compression];
  if (cfg.token) argv.push(cfg.token);
  const child = spawn(tool, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
  const state = { child, stderr: '', exited: null, argv };
  child.stderr.on('data', (d) => {
    state.stderr = (state.stderr + d.toString('utf8')).slice(-8192);
  });
  state.exitPromise = new Promise((res) => {
    child.on('exit', (code, signal) => {
      state.exited = { code, signal };
      res(state.exited);
    });
    child.on('error', (e) => {
      state.exited = { code: null, signal: null, error: e };
      res(state.exited);
    });
  });
  child.stdin.on('error', () => {});
  state.firstLine = new Promise((res, rej) => {
    let buf = '';
    const timer = setTimeout(() => rej(new Mismatch(
      `the tool printed no line within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    child.stdout.on('data', (d) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        res(buf.slice(0, nl));
      }
    });
    state.exitPromise.then((e) => {
      clearTimeout(timer);
      rej(new Mismatch(`the tool exited before printing its line (${e.error ? e.error.message :
        `code ${e.code}, signal ${e.signal}`})`));
    });
  });
  return state;
}

function parseLine(line, cfg) {
  let info;
  try {
    info = JSON.parse(line);
  } catch (e) {
    throw new Mismatch(`the tool's line is not JSON (${e.message}): ${line.slice(0, 300)}`);
  }
  check(typeof info.address === 'string' && /^127\.0\.0\.1:\d+$/.test(info.address),
    `printed address ${JSON.stringify(info.address)} is not 127.0.0.1:PORT`);
  check(info.token === (cfg.token ?? DEFAULT_TOKEN),
    `printed token ${JSON.stringify(info.token)}, expected ${JSON.stringify(cfg.token ?? DEFAULT_TOKEN)}`);
  check(Array.isArray(info.partitions) && info.partitions.length === cfg.partitions,
    `printed ${info.partitions?.length} partitions, expected ${cfg.partitions}`);
  const seen = new Set();
  info.partitions.forEach((p, i) => {
    check(typeof p.ticket === 'string' && p.ticket.length > 0 && !p.ticket.includes('\n'),
      `partition ${i}: ticket ${JSON.stringify(p.ticket)}`);
    check(!seen.has(p.ticket), `partition ${i}: ticket ${p.ticket} printed twice`);
    seen.add(p.ticket);
    const want = rowsOfPartition(cfg.rows, cfg.partitions, i);
    check(p.rows === want, `partition ${i} (${p.ticket}): printed ${p.rows} rows, expected ${want}`);
  });
  return info;
}

// ---- One configuration -------------------------------------------------------------------------

async function runConfig(FlightService, cfg) {
  const label = `${cfg.compression} ${cfg.rows}x${cfg.partitions}${cfg.token ? ' (token given)' : ''}`;
  const started = Date.now();
  const state = startTool(cfg);
  let client = null;
  let timer = null;
  const timeout = new Promise((_, rej) => {
    timer = setTimeout(() => rej(new Mismatch(`not done within ${CONFIG_TIMEOUT_MS / 1000} s`)),
      CONFIG_TIMEOUT_MS);
  });
  const body = async () => {
    const info = parseLine(await state.firstLine, cfg);
    const { address, token } = info;
    const tickets = info.partitions.map((p) => p.ticket);
    client = new FlightService(address, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
    });
    const auth = bearer(token);
    const doGet = (ticket, md = auth) => collect((opts) =>
      client.DoGet({ ticket: Buffer.from(ticket, 'utf8') }, md, opts));
    const listFlights = (prefix, md = auth) => collect((opts) =>
      client.ListFlights({ expression: Buffer.from(prefix, 'utf8') }, md, opts));
    const notes = [];

    // auth: rejected before anything is read or sent.
    const rejected = async (what, call) => {
      const { messages, error } = await call;
      check(error && error.code === grpc.status.UNAUTHENTICATED,
        `${what}: ${statusText(error)}, expected UNAUTHENTICATED (16)`);
      check(messages.length === 0, `${what}: ${messages.length} messages before the error`);
    };
    await rejected('DoGet without metadata', doGet(tickets[0], new grpc.Metadata()));
    await rejected('DoGet with a wrong token', doGet(tickets[0], bearer(`${token}x`)));
    const noScheme = new grpc.Metadata();
    noScheme.set('authorization', token);
    await rejected('DoGet with the token but no "Bearer "', doGet(tickets[0], noScheme));
    await rejected('ListFlights without metadata', listFlights('', new grpc.Metadata()));
    await rejected('ListFlights with a wrong token', listFlights('', bearer(`wrong-${token}`)));

    // unknown ticket.
    {
      const { messages, error } = await doGet(`${tickets[0]}-missing`);
      check(error && error.code === grpc.status.NOT_FOUND,
        `DoGet of an unknown ticket: ${statusText(error)}, expected NOT_FOUND (5)`);
      check(messages.length === 0, `DoGet of an unknown ticket: ${messages.length} messages before the error`);
    }

    // list.
    const folder = tickets[0].includes('/') ? tickets[0].slice(0, tickets[0].lastIndexOf('/') + 1) : '';
    let listed = 0;
    for (const prefix of ['', tickets[0], folder, 'no-such-prefix/']) {
      const where = `ListFlights(${JSON.stringify(prefix)})`;
      const { messages, error } = await listFlights(prefix);
      check(error === null, `${where}: ${statusText(error)}`);
      const want = info.partitions.map((p, i) => ({ ...p, index: i })).filter((p) => p.ticket.startsWith(prefix));
      const got = messages.map((m) => m.flight_descriptor?.path?.[0]);
      check(messages.length === want.length && want.every((p) => got.includes(p.ticket)),
        `${where}: listed [${got.join(', ')}], expected [${want.map((p) => p.ticket).join(', ')}]`);
      for (const m of messages) {
        const p = want.find((x) => x.ticket === m.flight_descriptor.path[0]);
        const w = `${where} ${p.ticket}`;
        check(m.flight_descriptor.type === 'PATH', `${w}: descriptor type ${m.flight_descriptor.type}, expected PATH`);
        check(m.flight_descriptor.path.length === 1, `${w}: descriptor path [${m.flight_descriptor.path.join(', ')}]`);
        check(m.endpoint.length === 1, `${w}: ${m.endpoint.length} endpoints, expected 1`);
        const ep = m.endpoint[0];
        check(ep.ticket && ep.ticket.ticket.toString('utf8') === p.ticket,
          `${w}: endpoint ticket ${JSON.stringify(ep.ticket?.ticket?.toString('utf8'))}`);
        const uris = ep.location.map((l) => l.uri);
        check(uris.length === 1 && uris[0] === `grpc+tcp://${address}`,
          `${w}: endpoint locations [${uris.join(', ')}], expected [grpc+tcp://${address}]`);
        check(Number(m.total_records) === p.rows, `${w}: total_records ${m.total_records}, printed ${p.rows}`);
        check(Number(m.total_bytes) >= -1, `${w}: total_bytes ${m.total_bytes}`);
        readInfoSchema(m.schema, w);
        ++listed;
      }
    }

    // doget, union.
    const seenIds = new Uint8Array(cfg.rows);
    const batchCounts = [];
    codecStats.compressed = 0;
    for (let p = 0; p < tickets.length; ++p) {
      const where = `DoGet(${tickets[p]})`;
      const { messages, error } = await doGet(tickets[p]);
      check(error === null, `${where}: ${statusText(error)}`);
      const { batches } = decodeFlightData(messages, cfg.compression, where);
      const ids = [];
      for (const { batch, appMetadata } of batches) {
        check(appMetadata === '0', `${where}: a batch carries app_metadata ${JSON.stringify(appMetadata)}, expected "0"`);
        ids.push(...checkBatch(batch, p, cfg.partitions, where));
      }
      check(ids.length === info.partitions[p].rows, `${where}: ${ids.length} rows, printed ${info.partitions[p].rows}`);
      checkIncreasing(ids, where);
      for (const id of ids) {
        check(id < cfg.rows, `${where}: id ${id} >= ROWS ${cfg.rows}`);
        check(seenIds[id] === 0, `${where}: id ${id} was already in an earlier partition`);
        seenIds[id] = 1;
      }
      batchCounts.push(batches.length);
    }
    const missing = seenIds.indexOf(0);
    check(missing < 0, `union: id ${missing} is in no partition`);
    if (cfg.multiBatch) {
      check(batchCounts.some((n) => n > 1),
        `every partition came as a single batch (${batchCounts.join('/')}); this configuration is meant to stream several`);
    }
    if (CODEC_OF[cfg.compression] !== null && cfg.rows > 0) {
      check(codecStats.compressed > 0, `no buffer was compressed with ${cfg.compression}`);
      notes.push(`${codecStats.compressed} ${cfg.compression} buffers`);
    }

    // multi.
    const combos = [];
    if (tickets.length >= 2) combos.push([0, 1]);
    if (tickets.length >= 3) combos.push([tickets.length - 1, 0]);
    for (const combo of combos) {
      const ticket = combo.map((i) => tickets[i]).join('\n');
      const where = `DoGet(${JSON.stringify(ticket)})`;
      const { messages, error } = await doGet(ticket);
      check(error === null, `${where}: ${statusText(error)}`);
      const { batches } = decodeFlightData(messages, cfg.compression, where);
      const idsOf = combo.map(() => []);
      for (const { batch, appMetadata } of batches) {
        for (const { label, rows } of labelledRuns(batch, appMetadata, where)) {
          const k = ['0', '1'].indexOf(label);
          check(k >= 0, `${where}: a batch carries app_metadata ${JSON.stringify(appMetadata)}, expected "0", "1" or "i:rows,..."`);
          idsOf[k].push(...checkBatch(rows, combo[k], cfg.partitions, `${where} app_metadata "${k}"`));
        }
      }
      combo.forEach((p, k) => {
        check(idsOf[k].length === info.partitions[p].rows,
          `${where}: ${idsOf[k].length} rows with app_metadata "${k}", partition ${p} has ${info.partitions[p].rows}`);
        checkIncreasing(idsOf[k], `${where} app_metadata "${k}"`);
      });
    }

    client.close();
    client = null;

    // exit.
    state.child.stdin.end();
    const exitTimer = new Promise((res) => setTimeout(() => res(null), EXIT_TIMEOUT_MS));
    const exited = await Promise.race([state.exitPromise, exitTimer]);
    check(exited !== null, `the tool did not exit within ${EXIT_TIMEOUT_MS / 1000} s of its stdin being closed`);
    check(exited.code === 0, `the tool exited with code ${exited.code}, signal ${exited.signal} after stdin closed`);

    const rowsText = info.partitions.map((p) => p.rows).join('/');
    return `${cfg.partitions} partitions (${rowsText} rows, ${batchCounts.join('/')} batches), ` +
      `${listed} FlightInfos over 4 prefixes, multi-partition tickets: ${combos.length}, ` +
      `auth and unknown-ticket errors` + (notes.length ? `, ${notes.join(', ')}` : '');
  };
  try {
    const summary = await Promise.race([body(), timeout]);
    console.log(`OK    ${label}: ${summary}` + (verbose ? ` (${Date.now() - started} ms)` : ''));
    return true;
  } catch (e) {
    const message = e instanceof Mismatch ? e.message : (e.stack || String(e));
    console.log(`FAIL  ${label}: ${message}`);
    console.log(`      command: ${tool} ${state.argv.map((a) => JSON.stringify(a)).join(' ')}`);
    if (state.stderr.trim()) {
      console.log(`      the tool's stderr (end):\n        ${state.stderr.trim().split('\n').slice(-20).join('\n        ')}`);
    }
    return false;
  } finally {
    clearTimeout(timer);
    if (client) client.close();
    if (state.exited === null) state.child.kill('SIGKILL');
  }
}

// ---- Main --------------------------------------------------------------------------------------

let FlightService;
try {
  FlightService = loadFlightService();
} catch (e) {
  console.log(`FAIL  proto: ${e.message}`);
  process.exit(1);
}
if (verbose) console.log(`proto ${protoPath}: field numbers as in the Flight specification`);

const started = Date.now();
let passed = 0;
let failed = 0;
for (const cfg of CONFIGS) {
  if (await runConfig(FlightService, cfg)) ++passed;
  else ++failed;
}
console.log(`\nflight_client: ${CONFIGS.length} configurations in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
