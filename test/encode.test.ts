import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeInt8, encodeNumeric, encodeTimestamp } from '../src/encode.ts';

const TIMESTAMPS: [string, string][] = [
  ['2026-11-22 10:15:30.123456+00', '2026-11-22T10:15:30.123456Z'],
  ['2026-11-22 10:15:30.1+00', '2026-11-22T10:15:30.100000Z'],
  ['2026-11-22 10:15:30+00', '2026-11-22T10:15:30.000000Z'],
  ['2026-11-22 10:15:30.000001+00', '2026-11-22T10:15:30.000001Z'],
  ['2026-11-22 10:15:30.5', '2026-11-22T10:15:30.500000Z'], // timestamp without time zone
  ['infinity', 'infinity'],
  ['0044-03-15 12:00:00+00 BC', '0044-03-15 12:00:00+00 BC'],
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
