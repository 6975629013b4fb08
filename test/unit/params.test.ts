import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../src/errors.ts';
import { canonicalTimestamp, validateParams, type ParamSpec } from '../../src/query/params.ts';

const TIMESTAMPS: [string, string | null][] = [
  ['2026-11-22T10:15:30.123456Z', '2026-11-22T10:15:30.123456+00:00'],
  ['2026-11-22T10:15:30Z', '2026-11-22T10:15:30+00:00'],
  ['2026-11-22T10:15:30', '2026-11-22T10:15:30+00:00'], // no offset: UTC
  ['2026-11-22 10:15:30', '2026-11-22T10:15:30+00:00'],
  ['2026-11-22t10:15:30z', '2026-11-22T10:15:30+00:00'],
  ['2026-11-22T10:15', '2026-11-22T10:15:00+00:00'],
  ['2026-11-22', '2026-11-22T00:00:00+00:00'],
  ['2026-11-22T10:15:30+05:30', '2026-11-22T10:15:30+05:30'],
  ['2026-11-22T10:15:30-0800', '2026-11-22T10:15:30-08:00'],
  ['2026-11-22T10:15:30+01', '2026-11-22T10:15:30+01:00'],
  ['2026-11-22T10:15:30,5Z', '2026-11-22T10:15:30.5+00:00'],
  ['2026-11-22T10:15:30.123456789Z', '2026-11-22T10:15:30.123456789+00:00'],
  ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00+00:00'],
  ['2026-02-29T00:00:00Z', null], // not a leap year
  ['2026-13-01', null],
  ['2026-00-10', null],
  ['2026-04-31', null],
  ['2026-11-22T24:00:00Z', null],
  ['2026-11-22T10:60:00Z', null],
  ['2026-11-22T10:15:61Z', null],
  ['2026-11-22T10:15:30+16:00', null],
  ['0000-01-01', null],
  ['yesterday', null],
  ['now', null],
  ['1700000000', null],
  ['2026-11-22T10:15:30.Z', null],
  ['2026-11-22T10:15:30.1234567890Z', null],
  [' 2026-11-22', null],
  ["2026-11-22'; drop table x; --", null],
  ['2026-1-2', null],
];

for (const [input, expected] of TIMESTAMPS) {
  test(`canonicalTimestamp(${JSON.stringify(input)})`, () => assert.equal(canonicalTimestamp(input), expected));
}

const SPECS: Record<string, ParamSpec> = {
  project: { type: 'string', required: true },
  start: { type: 'timestamp', required: false },
  interval: { type: 'enum', required: false, values: ['hourly', 'daily'] },
};
const raw = (o: Record<string, string[]>) => new Map(Object.entries(o));

test('validateParams: declared values canonicalised, absent and empty are null, unknown ignored', () => {
  assert.deepEqual(validateParams(SPECS, raw({ project: ['p'], start: ['2026-01-01'], other: ['x'] })), {
    project: 'p',
    start: '2026-01-01T00:00:00+00:00',
    interval: null,
  });
  assert.deepEqual(validateParams(SPECS, raw({ project: ['p'], start: [''] })), { project: 'p', start: null, interval: null });
});

const FAILURES: [string, Record<string, string[]>, string, string][] = [
  ['required absent', {}, 'missing_parameter', 'project'],
  ['required empty', { project: [''] }, 'missing_parameter', 'project'],
  ['repeated', { project: ['a', 'b'] }, 'invalid_parameter', 'project'],
  ['enum outside', { project: ['p'], interval: ['weekly'] }, 'invalid_parameter', 'interval'],
  ['enum wrong case', { project: ['p'], interval: ['Hourly'] }, 'invalid_parameter', 'interval'],
  ['bad timestamp', { project: ['p'], start: ['soon'] }, 'invalid_parameter', 'start'],
  ['NUL', { project: ['a\0b'] }, 'invalid_parameter', 'project'],
  ['too long', { project: ['x'.repeat(5000)] }, 'invalid_parameter', 'project'],
];
for (const [name, input, code, param] of FAILURES) {
  test(`validateParams rejects: ${name}`, () => {
    assert.throws(() => validateParams(SPECS, raw(input)), (err: unknown) => err instanceof HttpError && err.code === code && err.param === param);
  });
}
