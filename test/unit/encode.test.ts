import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOSTILE_STRINGS } from '../support/hostile-strings.ts';
import { RawJson, TEXT_PARSERS, OID, encodeInt8, encodeNumeric, encodeTimestamp } from '../../src/store/values/pg-text.ts';
import { encodeResult } from '../../src/query/encode-result.ts';
import { redactRows } from '../../src/query/redact.ts';

const TIMESTAMPS: [string, string][] = [
  ['2026-11-22 10:15:30.123456+00', '2026-11-22T10:15:30.123456Z'],
  ['2026-11-22 10:15:30.1+00', '2026-11-22T10:15:30.100000Z'],
  ['2026-11-22 10:15:30+00', '2026-11-22T10:15:30.000000Z'],
  ['2026-11-22 10:15:30.000001+00', '2026-11-22T10:15:30.000001Z'],
  ['2026-11-22 10:15:30.5', '2026-11-22T10:15:30.500000Z'], // timestamp without time zone
  ['infinity', 'infinity'],
  ['0044-03-15 12:00:00+00 BC', '0044-03-15 12:00:00+00 BC'],
  // Past the four-digit years the common case is converted by position: the pattern converts these.
  ['10000-01-01 00:00:00+00', '10000-01-01T00:00:00.000000Z'],
  ['12345-06-07 08:09:10.25+00', '12345-06-07T08:09:10.250000Z'],
  ['2026-11-22 10:15:30.12+00', '2026-11-22T10:15:30.120000Z'],
  ['2026-11-22 10:15:30.1234+00', '2026-11-22T10:15:30.123400Z'],
  // Not timestamps: the same text back whichever way they are looked at.
  ['2026-11-22 10:15:30.+00', '2026-11-22 10:15:30.+00'],
  ['2026-11-22 10:15:30.1234567+00', '2026-11-22 10:15:30.1234567+00'],
  ['2026-11-22 10:15:3x.123+00', '2026-11-22 10:15:3x.123+00'],
  ['2026-11-22T10:15:30.123+00', '2026-11-22T10:15:30.123+00'],
  ['2026-11-22 10:15:30.123+01', '2026-11-22 10:15:30.123+01'],
  ['2026-11-22 10:15:30.1x3+00', '2026-11-22 10:15:30.1x3+00'],
];
for (const [input, expected] of TIMESTAMPS) {
  test(`encodeTimestamp(${input})`, () => assert.equal(encodeTimestamp(input), expected));
}

test('int8 becomes a JSON integer when exact, text beyond 2^53', () => {
  assert.equal(encodeInt8('42'), 42);
  assert.equal(encodeInt8('-9007199254740991'), -9007199254740991);
  assert.equal(encodeInt8('9007199254740993'), '9007199254740993');
});

test('numeric becomes a number, except values a double cannot hold', () => {
  assert.equal(encodeNumeric('1.5'), 1.5);
  assert.equal(encodeNumeric('12'), 12);
  assert.equal(encodeNumeric('NaN'), 'NaN');
  assert.equal(encodeNumeric('123456789012345678901234567890'), '123456789012345678901234567890');
});

test('encodeResult writes what JSON.stringify({ result }) writes for plain values', () => {
  const rows = [
    { id: 'a"\\\n\u2028', n: 42, big: '9007199254740993', ok: true, none: null, nested: { '1': [1, 'x'], __proto__x: 2 } },
    { id: 'b', skipped: undefined, f: 1.5 },
    {},
    // Runs of rows with the same keys reuse their labels; a leading undefined moves the comma.
    { a: undefined, b: 1 },
    { a: 2, b: 3 },
    { a: 4, b: undefined },
    { b: 5, a: 6 },
  ];
  assert.equal(encodeResult(rows).toString('utf8'), JSON.stringify({ result: rows }));
  assert.equal(encodeResult([]).toString('utf8'), '{"result":[]}');
});

test('encodeResult writes strings that need escaping, and bodies past the buffer pool, as JSON.stringify does', () => {
  const small = HOSTILE_STRINGS.map((s, i) => ({ i, s }));
  assert.equal(encodeResult(small).toString('utf8'), JSON.stringify({ result: small }));
  // ~60 KB of multi-byte text: the body is sized from its UTF-8 length, not its string length.
  const large = Array.from({ length: 200 }, (_, i) => ({ i, s: HOSTILE_STRINGS.join('|').repeat(3) }));
  const body = encodeResult(large);
  assert.equal(body.toString('utf8'), JSON.stringify({ result: large }));
  assert.equal(body.length, Buffer.byteLength(JSON.stringify({ result: large })));
});

test('encodeResult splices jsonb text verbatim; anywhere else it is its parsed value', () => {
  const text = '{"a": 1, "b": [true, null, 1.50], "big": 12345678901234567890}';
  const raw = TEXT_PARSERS[OID.jsonb]!(text);
  assert.ok(raw instanceof RawJson);
  const body = encodeResult([{ id: 'x', metadata: raw }]).toString('utf8');
  assert.equal(body, `{"result":[{"id":"x","metadata":${text}}]}`);
  assert.deepEqual(JSON.parse(body).result[0].metadata, JSON.parse(text));
  assert.equal(JSON.stringify({ m: raw }), JSON.stringify({ m: JSON.parse(text) }));
});

test('redaction looks inside jsonb left as text', () => {
  const raw = new RawJson('{"request": {"headers": {"x-forwarded-for": "198.51.100.2"}}, "user": "alice@example.com"}');
  const [row] = redactRows([{ metadata: raw }]);
  assert.ok(row!.metadata instanceof RawJson);
  assert.equal((row!.metadata as RawJson).text, '{"request": {"headers": {"x-forwarded-for": "REDACTED"}}, "user": "REDACTED"}');
});
