// read_warc against an independent WARC writer and parser: warcio (webrecorder's warcio.js from
// npm, pinned in package-lock.json).
//
//   node warc_read.mjs PATH/TO/flotilla OUT_DIR [--verbose]
//
// Files (written into OUT_DIR/warc/ with warcio's WARCRecord.create and WARCSerializer, from a
// fixed seed, so every run writes the same bytes):
//   crawl.warc.gz      WARC/1.1, one gzip member per record (as Common Crawl ships them): warcinfo,
//                      request, response (an HTML body with CRLF, NUL and bytes that are not
//                      UTF-8; a body that holds "\r\n\r\n" and a "WARC/1.1" line), metadata with
//                      a repeated WARC-Concurrent-To, resource with a raw Unicode WARC-Target-URI
//                      and one with a URI warcio normalised (punycode, percent-encoding), revisit
//                      with an empty block and with HTTP headers only, records without
//                      WARC-Target-URI and without Content-Type, dates with 0, 1, 3 and 6 fraction
//                      digits, a 3 MiB incompressible block, then a few hundred small records;
//   legacy.warc        WARC/1.0, plain: the same kinds of records, one without WARC-Date, a
//                      1.5 MiB text block, then 1500 small records;
//   text.warc.wet.gz   WARC/1.0, gzip per record, shaped like a Common Crawl WET file: warcinfo,
//                      then 5000 `conversion` records with text/plain blocks (some empty) and the
//                      header order of Common Crawl's WET files.
// The reference is warcio's WARCParser reading each file back (keepHeadersCase, parseHttp off, so
// a record's payload is its whole block): every header in file order, the block's bytes, and the
// offset where the record (or its gzip member) starts. It is first checked against what was
// written (record ids, block bytes and lengths, headers, and offsets counted while writing); a
// disagreement there stops the run.
//
// Checks, each through `flotilla sql QUERY --format json`:
//   <file>.schema        the columns read_warc returns, with typeof() of each;
//   <file>.read          SELECT warc_version, record_id, record_type, target_uri, epoch_us(date),
//                        content_type, content_length, headers, sha256(payload), offset: one row
//                        per record in file order, every field equal to the reference (date as
//                        microseconds since the epoch, from WARC-Date read as UTC; NULL where
//                        WARC-Target-URI, WARC-Date or Content-Type is absent; headers as the
//                        list of {name, value} in file order; payload by its SHA-256, which also
//                        fixes its length; offset of the record, or of its gzip member);
//   <file>.count         count(*);
//   <file>.group_by      SELECT record_type, count(*) ... GROUP BY record_type;
//   <file>.projection    SELECT record_id, offset ... WHERE record_type <> 'warcinfo' (fewer
//                        columns and a filter), compared as a set;
//   <file>.limit         ... LIMIT 5: five distinct (record_id, offset) of the file;
//   glob, list           read_warc('DIR/*.warc*') over the three files (a file not matching the
//                        pattern lies beside them) and read_warc([FILE, FILE]): the total count
//                        and the set of (record_id, offset);
//   truncated_gzip       crawl.warc.gz cut in the middle of a record's gzip member: read_warc must
//                        fail (exit code not 0) with a message naming the file and holding the
//                        word "offset"; with ignore_errors = true it must return exactly the
//                        records before the cut, every field as in <file>.read;
//   truncated_plain      the same for legacy.warc cut in the middle of a record's block;
//   corrupt_gzip         crawl.warc.gz with one gzip member in the middle made undecodable (its
//                        first deflate block given the reserved block type): an error naming the
//                        file and "offset"; with ignore_errors = true, every record but that one.
// Exits 1 when any check fails.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { WARCParser, WARCRecord, WARCSerializer } from 'warcio';

const args = process.argv.slice(2);
const positional = [];
let verbose = false;
for (const a of args) {
  if (a === '--verbose') verbose = true;
  else positional.push(a);
}
if (positional.length !== 2) {
  console.error('usage: node warc_read.mjs PATH/TO/flotilla OUT_DIR [--verbose]');
  process.exit(2);
}
const flotilla = resolve(positional[0]);
const outDir = resolve(positional[1]);
const warcDir = join(outDir, 'warc');
const damagedDir = join(outDir, 'damaged');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(warcDir, { recursive: true });
mkdirSync(damagedDir, { recursive: true });
const started = Date.now();

// ---- Deterministic data -------------------------------------------------------------------------

// mulberry32.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    bytes: (n) => {
      const b = new Uint8Array(n);
      for (let i = 0; i < n; i++) b[i] = Math.floor(next() * 256);
      return b;
    },
  };
}
const r = rng(20240601);

const encoder = new TextEncoder();
function bytes(...parts) {
  const chunks = parts.map((p) => (typeof p === 'string' ? encoder.encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
const sha256 = (b) => createHash('sha256').update(b).digest('hex');

function uuid() {
  const b = r.bytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Buffer.from(b).toString('hex');
  return `<urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}>`;
}

// "YYYY-MM-DDThh:mm:ss[.f...]Z" for a time `seconds` after 2024-03-01T00:00:00Z with `digits`
// fraction digits.
function warcDate(seconds, digits = 0) {
  const base = Date.UTC(2024, 2, 1) / 1000;
  const text = new Date((base + Math.floor(seconds)) * 1000).toISOString().slice(0, 19);
  if (digits === 0) return `${text}Z`;
  const frac = String(Math.floor(r.next() * 10 ** digits)).padStart(digits, '0');
  return `${text}.${frac}Z`;
}

const LANGUAGES = [
  'The quick brown fox jumps over the lazy dog.',
  'Falsches Üben von Xylophonmusik quält jeden größeren Zwerg.',
  'Voix ambiguë d’un cœur qui, au zéphyr, préfère les jattes de kiwis.',
  'いろはにほへと ちりぬるを わかよたれそ つねならむ',
  'Съешь же ещё этих мягких французских булок, да выпей чаю.',
  'نص حكيم له سر قاطع وذو شأن عظيم مكتوب على ثوب أخضر',
  '天地玄黄 宇宙洪荒 日月盈昃 辰宿列张',
  'emoji: 🚢🌊⚓ and a tab\there',
];
function textBlock(lines) {
  const out = [];
  for (let i = 0; i < lines; i++) out.push(r.pick(LANGUAGES));
  return out.join('\n');
}

const HOSTS = ['example.com', 'www.example.org', 'news.example.net', 'bücher.example', '例え.テスト'];
function someUrl(i) {
  const host = r.pick(HOSTS);
  const path = r.pick(['', 'index.html', 'a/b/c?x=1&y=2', 'straße/ü', 'パス/値?q=検索', 'p%20q#frag']);
  return `https://${host}/${path}${path.includes('?') ? '&' : '?'}n=${i}`;
}

// Bodies that a parser splitting on line ends, NUL or UTF-8 would get wrong.
const TRICKY = bytes('line one\r\nline two\nline three\r\n\r\nafter a blank line\r\n',
  [0, 0, 1, 0], 'NUL above\r\n', [0xff, 0xfe, 0xc3, 0x28, 0x80, 0xe2, 0x82], ' not UTF-8\r\n',
  '\r\nWARC/1.1\r\nWARC-Type: response\r\nContent-Length: 5\r\n\r\nfake!\r\n\r\n', [0x0d], 'tail');
const HTML = bytes('<!DOCTYPE html>\r\n<html lang="de">\r\n<head><meta charset="utf-8"><title>Grüße</title>',
  '</head>\r\n<body>\r\n<p>Größe: 42 — “quoted” ünïcödé</p>\r\n<p>', [0], ' NUL in text, Latin-1 ',
  [0xe9, 0xe8], ' bytes</p>\r\n\r\n\r\n</body></html>\r\n');

// ---- Writing ------------------------------------------------------------------------------------

// A record to write: { type, date, url (normalised by warcio) or uri (written as is), headers
// ([name, value] WARC headers before warcio's own), http ({ statusline, headers } for request,
// response, revisit), body, drop (header names removed after warcio built the record) }.
function httpHead(http) {
  return `${http.statusline}\r\n${http.headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
}

// Writes `specs` to `file`; returns what was written, one entry per record: id, block (sha256 and
// length), headers in the order written, offset and length of the record's bytes in the file.
async function writeWarc(file, version, gzip, specs) {
  const parts = [];
  const written = [];
  let offset = 0;
  for (const s of specs) {
    const id = s.id ?? uuid();
    // A WARC-Record-ID among s.headers only fixes the header's position.
    const headers = (s.headers ?? []).map(([n, v]) => [n, n === 'WARC-Record-ID' ? id : v]);
    if (!headers.some(([n]) => n === 'WARC-Record-ID')) headers.unshift(['WARC-Record-ID', id]);
    if (s.uri !== undefined) headers.push(['WARC-Target-URI', s.uri]);
    const opts = {
      type: s.type, date: s.date, warcVersion: version, warcHeaders: headers,
      url: s.url, refersToUrl: s.refersToUrl, refersToDate: s.refersToDate,
    };
    if (s.http) {
      opts.statusline = s.http.statusline;
      opts.httpHeaders = s.http.headers;
    } else if (s.type === 'response' || s.type === 'request' || s.type === 'revisit') {
      opts.httpHeaders = [];
    }
    const body = s.body ?? new Uint8Array(0);
    const record = WARCRecord.create(opts, body.length ? [body] : undefined);
    for (const name of s.drop ?? []) record.warcHeaders.headers.delete(name);
    if (s.type === 'revisit' && !s.http && record.httpHeaders) {
      throw new Error('warcio added HTTP headers to an empty revisit record');
    }
    const serialized = await WARCSerializer.serialize(record, { gzip });
    const block = s.http ? bytes(httpHead(s.http), body) : body;
    written.push({
      id, type: s.type, blockSha: sha256(block), blockLength: block.length,
      headers: [...record.warcHeaders.headers], offset, length: serialized.length,
    });
    parts.push(serialized);
    offset += serialized.length;
  }
  writeFileSync(file, Buffer.concat(parts));
  return written;
}

function commonRecords(version, prefix) {
  const frac = (i) => (version === 'WARC/1.1' ? [0, 1, 3, 6][i % 4] : 0);
  let t = 0;
  const date = (i = 0) => warcDate((t += 17), frac(i));
  const responseId = uuid(), binaryId = uuid();
  const page = `https://example.com/${prefix}/index.html`;
  const specs = [
    {
      type: 'warcinfo', date: date(), headers: [['WARC-Filename', `${prefix}.warc`]],
      body: bytes(`software: warcio.js\r\nformat: WARC File Format ${version.slice(5)}\r\n`,
        'isPartOf: flotilla-interop\r\ndescription: Prüfdaten für read_warc\r\n'),
    },
    {
      type: 'request', date: date(), url: page,
      headers: [['WARC-Concurrent-To', responseId], ['WARC-IP-Address', '192.0.2.7']],
      http: {
        statusline: `GET /${prefix}/index.html HTTP/1.1`,
        headers: [['Host', 'example.com'], ['User-Agent', 'interop-check/1.0'], ['Accept', '*/*']],
      },
    },
    {
      id: responseId, type: 'response', date: date(1), url: page,
      headers: [['WARC-IP-Address', '192.0.2.7']],
      http: {
        statusline: 'HTTP/1.1 200 OK',
        headers: [['Content-Type', 'text/html; charset=utf-8'], ['Content-Length', String(HTML.length)],
          ['Set-Cookie', 'a=1; Path=/'], ['Set-Cookie', 'b=2; Path=/']],
      },
      body: HTML,
    },
    {
      id: binaryId, type: 'response', date: date(2), url: `https://example.com/${prefix}/blob.bin`,
      http: {
        statusline: 'HTTP/1.1 200 OK',
        headers: [['Content-Type', 'application/octet-stream'], ['Content-Length', String(TRICKY.length)]],
      },
      body: TRICKY,
    },
    {
      type: 'metadata', date: date(3), url: page,
      headers: [['WARC-Concurrent-To', responseId], ['WARC-Concurrent-To', binaryId]],
      body: bytes('via: https://example.com/\r\nhopsFromSeed: P\r\nfetchTimeMs: 12\r\n'),
    },
    {
      type: 'resource', date: date(), uri: 'https://bücher.example/straße/日本語?q=ü&x=%C3%BC#frag',
      headers: [['Content-Type', 'image/png']],
      body: bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], r.bytes(300)),
    },
    {
      type: 'response', date: date(1), url: 'https://例え.テスト/パス?q=値',
      http: { statusline: 'HTTP/1.1 404 Not Found', headers: [['Content-Type', 'text/plain; charset=utf-8']] },
      body: bytes('nicht gefunden — 見つかりません\n'),
    },
    {
      type: 'revisit', date: date(2), url: page, refersToUrl: page, refersToDate: warcDate(1, 0),
      headers: [['WARC-Refers-To', responseId]],
    },
    {
      type: 'revisit', date: date(3), url: page, refersToUrl: page, refersToDate: warcDate(2, 0),
      http: {
        statusline: 'HTTP/1.1 304 Not Modified',
        headers: [['ETag', '"abc"'], ['Date', 'Fri, 01 Mar 2024 00:00:00 GMT']],
      },
    },
    {
      type: 'metadata', date: date(), headers: [['X-Note', 'no target URI: ünïcödé, colons: a:b']],
      body: bytes('note: a metadata record about nothing in particular\r\n'),
    },
    {
      type: 'resource', date: date(), url: `https://example.com/${prefix}/no-content-type`,
      drop: ['Content-Type'], body: bytes('x'),
    },
    {
      type: 'resource', date: date(1), url: `https://example.com/${prefix}/empty.txt`,
      headers: [['Content-Type', 'text/plain']],
    },
  ];
  return { specs, date };
}

function smallRecords(n, version, date, textOnly) {
  const specs = [];
  const types = ['request', 'response', 'resource', 'metadata', 'resource', 'response'];
  for (let i = 0; i < n; i++) {
    const type = types[i % types.length];
    const url = someUrl(i);
    const body = textOnly || r.next() < 0.5 ? bytes(textBlock(r.int(12))) : r.bytes(r.int(600));
    const s = { type, date: date(i), url, body };
    if (type === 'request') {
      s.http = { statusline: `GET /${i} HTTP/1.1`, headers: [['Host', 'example.com']] };
      s.body = undefined;
    } else if (type === 'response') {
      s.http = {
        statusline: 'HTTP/1.1 200 OK',
        headers: [['Content-Type', r.pick(['text/html', 'text/plain; charset=utf-8', 'image/gif'])],
          ['Content-Length', String(body.length)]],
      };
    } else if (type === 'resource') {
      s.headers = [['Content-Type', r.pick(['text/plain', 'application/octet-stream', 'text/css'])]];
    }
    if (version === 'WARC/1.1' && i % 50 === 7) {
      s.headers = [...(s.headers ?? []), ['WARC-Protocol', 'h2'], ['WARC-Protocol', 'tls/1.3']];
    }
    specs.push(s);
  }
  return specs;
}

function crawlSpecs() {
  const { specs, date } = commonRecords('WARC/1.1', 'crawl');
  specs.splice(6, 0, {
    type: 'resource', date: date(3), url: 'https://example.com/crawl/large.bin',
    headers: [['Content-Type', 'application/octet-stream']], body: r.bytes(3 * 1024 * 1024 + 17),
  });
  return [...specs, ...smallRecords(400, 'WARC/1.1', date, false)];
}

function legacySpecs() {
  const { specs, date } = commonRecords('WARC/1.0', 'legacy');
  specs.push(
    {
      type: 'resource', date: date(), url: 'https://example.com/legacy/undated', drop: ['WARC-Date'],
      headers: [['Content-Type', 'text/plain']], body: bytes('a record without WARC-Date\n'),
    },
    {
      type: 'resource', date: date(), url: 'https://example.com/legacy/book.txt',
      headers: [['Content-Type', 'text/plain; charset=utf-8']], body: bytes(textBlock(24000)),
    },
    {
      type: 'conversion', date: date(), url: 'https://example.com/legacy/index.html',
      headers: [['Content-Type', 'text/plain']], body: bytes(textBlock(5)),
    },
  );
  return [...specs, ...smallRecords(1500, 'WARC/1.0', date, true)];
}

function wetSpecs() {
  let t = 0;
  const specs = [{
    type: 'warcinfo', date: warcDate(0), headers: [['WARC-Filename', 'text.warc.wet.gz']],
    body: bytes('Software-Info: ia-web-commons\r\nExtracted-Date: Fri, 01 Mar 2024\r\n'),
  }];
  for (let i = 0; i < 5000; i++) {
    const date = warcDate((t += 3));
    const lines = i % 97 === 5 ? 0 : 1 + r.int(20);
    specs.push({
      type: 'conversion', date,
      headers: [['WARC-Type', 'conversion'], ['WARC-Target-URI', someUrl(i)], ['WARC-Date', date],
        ['WARC-Record-ID', ''], ['WARC-Refers-To', uuid()],
        ['WARC-Identified-Content-Language', r.pick(['eng', 'deu,eng', 'jpn', 'rus', 'ara,fra'])],
        ['Content-Type', 'text/plain'], ['Content-Length', '0']],
      body: lines ? bytes(textBlock(lines)) : undefined,
    });
  }
  return specs;
}

// ---- Reading back with warcio -----------------------------------------------------------------

async function parseWarc(file) {
  const parser = new WARCParser(createReadStream(file), { keepHeadersCase: true, parseHttp: false });
  const records = [];
  for await (const record of parser) {
    const offset = parser.offset;
    const block = await record.readFully();
    const headers = [...record.warcHeaders.headers];
    const get = (name) => {
      const h = headers.find(([n]) => n === name);
      return h ? h[1] : null;
    };
    records.push({
      version: record.warcHeaders.statusline, id: get('WARC-Record-ID'), type: get('WARC-Type'),
      uri: get('WARC-Target-URI'), date: get('WARC-Date'), contentType: get('Content-Type'),
      contentLength: Number(get('Content-Length')), headers, blockSha: sha256(block),
      blockLength: block.length, offset,
    });
  }
  return records;
}

// Microseconds since the epoch of a WARC-Date ("YYYY-MM-DDThh:mm:ss[.f{1,6}]Z"), as a string.
function dateMicros(text) {
  if (text === null) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/.exec(text);
  if (!m) throw new Error(`unexpected WARC-Date ${text}`);
  const secs = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) / 1000;
  return (BigInt(secs) * 1000000n + BigInt((m[7] ?? '').padEnd(6, '0'))).toString();
}

// The reference must agree with what was written, or nothing below means anything.
function selfCheck(name, written, parsed) {
  const problems = [];
  if (written.length !== parsed.length) {
    problems.push(`${written.length} records written, ${parsed.length} parsed`);
  }
  for (let i = 0; i < Math.min(written.length, parsed.length) && problems.length < 5; i++) {
    const w = written[i], p = parsed[i];
    const same = (what, a, b) => {
      if (a !== b) {
        problems.push(`record #${i} ${what}: written ${JSON.stringify(a)}, parsed ${JSON.stringify(b)}`);
      }
    };
    same('id', w.id, p.id);
    same('type', w.type, p.type);
    same('block sha256', w.blockSha, p.blockSha);
    same('block length', w.blockLength, p.blockLength);
    same('Content-Length', w.blockLength, p.contentLength);
    same('offset', w.offset, p.offset);
    same('headers', JSON.stringify(w.headers), JSON.stringify(p.headers));
  }
  if (problems.length) {
    console.log(`FAIL  ${name}.reference: warcio's parser and what was written disagree:\n` +
      `      ${problems.join('\n      ')}`);
    process.exit(1);
  }
}

// ---- Running flotilla ---------------------------------------------------------------------------

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

function firstLine(s) {
  const lines = (s || '').split('\n').filter((l) => l.trim() !== '');
  const line = lines.find((l) => /error/i.test(l)) ?? lines[0] ?? '';
  return line.length > 400 ? `${line.slice(0, 400)}...` : line;
}

// { rows } or { error, stderr, status }.
function runSql(sql) {
  const p = spawnSync(flotilla, ['sql', sql, '--format', 'json'], {
    encoding: 'utf8', maxBuffer: 1 << 30, timeout: 120000,
    env: { ...process.env, FLOTILLA_PROGRESS: '0' },
  });
  if (p.error) return { error: `could not run ${flotilla}: ${p.error.message}`, stderr: '', status: null };
  if (p.status !== 0) {
    const msg = firstLine(p.stderr) || firstLine(p.stdout) || '<no message>';
    return { error: `exit ${p.status ?? p.signal}: ${msg}`, stderr: p.stderr, status: p.status, signal: p.signal };
  }
  const rows = [];
  for (const line of p.stdout.split('\n')) {
    if (line === '') continue;
    try {
      rows.push(JSON.parse(line));
    } catch (e) {
      const error = `output line is not JSON (${e.message}): ${line.slice(0, 200)}`;
      return { error, stderr: p.stderr, status: 0 };
    }
  }
  return { rows };
}

// ---- Checks -------------------------------------------------------------------------------------

let okCount = 0;
const failures = [];
const ok = (label, text) => {
  okCount++;
  console.log(`OK    ${label}: ${text}`);
};
const fail = (label, text, sql) => {
  failures.push(label);
  console.log(`FAIL  ${label}: ${text}`);
  if (sql) console.log(`      query: ${sql}`);
};
const diff = (label, where, problems, sql) => {
  failures.push(label);
  console.log(`DIFF  ${label} (${where})\n      ${problems.join('\n      ')}`);
  if (sql) console.log(`      query: ${sql}`);
};
const fileSize = (file) => {
  const n = statSync(file).size;
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
};

// The column of a record's offset: quoted in SQL (OFFSET is a keyword), read back as "offset".
const OFFSET = 'record_offset';
const OFFSET_SQL = `"${OFFSET}" AS "offset"`;

const COLUMNS = [
  ['warc_version', 'VARCHAR'], ['record_id', 'VARCHAR'], ['record_type', 'VARCHAR'],
  ['target_uri', 'VARCHAR'], ['date', 'TIMESTAMP WITH TIME ZONE'], ['content_type', 'VARCHAR'],
  ['content_length', 'BIGINT'], ['headers', 'STRUCT(name VARCHAR, value VARCHAR)[]'],
  ['payload', 'BLOB'], [OFFSET, 'BIGINT'],
];

function checkSchema(label, source) {
  const sql = `DESCRIBE SELECT * FROM ${source}`;
  const d = runSql(sql);
  if (d.error) return fail(label, d.error, sql);
  const names = d.rows.map((row) => row.column_name);
  const problems = [];
  const missing = COLUMNS.filter(([n]) => !names.includes(n)).map(([n]) => n);
  if (missing.length) problems.push(`missing columns: ${missing.join(', ')} (columns: ${names.join(', ')})`);
  const present = COLUMNS.filter(([n]) => names.includes(n));
  const order = names.filter((n) => COLUMNS.some(([c]) => c === n));
  if (order.join() !== present.map(([n]) => n).join()) problems.push(`column order: ${names.join(', ')}`);
  if (present.length) {
    const tsql = `SELECT ${present.map(([n]) => `typeof("${n}") AS "${n}"`).join(', ')} FROM ${source} LIMIT 1`;
    const t = runSql(tsql);
    if (t.error) return fail(label, t.error, tsql);
    for (const [n, type] of present) {
      const got = t.rows[0]?.[n];
      if (got !== type) problems.push(`column ${n}: typeof gives ${JSON.stringify(got)}, expected ${type}`);
    }
  }
  const extra = names.filter((n) => !COLUMNS.some(([c]) => c === n));
  if (problems.length) return diff(label, source, problems, sql);
  ok(label, `${names.length} columns` + (extra.length ? ` (besides the expected ones: ${extra.join(', ')})` : ''));
}

const READ_COLUMNS = 'warc_version, record_id, record_type, target_uri, epoch_us("date") AS date_us, ' +
  'CAST("date" AS VARCHAR) AS date_text, content_type, content_length, headers, ' +
  `sha256(payload) AS payload_sha256, ${OFFSET_SQL}`;

const show = (v) => JSON.stringify(typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}...` : v);

// Problems of our rows against the reference records, in order.
function compareRecords(name, rows, ref) {
  const problems = [];
  const limit = verbose ? 50 : 8;
  if (rows.length !== ref.length) problems.push(`${rows.length} rows, ${ref.length} records in the file`);
  const ourIds = rows.map((row) => row.record_id);
  const refIds = ref.map((e) => e.id);
  let pairs = rows.map((row, i) => [row, ref[i], i]).filter(([, e]) => e !== undefined);
  const firstOut = ourIds.findIndex((id, i) => id !== refIds[i]);
  if (firstOut >= 0) {
    const byId = new Map(ref.map((e, i) => [e.id, [e, i]]));
    const unknown = ourIds.filter((id) => !byId.has(id));
    const ourSet = new Set(ourIds);
    const lost = refIds.filter((id) => !ourSet.has(id));
    if (unknown.length) problems.push(`${unknown.length} record ids not in the file, e.g. ${show(unknown[0])}`);
    if (lost.length) problems.push(`${lost.length} records missing, first #${refIds.indexOf(lost[0])} ${lost[0]}`);
    if (!unknown.length) {
      problems.push(`rows not in file order: row ${firstOut} is record ${show(ourIds[firstOut])}, ` +
        `the file's record #${firstOut} is ${refIds[firstOut]}`);
    }
    pairs = rows.filter((row) => byId.has(row.record_id)).map((row) => [row, ...byId.get(row.record_id)]);
  }
  let shown = 0, differing = 0;
  const perField = new Map();
  for (const [row, e, i] of pairs) {
    const expected = {
      warc_version: e.version, record_id: e.id, record_type: e.type, target_uri: e.uri,
      date_us: dateMicros(e.date), content_type: e.contentType, content_length: e.contentLength,
      payload_sha256: e.blockSha, offset: e.offset,
    };
    const got = { ...row, date_us: row.date_us === null || row.date_us === undefined ? row.date_us : `${row.date_us}` };
    const bad = [];
    for (const [field, want] of Object.entries(expected)) {
      if (got[field] !== want) {
        let text = `expected ${show(want)}, got ${show(got[field])}`;
        if (field === 'date_us') text += ` (WARC-Date ${show(e.date)}, read as ${show(row.date_text)})`;
        if (field === 'payload_sha256') {
          text += ` (block of ${e.blockLength} bytes, Content-Length ${row.content_length})`;
        }
        bad.push([field, text]);
      }
    }
    const hs = row.headers;
    if (!Array.isArray(hs)) {
      bad.push(['headers', `expected a list of ${e.headers.length} {name, value}, got ${show(hs)}`]);
    } else {
      const ours = hs.map((h) => [h?.name, h?.value]);
      if (ours.length !== e.headers.length) {
        bad.push(['headers', `${ours.length} headers, expected ${e.headers.length}: ` +
          `got ${show(ours.map(([n]) => n))}, expected ${show(e.headers.map(([n]) => n))}`]);
      } else {
        const k = ours.findIndex(([n, v], j) => n !== e.headers[j][0] || v !== e.headers[j][1]);
        if (k >= 0) {
          bad.push(['headers', `header ${k}: expected ${show(e.headers[k])}, got ${show(ours[k])} (raw ${show(hs[k])})`]);
        }
      }
    }
    if (bad.length) {
      differing++;
      for (const [field, text] of bad) {
        perField.set(field, (perField.get(field) ?? 0) + 1);
        if (shown++ < limit) problems.push(`${name} record #${i} ${e.id} (${e.type}), ${field}: ${text}`);
      }
    }
  }
  if (differing) {
    problems.push(`${differing} of ${pairs.length} records differ; by field: ` +
      [...perField].map(([f, c]) => `${f} ${c}`).join(', '));
  }
  return problems;
}

function checkRead(label, name, source, ref, extra = '') {
  const sql = `SELECT ${READ_COLUMNS} FROM ${source}`;
  const t0 = Date.now();
  const res = runSql(sql);
  const ms = Date.now() - t0;
  if (res.error) return fail(label, res.error, sql);
  const problems = compareRecords(name, res.rows, ref);
  if (problems.length) return diff(label, source, problems, sql);
  ok(label, `${ref.length} records${extra}` + (verbose ? ` (${ms} ms)` : ''));
}

function countBy(xs, key) {
  const m = new Map();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}
const ourPairs = (rows) => rows.map((row) => `${row.record_id}@${row.offset}`);
const refPairs = (records) => records.map((e) => `${e.id}@${e.offset}`);

function compareSets(label, source, sql, got, want) {
  const g = countBy(got, (x) => x), w = countBy(want, (x) => x);
  const missing = [...w.keys()].filter((k) => (g.get(k) ?? 0) < w.get(k));
  const extra = [...g.keys()].filter((k) => (w.get(k) ?? 0) < g.get(k));
  if (got.length !== want.length || missing.length || extra.length) {
    return diff(label, source, [`${got.length} rows, expected ${want.length}`,
      ...(missing.length ? [`${missing.length} (record_id, offset) missing, e.g. ${missing[0]}`] : []),
      ...(extra.length ? [`${extra.length} unexpected, e.g. ${extra[0]}`] : [])], sql);
  }
  ok(label, `${got.length} (record_id, offset) pairs`);
}

function checkFile(name, file, ref) {
  const source = `read_warc(${sqlString(file)})`;
  checkSchema(`${name}.schema`, source);
  checkRead(`${name}.read`, name, source, ref, `, ${fileSize(file)}`);

  let sql = `SELECT count(*) AS n FROM ${source}`;
  let res = runSql(sql);
  if (res.error) fail(`${name}.count`, res.error, sql);
  else if (res.rows[0]?.n !== ref.length) {
    fail(`${name}.count`, `count(*) is ${show(res.rows[0]?.n)}, the file has ${ref.length} records`, sql);
  }
  else ok(`${name}.count`, `${ref.length}`);

  sql = `SELECT record_type, count(*) AS n FROM ${source} GROUP BY record_type`;
  res = runSql(sql);
  const want = countBy(ref, (e) => e.type);
  if (res.error) fail(`${name}.group_by`, res.error, sql);
  else {
    const got = new Map(res.rows.map((row) => [row.record_type, row.n]));
    const keys = [...new Set([...want.keys(), ...got.keys()])].sort();
    const bad = keys.filter((k) => got.get(k) !== want.get(k));
    const text = (m) => keys.map((k) => `${k} ${m.get(k) ?? 0}`).join(', ');
    if (bad.length || res.rows.length !== got.size) {
      diff(`${name}.group_by`, source, [`expected ${text(want)}`, `got      ${text(got)}`], sql);
    } else {
      ok(`${name}.group_by`, text(got));
    }
  }

  sql = `SELECT record_id, ${OFFSET_SQL} FROM ${source} WHERE record_type <> 'warcinfo'`;
  res = runSql(sql);
  if (res.error) fail(`${name}.projection`, res.error, sql);
  else {
    const want = refPairs(ref.filter((e) => e.type !== 'warcinfo'));
    compareSets(`${name}.projection`, source, sql, ourPairs(res.rows), want);
  }

  sql = `SELECT record_id, ${OFFSET_SQL} FROM ${source} LIMIT 5`;
  res = runSql(sql);
  if (res.error) fail(`${name}.limit`, res.error, sql);
  else {
    const known = new Set(refPairs(ref));
    const got = ourPairs(res.rows);
    const bad = got.filter((p) => !known.has(p));
    if (got.length !== 5 || bad.length || new Set(got).size !== got.length) {
      diff(`${name}.limit`, source, [`${got.length} rows, expected 5 distinct records of the file; got ${show(got)}`], sql);
    } else {
      ok(`${name}.limit`, '5 records of the file');
    }
  }
}

// A damaged file: without ignore_errors the query must fail naming the file and an offset; with
// it, the rows must be exactly `expected`.
function checkDamaged(label, file, expected, what) {
  const plain = `read_warc(${sqlString(file)})`;
  const sql = `SELECT record_id, sha256(payload) AS payload_sha256 FROM ${plain}`;
  const res = runSql(sql);
  if (!res.error) {
    fail(`${label}.error`, `${what}: the query succeeded with ${res.rows.length} rows instead of failing`, sql);
  } else if (res.status === null || res.signal) {
    fail(`${label}.error`, `${what}: ${res.error}`, sql);
  } else {
    const msg = res.stderr ?? '';
    const problems = [];
    if (!msg.includes(basename(file))) problems.push(`the message does not name ${basename(file)}`);
    if (!/offset/i.test(msg)) problems.push('the message does not contain "offset"');
    if (/internal error|Status::Internal/i.test(msg)) problems.push('an internal error');
    if (problems.length) fail(`${label}.error`, `${what}: ${problems.join('; ')}: ${firstLine(msg)}`, sql);
    else ok(`${label}.error`, `${what}: ${firstLine(msg)}`);
  }
  const source = `read_warc(${sqlString(file)}, ignore_errors = true)`;
  checkRead(`${label}.ignore_errors`, basename(file), source, expected, `, ${what}`);
}

// ---- Main ---------------------------------------------------------------------------------------

const files = [
  { name: 'crawl', file: join(warcDir, 'crawl.warc.gz'), version: 'WARC/1.1', gzip: true, specs: crawlSpecs },
  { name: 'legacy', file: join(warcDir, 'legacy.warc'), version: 'WARC/1.0', gzip: false, specs: legacySpecs },
  { name: 'wet', file: join(warcDir, 'text.warc.wet.gz'), version: 'WARC/1.0', gzip: true, specs: wetSpecs },
];
const tWrite = Date.now();
for (const f of files) {
  f.written = await writeWarc(f.file, f.version, f.gzip, f.specs());
}
writeFileSync(join(warcDir, 'README.txt'), 'not a WARC file: the glob *.warc* must not match it\n');
const writeMs = Date.now() - tWrite;
for (const f of files) {
  f.ref = await parseWarc(f.file);
  selfCheck(f.name, f.written, f.ref);
  if (verbose) {
    const types = [...countBy(f.ref, (e) => e.type)].map(([t, n]) => `${t} ${n}`).join(', ');
    console.log(`      ${basename(f.file)}: ${fileSize(f.file)}, ${f.ref.length} records (${types})`);
  }
}

for (const f of files) checkFile(f.name, f.file, f.ref);

// Several files at once.
{
  const all = files.flatMap((f) => f.ref);
  const glob = `read_warc(${sqlString(join(warcDir, '*.warc*'))})`;
  let sql = `SELECT count(*) AS n FROM ${glob}`;
  let res = runSql(sql);
  if (res.error) fail('glob.count', res.error, sql);
  else if (res.rows[0]?.n !== all.length) {
    fail('glob.count', `count(*) is ${show(res.rows[0]?.n)}, the files hold ${all.length} records`, sql);
  }
  else ok('glob.count', `${all.length} records in ${files.length} files`);
  sql = `SELECT record_id, ${OFFSET_SQL} FROM ${glob}`;
  res = runSql(sql);
  if (res.error) fail('glob.records', res.error, sql);
  else compareSets('glob.records', glob, sql, ourPairs(res.rows), refPairs(all));

  const two = [files[0], files[1]];
  const list = `read_warc([${two.map((f) => sqlString(f.file)).join(', ')}])`;
  sql = `SELECT record_id, ${OFFSET_SQL} FROM ${list}`;
  res = runSql(sql);
  if (res.error) fail('list.records', res.error, sql);
  else compareSets('list.records', list, sql, ourPairs(res.rows), refPairs(two.flatMap((f) => f.ref)));
}

// Damaged copies.
{
  const crawl = files[0], legacy = files[1];
  const original = readFileSync(crawl.file);
  const middle = (f) => {
    let k = Math.floor(f.ref.length / 2);
    while (f.written[k].blockLength < 100) k++;
    return k;
  };

  let k = middle(crawl);
  let rec = crawl.written[k];
  const cut = rec.offset + Math.floor(rec.length / 2);
  const cutFile = join(damagedDir, 'crawl-cut.warc.gz');
  writeFileSync(cutFile, original.subarray(0, cut));
  checkDamaged('truncated_gzip', cutFile, crawl.ref.slice(0, k),
    `cut at byte ${cut}, inside the gzip member of record #${k} (offset ${rec.offset}, ${rec.length} bytes)`);

  k = middle(legacy);
  rec = legacy.written[k];
  const headerLength = rec.length - rec.blockLength - 4;
  const plainCut = rec.offset + headerLength + Math.floor(rec.blockLength / 2);
  const plainFile = join(damagedDir, 'legacy-cut.warc');
  writeFileSync(plainFile, readFileSync(legacy.file).subarray(0, plainCut));
  checkDamaged('truncated_plain', plainFile, legacy.ref.slice(0, k),
    `cut at byte ${plainCut}, inside the block of record #${k} (offset ${rec.offset})`);

  k = middle(crawl) + 3;
  rec = crawl.written[k];
  const corrupt = Buffer.from(original);
  // A gzip header without optional fields is 10 bytes; the deflate data starts after it.
  if (corrupt[rec.offset] !== 0x1f || corrupt[rec.offset + 1] !== 0x8b || corrupt[rec.offset + 3] !== 0) {
    console.log(`FAIL  corrupt_gzip: the member at ${rec.offset} does not start with a plain gzip header`);
    process.exit(1);
  }
  corrupt[rec.offset + 10] = 0x07;
  const corruptFile = join(damagedDir, 'crawl-corrupt.warc.gz');
  writeFileSync(corruptFile, corrupt);
  checkDamaged('corrupt_gzip', corruptFile, crawl.ref.filter((_, i) => i !== k),
    `the gzip member of record #${k} at offset ${rec.offset} undecodable`);
}

const total = okCount + failures.length;
const summary = files.map((f) => `${basename(f.file)} ${f.ref.length} records, ${fileSize(f.file)}`).join('; ');
console.log(`\n${files.length} WARC files (${summary}): ` +
  `${total} checks, ${okCount} OK, ${failures.length} failing${failures.length ? ` (${failures.join(', ')})` : ''}; ` +
  `warcio wrote the files in ${(writeMs / 1000).toFixed(1)} s, total ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failures.length === 0 && total > 0 ? 0 : 1);
