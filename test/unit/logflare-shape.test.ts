import assert from 'node:assert/strict';
import { test } from 'node:test';
import { datetimeText, textParsers, unixMicros, wrapNestedObjects } from '../../src/store/values/response-shape.ts';
import { OID, RawJson, TEXT_PARSERS } from '../../src/store/values/pg-text.ts';

const WRAPS: readonly (readonly [jsonb: string, logflare: string])[] = [
  ['{"a": 1}', '[{"a": 1}]'],
  ['{"request": {"headers": {"cf_connecting_ip": "203.0.113.1"}}}', '[{"request": [{"headers": [{"cf_connecting_ip": "203.0.113.1"}]}]}]'],
  ['[{"a": {"b": 1}}, {"c": 2}]', '[{"a": [{"b": 1}]}, {"c": 2}]'],
  ['{"tags": [{"a": {"b": {}}}, "x", 3]}', '[{"tags": [{"a": [{"b": [{}]}]}, "x", 3]}]'],
  ['{"s": "a {not: an object} [x]", "t": {"u": "\\"}{"}}', '[{"s": "a {not: an object} [x]", "t": [{"u": "\\"}{"}]}]'],
  ['{"big": 9007199254740993, "neg": -1.5e300}', '[{"big": 9007199254740993, "neg": -1.5e300}]'],
  ['{}', '[{}]'],
  ['"text {"', '"text {"'],
  ['42', '42'],
  ['null', 'null'],
  ['[1, [2, {"k": {"v": []}}]]', '[1, [2, {"k": [{"v": []}]}]]'],
  ['{"a": [], "b": {"c": [{"d": {"e": 1}}]}}', '[{"a": [], "b": [{"c": [{"d": [{"e": 1}]}]}]}]'],
];

test('every JSON object under a key (or as the value itself) is a one-element array; objects in arrays are not', () => {
  for (const [jsonb, logflare] of WRAPS) {
    assert.equal(wrapNestedObjects(jsonb), logflare, jsonb);
    // The text stays valid JSON, and nothing but the wrapping changed.
    JSON.parse(wrapNestedObjects(jsonb));
  }
});

test('timestamptz text → exact unix microseconds; what has none stays text', () => {
  const cases: [string, number | string][] = [
    ['2026-11-22 10:15:30.123456+00', 1795342530123456],
    ['2026-11-22 10:15:30.5+00', 1795342530500000],
    ['2026-11-22 10:15:30+00', 1795342530000000],
    ['1970-01-01 00:00:00+00', 0],
    ['1969-12-31 23:59:59.999999+00', -1],
    ['1800-01-01 00:00:00+00', -5364662400000000],
    // Beyond ±2^53 µs (before 1685, after 2255) a number would round: the text is kept.
    ['0050-01-01 00:00:00+00', '0050-01-01 00:00:00+00'],
    ['infinity', 'infinity'],
    ['2000-01-01 00:00:00+00 BC', '2000-01-01 00:00:00+00 BC'],
    ['294277-01-01 00:00:00+00', '294277-01-01 00:00:00+00'],
  ];
  for (const [text, micros] of cases) assert.equal(unixMicros(text), micros, text);
});

test('timestamp text → DATETIME text: T separator, no zone, six fractional digits when there is a fraction', () => {
  assert.equal(datetimeText('2026-11-22 10:15:30'), '2026-11-22T10:15:30');
  assert.equal(datetimeText('2026-11-22 10:15:30.5'), '2026-11-22T10:15:30.500000');
  assert.equal(datetimeText('2026-11-22 10:15:30.123456'), '2026-11-22T10:15:30.123456');
  assert.equal(datetimeText('infinity'), 'infinity');
});

test('the standard shape is untouched; the Logflare shape changes only timestamps and JSON', () => {
  assert.equal(textParsers('standard'), TEXT_PARSERS);
  const lf = textParsers('logflare');
  assert.equal(lf[OID.int8], TEXT_PARSERS[OID.int8]);
  assert.equal(lf[OID.timestamptz]!('2026-11-22 10:15:30+00'), 1795342530000000);
  assert.equal(lf[OID.timestamp]!('2026-11-22 10:15:30'), '2026-11-22T10:15:30');
  const json = lf[OID.jsonb]!('{"a": {"b": 1}}');
  assert.ok(json instanceof RawJson);
  assert.equal(json.text, '[{"a": [{"b": 1}]}]');
  assert.equal((lf[OID.json]!('{"a": {}}') as RawJson).text, '[{"a": [{}]}]');
});
