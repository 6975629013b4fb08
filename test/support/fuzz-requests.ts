/**
 * Hostile HTTP requests from a seeded PRNG: each one is mostly plausible with a few things wrong
 * (methods, targets, percent-encoding, parameters, headers, bodies, framing), so it gets past the
 * parser often enough to reach the routing, auth, parameter and SQL layers behind it.
 */
import type { Prng } from '../../src/store/demo/prng.ts';
import { LOGS_ALL_ID, USAGE_ID } from './service.ts';

export interface FuzzRequest {
  bytes: Buffer;
  method: string;
  /** The bytes were truncated: half-close at once so the server sees the end (see raw-http.ts). */
  halfClose: boolean;
  /** What was generated, for the failure message. */
  summary: string;
}


const METHODS: readonly (readonly [number, string])[] = [
  [40, 'GET'], [20, 'POST'], [8, 'HEAD'], [5, 'OPTIONS'], [2, 'PUT'], [2, 'DELETE'], [2, 'PATCH'], [1, 'TRACE'],
  [1, 'PROPFIND'], [1, 'CONNECT'], [1, 'FOO'], [1, 'get'], [1, 'G\tET'], [1, 'GET GET'], [1, ''], [1, 'M-SEARCH'], [1, 'PURGE'],
];

const TARGETS = ['logs.all', 'usage.api-counts', LOGS_ALL_ID, USAGE_ID, USAGE_ID.toUpperCase(), 'LOGS.ALL', 'logs.all ', 'logs%2Eall', 'logs.al', 'nope'];
const MALFORMED_PERCENT = ['%', '%4', '%zz', '%E2%82', '%C0%AF', '%00', '%FF%FE', '%%', '%2', '%u0041', '%ED%A0%80', '%F4%90%80%80', '%0A', '%0D%0A', '%2F', '%3F', '%23'];
const OTHER_PATHS = ['/health', '/ready', '/', '/api/endpoints', '/api/endpoints/query', '/api/endpoints/query/', '/metrics', '/openapi.json', '*', '//health', '/health/', '/HEALTH', '/health?x=1', 'http://example.com/health', 'https://x/api/endpoints/query/logs.all?project=a', '/api/endpoints/query/logs.all/extra', '/./health', '/api/../health', '/a"b', '/back\\slash', '/api/endpoints/query/logs"all'];
const PARAM_NAMES = ['project', 'project', 'interval', 'interval', 'iso_timestamp_start', 'iso_timestamp_end', 'sql', '', 'PROJECT', 'project[]', '__proto__', 'constructor', 'toString', 'x', '%', '%zz', 'pro%00ject', 'a=b'];
const GOOD_VALUES = ['alpha', 'default', 'daily', 'hourly', 'minutely', '2026-11-20T12:00:00Z', '2026-11-20T12:00:00.123456', '2026-11-20', '.*', 'alpha|beta', '^https://'];
const BAD_VALUES = [
  '', ' ', '2026-02-30T00:00:00Z', '2026-11-20T25:00:00Z', '+275760-09-13T00:00:00.000Z', '0000-01-01', '-infinity', 'infinity', 'epoch', 'now', 'today',
  '(', '[', '*', '\\', 'a{1000000}', '(?<=x)', '\\p{L}', '[[:alpha:]', 'a**', '(a|', 'yearly', 'DAILY', 'null', 'undefined', 'true', '1e309', '-1', '0x10',
  "'; drop table logs.edge_logs; --", "$1", '@project', '$$', "E'\\x00'", '/*', '*/', '--', '\u0000', '\u202e', '\ud800', '😀'.repeat(50), 'é'.repeat(300),
];
const SQL_TOKENS = [
  'select', 'select', 'from', 'where', 'with', 'as', 'union', 'all', 'order', 'by', 'group', 'limit', 'offset', 'join', 'on', 'into', 'for', 'update', 'share',
  'insert', 'delete', 'drop', 'table', 'values', 'returning', 'lateral', 'distinct', 'having', 'case', 'when', 'then', 'else', 'end', 'and', 'or', 'not', 'null',
  'edge_logs', 'postgres_logs', 'requests', 'window_spec', 'logs.edge_logs', 'pg_catalog.pg_class', 'information_schema.tables', 'pg_sleep(1)', 'pg_read_file',
  'current_setting', 'set_config', 'query_to_xml', 'lo_import', 'dblink', 'count(*)', 'now()', 'generate_series(1,10)', 'id', 'timestamp', 'event_message',
  'metadata', "metadata->>'x'", '*', ',', '(', ')', ';', '=', '<', '>', '+', '-', '/', '%', '::text', "'str'", "E'\\''", '$$x$$', '$1', '@project', '"quoted"',
  '--', '/*', '*/', '1', '0', '1/0', "'2026-01-01'::timestamptz", 'true', 'false', 'x', 'y', 'z', '\u0000', '\n', '\t',
];
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'garbage', '', 'application/json; charset=latin1', '*/*'];
const TOKENS_BAD = ['', 'short', 'x'.repeat(5000), 'test-token-0123456789abcdeF', 'test-token-0123456789abcdef ', 'Bearer', '\u00e9\u00e9\u00e9'];

/** One request; `token` is the valid access token (used most of the time, so requests get past auth). */
export function fuzzRequest(rng: Prng, token: string): FuzzRequest {
  const notes: string[] = [];
  const note = (s: string) => notes.push(s);
  // A third are valid calls with one odd value, so the layers behind validation and the SQL get their share.
  const plausible = rng.chance(0.35);
  if (plausible) note('plausible');
  const method = plausible ? rng.weighted([[6, 'GET'], [3, 'POST'], [1, 'HEAD']] as const) : rng.weighted(METHODS);
  const target = plausible ? plausibleTarget(rng, method === 'POST', note) : fuzzTarget(rng, note);
  const version = plausible ? 'HTTP/1.1' : rng.weighted([[92, 'HTTP/1.1'], [3, 'HTTP/1.0'], [1, 'HTTP/2.0'], [1, 'HTTP/1.2'], [1, 'http/1.1'], [1, 'HTTP/0.9'], [1, '']] as const);
  const headers: [string, string][] = [];
  if (plausible || rng.chance(0.95)) headers.push(['Host', plausible || rng.chance(0.95) ? '127.0.0.1' : rng.pick(['', 'a b', 'x'.repeat(300), 'évil'])]);
  if (plausible) headers.push(['X-API-KEY', token]);
  else authHeaders(rng, token, headers, note);
  if (!plausible || rng.chance(0.3)) extraHeaders(rng, headers, note);

  let body: Buffer = Buffer.alloc(0);
  if (plausible && method === 'POST') body = Buffer.from(JSON.stringify(plausibleBody(rng, target, note)), 'utf8');
  else if (method === 'POST' || rng.chance(0.05)) body = fuzzBody(rng, note);
  if (plausible && body.length > 0) headers.push(['Content-Type', 'application/json'], ['Content-Length', String(body.length)]);
  else body = framing(rng, headers, body, note);
  let halfClose = false;

  const head = [`${method} ${target} ${version}`.trimEnd(), ...headers.map(([n, v]) => `${n}: ${v}`)].join('\r\n') + '\r\n\r\n';
  let bytes: Buffer = Buffer.concat([Buffer.from(head, rng.chance(0.9) ? 'utf8' : 'latin1'), body]);
  if (!plausible && rng.chance(0.08)) {
    const mutated = mutate(rng, bytes, note);
    bytes = mutated.bytes;
    halfClose ||= mutated.cut;
  }
  const summary = `${JSON.stringify(method)} ${JSON.stringify(target.length > 160 ? target.slice(0, 160) + `…(${target.length})` : target)} ${notes.join('; ')}`;
  return { bytes, method, halfClose, summary };
}

/** A known stored query with its required parameters, plus one odd value now and then. */
function plausibleTarget(rng: Prng, post: boolean, note: (s: string) => void): string {
  const usage = rng.chance(0.5);
  const path = '/api/endpoints/query/' + (usage ? rng.pick(['usage.api-counts', USAGE_ID]) : rng.pick(['logs.all', LOGS_ALL_ID]));
  if (post) return path + (usage ? '?interval=daily' : '');
  const params: [string, string][] = usage
    ? [['interval', rng.pick(['daily', 'hourly', 'minutely'])], ['project', rng.pick(['alpha', '.*', 'alpha|beta', '^https://alpha', '[a-z]+', rng.pick(BAD_VALUES)])]]
    : [['project', rng.chance(0.8) ? 'alpha' : randomText(rng, rng.int(20), note)]];
  if (!usage && rng.chance(0.4)) params.push(['iso_timestamp_start', rng.pick([...GOOD_VALUES.slice(5, 8), rng.pick(BAD_VALUES)])]);
  if (rng.chance(0.25)) params.push(['sql', randomSql(rng)]);
  if (rng.chance(0.2)) params.push([rng.pick(PARAM_NAMES), fuzzValue(rng, note)]);
  return path + '?' + params.map(([n, v]) => `${percentEncode(n)}=${percentEncode(v)}`).join('&');
}

function plausibleBody(rng: Prng, target: string, note: (s: string) => void): Record<string, string> {
  const body: Record<string, string> = target.includes('interval=') ? { project: rng.pick(['alpha', '.*']) } : { project: 'alpha' };
  if (rng.chance(0.3)) body.sql = randomSql(rng);
  if (rng.chance(0.2)) body[rng.pick(PARAM_NAMES)] = fuzzValue(rng, note);
  return body;
}

function fuzzTarget(rng: Prng, note: (s: string) => void): string {
  let path: string;
  const kind = rng.int(10);
  if (kind < 6) {
    path = '/api/endpoints/query/' + fuzzSegment(rng, note);
  } else if (kind < 8) {
    path = rng.pick(OTHER_PATHS);
  } else {
    path = '/' + randomText(rng, rng.int(40), note);
  }
  const query = rng.chance(0.85) ? fuzzQuery(rng, note) : '';
  let target = query === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${query}`;
  if (rng.chance(0.03)) target += '#' + randomText(rng, 10, note);
  if (rng.chance(0.01)) {
    target += '&pad=' + 'a'.repeat(20_000); // over MAX_URL_BYTES: 414
    note('url over 20k');
  }
  return target;
}

function fuzzSegment(rng: Prng, note: (s: string) => void): string {
  switch (rng.int(8)) {
    case 0:
      note('malformed % in id');
      return rng.pick(TARGETS).slice(0, rng.int(8)) + rng.pick(MALFORMED_PERCENT);
    case 1:
      return percentEncode(randomText(rng, rng.int(30), note));
    case 2:
      return randomText(rng, rng.int(30), note);
    case 3:
      return rng.chance(0.5) ? 'x'.repeat(rng.between(1000, 9000)) : '';
    default:
      return rng.pick(TARGETS);
  }
}

function fuzzQuery(rng: Prng, note: (s: string) => void): string {
  const parts: string[] = [];
  const n = rng.int(7);
  for (let i = 0; i < n; i++) {
    const name = rng.pick(PARAM_NAMES);
    const value = name === 'sql' ? randomSql(rng) : fuzzValue(rng, note);
    const enc = rng.chance(0.8) ? percentEncode : (s: string) => s;
    parts.push(rng.chance(0.05) ? enc(name) : `${enc(name)}=${enc(value)}`);
    if (rng.chance(0.1)) {
      parts.push(`${enc(name)}=${enc(fuzzValue(rng, note))}`);
      note(`repeated ${name}`);
    }
  }
  if (rng.chance(0.1)) parts.push(rng.pick(MALFORMED_PERCENT) + '=' + rng.pick(MALFORMED_PERCENT));
  if (rng.chance(0.05)) parts.push('', '', '=');
  return parts.join(rng.chance(0.97) ? '&' : rng.pick([';', '&&', '&amp;']));
}

function fuzzValue(rng: Prng, note: (s: string) => void): string {
  switch (rng.int(10)) {
    case 0:
    case 1:
    case 2:
      return rng.pick(BAD_VALUES);
    case 3:
      return randomText(rng, rng.int(60), note);
    case 4: {
      const size = rng.pick([4095, 4096, 4097, 8000, 12_000]);
      note(`value of ${size}`);
      return rng.pick(['a', 'é', '😀', '%']).repeat(size);
    }
    case 5:
      return rng.pick(GOOD_VALUES) + rng.pick(MALFORMED_PERCENT);
    default:
      return rng.pick(GOOD_VALUES);
  }
}

/** encodeURIComponent, except that text it cannot encode (lone surrogates) goes out raw. */
function percentEncode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s;
  }
}

function randomSql(rng: Prng): string {
  const n = rng.between(1, 30);
  const words: string[] = rng.chance(0.7) ? ['select'] : [];
  for (let i = 0; i < n; i++) words.push(rng.pick(SQL_TOKENS));
  return words.join(rng.chance(0.9) ? ' ' : '');
}

/** Text from a mix of ASCII, control bytes, NUL, Latin-1, astral and lone-surrogate code units. */
function randomText(rng: Prng, length: number, note: (s: string) => void): string {
  let s = '';
  for (let i = 0; i < length; i++) {
    const kind = rng.int(20);
    if (kind < 12) s += String.fromCharCode(rng.between(0x21, 0x7e));
    else if (kind < 14) s += String.fromCharCode(rng.int(0x20));
    else if (kind === 14) s += String.fromCharCode(rng.between(0x80, 0xff));
    else if (kind === 15) s += String.fromCodePoint(rng.between(0x1f600, 0x1f64f));
    else if (kind === 16) s += String.fromCharCode(rng.between(0xd800, 0xdfff));
    else if (kind === 17) s += ' ';
    else s += String.fromCharCode(rng.between(0x100, 0x2fff));
  }
  if (/[\u0000-\u001f\u007f]/.test(s)) note('control bytes');
  return s;
}

function authHeaders(rng: Prng, token: string, headers: [string, string][], note: (s: string) => void): void {
  const kind = rng.int(20);
  if (kind < 13) headers.push(['X-API-KEY', token]);
  else if (kind < 15) headers.push(['Authorization', rng.pick([`Bearer ${token}`, `bearer  ${token} `, `Bearer\t${token}`])]);
  else if (kind === 15) note('no token');
  else if (kind === 16) {
    headers.push(['X-API-KEY', rng.pick(TOKENS_BAD)]);
    note('bad token');
  } else if (kind === 17) {
    headers.push(['Authorization', rng.pick(['Basic dXNlcjpwYXNz', 'Bearer', `Bearer ${token} extra`, `Token ${token}`, 'Bearer ' + 'x'.repeat(9000)])]);
    note('bad authorization');
  } else if (kind === 18) {
    headers.push(['X-API-KEY', token], ['X-API-KEY', rng.pick([token, 'other-token-0123456789'])]);
    note('two X-API-KEY');
  } else {
    headers.push(['X-API-KEY', ''], ['Authorization', `Bearer ${token}`]);
  }
}

function extraHeaders(rng: Prng, headers: [string, string][], note: (s: string) => void): void {
  if (rng.chance(0.15)) headers.push(['LF-ENDPOINT-REDACT-PII', rng.pick(['true', 'TRUE', ' true ', 'false', '1', 'yes', '', 'true, true'])]);
  if (rng.chance(0.05)) headers.push(['LF-ENDPOINT-REDACT-PII', 'true'], ['LF-ENDPOINT-REDACT-PII', 'false']);
  if (rng.chance(0.08)) headers.push(['If-None-Match', rng.pick(['*', '"abc"', 'W/"abc"', '"', ',,,', 'x'.repeat(2000)])]);
  if (rng.chance(0.08)) headers.push(['X-Request-Id', rng.pick(['req-1', 'x'.repeat(200), 'bad id with spaces', '../../etc', '😀'])]);
  if (rng.chance(0.05)) headers.push(['Origin', rng.pick(['https://example.com', 'null', ''])]);
  if (rng.chance(0.05)) headers.push(['Accept', rng.pick(['text/html', '*/*', 'application/json;q=0', 'garbage'])]);
  if (rng.chance(0.03)) headers.push(['Expect', rng.pick(['100-continue', 'foo', ''])]);
  if (rng.chance(0.03)) headers.push(['Connection', rng.pick(['keep-alive', 'close', 'Upgrade', 'garbage'])]);
  if (rng.chance(0.02)) headers.push(['Upgrade', 'websocket']);
  if (rng.chance(0.02)) {
    headers.push(['X-Huge', 'h'.repeat(rng.pick([10_000, 40_000]))]);
    note('huge header');
  }
  if (rng.chance(0.01)) {
    for (let i = 0; i < 300; i++) headers.push([`X-Many-${i}`, String(i)]);
    note('300 headers');
  }
  if (rng.chance(0.03)) {
    headers.push([rng.pick(['Bad Header', 'X-Nul\u0000', ':colon', 'X-Ü', '']), 'v']);
    note('bad header name');
  }
  if (rng.chance(0.03)) {
    headers.push(['X-Ctl', rng.pick(['a\u0000b', 'a\u0001b', 'a\u007fb', 'a\rb', 'é😀'])]);
    note('control byte in header');
  }
  if (rng.chance(0.01)) {
    headers.push(['X-Folded', 'one\r\n  two']);
    note('obs-fold');
  }
}

function fuzzBody(rng: Prng, note: (s: string) => void): Buffer {
  const kind = rng.int(14);
  let text: string;
  switch (kind) {
    case 0:
      text = JSON.stringify({ project: rng.pick(GOOD_VALUES), interval: rng.pick(['daily', 'hourly', 'x']) });
      break;
    case 1:
      text = JSON.stringify({ project: 'alpha', sql: randomSql(rng) });
      break;
    case 2:
      text = rng.pick(['{', '{"a":}', 'null', '[]', '"str"', '123', 'true', '{"project":1}', '{"project":null}', '{"project":{"a":1}}', '{"project":["a","b"]}', '{"__proto__":{"x":"1"}}', '{"project":"a","project":"b"}', '{} {}', 'undefined', 'NaN']);
      note('odd json');
      break;
    case 3:
      text = '\ufeff' + JSON.stringify({ project: 'alpha' });
      note('bom');
      break;
    case 4:
      text = rng.pick(['[', '{"a":']).repeat(rng.pick([1000, 100_000]));
      note('deep nesting');
      break;
    case 5:
      note('body over the limit');
      return Buffer.alloc(rng.pick([262_145, 400_000]), 0x61);
    case 6:
      note('binary body');
      return Buffer.from(Array.from({ length: rng.int(200) }, () => rng.int(256)));
    case 7:
      text = 'project=alpha&interval=daily';
      break;
    case 8:
      text = JSON.stringify({ project: 'x'.repeat(rng.pick([4096, 5000])) });
      break;
    case 9:
      text = `{"project":"a\u0000b"}`;
      break;
    case 10:
      text = '';
      break;
    default:
      text = JSON.stringify(Object.fromEntries(Array.from({ length: rng.int(6) }, () => [rng.pick(PARAM_NAMES), rng.pick([...GOOD_VALUES, ...BAD_VALUES])])));
  }
  return Buffer.from(text, 'utf8');
}

/** Content-Length or chunked framing, correct most of the time; returns the body as framed. */
function framing(rng: Prng, headers: [string, string][], body: Buffer, note: (s: string) => void): Buffer {
  const kind = rng.int(30);
  if (body.length === 0 && kind < 25) return body;
  if (kind < 24) {
    headers.push(['Content-Type', rng.pick(CONTENT_TYPES)], ['Content-Length', String(body.length)]);
  } else if (kind === 24) {
    headers.push(['Content-Length', String(Math.max(0, body.length - rng.between(1, 5)))]);
    note('short content-length');
  } else if (kind === 25) {
    headers.push(['Content-Length', rng.pick(['abc', '-1', '1e3', ' 5', '5, 6', '99999999999999999999'])]);
    note('bad content-length');
    return body;
  } else if (kind === 26) {
    headers.push(['Content-Length', String(body.length)], ['Content-Length', String(body.length + 1)]);
    note('two content-lengths');
    return body;
  } else if (kind === 27) {
    headers.push(['Transfer-Encoding', 'chunked'], ['Content-Length', String(body.length)]);
    note('te and cl');
    return body;
  } else {
    headers.push(['Transfer-Encoding', rng.pick(['chunked', 'gzip, chunked', 'identity', 'chunked, chunked'])]);
    note('chunked');
    const size = rng.chance(0.9) ? body.length.toString(16) : rng.pick(['zz', '-1', 'fffffffffffffffff', '1;ext=1']);
    const chunk = body.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from(`${size}\r\n`), body, Buffer.from('\r\n')]);
    return Buffer.concat([chunk, Buffer.from('0\r\n\r\n')]);
  }
  return body;
}

/** Byte-level damage to a finished request; `cut` when it was truncated (and so is certainly incomplete). */
function mutate(rng: Prng, bytes: Buffer, note: (s: string) => void): { bytes: Buffer; cut: boolean } {
  const copy = Buffer.from(bytes);
  switch (rng.int(5)) {
    case 0: {
      // Bytes HTTP never allows in a head, so the damage is refused at once rather than misframing the request.
      const at = rng.int(copy.length);
      copy[at] = rng.pick([0x00, 0x01, 0x7f]);
      note(`byte ${at} damaged`);
      return { bytes: copy, cut: false };
    }
    case 1:
      note('bare LF line ends');
      return { bytes: Buffer.from(copy.toString('latin1').replaceAll('\r\n', '\n'), 'latin1'), cut: false };
    case 2: {
      // At least one byte: a connection that sends nothing gets no answer, rightly.
      const at = rng.between(1, Math.max(1, copy.length - 1));
      note(`truncated at ${at}`);
      return { bytes: copy.subarray(0, at), cut: true };
    }
    case 3:
      note('two requests');
      return { bytes: Buffer.concat([copy, copy]), cut: false };
    default:
      note('leading CRLFs');
      return { bytes: Buffer.concat([Buffer.from('\r\n\r\n'), copy]), cut: false };
  }
}
