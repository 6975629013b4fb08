import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REDACTED, redactRows, redactString, redactValue } from '../../src/query/redact.ts';
import { RawJson } from '../../src/store/values/pg-text.ts';

const R = REDACTED;

// Every address shape docs/redaction.md names, alone and in the places logs put them.
const POSITIVE: { input: string; expected: string }[] = [
  // IPv4
  { input: '1.2.3.4', expected: R },
  { input: '0.0.0.0', expected: R },
  { input: '255.255.255.255', expected: R },
  { input: '10.010.001.1', expected: R },
  { input: '1.2.3.4:5432', expected: R },
  { input: '211.2.3.45', expected: R },
  { input: 'connection from 192.168.1.20 refused', expected: `connection from ${R} refused` },
  { input: 'host=10.0.0.12 port=5432', expected: `host=${R} port=5432` },
  { input: 'client (203.0.113.7), upstream [198.51.100.2].', expected: `client (${R}), upstream [${R}].` },
  { input: '"ip":"203.0.113.7"', expected: `"ip":"${R}"` },
  { input: 'http://10.0.0.1:8080/x', expected: `http://${R}/x` },
  { input: 'https://192.0.2.1/login?next=/', expected: `https://${R}/login?next=/` },
  { input: 'upstream 10.2.3.4:5432 timed out after 10:00:30.250', expected: `upstream ${R} timed out after 10:00:30.250` },
  { input: '1.2.3.4,5.6.7.8;9.10.11.12', expected: `${R},${R};${R}` },
  { input: 'version 15.1.0.147', expected: `version ${R}` },
  { input: 'GET /hosts/10.0.0.1/status', expected: `GET /hosts/${R}/status` },
  { input: '1.2.3.4:123456 and 1.2.3.4:db', expected: `${R}:123456 and ${R}:db` },
  // Joined to words by `_` (log keys), and percent-encoded in URLs.
  { input: 'client_198.51.100.24', expected: `client_${R}` },
  { input: '198.51.100.25_port', expected: `${R}_port` },
  { input: '/signup?email=bob%40example.com&x=1', expected: `/signup?email=${R}&x=1` },
  { input: '/peers?addr=2001%3Adb8%3A%3A26', expected: `/peers?addr=${R}` },
  { input: '/peers?addr=198%2E51%2E100%2E9', expected: `/peers?addr=${R}` },
  // IPv6
  { input: '2001:0db8:85a3:0000:0000:8a2e:0370:7334', expected: R },
  { input: '1:2:3:4:5:6:7:8', expected: R },
  { input: '2001:db8::1', expected: R },
  { input: '::1', expected: R },
  { input: 'fe80::1', expected: R },
  { input: 'fe80::', expected: R },
  { input: 'FE80::ABCD:12', expected: R },
  { input: 'fe80::1%eth0', expected: R },
  { input: 'fe80::1%25eth0.100 up', expected: `${R} up` },
  { input: '::ffff:192.0.2.1', expected: R },
  { input: '0:0:0:0:0:ffff:192.168.100.200', expected: R },
  { input: '[2001:db8::1]:8080', expected: R },
  { input: '[::1]', expected: R },
  { input: 'http://[2001:db8::1]:8080/x', expected: `http://${R}/x` },
  { input: 'listening on [::]:5432 and [::1]:5432', expected: `listening on [::]:5432 and ${R}` },
  { input: 'peer 2001:db8::1. Retrying', expected: `peer ${R}. Retrying` },
  { input: 'x-forwarded-for: 203.0.113.7, 2001:db8::2', expected: `x-forwarded-for: ${R}, ${R}` },
  { input: "addrs=['::1','10.0.0.1']", expected: `addrs=['${R}','${R}']` },
  { input: '00:11:22:33:44:55:66:77', expected: R },
  // E-mail
  { input: 'joe@example.com', expected: R },
  { input: 'JOE.SMITH@EXAMPLE.CO.UK', expected: R },
  { input: "o'brien+logs@mail.example.org", expected: R },
  { input: "a.b!$%'*+^_`{}~-c@sub-domain.example.io", expected: R },
  // `/ = ? & # |` are legal atext but treated as delimiters before the address (see redact.ts).
  { input: 'SRS0=ab=cd=joe@fwd.example.net', expected: `SRS0=ab=cd=${R}` },
  { input: 'password authentication failed for user "joe@example.com"', expected: `password authentication failed for user "${R}"` },
  { input: 'To: Joe <joe@example.com>, ann@b.io; (ops@corp.example)', expected: `To: Joe <${R}>, ${R}; (${R})` },
  { input: "email='joe@example.com'", expected: `email='${R}'` },
  // `eq.joe` is itself a valid dot-atom local part, so PostgREST's `eq.` goes with it.
  { input: '/rest/v1/users?email=eq.joe@example.com&select=*', expected: `/rest/v1/users?email=${R}&select=*` },
  { input: 'GET /users/joe@example.com/profile', expected: `GET /users/${R}/profile` },
  { input: 'mailto:joe@example.com', expected: `mailto:${R}` },
  { input: 'a|b|c@d.io', expected: `a|b|${R}` },
  { input: 'Contact joe@example.com.', expected: `Contact ${R}.` },
  { input: 'https://user:secret@example.com/x', expected: `https://user:${R}/x` },
  // Internationalised (RFC 6531) and punycode addresses
  { input: 'josé@exämple.com', expected: R },
  { input: 'carol@xn--80akhbyknj4f.xn--p1ai', expected: R },
  { input: 'signup from Ünïcödé.user@bücher.de ok', expected: `signup from ${R} ok` },
  { input: '用户@例子.广告', expected: R },
  { input: 'почта@пример.рф', expected: R },
  { input: 'Contact josé@exämple.com.', expected: `Contact ${R}.` },
  { input: '/rest/v1/users?email=eq.zoë@xn--bcher-kva.ch&select=*', expected: `/rest/v1/users?email=${R}&select=*` },
  { input: 'bob%40xn--bcher-kva.ch', expected: R },
  // Mixed
  { input: 'joe@example.com from 203.0.113.7 and [2001:db8::7]:443', expected: `${R} from ${R} and ${R}` },
];

// Look-alikes that must come back exactly as they went in.
const NEGATIVE: string[] = [
  '12345678901',
  'order 12345678901 shipped',
  '1.2.3',
  'v10.2.1.4.5',
  '1.2.3.4.5',
  'x2211.2.3.4',
  '999.1.1.1',
  '1.2.3.256',
  'node/20.11.0 supabase-js/2.39.0',
  'Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  '10:15:30',
  'took 10:15:30.123456',
  '2026-11-22T10:15:30.123456Z',
  '2026-11-22 10:15:30+00',
  'dbfa1333-137e-484c-a48a-ab8e074edc7c',
  'dead:beef',
  'cafe:babe:dead:beef',
  '00:1a:2b:3c:4d:5e',
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '::',
  'std::vector<int>',
  'a::b',
  'f64::consts::PI',
  '1:2:3:4:5:6:7:8:9',
  '1::2::3',
  ':::1',
  '::ffff:999.0.2.1',
  '@user thanks',
  'user@localhost',
  'root@db-1',
  'lodash@4.17.21',
  '/img/logo@2x.png',
  // Internationalised near misses: no dot, no TLD, an asset path, a lone punycode label.
  'josé@localhost',
  'naïve@host-1',
  '/img/ícone@2x.png',
  'xn--p1ai',
  'carol@xn--p1ai',
  'josé@exämple.c',
  'https://example.com/path?x=1#frag',
  'ratio 16:9 at 3.5',
  '',
];

test('redactString replaces every address form', () => {
  assert.ok(POSITIVE.length >= 35);
  for (const { input, expected } of POSITIVE) {
    assert.equal(redactString(input), expected, `input: ${input}`);
  }
});

test('redactString leaves look-alikes untouched', () => {
  assert.ok(NEGATIVE.length >= 25);
  for (const input of NEGATIVE) {
    assert.equal(redactString(input), input, `input: ${input}`);
  }
});

test('redactString scans long hex, digit and base64 runs in linear time', () => {
  const runs = ['1:'.repeat(50_000), 'a'.repeat(100_000) + '@', '1.'.repeat(50_000), 'Ab+/='.repeat(20_000) + '@x'];
  const start = performance.now();
  for (const s of runs) assert.equal(redactString(s), s);
  assert.ok(performance.now() - start < 500, 'pathological input took too long');
});

test('redactValue redacts strings at any depth and leaves keys and other values alone', () => {
  const row = {
    id: 'dbfa1333-137e-484c-a48a-ab8e074edc7c',
    count: 12345678901,
    ok: true,
    missing: null,
    event_message: 'login by joe@example.com',
    metadata: {
      'joe@example.com': 'key looks like an e-mail',
      '10.0.0.1': 42,
      request: {
        headers: [{ name: 'x-forwarded-for', value: '203.0.113.7, ::1' }, { name: 'accept', value: '*/*' }],
        peers: [['1.2.3.4', 7], []],
      },
      response: { status_code: 200 },
    },
  };
  assert.deepEqual(redactValue(row), {
    ...row,
    event_message: `login by ${R}`,
    metadata: {
      'joe@example.com': 'key looks like an e-mail',
      '10.0.0.1': 42,
      request: {
        headers: [{ name: 'x-forwarded-for', value: `${R}, ${R}` }, { name: 'accept', value: '*/*' }],
        peers: [[R, 7], []],
      },
      response: { status_code: 200 },
    },
  });
});

test('redactValue does not mutate its input and shares what did not change', () => {
  const row = { a: { ip: '10.0.0.1' }, b: { text: 'nothing here' }, list: ['x', 'joe@example.com'] };
  const snapshot = structuredClone(row);
  const out = redactValue(row) as typeof row;
  assert.deepEqual(row, snapshot);
  assert.notEqual(out, row);
  assert.equal(out.b, row.b);
  assert.deepEqual(out.list, ['x', R]);
  const clean = { a: 1, b: ['c'] };
  assert.equal(redactValue(clean), clean);
});

test('redactValue keeps an own __proto__ key as data', () => {
  const row = JSON.parse('{"__proto__": "joe@example.com", "x": 1}') as Record<string, unknown>;
  const out = redactValue(row) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out), ['__proto__', 'x']);
  assert.equal(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, R);
});

test('redactValue passes non-plain objects and scalars through', () => {
  const date = new Date(0);
  assert.equal(redactValue(date), date);
  assert.equal(redactValue(5), 5);
  assert.equal(redactValue(10n), 10n);
  assert.equal(redactValue(undefined), undefined);
});

test('redactRows redacts every row and leaves the input array alone', () => {
  const rows = [{ m: '1.2.3.4' }, { m: 'clean' }];
  const out = redactRows(rows);
  assert.deepEqual(out, [{ m: R }, { m: 'clean' }]);
  assert.deepEqual(rows, [{ m: '1.2.3.4' }, { m: 'clean' }]);
  assert.equal(out[1], rows[1]);
  assert.deepEqual(redactRows([]), []);
});

test('percent-encoding without an address inside is left exactly as sent', () => {
  for (const s of ['/search?q=a%40b', '/x?t=10%3A30', 'v%2E1 release', '100%40 done']) assert.equal(redactString(s), s);
});

// Regression: a redacted answer printed jsonb compactly (`{"a":"b"}`), unlike every other answer.
test('jsonb text is redacted in place: keys, spacing, order and escapes stay as PostgreSQL printed them', () => {
  const cases: [string, string][] = [
    ['{"ip": "10.0.0.1", "n": 1}', '{"ip": "REDACTED", "n": 1}'],
    ['{"a": {"10.0.0.1": "to a@b.io"}, "b": [1, "x\\"y 10.0.0.2", null]}', '{"a": {"10.0.0.1": "to REDACTED"}, "b": [1, "x\\"y REDACTED", null]}'],
    ['{"k" : "::1", "tab": "\\t"}', '{"k" : "REDACTED", "tab": "\\t"}'],
    ['{"plain": "nothing here"}', '{"plain": "nothing here"}'],
    ['"10.0.0.1"', '"REDACTED"'],
  ];
  for (const [text, want] of cases) {
    const raw = new RawJson(text);
    const out = redactValue(raw) as RawJson;
    assert.ok(out instanceof RawJson, text);
    assert.equal(out.text, want, text);
    if (want === text) assert.equal(out, raw, 'unchanged text is shared');
  }
});
